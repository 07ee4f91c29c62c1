"""Seeded random games to the end in each mode (§12), with invariants at every ply.

The full count (5,000 per mode) runs from the script `random_games.py`; the suite plays a
small seeded sample of the same games.
"""

import pytest

from games.commander import Mode

from .random_games import play


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("seed", range(3))
def test_random_games_finish_with_invariants(mode, seed):
    """§11.3, §12, §13.4: no exception; scores equal destroyed values; FEN and notation round-trip."""
    plies, board = play(seed, mode, check_notation=seed == 0)
    result = board.result()
    assert result is not None and plies == len(board.move_stack)
