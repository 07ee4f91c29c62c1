"""Ways of writing Xiangqi moves. Each notation formats a legal move and parses it back.

>>> from games.xiangqi import Board
>>> board = Board()
>>> ICCS.format(board, ICCS.parse(board, "h2e2"))
'h2e2'
"""

from __future__ import annotations

from games.base import IllegalMoveError, NotationError
from games.xiangqi.board import Board, Move


class IccsNotation:
    """ICCS: origin and destination points, files a–i, ranks 0–9 from White's side."""

    name = "iccs"

    def format(self, board: Board, move: Move) -> str:
        return Move(move.from_point, move.to_point).iccs()

    def parse(self, board: Board, text: str) -> Move:
        token = text.strip()
        if len(token) == 5 and token[2] == "-":  # h2-e2
            token = token[:2] + token[3:]
        move = Move.from_iccs(token)
        if not board.is_legal(move):
            raise IllegalMoveError(f"{text!r} is not legal in {board.fen()}")
        return move


ICCS = IccsNotation()

NOTATIONS = {"iccs": ICCS}

__all__ = ["ICCS", "NOTATIONS", "NotationError"]
