"""Cờ Tư Lệnh as a registered variant."""

from games import Variant
from games.commander.board import STARTING_FEN, Board
from games.commander.notation import NOTATIONS
from games.commander.pieces import Kind
from games.commander.terrain import GEOMETRY

VARIANT = Variant(
    name="commander",
    title="Cờ Tư Lệnh",
    board_class=Board,
    geometry=GEOMETRY,
    pieces={kind.letter: kind.name.lower() for kind in Kind},
    notations=NOTATIONS,
    default_notation="secretary",
    starting_fen=STARTING_FEN,
    aliases=("co-tu-lenh", "cotulenh", "commander-chess"),
)
