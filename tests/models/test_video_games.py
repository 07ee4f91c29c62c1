"""Rendered videos of Commander Chess and Cờ Toán: stacks, captures in place, one-for-one
trades, the referee's put-back crossings, Cờ Toán captures; the pixels change where the
engine says the board changed."""

import functools

import cv2
import numpy as np
import pytest

import games
from calibration import profile
from models.synth.playout import random_game
from models.synth.video import plan_ply, render_game, seen
from vision.classes import EMPTY, appearance

SIZE = (640, 360)
FPS = 10


def first_and_last_frames(path):
    capture = cv2.VideoCapture(str(path))
    ok, first = capture.read()
    assert ok
    last = first
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        last = frame
    return first, last


def assert_pixels_follow_the_board(rendered, before_board, after_board, game):
    """Where a point filled or emptied, its top-face pixels changed more than anywhere else moved."""
    truth = rendered.truth_data
    calibration = profile.from_dict(truth["calibration"])
    first, last = first_and_last_frames(rendered.video)
    before, after = appearance(game, before_board), appearance(game, after_board)
    radius = max(2, int(calibration.piece_radius_px() * 0.5))
    changed, same = [], []
    for point in before:
        x, y = (int(round(v)) for v in calibration.piece_center_pixel(point))
        b = last[y - radius:y + radius, x - radius:x + radius].astype(float)
        b = b / max(b.mean(), 1.0)
        differences = []
        for dy in range(-3, 4):  # the camera shakes a few pixels: compare at the best alignment
            for dx in range(-3, 4):
                a = first[y - radius + dy:y + radius + dy, x - radius + dx:x + radius + dx].astype(float)
                # Colour and pattern (a glyph, a rim), each crop's own brightness taken out: the light drifts.
                a = a / max(a.mean(), 1.0)
                differences.append(np.abs(a - b).mean() + np.abs(a.mean(axis=(0, 1)) - b.mean(axis=(0, 1))).sum())
        difference = float(min(differences))
        if (before[point] == EMPTY) != (after[point] == EMPTY):
            changed.append(difference)
        elif before[point] == after[point]:
            same.append(difference)
    assert changed, "the test position has no change of occupancy"
    assert min(changed) > np.percentile(same, 90), (sorted(changed)[:3], np.percentile(same, 90))


@functools.lru_cache
def commander_game(seed):
    return random_game("commander", 80, seed=seed, penalties=0.05)


def position_before(game, moves, ply, referee=False):
    variant = games.get(game)
    board = variant.board_class(referee=True) if referee else variant.board()
    for text in moves[:ply]:
        board.push(variant.parse_move(board, text))
    return board


# One-for-one trades, captures in place, stacking, split turns, put-back crossings, and an
# aircraft shot down by air defence (seed 20 has one).
@pytest.mark.parametrize("seed, op", [(3, "><"), (3, "@_"), (3, "("), (3, "/"), (3, "$"), (20, '@"')])
def test_commander_special_turns(tmp_path, seed, op):
    game = commander_game(seed)
    ply = next(i for i, text in enumerate(game) if op in text)
    text = game[ply]
    board = position_before("commander", game, ply, referee=True)
    before_board = board.copy()
    variant = games.get("commander")
    after_board = board.copy()
    after_board.push(variant.parse_move(after_board, text))
    rendered = render_game("commander", [text], tmp_path, seed=20 + ply, start_fen=board.fen(), fps=FPS, size=SIZE)
    truth = rendered.truth_data
    assert truth["referee"] == ("$" in text)
    assert [m["move"] for m in truth["moves"]] == [variant.notation().format(before_board, variant.parse_move(
        before_board, text))]
    move = truth["moves"][0]
    assert move["frame_start"] < move["frame_done"] < truth["frames"]
    assert truth["repaired_plies"] == []
    if op == "$":  # across the water and back: nothing changes, the turn passes
        assert seen("commander", after_board) == seen("commander", before_board)
        assert after_board.turn is not before_board.turn
    else:
        assert_pixels_follow_the_board(rendered, before_board, after_board, "commander")


def test_stay_capture_plan_leaves_the_attacker():
    game = commander_game(3)
    ply = next(i for i, text in enumerate(game) if "@_" in text)
    board = position_before("commander", game, ply, referee=True)
    before = seen("commander", board)
    move = games.get("commander").parse_move(board, game[ply])
    board.push(move)
    plan = plan_ply(before, seen("commander", board), (move.from_point, move.to_point))
    assert not plan.carries and plan.removals == [move.to_point]


def test_shot_down_aircraft_plan_removes_both():
    from games import Point

    aircraft, target = Point(2, 2), Point(2, 8)
    before = {aircraft: "red_air_force", target: "blue_tank", Point(3, 8): "blue_anti_aircraft"}
    after = {Point(3, 8): "blue_anti_aircraft"}
    plan = plan_ply(before, after, (aircraft, target))
    assert not plan.carries and sorted(plan.removals) == sorted([aircraft, target]) and not plan.vanishes


def test_cotoan_game_with_captures(tmp_path):
    moves = random_game("cotoan", 80, seed=3)
    variant = games.get("cotoan")
    board = variant.board()
    ply = 0
    while board.piece_at(variant.parse_move(board, moves[ply]).to_point) is None:
        board.push(variant.parse_move(board, moves[ply]))
        ply += 1  # an IndexError here: no capture in the whole game
    before_board = board.copy()
    window = moves[ply:ply + 2]
    rendered = render_game("cotoan", window, tmp_path, seed=9, start_fen=board.fen(), fps=FPS, size=SIZE,
                           illegal_after=[1])
    for text in window:
        board.push(variant.parse_move(board, text))
    assert rendered.truth_data["final_fen"] == board.fen()
    assert len(rendered.truth_data["illegal"]) == 1
    assert rendered.truth_data["repaired_plies"] == []
    assert_pixels_follow_the_board(rendered, before_board, board, "cotoan")


@pytest.mark.parametrize("game, penalties", [("commander", 0.05), ("cotoan", 0.0)])
def test_random_games_are_legal_and_long_enough(game, penalties):
    moves = random_game(game, seed=3, penalties=penalties)
    assert len(moves) == 80
    variant = games.get(game)
    board = variant.board_class(referee=True) if penalties else variant.board()
    for text in moves:
        board.push(variant.parse_move(board, text))
    assert board.outcome() is None or len(board.move_stack) == 80
    if penalties:
        assert any("$" in text for text in moves)
