"""Cờ Toán Việt Nam (Vietnamese math chess, seed 002): board, captures by calculation, matches.

>>> from games.cotoan import Board, NOTATION
>>> board = Board()
>>> move = NOTATION.parse(board, "7:g1-g8")
>>> NOTATION.format(board, move)
'7:g1-g8'
>>> board.push(move)
>>> board.outcome() is None, board.is_check()
(True, False)
"""

from games.cotoan.arithmetic import OPERATIONS, distances
from games.cotoan.board import (
    STARTING_FEN,
    Board,
    LegalMoveGenerator,
    Move,
    Piece,
    cell_name,
    misplaced,
    parse_cell,
)
from games.cotoan.geometry import GEOMETRY
from games.cotoan.match import GameRecord, Match
from games.cotoan.notation import NOTATION, NOTATIONS
from games.cotoan.options import TARGETS, GameOptions, InvalidOptionError
from games.cotoan.variant import VARIANT

__all__ = [
    "GEOMETRY", "NOTATION", "NOTATIONS", "OPERATIONS", "STARTING_FEN", "TARGETS", "VARIANT", "Board",
    "GameOptions", "GameRecord", "InvalidOptionError", "LegalMoveGenerator", "Match", "Move", "Piece",
    "cell_name", "distances", "misplaced", "parse_cell",
]
