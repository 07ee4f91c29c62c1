"""Cờ Tướng as a registered variant."""

from games import Variant
from games.xiangqi.board import STARTING_FEN, Board, PieceType
from games.xiangqi.geometry import GEOMETRY
from games.xiangqi.notation import NOTATIONS

VARIANT = Variant(
    name="xiangqi",
    title="Cờ Tướng",
    board_class=Board,
    geometry=GEOMETRY,
    pieces={kind.vn: kind.name.lower() for kind in PieceType},
    notations=NOTATIONS,
    default_notation="iccs",
    starting_fen=STARTING_FEN,
    aliases=("co-tuong", "chinese-chess"),
)
