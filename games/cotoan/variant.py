"""Cờ Toán Việt Nam as a registered variant."""

from games import Variant
from games.cotoan.board import STARTING_FEN, Board
from games.cotoan.geometry import GEOMETRY
from games.cotoan.notation import NOTATIONS

VARIANT = Variant(
    name="cotoan",
    title="Cờ Toán Việt Nam",
    board_class=Board,
    geometry=GEOMETRY,
    # The pieces are their numbers; the 0 is "dân" (the people), the piece that must not be lost.
    pieces={"0": "zero (dân)", **{str(value): str(value) for value in range(1, 10)}},
    notations=NOTATIONS,
    default_notation="cotoan",
    starting_fen=STARTING_FEN,
    aliases=("co-toan", "math-chess"),
)
