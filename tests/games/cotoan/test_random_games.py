"""Seeded random games to the end (issue 4). The suite plays 125 of them; the full 5,000 run is
`benchmarks/cotoan_random_games.py` (its output is in the engine's report)."""

import pytest

from games.base import Termination
from games.cotoan.selfplay import InvariantError, play_random_game

SUITE_GAMES = 100


@pytest.mark.parametrize("block", range(4))
def test_random_games_keep_every_invariant(block):
    summaries = [play_random_game(seed) for seed in range(block, SUITE_GAMES, 4)]
    assert all(summary.outcome is not None for summary in summaries)
    assert sum(summary.captures for summary in summaries) > 0


def test_random_games_reach_every_kind_of_ending():
    endings = set()
    for seed in range(SUITE_GAMES, SUITE_GAMES + 25):
        summary = play_random_game(seed)
        endings.add((summary.outcome.termination, summary.stopped))
    assert (Termination.ZERO_CAPTURED, False) in endings
    assert (Termination.POINTS, False) in endings     # a target reached, or one piece each
    assert (Termination.POINTS, True) in endings      # stopped after the ply limit


def test_the_same_seed_plays_the_same_game():
    assert play_random_game(3) == play_random_game(3)


def test_a_broken_invariant_is_caught_and_names_the_seed(monkeypatch):
    """The harness can fail: a board whose material count is off by one is caught."""
    from games.cotoan import Board

    monkeypatch.setattr(Board, "material", lambda self, color: 44)
    with pytest.raises(InvariantError, match=r"seed 5, ply \d+: .*score is off"):
        play_random_game(5)
