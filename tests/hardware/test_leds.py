"""LED meanings as pure functions, on the three grids."""

from __future__ import annotations

import pytest

import games
from games.base import BLACK, WHITE, Geometry, Outcome, Point, Termination
from hardware import leds
from hardware.protocol import GRIDS, MAX_LINE, OFF, Decoder, Received, encode

XIANGQI = games.get("xiangqi")


def test_grids_come_from_a_geometry_a_pair_or_the_protocol():
    assert leds.grid_of(XIANGQI.geometry) == (9, 10)
    assert leds.grid_of((11, 12)) == (11, 12)
    assert leds.grid_of("cotoan") == (9, 11)
    cells = Geometry("cotoan-like", 9, 11, "cells", tuple("abcdefghi"), tuple(str(n) for n in range(1, 12)))
    assert leds.grid_of(cells) == (9, 11)
    with pytest.raises(ValueError, match="'chess'"):
        leds.grid_of("chess")


@pytest.mark.parametrize("game", sorted(GRIDS))
def test_every_grid_fits_one_frame_with_every_meaning(game):
    files, ranks = GRIDS[game]
    corner = Point(files - 1, ranks - 1)
    frame = leds.render(
        game,
        leds.last_move(Point(0, 0), Point(0, 1)),
        leds.lifted_piece(Point(1, 1), [Point(1, 2)], [Point(2, 2)]),
        leds.check(corner),
        leds.illegal([Point(3, 3)]),
        leds.ambiguity([(Point(4, 4), Point(5, 5))]),
        leds.game_end(Outcome(Termination.CHECKMATE, WHITE), {WHITE: Point(6, 0), BLACK: Point(6, ranks - 1)}),
    )
    assert (frame.files, frame.ranks) == (files, ranks)
    assert frame.cell(files - 1, ranks - 1) == leds.CHECK
    assert frame.cell(6, 0) == leds.WINNER and frame.cell(6, ranks - 1) == leds.LOSER
    line = encode(frame, 1)
    assert len(line) <= MAX_LINE
    assert Decoder().feed(line) == [Received(1, frame)]


def test_points_off_the_board_are_an_error():
    with pytest.raises(ValueError, match=r"\(9, 0\) is outside the 9x10 grid"):
        leds.render((9, 10), leds.check(Point(9, 0)))


def test_the_last_move_after_a_push():
    board = XIANGQI.board()
    board.push(XIANGQI.parse_move(board, "h2e2"))
    frame = leds.frame_for(XIANGQI.geometry, leds.state_of(board))
    lit = {(f, r): frame.cell(f, r) for f in range(9) for r in range(10) if frame.cell(f, r) != OFF}
    assert lit == {(7, 2): leds.LAST_FROM, (4, 2): leds.LAST_TO}


def test_a_lifted_piece_shows_its_legal_targets_and_captures():
    board = XIANGQI.board()
    state = leds.state_of(board, lifted=Point(1, 2))  # White's cannon on b2
    assert Point(1, 9) in state.captures  # it can take the horse over the screen
    assert Point(4, 2) in state.targets and Point(1, 8) not in state.targets
    frame = leds.frame_for(XIANGQI.geometry, state)
    assert frame.cell(1, 2) == leds.LIFTED
    assert frame.cell(1, 9) == leds.CAPTURE and frame.cell(4, 2) == leds.TARGET
    expected = {move.to_point for move in board.legal_moves if move.from_point == Point(1, 2)}
    assert state.targets | state.captures == expected


def test_check_blinks_the_general_in_check():
    board = XIANGQI.board("4k4/9/9/9/4R4/9/9/9/9/3K5 b - - 0 1")
    state = leds.state_of(board)
    assert board.is_check() and state.check == Point(4, 9)
    assert leds.frame_for(XIANGQI.geometry, state).cell(4, 9) == leds.CHECK


def test_an_illegal_position_blinks_the_points_that_differ():
    board = XIANGQI.board()
    observed = {point: board.piece_at(point) for point in XIANGQI.geometry.points()}
    observed[Point(7, 2)] = None  # the cannon left h2 ...
    observed[Point(7, 6)] = board.piece_at(Point(7, 2))  # ... and landed on h6, not a legal move
    different = leds.differences(board, observed, XIANGQI.geometry.points())
    assert different == {Point(7, 2), Point(7, 6)}
    frame = leds.frame_for(XIANGQI.geometry, leds.LedState(illegal=different))
    assert frame.cell(7, 2) == frame.cell(7, 6) == leds.ILLEGAL


def test_ambiguity_shows_each_candidate_move():
    board = XIANGQI.board()
    # both cannons can go to e2 (so can both elephants, left out here)
    candidates = [m for m in board.legal_moves if m.to_point == Point(4, 2) and m.from_point.rank == 2]
    assert len(candidates) == 2
    frame = leds.frame_for(XIANGQI.geometry, leds.state_of(board, candidates=candidates))
    assert frame.cell(1, 2) == frame.cell(7, 2) == leds.CANDIDATE_FROM
    assert frame.cell(4, 2) == leds.CANDIDATE_TO


def test_illegal_beats_everything_but_the_end_of_the_game():
    state = leds.LedState(last_move=(Point(0, 0), Point(0, 1)), illegal=frozenset({Point(0, 1)}))
    assert leds.frame_for((9, 10), state).cell(0, 1) == leds.ILLEGAL


def test_game_end_marks_winner_and_loser():
    board = XIANGQI.board("3k5/4R4/4R4/9/9/9/9/9/9/4K4 b - - 0 1")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is WHITE
    frame = leds.frame_for(XIANGQI.geometry, leds.state_of(board))
    assert frame.cell(4, 0) == leds.WINNER and frame.cell(3, 9) == leds.LOSER


def test_a_draw_or_a_game_without_generals_lights_the_board():
    draw = Outcome(Termination.AGREEMENT, None)
    assert leds.game_end(draw, {WHITE: Point(4, 0), BLACK: Point(4, 9)}) == {
        Point(4, 0): leds.DRAW, Point(4, 9): leds.DRAW}
    whole = leds.game_end(Outcome(Termination.ZERO_CAPTURED, BLACK), {}, (9, 11))
    assert len(whole) == 99 and set(whole.values()) == {leds.WINNER}


def test_cotoan_lights_its_0s_as_generals_in_check_and_at_the_end():
    """Cờ Toán's 0 is what its game is won by: it blinks when it could be taken, and the end
    shows the winner's 0 green instead of lighting the whole board."""
    from banco.demo import demo_game

    variant = games.get("cotoan")
    board = variant.board()
    seen_check = False
    for text in demo_game("cotoan").moves:
        board.push(variant.parse_move(board, text))
        if board.is_check() and board.outcome() is None:
            zero = board.find(0, board.turn)
            assert leds.frame_for(variant.geometry, leds.state_of(board)).cell(*zero) == leds.CHECK
            seen_check = True
    assert seen_check
    outcome = board.outcome()
    frame = leds.frame_for(variant.geometry, leds.state_of(board))
    winner_zero = board.find(0, outcome.winner)
    assert frame.cell(*winner_zero) == leds.WINNER
    assert sum(frame.cell(f, r) == leds.WINNER for f in range(9) for r in range(11)) == 1
