"""Cờ Tướng (Xiangqi) under Vietnamese federation law: board, moves, notations, records.

>>> from games.xiangqi import Board, Move
>>> board = Board()
>>> board.push(Move.from_iccs("h2e2"))
>>> board.is_check()
False
"""

from games.xiangqi.board import (
    STARTING_FEN,
    Board,
    LegalMoveGenerator,
    Move,
    Piece,
    PieceType,
    misplaced,
    parse_point,
    point_name,
)
from games.xiangqi.geometry import GEOMETRY
from games.xiangqi.variant import VARIANT

__all__ = [
    "GEOMETRY", "STARTING_FEN", "VARIANT", "Board", "LegalMoveGenerator", "Move", "Piece",
    "PieceType", "misplaced", "parse_point", "point_name",
]
