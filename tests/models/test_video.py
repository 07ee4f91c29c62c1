"""Rendered game videos: the truth JSON agrees with the engine and with the pixels."""

import json

import cv2
import numpy as np
import pytest

import games
from calibration import profile
from calibration.markers import calibrate_from_markers
from models.synth import video as video_module
from models.synth.playout import random_game
from models.synth.video import appearance, cached_game, plan_ply, random_fps, render_game
from vision.classes import EMPTY
from vision.detector import Detector

SIZE = (960, 540)
FPS = 10


def read_frames(path, wanted=None):
    capture = cv2.VideoCapture(str(path))
    frames = {}
    index = 0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        if wanted is None or index in wanted:
            frames[index] = frame
        index += 1
    capture.release()
    return index, frames


@pytest.fixture(scope="module")
def xiangqi_moves():
    return random_game("xiangqi", 10, seed=11)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, xiangqi_moves):
    out = tmp_path_factory.mktemp("video")
    return render_game("xiangqi", xiangqi_moves, out, seed=7, fps=FPS, size=SIZE, illegal_after=[2],
                       unseen=[5])


def test_truth_file_is_the_returned_truth(rendered):
    assert json.loads(rendered.truth.read_text(encoding="utf-8")) == rendered.truth_data
    assert rendered.video.exists() and rendered.video.suffix in (".mp4", ".avi")


def test_truth_moves_replay_with_the_engine(rendered, xiangqi_moves):
    truth = rendered.truth_data
    variant = games.get("xiangqi")
    board = variant.board(truth["start_fen"])
    assert [m["ply"] for m in truth["moves"]] == list(range(1, len(xiangqi_moves) + 1))
    for entry, given in zip(truth["moves"], xiangqi_moves, strict=True):
        move = variant.parse_move(board, entry["move"])
        assert variant.notation().format(board, move) == entry["move"] == given
        board.push(move)
        assert entry["fen"] == board.fen()
    assert board.fen() == truth["final_fen"]
    assert truth["repaired_plies"] == []  # the hands alone brought the board to each position


def test_frame_numbers_are_in_order_and_inside_the_file(rendered):
    truth = rendered.truth_data
    count, _ = read_frames(rendered.video, wanted=set())
    assert count == truth["frames"]
    events = []
    for entry in truth["moves"]:
        assert entry["frame_start"] <= entry["frame_done"]
        if not entry.get("cut"):
            assert entry["frame_start"] < entry["frame_done"]
        events.append((entry["frame_start"], entry["frame_done"]))
    for entry in truth["illegal"]:
        assert entry["frame_start"] < entry["frame_done"] < entry["frame_restored"]
        events.append((entry["frame_start"], entry["frame_restored"]))
    events.sort()
    for (_, done), (start, _) in zip(events, events[1:], strict=False):
        assert done <= start
    assert events[-1][1] < count
    assert truth["fps"] == FPS and truth["size"] == list(SIZE)


def test_illegal_move_structure(rendered):
    truth = rendered.truth_data
    (illegal,) = truth["illegal"]
    assert illegal["after_ply"] == 2
    moves = {m["ply"]: m for m in truth["moves"]}
    assert moves[2]["frame_done"] <= illegal["frame_start"]
    assert illegal["frame_restored"] <= moves[3]["frame_start"]
    # The wrong move is no legal move of the side to move.
    variant = games.get("xiangqi")
    board = variant.board(truth["start_fen"])
    for entry in truth["moves"][:2]:
        board.push(variant.parse_move(board, entry["move"]))
    geometry = variant.geometry
    origin, target = geometry.parse_point(illegal["from"]), geometry.parse_point(illegal["to"])
    assert board.piece_at(origin) is not None and board.piece_at(origin).color is board.turn
    assert all((m.from_point, m.to_point) != (origin, target) for m in board.legal_moves)


def test_unseen_plies_are_cut_out(rendered):
    truth = rendered.truth_data
    (unseen,) = truth["unseen"]
    assert unseen["plies"] == [5, 6]
    first, last = unseen["frames"]
    assert truth["cut_frames"] == last - first + 1 > 0
    moves = {m["ply"]: m for m in truth["moves"]}
    for ply in (5, 6):
        assert moves[ply]["cut"] is True
        assert moves[ply]["frame_start"] == moves[ply]["frame_done"] == unseen["resume_frame"]
    assert moves[4]["frame_done"] <= unseen["resume_frame"] <= moves[7]["frame_start"]
    assert not any(m.get("cut") for p, m in moves.items() if p not in (5, 6))


def test_board_found_by_its_markers_and_matches_the_true_calibration(rendered):
    truth = rendered.truth_data
    calibration = profile.from_dict(truth["calibration"])
    _, frames = read_frames(rendered.video, wanted={0})
    found = calibrate_from_markers(calibration.layout, frames[0])
    assert found.drift_px(calibration) < 8.0


def test_pixels_show_the_final_position(rendered):
    """The shipped classifier, reading the last frame with the true calibration, sees the
    engine's final position (allowing for its measured error rate)."""
    truth = rendered.truth_data
    calibration = profile.from_dict(truth["calibration"])
    calibration.piece_height_mm = truth["calibration"]["piece_height_mm"]
    _, frames = read_frames(rendered.video, wanted={truth["frames"] - 1})
    observation = Detector("xiangqi", calibration).observe(frames[truth["frames"] - 1])
    board = games.get("xiangqi").board(truth["final_fen"])
    expected = appearance("xiangqi", board)
    seen = {p: observation.best(p)[0] for p in observation.points}
    agree = sum(seen[p] == expected[p] for p in expected)
    occupied_agree = sum((seen[p] == EMPTY) == (expected[p] == EMPTY) for p in expected)
    print(f"classifier on the last frame: {occupied_agree}/90 occupancy, {agree}/90 classes")
    assert occupied_agree >= 86, (occupied_agree, agree)
    assert agree >= 80, agree


def test_same_seed_same_video(tmp_path, xiangqi_moves):
    a = render_game("xiangqi", xiangqi_moves[:3], tmp_path / "a", seed=3, fps=FPS, size=(480, 270))
    b = render_game("xiangqi", xiangqi_moves[:3], tmp_path / "b", seed=3, fps=FPS, size=(480, 270))
    c = render_game("xiangqi", xiangqi_moves[:3], tmp_path / "c", seed=4, fps=FPS, size=(480, 270))
    assert a.truth_data == b.truth_data
    assert a.truth_data != c.truth_data
    count, frames_a = read_frames(a.video)
    _, frames_b = read_frames(b.video)
    assert count == a.truth_data["frames"]
    assert all(np.array_equal(frames_a[i], frames_b[i]) for i in range(count))


def test_plan_of_a_capture_removes_the_captured_piece():
    from games import Point

    before = {Point(0, 0): "red_chariot", Point(0, 5): "black_horse", Point(4, 0): "red_general"}
    after = {Point(0, 5): "red_chariot", Point(4, 0): "red_general"}
    plan = plan_ply(before, after, (Point(0, 0), Point(0, 5)))
    assert plan.carries == [(Point(0, 0), Point(0, 5))]
    assert plan.removals == [Point(0, 5)]
    quiet = plan_ply(before, {Point(0, 1): "red_chariot", Point(0, 5): "black_horse", Point(4, 0): "red_general"},
                     (Point(0, 0), Point(0, 1)))
    assert quiet.carries == [(Point(0, 0), Point(0, 1))] and not quiet.removals
    nothing = plan_ply(before, before, (Point(0, 0), Point(0, 3)))
    assert nothing.there_and_back == (Point(0, 0), Point(0, 3)) and not nothing.carries


def test_bad_arguments_are_clear_errors(tmp_path, xiangqi_moves):
    with pytest.raises(ValueError, match="ply 2"):
        render_game("xiangqi", [xiangqi_moves[0], "zz9"], tmp_path, seed=1)
    with pytest.raises(ValueError, match="unseen"):
        render_game("xiangqi", xiangqi_moves[:3], tmp_path, seed=1, unseen=[3])
    with pytest.raises(ValueError, match="even"):
        render_game("xiangqi", xiangqi_moves[:3], tmp_path, seed=1, size=(641, 360))
    with pytest.raises(ValueError, match="illegal_after"):
        render_game("xiangqi", xiangqi_moves[:3], tmp_path, seed=1, illegal_after=[7])


def test_cached_game_renders_once(tmp_path, monkeypatch, xiangqi_moves):
    monkeypatch.setenv("BANCO_CACHE_DIR", str(tmp_path))
    first = cached_game("xiangqi", xiangqi_moves[:2], seed=5, fps=FPS, size=(480, 270))
    assert first.video.is_file() and first.video.parent.parent == tmp_path / "videos"

    def no_render(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(video_module, "render_game", no_render)
    again = cached_game("xiangqi", xiangqi_moves[:2], seed=5, fps=FPS, size=(480, 270))
    assert again.video == first.video and again.truth_data == first.truth_data
    with pytest.raises(AssertionError, match="rendered again"):
        cached_game("xiangqi", xiangqi_moves[:2], seed=6, fps=FPS, size=(480, 270))
    assert not [p for p in (tmp_path / "videos").iterdir() if p.name.startswith(".")]


def test_random_game_is_long_legal_and_reproducible():
    moves = random_game("xiangqi", 160, seed=2)
    assert len(moves) == 160 and moves == random_game("xiangqi", 160, seed=2)
    variant = games.get("xiangqi")
    board = variant.board()
    for text in moves:
        board.push(variant.parse_move(board, text))
    assert random_game("xiangqi", 160, seed=3) != moves


def test_random_fps_is_a_camera_rate():
    rates = {random_fps(seed) for seed in range(40)}
    assert rates <= set(range(10, 31)) and len(rates) > 3


def test_doctests_of_the_video_helpers():
    import doctest

    from models.synth import playout

    assert doctest.testmod(playout).failed == 0


def test_command_line_renders_a_random_game(tmp_path, capsys):
    video_module.main(["--game", "xiangqi", "--plies", "2", "--seed", "4", "--fps", "10", "--size", "320x180",
                       "--out", str(tmp_path)])
    truth = json.loads((tmp_path / "xiangqi-4.json").read_text(encoding="utf-8"))
    assert len(truth["moves"]) == 2 and truth["fps"] == 10 and truth["size"] == [320, 180]
    assert "xiangqi-4" in capsys.readouterr().out


def test_game_suite_schedules_are_renderable():
    from models.synth.video import check_schedule, game_suite

    suite = game_suite("xiangqi", count=3, plies=30, illegal=2, unseen=2)
    assert [entry["seed"] for entry in suite] == [1000, 1001, 1002]
    for entry in suite:
        assert len(entry["moves"]) == 30 and 10 <= entry["fps"] <= 30 and entry["split"] == "test"
        unseen, illegal = check_schedule(30, entry["unseen"], entry["illegal_after"])
        assert len(unseen) == 2 and len(illegal) == 2
    assert game_suite("xiangqi", count=3, plies=30, illegal=2, unseen=2) == suite
    with pytest.raises(ValueError, match="inside an unseen pair"):
        check_schedule(10, [4], [4])
