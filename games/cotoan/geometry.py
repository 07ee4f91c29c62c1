"""The Cờ Toán board as something to draw or to read from a photo: 9 × 11 cells.

Seed 002: "Bàn cờ ... gồm 99 ô, chia làm 9 cột đánh dấu từ a – i và 11 hàng đánh dấu từ 1 -11.
Ô ở hàng 2 cột 5 và hàng 10 cột 5 có đường chéo là vị trí đặt quân số 0."

>>> GEOMETRY.placement, GEOMETRY.files * GEOMETRY.ranks
('cells', 99)
>>> [GEOMETRY.point_name(p) for p in GEOMETRY.marks]
['e2', 'e10']
"""

from games.base import Geometry, Point

FILES, RANKS = 9, 11
CELLS = FILES * RANKS
FILE_NAMES = "abcdefghi"
RANK_NAMES = tuple(str(rank) for rank in range(1, RANKS + 1))

# The marked cells with a diagonal, where each side's 0 stands for the whole game.
WHITE_ZERO = Point(4, 1)   # e2
BLACK_ZERO = Point(4, 9)   # e10


def _row(rank: int) -> frozenset[Point]:
    return frozenset(Point(file, rank) for file in range(FILES))


GEOMETRY = Geometry(
    name="cotoan",
    files=FILES,
    ranks=RANKS,
    placement="cells",
    file_names=tuple(FILE_NAMES),
    rank_names=RANK_NAMES,
    regions={
        "home:white": _row(0),
        "home:black": _row(RANKS - 1),
        "zero:white": frozenset({WHITE_ZERO}),
        "zero:black": frozenset({BLACK_ZERO}),
    },
    lines=(),
    marks=(WHITE_ZERO, BLACK_ZERO),
)
