"""Writing and reading Cờ Toán moves (the grammar is in RULES.md, "Move notation").

A plain move names the piece's value and its two cells; a capture names the calculation
(attacker, operation, front piece) and the captured piece's cell, where the attacker lands.

>>> from games.cotoan.board import Board
>>> board = Board()
>>> move = NOTATION.parse(board, "7:g1-g8")
>>> NOTATION.format(board, move)
'7:g1-g8'
>>> board = Board("-9-8-7.-5-4-3-2-1/....-0..../........./........./....-6..../........./"
...               "........./....5..../....8..../....0..../1234.67.9 w")
>>> sorted(NOTATION.format(board, move) for move in board.legal_moves if move.is_capture)
['8+5xe7', '8-5xe7', '8:5xe7']
>>> NOTATION.format(board, NOTATION.parse(board, "8+5xe7"))
'8+5xe7'
"""

from __future__ import annotations

import re

from games.base import WHITE, BancoError, IllegalMoveError, NotationError, Point
from games.cotoan.arithmetic import normalize_operation
from games.cotoan.board import Board, Move, cell_name, parse_cell

_CELL = r"[a-i](?:1[01]|[1-9])"
_PLAIN = re.compile(rf"(?:([0-9]):)?({_CELL})-?({_CELL})")
# The operation is any one sign; "x" too, as the seed writes multiplication (8x5xe7 = 8*5xe7).
_CAPTURE = re.compile(rf"([0-9])([^0-9a-z]|x)([0-9])x({_CELL})")


class CoToanNotation:
    """``5:c1-c4`` for a move, ``8+5xe7`` for a capture (attacker 8, front piece 5, target e7)."""

    name = "cotoan"

    def format(self, board: Board, move: Move) -> str:
        attacker = board.piece_at(move.from_point)
        if attacker is None:
            raise IllegalMoveError(f"{cell_name(move.from_point)} is empty: cannot write {move}")
        start, end = cell_name(move.from_point), cell_name(move.to_point)
        operation = getattr(move, "operation", None)
        if operation is None:
            return f"{attacker.value}:{start}-{end}"
        front_point = Move(move.from_point, move.to_point, operation).front_point
        front = board.piece_at(front_point) if front_point is not None else None
        if front is None:
            raise IllegalMoveError(f"no front piece next to {start} towards {end}: cannot write {move}")
        return f"{attacker.value}{operation}{front.value}x{end}"

    def parse(self, board: Board, text: str) -> Move:
        """Read a move and check it is legal: `NotationError` if unreadable, `IllegalMoveError` if not legal."""
        if not isinstance(text, str):
            raise NotationError(f"{text!r} is not a move text")
        token = text.strip().lower()
        side = "White" if board.turn is WHITE else "Black"
        plain = _PLAIN.fullmatch(token)
        if plain:
            value, start, end = plain.groups()
            move = Move(parse_cell(start), parse_cell(end))
            if value is not None:
                piece = board.piece_at(move.from_point)
                if piece is None or piece.value != int(value):
                    found = "nothing" if piece is None else str(piece)
                    raise IllegalMoveError(f"{text!r}: {start} holds {found}, not {side}'s {value}")
            return self._checked(board, move, text)
        capture = _CAPTURE.fullmatch(token)
        if capture:
            attacker_text, operation_text, front_text, target_text = capture.groups()
            try:
                operation = "*" if operation_text == "x" else normalize_operation(operation_text)
            except BancoError as error:
                raise NotationError(f"{text!r}: {error}") from None
            attacker, front, target = int(attacker_text), int(front_text), parse_cell(target_text)
            start = board.find(attacker, board.turn)
            if start is None:
                raise IllegalMoveError(f"{text!r}: {side} has no {attacker} on the board")
            move = Move(start, target, operation)
            df, dr = target.file - start.file, target.rank - start.rank
            if (df, dr) != (0, 0) and (not df or not dr or abs(df) == abs(dr)):
                front_point = move.front_point
                assert front_point is not None
                found = board.piece_at(front_point)
                if found is None or found.color is not board.turn or found.value != front:
                    what = "an empty cell" if found is None else str(found)
                    raise IllegalMoveError(
                        f"{text!r}: next to {side}'s {attacker} towards {target_text} is {what}"
                        f" ({cell_name(Point(*front_point))}), not {side}'s {front}")
            return self._checked(board, move, text)
        raise NotationError(
            f"{text!r} is not a Cờ Toán move: write a move like 5:c1-c4 or a capture like 8+5xe7")

    @staticmethod
    def _checked(board: Board, move: Move, text: str) -> Move:
        reason = board.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"{text!r} is not legal: {reason}")
        return move


NOTATION = CoToanNotation()
NOTATIONS = {"cotoan": NOTATION}
