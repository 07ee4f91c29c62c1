"""Position lists of seed 004: ``Trắng: Te0 Sd0 Sf0 Ve2 Xf8 / Đen: Te9 Sd9 Mb2 Ba4 Bb4``.

Each piece is its federation letter (T S V X P M B) and its point (files a–i from White's
left, ranks 0–9 from White's side). The side to move is not part of the list; it is a
parameter (White by default).

>>> board = read_position_list("Trắng: Te0 Sd0 Sf0 Ve2 Xf8 / Đen: Te9 Sd9 Mb2 Ba4 Bb4")
>>> board.fen()
'3ak4/5R3/9/9/9/pp7/9/1n2B4/9/3AKA3 w - - 0 1'
>>> write_position_list(board)
'Trắng: Te0 Sd0 Sf0 Ve2 Xf8 / Đen: Te9 Sd9 Mb2 Ba4 Bb4'
"""

from __future__ import annotations

import re
import unicodedata

from games.base import BLACK, WHITE, Color, InvalidFenError, NotationError, Point
from games.xiangqi.board import Board, Piece, PieceType

# The order of seed 004's letter table: Tướng, Sĩ, Tượng, Xe, Pháo, Mã, Tốt.
_ORDER = "TSVXPMB"
_KINDS = {kind.vn: kind for kind in PieceType}
_TOKEN = re.compile(r"(Tg|[TSVXPMB])([a-i])([0-9])")
_LABELS = {"trang": WHITE, "white": WHITE, "do": WHITE, "red": WHITE, "w": WHITE, "r": WHITE,
           "den": BLACK, "black": BLACK, "b": BLACK}


def _plain(text: str) -> str:
    """Lower case without diacritics: "Trắng" → "trang", "Đen" → "den"."""
    text = unicodedata.normalize("NFKD", text.replace("Đ", "D").replace("đ", "d"))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def write_position_list(board: Board) -> str:
    """The pieces of `board` as seed 004 lists them, White first."""
    parts = []
    for color in (WHITE, BLACK):
        pieces = [(point, piece) for point, piece in board.piece_map().items() if piece.color is color]
        pieces.sort(key=lambda item: (_ORDER.index(item[1].kind.vn), item[0].file, item[0].rank))
        tokens = [f"{piece.kind.vn}{'abcdefghi'[point.file]}{point.rank}" for point, piece in pieces]
        parts.append(f"{color.vietnamese}: {' '.join(tokens)}")
    return " / ".join(parts)


def read_position_list(text: str, turn: Color = WHITE) -> Board:
    """A board from a seed 004 position list; `turn` is the side to move.

    The two lists are separated by ``/``, ``;`` or a new line and may be labelled
    ``Trắng:``/``Đen:`` (diacritics optional; ``White``/``Black``, ``Đỏ``/``Red`` too).
    Unlabelled, the first list is White's. Raises `NotationError` naming a bad token and
    `InvalidFenError` for a placement no Xiangqi set can show.
    """
    if not isinstance(text, str) or not text.strip():
        raise NotationError("empty position list")
    text = unicodedata.normalize("NFKC", text)
    sides = [part for part in re.split(r"[/;\n]", text) if part.strip()]
    if len(sides) > 2:
        raise NotationError(f"a position list has two sides, not {len(sides)}: {text!r}")
    placed: dict[Point, Piece] = {}
    seen: set[Color] = set()
    for index, part in enumerate(sides):
        color = WHITE if index == 0 else BLACK
        if ":" in part:
            label, part = part.split(":", 1)
            key = _plain(label.strip())
            if key not in _LABELS:
                raise NotationError(f"side label {label.strip()!r} is not Trắng or Đen")
            color = _LABELS[key]
        if color in seen:
            raise NotationError(f"the {color.vietnamese} side is listed twice in {text!r}")
        seen.add(color)
        for token in part.replace(",", " ").split():
            found = _TOKEN.fullmatch(token)
            if not found:
                raise NotationError(f"{token!r} is not a piece and point (like Te0, Xf8)")
            letter, file, rank = found.groups()
            point = Point("abcdefghi".index(file), int(rank))
            if point in placed:
                raise NotationError(f"{token!r}: point {file}{rank} is already taken")
            placed[point] = Piece(_KINDS[letter[0]], color)
    try:
        return Board(f"{_board_fen(placed)} {turn.value} - - 0 1")
    except InvalidFenError as error:
        raise InvalidFenError(f"position list {text.strip()!r}: {error}") from None


def _board_fen(placed: dict[Point, Piece]) -> str:
    rows = []
    for rank in range(9, -1, -1):
        row, empty = "", 0
        for file in range(9):
            piece = placed.get(Point(file, rank))
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece.symbol()
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
