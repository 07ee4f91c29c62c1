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
