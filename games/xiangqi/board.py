"""The Xiangqi board under Vietnamese federation law (seed 001).

>>> board = Board()
>>> board.push(Move.from_iccs("h2e2"))
>>> board.fen()
'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1'
>>> Move.from_iccs("h9g7") in board.legal_moves
True
>>> board.pop()
Move.from_iccs('h2e2')
>>> board.perft(2)
1920
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from games.base import (
    BLACK,
    WHITE,
    Color,
    GameOverError,
    IllegalMoveError,
    InvalidFenError,
    NotationError,
    Outcome,
    Point,
    PositionIdentity,
    Termination,
)
from games.base import Move as BaseMove
from games.xiangqi import tables as T

STARTING_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
STARTING_BOARD_FEN = STARTING_FEN.split()[0]
FILE_NAMES = "abcdefghi"

# Sixty moves each without a capture (seed 001): 120 plies.
DRAW_CLAIM_PLIES = 120


class PieceType(enum.IntEnum):
    """The seven kinds of piece, with their federation letter (seed 004) and WXF letter."""

    GENERAL = T.GENERAL
    ADVISOR = T.ADVISOR
    ELEPHANT = T.ELEPHANT
    HORSE = T.HORSE
    CHARIOT = T.CHARIOT
    CANNON = T.CANNON
    SOLDIER = T.SOLDIER

    @property
    def vn(self) -> str:
        """Letter of the Vietnamese federation notation: T S V M X P B."""
        return "TSVMXPB"[self - 1]

    @property
    def wxf(self) -> str:
        return "KAEHRCP"[self - 1]

    @property
    def fen(self) -> str:
        return T.LETTERS[self]


class Piece(NamedTuple):
    """A piece: its kind and colour. ``Piece.from_symbol('R')`` is White's chariot."""

    kind: PieceType
    color: Color

    def symbol(self) -> str:
        letter = self.kind.fen
        return letter.upper() if self.color is WHITE else letter

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        kind = T.FROM_LETTER.get(symbol.lower())
        if kind is None or len(symbol) != 1:
            raise InvalidFenError(f"{symbol!r} is not a Xiangqi piece letter")
        return cls(PieceType(kind), WHITE if symbol.isupper() else BLACK)

    def code(self) -> int:
        return int(self.kind) if self.color is WHITE else -int(self.kind)

    @classmethod
    def from_code(cls, code: int) -> Piece:
        return cls(PieceType(abs(code)), WHITE if code > 0 else BLACK)


def _sq(point: Point) -> int:
    return point.rank * T.FILES + point.file


def _point(sq: int) -> Point:
    return Point(sq % T.FILES, sq // T.FILES)


def point_name(point: Point) -> str:
    return f"{FILE_NAMES[point.file]}{point.rank}"


def parse_point(text: str) -> Point:
    if len(text) == 2 and text[0] in FILE_NAMES and text[1] in "0123456789":
        return Point(FILE_NAMES.index(text[0]), int(text[1]))
    raise NotationError(f"{text!r} is not a Xiangqi point (a0…i9)")


@dataclass(frozen=True, slots=True)
class Move(BaseMove):
    """A Xiangqi move. Its string is ICCS: origin and destination, ranks 0–9 from White's side."""

    def iccs(self) -> str:
        return point_name(self.from_point) + point_name(self.to_point)

    @classmethod
    def from_iccs(cls, text: str) -> Move:
        text = text.strip()
        if len(text) != 4:
            raise NotationError(f"{text!r} is not an ICCS move (like h2e2)")
        return cls(parse_point(text[:2].lower()), parse_point(text[2:].lower()))

    def __str__(self) -> str:
        return self.iccs()

    def __repr__(self) -> str:
        if not (_valid_point(self.from_point) and _valid_point(self.to_point)):
            return f"Move({self.from_point!r}, {self.to_point!r})"  # off the board: no ICCS name
        return f"Move.from_iccs({self.iccs()!r})"


# Every possible move, made once: code = from * 90 + to.
_MOVES = [Move(_point(code // T.SQUARES), _point(code % T.SQUARES))
          for code in range(T.SQUARES * T.SQUARES)]


def _code(move: BaseMove) -> int:
    return _sq(move.from_point) * T.SQUARES + _sq(move.to_point)


class _Undo(NamedTuple):
    code: int
    captured: int
    halfmove: int
    key: int


class LegalMoveGenerator:
    """The legal moves of a position, generated when iterated (like python-chess)."""

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        return (_MOVES[code] for code in self._board._legal_codes())

    def __len__(self) -> int:
        return len(self._board._legal_codes())

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return bool(self._board._legal_codes())

    def __contains__(self, move: object) -> bool:
        return isinstance(move, BaseMove) and self._board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(m.iccs() for m in self)})>"


class Board(PositionIdentity):
    """A Xiangqi position with its move history.

    White (Trắng, red) is at ranks 0–4 and moves first. Points are `Point(file, rank)`,
    files a–i from White's left, ranks 0–9 from White's side, as in ICCS and seed 004.
    """

    def __init__(self, fen: str | None = STARTING_FEN) -> None:
        self._board = [T.EMPTY] * T.SQUARES
        self._kings = [-1, -1]
        self.turn = WHITE
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.move_stack: list[Move] = []
        self._undo: list[_Undo] = []
        # Check and chase facts per ply, filled lazily by the repetition judgement.
        self._ply_records: dict[int, object] = {}
        self._key = 0
        self._set_outcome: Outcome | None = None
        self._root_fen = STARTING_FEN
        if fen is not None:
            self.set_fen(fen)
        else:
            self.clear()

    # ----------------------------------------------------------------- position setup
    def clear(self) -> None:
        """An empty board, White to move, no history."""
        self._board = [T.EMPTY] * T.SQUARES
        self._kings = [-1, -1]
        self.turn = WHITE
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.move_stack = []
        self._undo = []
        self._ply_records = {}
        self._set_outcome = None
        self._key = self._compute_key()
        self._root_fen = self.fen()

    def set_fen(self, fen: str) -> None:
        """Set the position from Xiangqi FEN. The side may be ``w``, ``r`` (red) or ``b``.

        Raises `InvalidFenError` naming the part that is wrong; the board is unchanged then.
        """
        if not isinstance(fen, str) or not fen.strip():
            raise InvalidFenError("empty FEN")
        parts = fen.split()
        if len(parts) > 6:
            raise InvalidFenError(f"FEN has {len(parts)} fields, at most 6: {fen!r}")
        squares = _parse_board_fen(parts[0])
        side = parts[1].lower() if len(parts) > 1 else "w"
        if side not in ("w", "r", "b"):
            raise InvalidFenError(f"side to move {parts[1]!r} is not w, r or b")
        halfmove, fullmove = 0, 1
        if len(parts) > 4:
            halfmove = _parse_counter(parts[4], "halfmove clock", minimum=0)
        if len(parts) > 5:
            fullmove = _parse_counter(parts[5], "fullmove number", minimum=1)
        kings = [-1, -1]
        for sq, code in enumerate(squares):
            if abs(code) == T.GENERAL:
                color = 0 if code > 0 else 1
                if kings[color] != -1:
                    raise InvalidFenError(f"FEN has two {'White' if color == 0 else 'Black'} generals")
                kings[color] = sq
        _validate_placement(squares)
        turn = BLACK if side == "b" else WHITE
        _validate_not_in_check(squares, kings, turn)
        self._board = squares
        self._kings = kings
        self.turn = turn
        self.halfmove_clock = halfmove
        self.fullmove_number = fullmove
        self.move_stack = []
        self._undo = []
        self._ply_records = {}
        self._set_outcome = None
        self._key = self._compute_key()
        self._root_fen = self.fen()

    def board_fen(self) -> str:
        rows = []
        for rank in range(T.RANKS - 1, -1, -1):
            row, empty = "", 0
            for file in range(T.FILES):
                code = self._board[rank * T.FILES + file]
                if code == T.EMPTY:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                letter = T.LETTERS[abs(code)]
                row += letter.upper() if code > 0 else letter
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    def fen(self) -> str:
        """Xiangqi FEN with letters ``rnbakabnr`` and ``w``/``b`` for the side to move."""
        return f"{self.board_fen()} {self.turn.value} - - {self.halfmove_clock} {self.fullmove_number}"

    @property
    def root_fen(self) -> str:
        """The position before the first move of `move_stack`."""
        return self._root_fen

    def root(self) -> Board:
        return Board(self._root_fen)

    def copy(self, stack: bool = True) -> Board:
        other = Board.__new__(Board)
        other._board = self._board[:]
        other._kings = self._kings[:]
        other.turn = self.turn
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other._key = self._key
        other._set_outcome = self._set_outcome
        if stack:
            other.move_stack = self.move_stack[:]
            other._undo = self._undo[:]
            other._ply_records = dict(self._ply_records)
            other._root_fen = self._root_fen
        else:
            other.move_stack = []
            other._undo = []
            other._ply_records = {}
            other._root_fen = self.fen()
        return other

    def __str__(self) -> str:
        lines = []
        for rank in range(T.RANKS - 1, -1, -1):
            cells = []
            for file in range(T.FILES):
                code = self._board[rank * T.FILES + file]
                cells.append(Piece.from_code(code).symbol() if code else ".")
            lines.append(f"{rank} " + " ".join(cells))
        lines.append("  " + " ".join(FILE_NAMES))
        return "\n".join(lines)

    # ------------------------------------------------------------------- pieces
    def piece_at(self, point: Point) -> Piece | None:
        code = self._board[_sq(_checked_point(point))]
        return Piece.from_code(code) if code else None

    def set_piece_at(self, point: Point, piece: Piece | None) -> None:
        """Put `piece` on `point` (or empty it). Clears the move history, like set_fen.

        The position must stay one a set can show, both generals included (`InvalidFenError`
        otherwise, the board unchanged): move pieces of a whole position, or write a new one
        as FEN or a position list (`games.xiangqi.positions.read_position_list`); an empty
        board (`clear`) is not built up piece by piece.

        >>> board = Board()
        >>> board.set_piece_at(Point(0, 0), None)  # the first chariot taken off
        >>> board.board_fen().endswith("/1NBAKABNR")
        True
        """
        squares = self._board[:]
        squares[_sq(_checked_point(point))] = piece.code() if piece else T.EMPTY
        fen = _squares_fen(squares)
        self.set_fen(f"{fen} {self.turn.value} - - 0 {self.fullmove_number}")

    def pieces(self, kind: PieceType, color: Color) -> list[Point]:
        code = int(kind) if color is WHITE else -int(kind)
        return [_point(sq) for sq, c in enumerate(self._board) if c == code]

    def piece_map(self) -> dict[Point, Piece]:
        return {_point(sq): Piece.from_code(c) for sq, c in enumerate(self._board) if c}

    def king(self, color: Color) -> Point | None:
        sq = self._kings[0 if color is WHITE else 1]
        return _point(sq) if sq >= 0 else None

    # ---------------------------------------------------------- move generation
    def _pseudo_codes(self, sign: int) -> list[int]:
        b = self._board
        color = 0 if sign > 0 else 1
        codes: list[int] = []
        add = codes.append
        for sq in range(T.SQUARES):
            p = b[sq] * sign
            if p <= 0:
                continue
            base = sq * T.SQUARES
            if p == T.CHARIOT:
                for ray in T.RAYS[sq]:
                    for to in ray:
                        q = b[to]
                        if q == 0:
                            add(base + to)
                        else:
                            if q * sign < 0:
                                add(base + to)
                            break
            elif p == T.CANNON:
                for ray in T.RAYS[sq]:
                    screened = False
                    for to in ray:
                        q = b[to]
                        if not screened:
                            if q == 0:
                                add(base + to)
                            else:
                                screened = True
                        elif q:
                            if q * sign < 0:
                                add(base + to)
                            break
            elif p == T.HORSE:
                for to, leg in T.HORSE_MOVES[sq]:
                    if not b[leg] and b[to] * sign <= 0:
                        add(base + to)
            elif p == T.SOLDIER:
                for to in T.SOLDIER_MOVES[color][sq]:
                    if b[to] * sign <= 0:
                        add(base + to)
            elif p == T.ELEPHANT:
                for to, eye in T.ELEPHANT_MOVES[color][sq]:
                    if not b[eye] and b[to] * sign <= 0:
                        add(base + to)
            elif p == T.ADVISOR:
                for to in T.ADVISOR_MOVES[color][sq]:
                    if b[to] * sign <= 0:
                        add(base + to)
            else:
                for to in T.GENERAL_MOVES[color][sq]:
                    if b[to] * sign <= 0:
                        add(base + to)
        return codes

    def _attacked(self, target: int, sign: int) -> bool:
        """Is the square `target` of the side `sign` attacked by the other side?

        The enemy general counts as attacking along an open file (the flying general).
        """
        b = self._board
        chariot, cannon, general = -sign * T.CHARIOT, -sign * T.CANNON, -sign * T.GENERAL
        for ray in T.RAYS[target]:
            screened = False
            for sq in ray:
                p = b[sq]
                if p:
                    if screened:
                        if p == cannon:
                            return True
                        break
                    if p == chariot or p == general:
                        return True
                    screened = True
        horse = -sign * T.HORSE
        for sq, leg in T.HORSE_ATTACKERS[target]:
            if b[sq] == horse and not b[leg]:
                return True
        soldier = -sign * T.SOLDIER
        for sq in T.SOLDIER_ATTACKERS[1 if sign > 0 else 0][target]:
            if b[sq] == soldier:
                return True
        return False

    def _legal_codes(self) -> list[int]:
        sign = 1 if self.turn is WHITE else -1
        color = 0 if sign > 0 else 1
        king = self._kings[color]
        if king < 0:
            return []
        b = self._board
        in_check = self._attacked(king, sign)
        kf, kr = king % T.FILES, king // T.FILES
        legal: list[int] = []
        for code in self._pseudo_codes(sign):
            fr, to = divmod(code, T.SQUARES)
            moving = b[fr]
            if not in_check and fr != king:
                # Only a piece leaving or entering the general's lines, or freeing a horse's
                # leg next to it, can expose the general.
                ff, fr_rank = fr % T.FILES, fr // T.FILES
                tf, tr = to % T.FILES, to // T.FILES
                if (ff != kf and fr_rank != kr and tf != kf and tr != kr
                        and not (abs(ff - kf) == 1 and abs(fr_rank - kr) == 1)):
                    legal.append(code)
                    continue
            captured = b[to]
            b[to] = moving
            b[fr] = T.EMPTY
            safe = not self._attacked(to if fr == king else king, sign)
            b[fr] = moving
            b[to] = captured
            if safe:
                legal.append(code)
        return legal

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        return LegalMoveGenerator(self)

    def is_legal(self, move: BaseMove) -> bool:
        if not (_valid_point(move.from_point) and _valid_point(move.to_point)):
            return False
        code = _code(move)
        fr = code // T.SQUARES
        sign = 1 if self.turn is WHITE else -1
        if self._board[fr] * sign <= 0:
            return False
        return code in self._legal_codes()

    def perft(self, depth: int) -> int:
        """The number of leaf positions `depth` plies from here (move-generator check)."""
        if depth < 0:
            raise ValueError(f"perft depth must be ≥ 0, not {depth}")
        if depth == 0:
            return 1
        return self._perft(depth)

    def _perft(self, depth: int) -> int:
        codes = self._legal_codes()
        if depth == 1:
            return len(codes)
        b = self._board
        kings = self._kings
        color = 0 if self.turn is WHITE else 1
        nodes = 0
        for code in codes:
            fr, to = divmod(code, T.SQUARES)
            moving = b[fr]
            captured = b[to]
            b[to] = moving
            b[fr] = T.EMPTY
            if abs(moving) == T.GENERAL:
                kings[color] = to
            if abs(captured) == T.GENERAL:  # cannot happen in legal play; keeps tables sane
                kings[1 - color] = -1
            self.turn = self.turn.other
            nodes += self._perft(depth - 1)
            self.turn = self.turn.other
            b[fr] = moving
            b[to] = captured
            if abs(moving) == T.GENERAL:
                kings[color] = fr
            if abs(captured) == T.GENERAL:
                kings[1 - color] = to
        return nodes

    # -------------------------------------------------------------- make / unmake
    def push(self, move: BaseMove) -> None:
        """Play a legal move. Raises `IllegalMoveError` (a ValueError) otherwise."""
        if self.outcome_set() is not None:
            raise GameOverError(f"the game is over ({self._set_outcome.termination.value})")
        if not self.is_legal(move):
            raise IllegalMoveError(
                f"illegal move {_describe(move)} in {self.fen()}")
        self._push_code(_code(move))

    def _push_code(self, code: int) -> None:
        fr, to = divmod(code, T.SQUARES)
        b = self._board
        moving, captured = b[fr], b[to]
        self._undo.append(_Undo(code, captured, self.halfmove_clock, self._key))
        self.move_stack.append(_MOVES[code])
        key = self._key ^ T.ZOBRIST[moving + 7][fr] ^ T.ZOBRIST[moving + 7][to] ^ T.ZOBRIST_BLACK
        if captured:
            key ^= T.ZOBRIST[captured + 7][to]
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        self._key = key
        b[to] = moving
        b[fr] = T.EMPTY
        color = 0 if moving > 0 else 1
        if abs(moving) == T.GENERAL:
            self._kings[color] = to
        if self.turn is BLACK:
            self.fullmove_number += 1
        self.turn = self.turn.other

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._undo:
            raise IndexError("pop from an empty move stack")
        self._ply_records.pop(len(self._undo), None)
        undo = self._undo.pop()
        move = self.move_stack.pop()
        fr, to = divmod(undo.code, T.SQUARES)
        b = self._board
        moving = b[to]
        b[fr] = moving
        b[to] = undo.captured
        if abs(moving) == T.GENERAL:
            self._kings[0 if moving > 0 else 1] = fr
        self.turn = self.turn.other
        if self.turn is BLACK:
            self.fullmove_number -= 1
        self.halfmove_clock = undo.halfmove
        self._key = undo.key
        self._set_outcome = None
        return move

    def peek(self) -> Move:
        return self.move_stack[-1]

    def is_capture(self, move: BaseMove) -> bool:
        return self._board[_sq(move.to_point)] != T.EMPTY

    def gives_check(self, move: BaseMove) -> bool:
        self._push_code(_code(move))
        try:
            return self.is_check()
        finally:
            self.pop()

    def _compute_key(self) -> int:
        key = T.ZOBRIST_BLACK if self.turn is BLACK else 0
        for sq, code in enumerate(self._board):
            if code:
                key ^= T.ZOBRIST[code + 7][sq]
        return key

    def zobrist(self) -> int:
        """A 64-bit hash of the position (pieces and side to move)."""
        return self._key

    # -------------------------------------------------------------- game end
    def is_check(self) -> bool:
        color = 0 if self.turn is WHITE else 1
        king = self._kings[color]
        return king >= 0 and self._attacked(king, 1 if color == 0 else -1)

    def is_checkmate(self) -> bool:
        return self.is_check() and not self._legal_codes()

    def is_stalemate(self) -> bool:
        """No legal move while not in check. Under seed 001 the stalemated side loses."""
        return not self.is_check() and not self._legal_codes()

    def is_insufficient_material(self) -> bool:
        """No chariot, horse, cannon or soldier on either side: an automatic draw."""
        attackers = (T.HORSE, T.CHARIOT, T.CANNON, T.SOLDIER)
        return not any(abs(code) in attackers for code in self._board)

    def can_claim_draw(self) -> bool:
        """Sixty moves each without a capture: a draw either player may claim (seed 001)."""
        return self.halfmove_clock >= DRAW_CLAIM_PLIES

    def repetition_outcome(self) -> Outcome | None:
        """The verdict on a repeated position, or None; see `games.xiangqi.repetition`."""
        from games.xiangqi.repetition import judge_repetition

        return judge_repetition(self)

    def outcome(self, *, claim_draw: bool = False) -> Outcome | None:
        """How the game has ended, or None while it goes on.

        The side with no legal move loses (checkmate, or stalemate under seed 001); no chariot,
        horse, cannon or soldier on either side is a draw. A position standing for the third
        time since the last capture is judged by `repetition_outcome`: perpetual check or
        perpetual chase loses, anything else draws (see `games.xiangqi.repetition`). The
        60-move draw counts only with ``claim_draw=True``. Resignation, agreement and time
        are set by the caller (`resign`, `agree_draw`, `flag`).

        >>> board = Board()
        >>> for text in "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0 g7h9".split():
        ...     board.push(Move.from_iccs(text))
        >>> board.outcome()
        Outcome(termination=<Termination.REPETITION: 'repetition'>, winner=None)
        """
        if self._set_outcome is not None:
            return self._set_outcome
        if not self._legal_codes():
            termination = Termination.CHECKMATE if self.is_check() else Termination.STALEMATE
            return Outcome(termination, self.turn.other)
        if self.is_insufficient_material():
            return Outcome(Termination.INSUFFICIENT_MATERIAL, None)
        verdict = self.repetition_outcome()
        if verdict is not None:
            return verdict
        if claim_draw and self.can_claim_draw():
            return Outcome(Termination.MOVE_LIMIT, None)
        return None

    def is_game_over(self, *, claim_draw: bool = False) -> bool:
        return self.outcome(claim_draw=claim_draw) is not None

    def outcome_set(self) -> Outcome | None:
        """The outcome set by the caller (resignation, agreement, time, arbiter), if any."""
        return self._set_outcome

    def set_outcome(self, outcome: Outcome) -> None:
        """Record an ending the board cannot see: resignation, agreement, time, arbiter.

        Refused once the game has already ended on the board (a mated side cannot agree a draw).
        A repetition verdict is not such an end: play may go on past it (seed 001, Điều 7 g and
        h), so a player may still resign, lose on time or agree a draw there.

        >>> board = Board()
        >>> for iccs in "h0g2 h9g7 g2h0 g7h9 h0g2 h9g7 g2h0 g7h9".split():
        ...     board.push(Move.from_iccs(iccs))
        >>> board.outcome().termination.value
        'repetition'
        >>> board.resign(WHITE)
        >>> board.outcome()
        Outcome(termination=<Termination.RESIGNATION: 'resignation'>, winner=<Color.BLACK: 'b'>)
        """
        finished = self.outcome()
        if finished is not None and not finished.termination.play_may_go_on:
            raise GameOverError(f"the game is already over ({finished.termination.value})")
        self._set_outcome = outcome

    def resign(self, color: Color) -> None:
        self.set_outcome(Outcome(Termination.RESIGNATION, color.other))

    def agree_draw(self) -> None:
        self.set_outcome(Outcome(Termination.AGREEMENT, None))

    def flag(self, color: Color) -> None:
        """`color` ran out of time."""
        self.set_outcome(Outcome(Termination.TIME_FORFEIT, color.other))


# --------------------------------------------------------------------- helpers
def _valid_point(point: object) -> bool:
    return (isinstance(point, tuple) and len(point) == 2
            and isinstance(point[0], int) and isinstance(point[1], int)
            and 0 <= point[0] < T.FILES and 0 <= point[1] < T.RANKS)


def _checked_point(point: Point) -> Point:
    if not _valid_point(point):
        raise NotationError(f"{point!r} is not a point of the Xiangqi board")
    return Point(*point)


def _describe(move: BaseMove) -> str:
    if _valid_point(move.from_point) and _valid_point(move.to_point):
        return point_name(move.from_point) + point_name(move.to_point)
    return repr(move)


def _parse_counter(text: str, what: str, minimum: int) -> int:
    # isdigit() also accepts digits like '³' that int() refuses.
    if not (text.isascii() and text.isdigit()) or int(text) < minimum:
        raise InvalidFenError(f"{what} {text!r} is not a whole number ≥ {minimum}")
    return int(text)


def _parse_board_fen(text: str) -> list[int]:
    rows = text.split("/")
    if len(rows) != T.RANKS:
        raise InvalidFenError(f"FEN board {text!r} has {len(rows)} ranks, not 10")
    squares = [T.EMPTY] * T.SQUARES
    for index, row in enumerate(rows):
        rank = T.RANKS - 1 - index
        file = 0
        for char in row:
            if char in "123456789":
                file += int(char)
            else:
                kind = T.FROM_LETTER.get(char.lower())
                if kind is None or not char.isascii():
                    raise InvalidFenError(f"{char!r} in FEN rank {rank} ({row!r}) is not a piece letter")
                if file >= T.FILES:
                    raise InvalidFenError(f"FEN rank {rank} ({row!r}) has more than 9 files")
                squares[rank * T.FILES + file] = kind if char.isupper() else -kind
                file += 1
        if file != T.FILES:
            raise InvalidFenError(f"FEN rank {rank} ({row!r}) covers {file} files, not 9")
    return squares


def _squares_fen(squares: list[int]) -> str:
    board = Board.__new__(Board)
    board._board = squares
    return board.board_fen()


_LIMITS = {T.GENERAL: 1, T.ADVISOR: 2, T.ELEPHANT: 2, T.HORSE: 2, T.CHARIOT: 2, T.CANNON: 2,
           T.SOLDIER: 5}


def misplaced(piece: Piece, point: Point) -> str | None:
    """Why `piece` can never stand on `point` in a game from the start position, or None.

    >>> misplaced(Piece.from_symbol("B"), Point(4, 5))
    'White elephant on e5 is across the river'
    >>> misplaced(Piece.from_symbol("p"), Point(4, 4)) is None
    True
    """
    color = 0 if piece.color is WHITE else 1
    f, r = point
    name = f"{'White' if color == 0 else 'Black'} {piece.kind.name.lower()}"
    where = point_name(point)
    kind = int(piece.kind)
    if kind in (T.GENERAL, T.ADVISOR) and not T.in_palace(color, f, r):
        return f"{name} on {where} is outside its palace"
    if kind == T.ADVISOR and (f + r) % 2 != (1 if color == 0 else 0):
        return f"{name} on {where} is off the palace diagonals"
    if kind == T.ELEPHANT and not T.own_side(color, r):
        return f"{name} on {where} is across the river"
    if kind == T.ELEPHANT and T.square(f, r) not in _ELEPHANT_POINTS[color]:
        return f"{name} on {where} is not on an elephant point"
    if kind == T.SOLDIER and ((color == 0 and r < 3) or (color == 1 and r > 6)):
        return f"{name} on {where} is behind its starting rank"
    if kind == T.SOLDIER and T.own_side(color, r) and f % 2 == 1:
        return f"{name} on {where} cannot stand there before crossing the river"
    return None


def _validate_placement(squares: list[int]) -> None:
    """Reject what no Xiangqi set can show: missing generals, surplus pieces, pieces off their
    points (a general outside its palace, an elephant across the river, a soldier behind its
    starting rank)."""
    counts: dict[int, int] = {}
    for sq, code in enumerate(squares):
        if not code:
            continue
        counts[code] = counts.get(code, 0) + 1
        piece = Piece(PieceType(abs(code)), WHITE if code > 0 else BLACK)
        problem = misplaced(piece, Point(sq % T.FILES, sq // T.FILES))
        if problem:
            raise InvalidFenError(problem)
    for code, count in counts.items():
        if count > _LIMITS[abs(code)]:
            name = f"{'White' if code > 0 else 'Black'} {PieceType(abs(code)).name.lower()}s"
            raise InvalidFenError(f"FEN has {count} {name}, at most {_LIMITS[abs(code)]}")
    for code in (T.GENERAL, -T.GENERAL):
        if counts.get(code, 0) != 1:
            raise InvalidFenError(f"FEN has no {'White' if code > 0 else 'Black'} general")


def _validate_not_in_check(squares: list[int], kings: list[int], turn: Color) -> None:
    """Reject a position no move leads to: the side that has just moved in check, or the
    generals facing each other (RULES.md §1; seed 003, "chống tướng")."""
    (white_file, white_rank), (black_file, black_rank) = (divmod(kings[c], T.FILES)[::-1] for c in (0, 1))
    if white_file == black_file and not any(squares[T.square(white_file, rank)]
                                            for rank in range(white_rank + 1, black_rank)):
        raise InvalidFenError(f"the generals face each other on the {'abcdefghi'[white_file]} file")
    waiting = 1 if turn is WHITE else 0
    probe = Board.__new__(Board)
    probe._board = squares
    if probe._attacked(kings[waiting], 1 if waiting == 0 else -1):
        checked, mover = ("Black", "White") if waiting else ("White", "Black")
        raise InvalidFenError(f"{checked}'s general is in check with {mover} to move: no legal move leads there")


def _elephant_points(color: int) -> frozenset[int]:
    start = {2, 6} if color == 0 else {T.square(2, 9), T.square(6, 9)}
    seen, todo = set(start), list(start)
    while todo:
        sq = todo.pop()
        for to, _eye in T.ELEPHANT_MOVES[color][sq]:
            if to not in seen:
                seen.add(to)
                todo.append(to)
    return frozenset(seen)


_ELEPHANT_POINTS = (_elephant_points(0), _elephant_points(1))
