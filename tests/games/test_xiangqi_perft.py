"""Perft against the published numbers (issue 2), depth 1–4, six positions."""

import pytest

from games.xiangqi import Board

PERFT = [
    ("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR", (44, 1920, 79666, 3290240)),
    ("r1ea1a3/4kh3/2h1e4/pHp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2EAKAE2", (38, 1128, 43929, 1339047)),
    ("1ceak4/9/h2a5/2p1p3p/5cp2/2h2H3/6PCP/3AE4/2C6/3A1K1H1", (7, 281, 8620, 326201)),
    ("5a3/3k5/3aR4/9/5r3/5h3/9/3A1A3/5K3/2EC2E2", (25, 424, 9850, 202884)),
    ("CRH1k1e2/3ca4/4ea3/9/2hr5/9/9/4E4/4A4/4KA3", (28, 516, 14808, 395483)),
    ("R1H1k1e2/9/3aea3/9/2hr5/2E6/9/4E4/4A4/4KA3", (21, 364, 7626, 162837)),
]


@pytest.mark.parametrize("fen,counts", PERFT, ids=[f"position{i + 1}" for i in range(6)])
def test_perft_matches_published_numbers(fen, counts):
    board = Board(f"{fen} w - - 0 1")
    assert [board.perft(depth) for depth in (1, 2, 3, 4)] == list(counts)
    assert board.fen() == Board(f"{fen} w - - 0 1").fen()  # perft leaves the board as it was


def test_perft_depth_zero_is_one():
    assert Board().perft(0) == 1
