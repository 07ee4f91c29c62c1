"""Inference on simulated observation streams: seeded noisy probability rows from the truth."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games import Point
from tests.vision.simulated import noisy_evidence, random_game
from vision import inference as inf


def _replay(game: str, seed: int, plies: int, unseen_every: int = 0, prefer=None):
    """Feed one observation per ply (skipping some) and apply every commit; count outcomes."""
    rng = np.random.default_rng(seed)
    start, moves = random_game(game, plies, rng, prefer=prefer)
    truth = start.copy()
    tracked = start.copy()
    committed: list = []
    ambiguous_ok = 0
    for index, move in enumerate(moves):
        truth.push(move)
        if unseen_every and index % unseen_every == 0 and index + 1 < len(moves):
            continue  # the camera misses this ply: the next observation shows two
        verdict = inf.decide(tracked, noisy_evidence(game, truth, rng))
        if verdict.status == "ambiguous":
            # Acceptable only with the truth among the candidates (the referee then picks it).
            assert truth.fen() in {c.fen for c in verdict.candidates}, f"ply {index}: truth not a candidate"
            ambiguous_ok += 1
            tracked = truth.copy()
            continue
        assert verdict.status == "commit", f"ply {index}: {verdict.status} {verdict.points} {verdict.margin}"
        for m in verdict.moves:
            tracked.push(m)
        committed.extend(verdict.moves)
        assert tracked.fen() == truth.fen(), f"ply {index}: committed {verdict.moves}, truth {move}"
    return committed, moves, ambiguous_ok


def test_xiangqi_every_move_recovered_from_noisy_observations():
    committed, moves, ambiguous = _replay("xiangqi", seed=1, plies=60)
    assert committed == moves and ambiguous == 0


def test_xiangqi_missed_plies_recovered_as_a_sequence():
    committed, moves, ambiguous = _replay("xiangqi", seed=2, plies=40, unseen_every=5)
    assert committed == moves and ambiguous == 0


def test_cotoan_moves_and_calculation_captures():
    def capture(board, move):
        return move.operation is not None

    rng_seed = 3
    committed, moves, ambiguous = _replay("cotoan", seed=rng_seed, plies=50, prefer=capture)
    assert ambiguous == 0
    assert [(m.from_point, m.to_point) for m in committed] == [(m.from_point, m.to_point) for m in moves]
    assert any(m.operation for m in moves), "the seeded game should contain a calculation capture"


def test_cotoan_missed_plies():
    committed, moves, ambiguous = _replay("cotoan", seed=4, plies=30, unseen_every=4)
    assert ambiguous == 0 and len(committed) == len(moves)


def test_nothing_changed_is_none():
    board = games.get("xiangqi").board()
    verdict = inf.decide(board, noisy_evidence("xiangqi", board, np.random.default_rng(5)))
    assert verdict.status == "none" and not verdict.moves


def test_illegal_move_reports_its_points():
    variant = games.get("xiangqi")
    board = variant.board()
    # The a0 chariot jumps diagonally to b1: no legal move leaves a0 empty and b1 a chariot.
    seen = noisy_evidence("xiangqi", board, np.random.default_rng(6), noise=0.0,
                          overrides={Point(0, 0): "empty", Point(1, 1): "red_chariot"})
    verdict = inf.decide(board, seen)
    assert verdict.status == "illegal"
    assert set(verdict.points) == {Point(0, 0), Point(1, 1)}


def test_knocked_over_piece_is_illegal_even_after_a_legal_move():
    variant = games.get("xiangqi")
    board = variant.board()
    after = board.copy()
    after.push(variant.parse_move(after, "h2e2"))
    seen = noisy_evidence("xiangqi", after, np.random.default_rng(7), noise=0.0, overrides={Point(4, 3): "empty"})
    verdict = inf.decide(board, seen)
    assert verdict.status == "illegal" and verdict.points == [Point(4, 3)]


def test_piece_put_back_is_no_move():
    board = games.get("xiangqi").board()
    verdict = inf.decide(board, inf.Evidence.exact("xiangqi", board))
    assert verdict.status == "none"


def test_occluded_destination_is_not_guessed():
    variant = games.get("xiangqi")
    board = variant.board()
    after = board.copy()
    after.push(variant.parse_move(after, "h2e2"))  # the cannon lands on e2, under a hand
    hidden = {Point(4, 2), Point(5, 2), Point(3, 2), Point(2, 2)}
    verdict = inf.decide(board, noisy_evidence("xiangqi", after, np.random.default_rng(8), occluded=hidden))
    assert verdict.status == "occluded" and set(verdict.points) == hidden


def _commander_feature(board, turn) -> bool:
    from games.commander.rules import Act, Fate

    return turn.is_split or any(a.act is Act.STRIKE or a.fate is not Fate.NORMAL for a in turn.actions)


@pytest.mark.parametrize("seed", [11, 12, 18])
def test_commander_random_games_with_strikes_and_splits(seed):
    from games.commander.rules import Act

    committed, moves, ambiguous = _replay("commander", seed=seed, plies=60, prefer=_commander_feature)
    # A camera cannot tell which carrier a piece boarded, nor where a shot-down aircraft
    # flew: those turns are honestly ambiguous (the truth always among the candidates).
    assert ambiguous <= len(moves) // 6
    assert any(t.is_split for t in committed), "the seeded game should split a stack"
    assert any(a.act is Act.STRIKE for t in committed for a in t.actions), "and stay-capture something"


def test_commander_missed_plies():
    committed, moves, ambiguous = _replay("commander", seed=14, plies=40, unseen_every=6)
    assert ambiguous <= 4 and len(committed) >= len(moves) - 2 * ambiguous


def test_commander_illegal_heavy_crossing_offers_the_referee_penalty_turn():
    from games.commander import terrain as tr
    from tests.games.commander.helpers import with_kings

    board = with_kings({"5,9": "A", "8,8": "i"}, referee=True)
    attempt = {tr.to_point(tr.parse_point("5,9")): "empty", tr.to_point(tr.parse_point("6,9")): "red_artillery"}
    seen = noisy_evidence("commander", board, np.random.default_rng(9), noise=0.0, overrides=attempt)
    verdict = inf.decide(board, seen)
    assert verdict.status == "illegal" and set(verdict.points) == set(attempt)
    assert [str(t) for t in verdict.penalty] == ["P5,9_6,9"] and verdict.penalty[0].penalty


def _unseen_penalty_then_blue_moves():
    """Red's artillery crossed deep water and went back before the hand left (a `$` turn the
    camera never saw); then blue's infantry moved: red's turn, yet blue's piece moved."""
    from tests.games.commander.helpers import with_kings

    board = with_kings({"5,9": "A", "8,8": "i"}, referee=True)
    after = board.copy()
    after.push(board.penalty_turns()[0])
    after.push(games.get("commander").parse_move(after, "B8,8_9,8"))
    return board, inf.Evidence.exact("commander", after)


def test_commander_an_unseen_penalty_turn_explains_the_same_side_moving_again():
    board, seen = _unseen_penalty_then_blue_moves()
    verdict = inf.decide(board, seen)
    assert verdict.status == "commit"
    assert verdict.moves[0].penalty and str(verdict.moves[1]) == "B8,8_9,8"


def test_commander_an_unseen_penalty_turn_records_the_hinted_attempt():
    board, seen = _unseen_penalty_then_blue_moves()
    attempt = board.penalty_turns()[-1]
    verdict = inf.decide(board, seen, penalty_hint=attempt)
    assert verdict.status == "commit" and verdict.moves[0] == attempt and verdict.moves[0].penalty


def test_commander_without_a_referee_no_penalty_turn_explains_anything():
    from tests.games.commander.helpers import with_kings

    _, seen = _unseen_penalty_then_blue_moves()
    assert inf.decide(with_kings({"5,9": "A", "8,8": "i"}), seen).status == "illegal"
