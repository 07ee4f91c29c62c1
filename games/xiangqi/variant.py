"""Cờ Tướng as a registered variant."""

from games import Variant
from games.xiangqi.board import STARTING_FEN, Board, PieceType
from games.xiangqi.geometry import GEOMETRY
from games.xiangqi.notation import NOTATIONS
from games.xiangqi.positions import read_position_list, write_position_list

VARIANT = Variant(
    name="xiangqi",
    title="Cờ Tướng",
    board_class=Board,
    geometry=GEOMETRY,
    pieces={kind.vn: kind.name.lower() for kind in PieceType},
    notations=NOTATIONS,
    default_notation="vn-coord",
    starting_fen=STARTING_FEN,
    aliases=("co-tuong", "chinese-chess"),
    extras={"read_position": read_position_list, "write_position": write_position_list},
)
