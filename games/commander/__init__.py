"""Cờ Tư Lệnh (Commander Chess): terrain, pieces, turns with stacks and splits, endings, notation.

>>> from games.commander import Board
>>> board = Board()
>>> len(board.legal_moves) > 0
True
"""

from games.commander.board import NINE_PIECE_FEN, STARTING_FEN, Board, GameResult, LegalTurns, Mode, Turn, misplaced
from games.commander.notation import NOTATIONS, SECRETARY
from games.commander.pieces import BLUE, RED, Kind, Piece
from games.commander.rules import Act, Action, Fate
from games.commander.terrain import GEOMETRY, parse_point, seed_name, square_name
from games.commander.variant import VARIANT

__all__ = [
    "BLUE", "GEOMETRY", "NINE_PIECE_FEN", "NOTATIONS", "RED", "SECRETARY", "STARTING_FEN", "VARIANT",
    "Act", "Action", "Board", "Fate", "GameResult", "Kind", "LegalTurns", "Mode", "Piece", "Turn",
    "misplaced", "parse_point", "seed_name", "square_name",
]
