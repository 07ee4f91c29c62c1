"""Ways of writing Xiangqi moves. Each notation formats a legal move and parses it back.

Five notations are registered in `NOTATIONS` (grammar and decisions in NOTATION.md):

- ``vn-coord``: the federation coordinate notation of seed 004 (``Phe2``, ``Xcc8``, ``X3c8``);
- ``vn``: traditional Vietnamese (``P2-5``, ``M8.7``, ``Xt.1``, ``Bg-6``);
- ``wxf``: WXF/AXF (``C2=5``, ``H8+7``, ``R+=4``, ``++=4``);
- ``iccs``: origin and destination points (``h2e2``);
- ``chinese``: ``炮二平五``, ``馬８進７``, ``前炮平五``.

>>> from games.xiangqi import Board
>>> board = Board()
>>> move = VN_COORD.parse(board, "Phe2")
>>> [NOTATIONS[name].format(board, move) for name in NOTATIONS]
['Phe2', 'P2-5', 'C2=5', 'h2e2', '炮二平五']
>>> board.push(move)
>>> [NOTATIONS[name].format(board, NOTATIONS[name].parse(board, text)) for name, text in
...  [("vn-coord", "Mg7"), ("vn", "m8.7"), ("wxf", "H8+7"), ("iccs", "H9-G7"), ("chinese", "马8进7")]]
['Mg7', 'M8.7', 'H8+7', 'h9g7', '馬８進７']
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from games.base import WHITE, AmbiguousMoveError, Color, IllegalMoveError, NotationError, Point
from games.xiangqi.board import Board, Move, PieceType

# ---------------------------------------------------------------------------- helpers

_DASHES = str.maketrans({"–": "-", "—": "-", "−": "-", "‐": "-", "‑": "-"})


def _clean(text: object) -> str:
    """NFKC (full-width letters and digits become ASCII), unified dashes, no spaces."""
    if not isinstance(text, str):
        raise NotationError(f"{text!r} is not text")
    return "".join(unicodedata.normalize("NFKC", text).translate(_DASHES).split())


def relative_file(color: Color, file: int) -> int:
    """The file number 1–9 counted from the mover's right (White's right is file i)."""
    return 9 - file if color is WHITE else file + 1


def absolute_file(color: Color, number: int) -> int:
    """Inverse of `relative_file`: 0 is file a."""
    return 9 - number if color is WHITE else number - 1


def _forward(color: Color) -> int:
    return 1 if color is WHITE else -1


# How a piece among 2–5 like pieces on one file is named, front (toward the enemy) first.
_MARKERS = {
    2: ("front", "rear"),
    3: ("front", "middle", "rear"),
    4: ("front2", "front", "rear", "rear2"),
    5: ("front2", "front", "middle", "rear", "rear2"),
}
# Advisors and elephants on one file are told apart by their direction, never by a marker.
_NO_MARKER = (PieceType.ADVISOR, PieceType.ELEPHANT)
_STRAIGHT = (PieceType.GENERAL, PieceType.CHARIOT, PieceType.CANNON, PieceType.SOLDIER)


@dataclass(frozen=True, slots=True)
class Relative:
    """A move as the relative notations (vn, wxf, chinese) see it, from the mover's side.

    `file` is 1–9 from the mover's right; `index` is the piece's place among the `count`
    like pieces on that file (0 = front); `tandem_files` counts the files holding two or more
    of them; `direction` is ``+`` forward, ``-`` back, ``=`` sideways; `number` is the
    destination file (sideways moves and diagonal movers) or the number of steps.
    """

    kind: PieceType
    file: int
    index: int
    count: int
    tandem_files: int
    direction: str
    number: int

    @property
    def marker(self) -> str | None:
        """front/rear/middle/front2/rear2 when the canonical form names the piece so."""
        if self.count < 2 or self.kind in _NO_MARKER:
            return None
        return _MARKERS[self.count][self.index]

    @property
    def shows_file(self) -> bool:
        """Soldiers stacked on two files: the marker needs the file as well."""
        return self.marker is not None and self.kind is PieceType.SOLDIER and self.tandem_files >= 2


def relative_moves(board: Board, moves: Iterable[Move] | None = None) -> list[tuple[Move, Relative]]:
    """Each legal move (or each of `moves`) with its `Relative` description."""
    color = board.turn
    forward = _forward(color)
    pieces = board.piece_map()
    files: dict[tuple[PieceType, int], list[int]] = {}
    for point, piece in pieces.items():
        if piece.color is color:
            files.setdefault((piece.kind, point.file), []).append(point.rank)
    tandem: dict[PieceType, int] = {}
    for (kind, _file), ranks in files.items():
        if len(ranks) >= 2:
            tandem[kind] = tandem.get(kind, 0) + 1
    result = []
    for move in board.legal_moves if moves is None else moves:
        origin, target = move.from_point, move.to_point
        kind = pieces[origin].kind
        ranks = sorted(files[(kind, origin.file)], key=lambda r: -r * forward)
        advance = (target.rank - origin.rank) * forward
        direction = "+" if advance > 0 else "-" if advance < 0 else "="
        if direction == "=" or kind not in _STRAIGHT:
            number = relative_file(color, target.file)
        else:
            number = abs(advance)
        result.append((move, Relative(kind, relative_file(color, origin.file), ranks.index(origin.rank),
                                      len(ranks), tandem.get(kind, 0), direction, number)))
    return result


@dataclass(frozen=True, slots=True)
class _Spec:
    """What a relative token says: the piece kinds it may name and the constraints on it."""

    kinds: frozenset[PieceType]
    file: int | None
    marker: str | None  # a _MARKERS name, or "1".."5" for an ordinal counted from the front
    direction: str
    number: int


def _marker_index(marker: str, count: int) -> int | None:
    if marker.isdigit():
        ordinal = int(marker)
        return ordinal - 1 if 2 <= count and ordinal <= count else None
    names = _MARKERS.get(count, ())
    return names.index(marker) if marker in names else None


def _fits(spec: _Spec, rel: Relative, strict: bool) -> bool:
    if rel.kind not in spec.kinds or rel.direction != spec.direction or rel.number != spec.number:
        return False
    if spec.file is not None and spec.file != rel.file:
        return False
    if spec.marker is not None:
        return _marker_index(spec.marker, rel.count) == rel.index
    if strict and spec.file is not None and rel.count >= 2 and rel.kind not in _NO_MARKER:
        # A file without a marker on a stacked file names the middle soldier (WXF "P3.4").
        return rel.count in (3, 5) and rel.index == rel.count // 2
    return True


def _resolve(board: Board, spec: _Spec, text: str, notation: str) -> Move:
    """The one legal move that `spec` names. Canonical reading first, then a lenient one
    (a file given where a marker was due, e.g. the old ``C3=5`` for the rear cannon)."""
    described = relative_moves(board)
    for strict in (True, False):
        found = [move for move, rel in described if _fits(spec, rel, strict)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            options = ", ".join(sorted(m.iccs() for m in found))
            raise AmbiguousMoveError(f"{text!r} is ambiguous in {notation}: it fits {options}")
    raise IllegalMoveError(f"{text!r} names no legal move ({notation}) in {board.fen()}")


# ----------------------------------------------------------------------- vn-coord
class VnCoordNotation:
    """Federation coordinate notation (seed 004): piece letter and destination point.

    Letters T S V X P M B; files a–i from White's left, ranks 0–9 from White's side. When
    another like piece could legally reach the same point, the origin file is added
    (``Xcc8``), or the origin rank when both stand on one file (``X3c8``), or both.
    """

    name = "vn-coord"
    _TOKEN = re.compile(r"([TSVXPMB])([a-i])?([0-9])?[x:\-]?([a-i])([0-9])[+#!?]*")

    def format(self, board: Board, move: Move) -> str:
        piece = board.piece_at(move.from_point)
        if piece is None or not board.is_legal(move):
            raise IllegalMoveError(f"{move} is not a legal move in {board.fen()}")
        rivals = [m.from_point for m in board.legal_moves
                  if m.to_point == move.to_point and m.from_point != move.from_point
                  and board.piece_at(m.from_point).kind is piece.kind]
        origin = ""
        if rivals:
            if all(p.file != move.from_point.file for p in rivals):
                origin = "abcdefghi"[move.from_point.file]
            elif all(p.rank != move.from_point.rank for p in rivals):
                origin = str(move.from_point.rank)
            else:
                origin = "abcdefghi"[move.from_point.file] + str(move.from_point.rank)
        target = "abcdefghi"[move.to_point.file] + str(move.to_point.rank)
        return piece.kind.vn + origin + target

    def parse(self, board: Board, text: str) -> Move:
        token = _clean(text)
        if token[:1].islower() and not re.fullmatch(r"[a-i][0-9][a-i][0-9]", token):
            token = token[:1].upper() + token[1:]  # "phe2"; never an ICCS-shaped token
        found = self._TOKEN.fullmatch(token)
        if not found:
            raise NotationError(f"{text!r} is not a vn-coord move (like Phe2, Xcc8, X3c8)")
        letter, file, rank, to_file, to_rank = found.groups()
        kind = PieceType("TSVMXPB".index(letter) + 1)
        target = Point("abcdefghi".index(to_file), int(to_rank))
        fits = []
        for move in board.legal_moves:
            if move.to_point != target or board.piece_at(move.from_point).kind is not kind:
                continue
            if file is not None and move.from_point.file != "abcdefghi".index(file):
                continue
            if rank is not None and move.from_point.rank != int(rank):
                continue
            fits.append(move)
        if len(fits) == 1:
            return fits[0]
        if fits:
            options = ", ".join(sorted(m.iccs() for m in fits))
            raise AmbiguousMoveError(f"{text!r} is ambiguous: it fits {options}; add the origin file or rank")
        raise IllegalMoveError(f"{text!r} names no legal move in {board.fen()}")


# -------------------------------------------------------------------------- vn
_VN_LETTERS = {PieceType.GENERAL: "Tg", PieceType.ADVISOR: "S", PieceType.ELEPHANT: "V",
               PieceType.HORSE: "M", PieceType.CHARIOT: "X", PieceType.CANNON: "P",
               PieceType.SOLDIER: "B"}
_VN_READ = {"tg": {PieceType.GENERAL}, "t": {PieceType.GENERAL, PieceType.ELEPHANT},
            "s": {PieceType.ADVISOR}, "v": {PieceType.ELEPHANT}, "m": {PieceType.HORSE},
            "x": {PieceType.CHARIOT}, "p": {PieceType.CANNON}, "b": {PieceType.SOLDIER}}
_VN_MARKERS = {"front": "t", "rear": "s", "middle": "g", "front2": "tt", "rear2": "ss"}
_VN_DIRECTIONS = {"+": ".", "-": "/", "=": "-"}


class VnNotation:
    """Traditional Vietnamese notation: ``P2-5``, ``M8.7``, ``X9-8``, ``B2.1``.

    Piece (Tg S V M X P B), origin file 1–9 from the mover's right, ``.`` tấn (forward),
    ``/`` thoái (back) or ``-`` bình (sideways), then the destination file (sideways moves,
    S, V, M) or the number of steps. Like pieces on one file: ``t`` front, ``s`` rear,
    ``g`` middle in place of the file (``Xs-2``, ``Bg-6``, ``Pt.2``).
    """

    name = "vn"
    _TOKEN = re.compile(r"(tg|[tsvmxpb])([1-9])?(tt|ss|t|s|g)?([./\-])([1-9])", re.IGNORECASE)

    def format(self, board: Board, move: Move) -> str:
        rel = _relative_of(board, move)
        origin = str(rel.file)
        if rel.marker is not None:
            origin = (str(rel.file) if rel.shows_file else "") + _VN_MARKERS[rel.marker]
        return f"{_VN_LETTERS[rel.kind]}{origin}{_VN_DIRECTIONS[rel.direction]}{rel.number}"

    def parse(self, board: Board, text: str) -> Move:
        token = _clean(text)
        found = self._TOKEN.fullmatch(token) or self._TOKEN.fullmatch(_vn_words(text) or "")
        if not found:
            raise NotationError(f"{text!r} is not a traditional vn move (like P2-5, M8.7, Xt.1)")
        letter, file, marker, direction, number = found.groups()
        spec = _Spec(frozenset(_VN_READ[letter.lower()]), int(file) if file else None,
                     {v: k for k, v in _VN_MARKERS.items()}[marker.lower()] if marker else None,
                     {".": "+", "/": "-", "-": "="}[direction], int(number))
        return _resolve(board, spec, text, "vn")


_VN_WORD_PIECES = {"tuong": "T", "soai": "Tg", "si": "S", "voi": "V", "xe": "X", "phao": "P",
                   "ma": "M", "tot": "B", "binh": "B"}
_VN_WORD_MARKERS = {"truoc": "t", "sau": "s", "giua": "g"}
_VN_WORD_DIRECTIONS = {"tan": ".", "tien": ".", "thoai": "/", "lui": "/", "binh": "-"}


def _vn_words(text: str) -> str | None:
    """The spelled-out record, "Pháo 2 bình 5", "Xe sau bình 2", as a token ("P2-5", "Xs-2").

    Diacritics are optional; "Tướng" and "Tượng" both read as T (told apart by legality)."""
    if not isinstance(text, str):
        return None
    plain = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).replace("Đ", "D").replace("đ", "d"))
    words = "".join(c for c in plain if not unicodedata.combining(c)).lower().split()
    if len(words) < 3 or words[0] not in _VN_WORD_PIECES:
        return None
    *origin, direction, number = words[1:]
    if direction not in _VN_WORD_DIRECTIONS or len(origin) > 2:
        return None
    parts = [_VN_WORD_MARKERS.get(word, word) for word in origin]
    return _VN_WORD_PIECES[words[0]] + "".join(parts) + _VN_WORD_DIRECTIONS[direction] + number


def _relative_of(board: Board, move: Move) -> Relative:
    if board.piece_at(move.from_point) is None or not board.is_legal(move):
        raise IllegalMoveError(f"{move} is not a legal move in {board.fen()}")
    return relative_moves(board, [move])[0][1]


# -------------------------------------------------------------------------- wxf
_WXF_READ = {letter: PieceType(index + 1) for index, letter in enumerate("KAEHRCP")}
_WXF_SYMBOLS = {"front": "+", "rear": "-", "front2": "++", "rear2": "--"}


class WxfNotation:
    """WXF/AXF notation: ``C2=5``, ``H8+7``, ``R+=4``, ``C--1``.

    Letters K A E H R C P; ``+`` forward, ``-`` back, ``=`` sideways (``.`` is read too).
    Like pieces on one file: ``+`` front, ``-`` rear in place of the file. Soldiers follow
    the WXF rules: three on a file are ``P+``, ``P3`` (middle, plain notation), ``P-``; four
    or five are ``++``, ``P+``, (``P3``,) ``P-``, ``--``; when two files hold stacked soldiers
    the file digit replaces the letter (``3+``, ``33``, ``3-``).
    """

    name = "wxf"
    _TOKEN = re.compile(r"([KAEHRCP])?([1-9+\-]{1,2})([+\-=.])([1-9])", re.IGNORECASE)
    _MARK_FIRST = re.compile(r"^([+\-])([KAEHRCP])([+\-=.][1-9])$", re.IGNORECASE)

    def format(self, board: Board, move: Move) -> str:
        rel = _relative_of(board, move)
        letter = rel.kind.wxf
        marker = rel.marker
        if marker is None:
            origin = letter + str(rel.file)
        elif rel.shows_file:
            origin = str(rel.file) + _WXF_SYMBOLS.get(marker, str(rel.file))
        elif marker == "middle":
            origin = letter + str(rel.file)
        elif marker in ("front2", "rear2"):
            origin = _WXF_SYMBOLS[marker]
        else:
            origin = letter + _WXF_SYMBOLS[marker]
        return f"{origin}{rel.direction}{rel.number}"

    def parse(self, board: Board, text: str) -> Move:
        token = _clean(text)
        # Some programs write the front/rear mark before the letter ("+C.5", "-R+1").
        token = self._MARK_FIRST.sub(r"\2\1\3", token)
        found = self._TOKEN.fullmatch(token)
        spec = found and self._spec(found)
        if not spec:
            raise NotationError(f"{text!r} is not a WXF move (like C2=5, H8+7, R+=4)")
        return _resolve(board, spec, text, "wxf")

    @staticmethod
    def _spec(found: re.Match) -> _Spec | None:
        letter, origin, direction, number = found.groups()
        kinds = frozenset({_WXF_READ[letter.upper()]} if letter else {PieceType.SOLDIER})
        file: int | None = None
        marker: str | None = None
        symbols = {v: k for k, v in _WXF_SYMBOLS.items()}
        if origin.isdigit() and len(origin) == 1:
            file = int(origin)
        elif origin in symbols:
            marker = symbols[origin]
        elif origin[0].isdigit() and origin[1] in "+-":
            file, marker = int(origin[0]), symbols[origin[1]]  # "3+", also read as "P3+"
        elif origin[0].isdigit() and origin[0] == origin[1]:
            file = int(origin[0])  # "33": the middle soldier of file 3
        else:
            return None
        if letter is None and origin.isdigit() and len(origin) == 1:
            return None  # "2+1" names no piece
        return _Spec(kinds, file, marker, "=" if direction == "." else direction, int(number))


# ------------------------------------------------------------------------- iccs
class IccsNotation:
    """ICCS: origin and destination points, files a–i, ranks 0–9 from White's side.

    Written ``h2e2``; ``H2-E2`` (the PGN habit) is read too.
    """

    name = "iccs"
    _TOKEN = re.compile(r"([a-i][0-9])-?([a-i][0-9])[+#!?]*")

    def format(self, board: Board, move: Move) -> str:
        return Move(move.from_point, move.to_point).iccs()

    def parse(self, board: Board, text: str) -> Move:
        token = _clean(text).lower()
        found = self._TOKEN.fullmatch(token)
        if not found:
            raise NotationError(f"{text!r} is not an ICCS move (like h2e2)")
        move = Move.from_iccs(found.group(1) + found.group(2))
        if not board.is_legal(move):
            raise IllegalMoveError(f"{text!r} is not legal in {board.fen()}")
        return move


# ----------------------------------------------------------------------- chinese
_CN_PIECES = {WHITE: "帥仕相馬車炮兵", Color.BLACK: "將士象馬車炮卒"}
_CN_READ = {
    **{char: PieceType(i + 1) for i, char in enumerate("帥仕相馬車炮兵")},
    **{char: PieceType(i + 1) for i, char in enumerate("將士象馬車炮卒")},
    "帅": PieceType.GENERAL, "将": PieceType.GENERAL, "傌": PieceType.HORSE, "马": PieceType.HORSE,
    "俥": PieceType.CHARIOT, "车": PieceType.CHARIOT, "砲": PieceType.CANNON, "包": PieceType.CANNON,
}
_CN_RED_NUMERALS = "一二三四五六七八九"
_CN_BLACK_NUMERALS = "１２３４５６７８９"
_CN_MARKERS = {"front": "前", "middle": "中", "rear": "後"}
_CN_DIRECTIONS = {"+": "進", "-": "退", "=": "平"}
_CN_READ_DIRECTIONS = {"進": "+", "进": "+", "退": "-", "平": "="}


def _cn_number(char: str) -> int | None:
    if char in _CN_RED_NUMERALS:
        return _CN_RED_NUMERALS.index(char) + 1
    digit = unicodedata.normalize("NFKC", char)
    return int(digit) if digit in "123456789" and len(digit) == 1 else None


class ChineseNotation:
    """Chinese notation: ``炮二平五`` (Red, Chinese numerals), ``馬８進７`` (Black, full-width
    digits); ``進`` forward, ``退`` back, ``平`` sideways; ``前``/``後``/``中`` for like pieces
    on one file (``前炮平五``), ``一兵``…``五兵`` for four or five soldiers on a file, and
    ``前三``/``中三``/``後三`` (marker and file, no piece) when two files hold stacked soldiers.

    Written in traditional characters; simplified ones, ASCII digits and 俥傌砲包 are read too.
    """

    name = "chinese"

    def format(self, board: Board, move: Move) -> str:
        rel = _relative_of(board, move)
        numerals = _CN_RED_NUMERALS if board.turn is WHITE else _CN_BLACK_NUMERALS
        piece = _CN_PIECES[board.turn][rel.kind - 1]
        marker = rel.marker
        if marker is None:
            origin = piece + numerals[rel.file - 1]
        elif rel.shows_file:
            origin = _CN_MARKERS[marker] + numerals[rel.file - 1]
        elif rel.count >= 4:
            origin = _CN_RED_NUMERALS[rel.index] + piece
        else:
            origin = _CN_MARKERS[marker] + piece
        return f"{origin}{_CN_DIRECTIONS[rel.direction]}{numerals[rel.number - 1]}"

    def parse(self, board: Board, text: str) -> Move:
        if not isinstance(text, str):
            raise NotationError(f"{text!r} is not text")
        token = "".join(text.split())
        spec = self._spec(token) if len(token) == 4 else None
        if spec is None:
            raise NotationError(f"{text!r} is not a Chinese move (like 炮二平五, 馬８進７, 前炮平五)")
        return _resolve(board, spec, text, "chinese")

    @staticmethod
    def _spec(token: str) -> _Spec | None:
        first, second, direction, last = token
        number = _cn_number(last)
        if direction not in _CN_READ_DIRECTIONS or number is None:
            return None
        markers = {"前": "front", "中": "middle", "後": "rear", "后": "rear"}
        kind: PieceType | None = None
        file: int | None = None
        marker: str | None = None
        if first in _CN_READ and _cn_number(second) is not None:
            kind, file = _CN_READ[first], _cn_number(second)
        elif first in markers and second in _CN_READ:
            kind, marker = _CN_READ[second], markers[first]
        elif first in markers and _cn_number(second) is not None:
            kind, marker, file = PieceType.SOLDIER, markers[first], _cn_number(second)
        elif first in _CN_RED_NUMERALS[:5] and second in _CN_READ:
            kind, marker = _CN_READ[second], str(_CN_RED_NUMERALS.index(first) + 1)
        else:
            return None
        return _Spec(frozenset({kind}), file, marker, _CN_READ_DIRECTIONS[direction], number)


VN_COORD = VnCoordNotation()
VN = VnNotation()
WXF = WxfNotation()
ICCS = IccsNotation()
CHINESE = ChineseNotation()

# The order is the order of auto-detection (`Variant.parse_move`): the federation notation
# first, then traditional Vietnamese before WXF, so that ``P2.1`` is the cannon of the
# Vietnamese record, not a WXF soldier (see NOTATION.md, "Reading any notation").
NOTATIONS = {"vn-coord": VN_COORD, "vn": VN, "wxf": WXF, "iccs": ICCS, "chinese": CHINESE}

__all__ = [
    "CHINESE", "ICCS", "NOTATIONS", "VN", "VN_COORD", "WXF", "ChineseNotation", "IccsNotation",
    "NotationError", "Relative", "VnCoordNotation", "VnNotation", "WxfNotation", "absolute_file",
    "relative_file", "relative_moves",
]
