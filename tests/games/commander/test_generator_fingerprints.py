"""The turn generator reproduces the legal-turn sets recorded before its speed work.

`fingerprints.py --check` replays every recorded game; the suite replays the first game of
each kind (battle, total war, 9-piece, safe mode, stacked and crowded starts).
"""

import json

import pytest

from .fingerprints import DATA, games, play

RECORDED = json.loads(DATA.read_text())


@pytest.mark.parametrize("key,fen,mode,safe,seed,plies", list(games(first=1)), ids=lambda v: str(v)[:12])
def test_legal_turn_sets_match_the_recorded_fingerprints(key, fen, mode, safe, seed, plies):
    """§4–§10 unchanged by optimisation: same legal turns, checks and results at every ply."""
    assert play(fen, mode, safe, seed, plies) == RECORDED[key]


@pytest.mark.parametrize("key,fen,mode,safe,seed,plies", [g for g in games(first=1) if g[0].startswith(("stacked",
                                                                                                     "war"))])
def test_generator_keys_and_counts_agree_with_the_turns(key, fen, mode, safe, seed, plies):
    """The key the generator gives a turn is the one its actions compute, and perft's last-ply
    count (turns not made) equals the number of turns listed."""
    import random

    from games.commander import Board, Turn

    rng = random.Random(seed)
    board = Board(fen, mode=mode, safe=safe)
    for _ in range(40):
        board._cache.clear()
        counted = board.perft(1)
        turns = board.generate_turns()
        assert counted == len(turns) == len(set(turns))
        assert all(t.key() == Turn.of(t.actions).key() for t in turns)
        if not turns:
            break
        board.push(rng.choice(turns))
