"""The Cờ Toán Việt Nam board (seed 002): numbered pieces in 99 cells, captures by calculation.

White (Trắng) holds row 1 and the 0 on e2; Black (Đen) holds row 11 and the 0 on e10.

>>> board = Board()
>>> board.piece_at(parse_cell("e2"))
Piece(value=0, color=<Color.WHITE: 'w'>)
>>> board.push(Move(parse_cell("g1"), parse_cell("g8")))   # the 7 walks 7 empty cells
>>> board.fen().split()[1:]
['b', '+-*:', '-', '0-0', 'w', '1']
>>> board.pop()
Move(from_point=Point(file=6, rank=0), to_point=Point(file=6, rank=7), operation=None)
>>> board.perft(1)
87
"""

from __future__ import annotations

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
from games.cotoan.arithmetic import OPERATIONS, capture_table, distances
from games.cotoan.geometry import BLACK_ZERO, CELLS, FILE_NAMES, FILES, RANKS, WHITE_ZERO
from games.cotoan.options import GameOptions, InvalidOptionError

# Row 1 holds White's 1…9 from White's left; row 11 mirrors it from Black's side (RULES.md §3).
STARTING_FEN = (
    "-9-8-7-6-5-4-3-2-1/....-0..../........./........./........./........./"
    "........./........./........./....0..../123456789 w +-*: - 0-0 w 1"
)
# The sum of the face values 1…9: what a whole set is worth on points.
SET_POINTS = 45

# Directions, clockwise from "up" (towards row 11): N, NE, E, SE, S, SW, W, NW.
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def _sq(point: Point) -> int:
    return point.rank * FILES + point.file


def _point(sq: int) -> Point:
    return Point(sq % FILES, sq // FILES)


def _rays(sq: int) -> tuple[tuple[int, ...], ...]:
    file, rank = sq % FILES, sq // FILES
    rays = []
    for df, dr in DIRECTIONS:
        ray = []
        f, r = file + df, rank + dr
        while 0 <= f < FILES and 0 <= r < RANKS:
            ray.append(r * FILES + f)
            f, r = f + df, r + dr
        rays.append(tuple(ray))
    return tuple(rays)


# For every cell, the cells outward in each of the 8 directions.
RAYS = tuple(_rays(sq) for sq in range(CELLS))
WHITE_ZERO_SQ, BLACK_ZERO_SQ = _sq(WHITE_ZERO), _sq(BLACK_ZERO)
# Square codes: empty 0; a piece of value v is v + 1, negative for Black (so the 0 is ±1).
EMPTY = 0


def cell_name(point: Point) -> str:
    """``Point(2, 0)`` → ``'c1'``: files a–i, rows 1–11 from White's side."""
    return f"{FILE_NAMES[point.file]}{point.rank + 1}"


def parse_cell(text: str) -> Point:
    """``'c1'`` → ``Point(2, 0)``. Raises `NotationError` for anything that is not a cell."""
    if isinstance(text, str) and 2 <= len(text) <= 3 and text[0] in FILE_NAMES:
        rest = text[1:]
        if rest.isascii() and rest.isdigit() and rest[0] != "0" and 1 <= int(rest) <= RANKS:
            return Point(FILE_NAMES.index(text[0]), int(rest) - 1)
    raise NotationError(f"{text!r} is not a cell of the Cờ Toán board (a1…i11)")


class Piece(NamedTuple):
    """A numbered piece: its face value 0–9 and its side."""

    value: int
    color: Color

    def symbol(self) -> str:
        """The position-string spelling: ``'5'`` for White's 5, ``'-5'`` for Black's."""
        return str(self.value) if self.color is WHITE else f"-{self.value}"

    def code(self) -> int:
        return self.value + 1 if self.color is WHITE else -(self.value + 1)

    @classmethod
    def from_symbol(cls, symbol: str) -> Piece:
        """The piece `symbol` spells: ``'5'`` White's 5, ``'-5'`` Black's.

        >>> Piece.from_symbol("-5"), Piece.from_symbol("0").symbol()
        (Piece(value=5, color=<Color.BLACK: 'b'>), '0')
        """
        value = int(symbol.lstrip("-"))
        return cls(value, BLACK if symbol.startswith("-") else WHITE)

    @classmethod
    def from_code(cls, code: int) -> Piece:
        return cls(abs(code) - 1, WHITE if code > 0 else BLACK)

    def __str__(self) -> str:
        return f"{'White' if self.color is WHITE else 'Black'} {self.value}"


@dataclass(frozen=True, slots=True)
class Move(BaseMove):
    """A plain move (`operation` None) or a capture by calculation.

    For a capture, `from_point` is the attacker A, `to_point` the captured enemy piece (where A
    lands) and `operation` the one used, ``+ - * :``; the front piece B is the cell next to A
    towards the target (`front_point`). Without a board the move is written ``c1-c4`` or
    ``d5x+e8`` (attacker cell, ``x``, operation, target cell).
    """

    operation: str | None = None

    @property
    def is_capture(self) -> bool:
        return self.operation is not None

    @property
    def front_point(self) -> Point | None:
        """The front piece's cell B of a capture (next to A, towards the target)."""
        if self.operation is None:
            return None
        df = _sign(self.to_point.file - self.from_point.file)
        dr = _sign(self.to_point.rank - self.from_point.rank)
        return Point(self.from_point.file + df, self.from_point.rank + dr)

    def __str__(self) -> str:
        start, end = cell_name(self.from_point), cell_name(self.to_point)
        return f"{start}-{end}" if self.operation is None else f"{start}x{self.operation}{end}"

    @classmethod
    def from_str(cls, text: str) -> Move:
        """Read the board-free form: ``c1-c4`` or ``d5x+e8``."""
        token = text.strip() if isinstance(text, str) else ""
        if "x" in token:
            start, _, rest = token.partition("x")
            if rest and rest[0] in OPERATIONS:
                return cls(parse_cell(start), parse_cell(rest[1:]), rest[0])
        elif "-" in token:
            start, _, end = token.partition("-")
            return cls(parse_cell(start), parse_cell(end))
        raise NotationError(f"{text!r} is not a move like c1-c4 or d5x+e8")


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _as_move(move: object) -> Move | None:
    """Any move-like object as our `Move`, or None when its points are off the board."""
    if not isinstance(move, BaseMove):
        return None
    operation = getattr(move, "operation", None)
    if not (_valid_point(move.from_point) and _valid_point(move.to_point)):
        return None
    if operation is not None and operation not in OPERATIONS:
        return None
    if type(move) is Move:
        return move
    return Move(Point(*move.from_point), Point(*move.to_point), operation)


def _valid_point(point: object) -> bool:
    return (isinstance(point, tuple) and len(point) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in point)
            and 0 <= point[0] < FILES and 0 <= point[1] < RANKS)


_MOVES: dict[tuple[int, int, str | None], Move] = {}
# Every plain move, made once: _PLAIN[from][to].
_PLAIN = [[Move(_point(fr), _point(to)) for to in range(CELLS)] for fr in range(CELLS)]


def _move(fr: int, to: int, operation: str | None) -> Move:
    key = (fr, to, operation)
    move = _MOVES.get(key)
    if move is None:
        move = _MOVES[key] = Move(_point(fr), _point(to), operation)
    return move


# The position-string spelling of each square code (negative codes index from the end).
_SYMBOLS = {0: ".", **{value + 1: str(value) for value in range(10)},
            **{-(value + 1): f"-{value}" for value in range(10)}}


class _Undo(NamedTuple):
    fr: int
    to: int
    captured: int
    fullmove: int


class LegalMoveGenerator:
    """The legal moves of a position, generated when iterated (like python-chess)."""

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Move]:
        return iter(self._board._legal())

    def __len__(self) -> int:
        return len(self._board._legal())

    def count(self) -> int:
        return len(self)

    def __bool__(self) -> bool:
        return bool(self._board._legal())

    def __contains__(self, move: object) -> bool:
        return self._board.is_legal(move)

    def __repr__(self) -> str:
        return f"<LegalMoveGenerator ({', '.join(map(str, self))})>"


class Board(PositionIdentity):
    """A Cờ Toán position with its options, scores and move history.

    Points are `Point(file, rank)`, files a–i from White's left, ranks 0–10 for rows 1–11.
    `scores` holds the face values each side has captured (White's first).
    """

    def __init__(self, fen: str | None = STARTING_FEN) -> None:
        self._squares = [EMPTY] * CELLS
        self.turn = WHITE
        self.fullmove_number = 1
        self.move_stack: list[Move] = []
        self._undo: list[_Undo] = []
        self._scores = [0, 0]
        self._numbered = [0, 0]
        self._options = GameOptions()
        self._table = capture_table(self._options.operations)
        self._cache: list[Move] | None = None
        self._root_fen = ""
        self.set_fen(fen if fen is not None else STARTING_FEN)

    @classmethod
    def new_game(cls, options: GameOptions | None = None) -> Board:
        """The start position under `options`; the agreed first player is to move."""
        board = cls()
        board._set_options(options or GameOptions())
        board.turn = board._options.first
        board._root_fen = board.fen()
        return board

    # ----------------------------------------------------------------- position setup
    @property
    def options(self) -> GameOptions:
        return self._options

    def _set_options(self, options: GameOptions) -> None:
        self._options = options
        self._table = capture_table(options.operations)
        self._cache = None

    @property
    def scores(self) -> tuple[int, int]:
        """Face values captured so far: (White's, Black's)."""
        return self._scores[0], self._scores[1]

    def score(self, color: Color) -> int:
        return self._scores[0 if color is WHITE else 1]

    def set_fen(self, fen: str) -> None:
        """Set the position from a Cờ Toán position string (see RULES.md, "Position string").

        Raises `InvalidFenError` naming the part that is wrong; the board is unchanged then.
        """
        squares, turn, options, scores, fullmove = _parse_fen(fen)
        self._squares = squares
        self.turn = turn
        self.fullmove_number = fullmove
        self.move_stack = []
        self._undo = []
        self._scores = list(scores)
        self._numbered = [sum(1 for c in squares if c > 1), sum(1 for c in squares if c < -1)]
        self._set_options(options)
        self._root_fen = self.fen()

    def board_fen(self) -> str:
        b = self._squares
        return "/".join("".join(_SYMBOLS[code] for code in b[rank * FILES:(rank + 1) * FILES])
                        for rank in range(RANKS - 1, -1, -1))

    def fen(self) -> str:
        """The position string: cells, side to move, operations, target, scores, first, move number."""
        operations, target, first = self._options.fen_fields()
        white, black = self._scores
        return (f"{self.board_fen()} {self.turn.value} {operations} {target} "
                f"{white}-{black} {first} {self.fullmove_number}")

    @property
    def root_fen(self) -> str:
        """The position before the first move of `move_stack`."""
        return self._root_fen

    def copy(self, stack: bool = True) -> Board:
        other = Board.__new__(Board)
        other._squares = self._squares[:]
        other.turn = self.turn
        other.fullmove_number = self.fullmove_number
        other._scores = self._scores[:]
        other._numbered = self._numbered[:]
        other._options = self._options
        other._table = self._table
        other._cache = None
        if stack:
            other.move_stack = self.move_stack[:]
            other._undo = self._undo[:]
            other._root_fen = self._root_fen
        else:
            other.move_stack = []
            other._undo = []
            other._root_fen = self.fen()
        return other

    def __str__(self) -> str:
        lines = []
        for rank in range(RANKS - 1, -1, -1):
            cells = []
            for file in range(FILES):
                code = self._squares[rank * FILES + file]
                cells.append(f"{Piece.from_code(code).symbol():>2}" if code else " .")
            lines.append(f"{rank + 1:>2} " + " ".join(cells))
        lines.append("   " + " ".join(f"{name:>2}" for name in FILE_NAMES))
        return "\n".join(lines)

    # ------------------------------------------------------------------- pieces
    def piece_at(self, point: Point) -> Piece | None:
        if not _valid_point(point):
            raise NotationError(f"{point!r} is not a cell of the Cờ Toán board")
        code = self._squares[_sq(Point(*point))]
        return Piece.from_code(code) if code else None

    def piece_map(self) -> dict[Point, Piece]:
        return {_point(sq): Piece.from_code(c) for sq, c in enumerate(self._squares) if c}

    def find(self, value: int, color: Color) -> Point | None:
        """Where `color`'s piece of face `value` stands, or None once it has been captured."""
        code = Piece(value, color).code()
        for sq, c in enumerate(self._squares):
            if c == code:
                return _point(sq)
        return None

    def material(self, color: Color) -> int:
        """The face values of `color`'s pieces still on the board (45 for a whole set)."""
        if color is WHITE:
            return sum(c - 1 for c in self._squares if c > 0)
        return sum(-c - 1 for c in self._squares if c < 0)

    def piece_count(self, color: Color | None = None) -> int:
        """Pieces on the board (the 0s included), of one side or both."""
        if color is None:
            return sum(1 for c in self._squares if c)
        return sum(1 for c in self._squares if (c > 0 if color is WHITE else c < 0))

    # ---------------------------------------------------------- move generation
    def _legal(self) -> list[Move]:
        # Cached until the position changes: push asks for the list, then outcome asks again.
        if self._cache is None:
            self._cache = [] if self._ended() is not None else self._generate(1 if self.turn is WHITE else -1)
        return self._cache

    def _generate(self, sign: int, captures_only: bool = False) -> list[Move]:
        b = self._squares
        table = self._table
        plain = _PLAIN
        moves: list[Move] = []
        add = moves.append
        for sq in range(CELLS):
            code = b[sq] * sign
            if code <= 1:  # empty, the enemy's, or the 0, which never moves
                continue
            value = code - 1
            for ray in RAYS[sq]:
                if not ray:
                    continue
                if not captures_only:
                    for to in ray[:value]:
                        if b[to]:
                            break
                        add(plain[sq][to])
                front = b[ray[0]] * sign
                if front <= 0:
                    continue
                for operation, distance in table[value][front - 1]:
                    if distance >= len(ray):
                        continue
                    target = ray[distance]
                    if b[target] * sign >= 0:
                        continue
                    for between in ray[1:distance]:
                        if b[between]:
                            break
                    else:
                        add(_move(sq, target, operation))
        return moves

    @property
    def legal_moves(self) -> LegalMoveGenerator:
        return LegalMoveGenerator(self)

    def is_legal(self, move: object) -> bool:
        ours = _as_move(move)
        return ours is not None and ours in self._legal()

    def is_capture(self, move: BaseMove) -> bool:
        return getattr(move, "operation", None) is not None

    def why_illegal(self, move: object) -> str | None:
        """None for a legal move, else a sentence saying which rule forbids it."""
        ours = _as_move(move)
        if ours is None:
            return f"{move!r} is not a move on the 9 × 11 board"
        if ours in self._legal():
            return None
        ended = self.outcome()
        if ended is not None:
            return f"the game is over ({ended.termination.value})"
        fr, to = _sq(ours.from_point), _sq(ours.to_point)
        sign = 1 if self.turn is WHITE else -1
        side = "White" if sign > 0 else "Black"
        mover = self._squares[fr] * sign
        start, end = cell_name(ours.from_point), cell_name(ours.to_point)
        if mover == 0:
            return f"{start} is empty"
        if mover < 0:
            return f"the piece on {start} is not {side}'s"
        value = mover - 1
        if value == 0:
            return "the 0 never leaves its marked cell"
        df = ours.to_point.file - ours.from_point.file
        dr = ours.to_point.rank - ours.from_point.rank
        if (df, dr) == (0, 0) or (df and dr and abs(df) != abs(dr)):
            return f"{end} is not on a line (row, column or diagonal) from {start}"
        steps = max(abs(df), abs(dr))
        ray = RAYS[fr][DIRECTIONS.index((_sign(df), _sign(dr)))]
        if ours.operation is None:
            if steps > value:
                return f"the {value} moves at most {value} cell{'s' if value > 1 else ''}, {end} is {steps} away"
            for between in ray[:steps - 1]:
                if self._squares[between]:
                    return f"{cell_name(_point(between))} is in the way: pieces never jump"
            return f"{end} is occupied: a piece is taken only by a calculation (like 8+5x{end})"
        if ours.operation not in self._options.operations:
            return f"{ours.operation} is not among the operations agreed for this game ({self._options.operations})"
        front = self._squares[ray[0]] * sign
        if front <= 0:
            return f"no {side} piece stands next to the {value} towards {end}"
        front_value = front - 1
        if self._squares[to] * sign >= 0:
            return f"no enemy piece stands on {end}"
        distance = steps - 1
        got = distances(value, front_value, ours.operation)
        written = f"{value}{ours.operation}{front_value}"
        if not got:
            if value < front_value and ours.operation != "+":
                return f"{written}: the smaller piece may only add to the larger"
            return f"{written} has no value (units digit 0, or a division by 0)"
        if distance not in got:
            shown = " or ".join(map(str, got))
            return f"{written} gives {shown}, but {end} is {distance} from the {front_value}"
        for between in ray[1:distance]:
            if self._squares[between]:
                return f"{cell_name(_point(between))} stands in the way of the capture"
        return f"{move!r} is not legal here"

    def perft(self, depth: int) -> int:
        """The number of leaf positions `depth` plies from here (move-generator check)."""
        if not isinstance(depth, int) or depth < 0:
            raise ValueError(f"perft depth must be a whole number ≥ 0, not {depth!r}")
        if depth == 0:
            return 1
        return self._perft(depth)

    def _perft(self, depth: int) -> int:
        moves = self._legal()
        if depth == 1:
            return len(moves)
        nodes = 0
        for move in moves:
            self._make(move)
            nodes += self._perft(depth - 1)
            self._unmake()
        return nodes

    # -------------------------------------------------------------- make / unmake
    def push(self, move: BaseMove) -> None:
        """Play a legal move. Raises `IllegalMoveError` (a ValueError) saying why otherwise."""
        ours = _as_move(move)
        if ours is None or ours not in self._legal():
            ended = self.outcome()
            if ended is not None:
                raise GameOverError(f"the game is over ({ended.termination.value}); {move} is not playable")
            raise IllegalMoveError(f"illegal move {move}: {self.why_illegal(move)}")
        self._make(ours)

    def _make(self, move: Move) -> None:
        b = self._squares
        fr, to = _sq(move.from_point), _sq(move.to_point)
        moving, captured = b[fr], b[to]
        self._cache = None
        self._undo.append(_Undo(fr, to, captured, self.fullmove_number))
        self.move_stack.append(move)
        b[to] = moving
        b[fr] = EMPTY
        if captured:
            mover = 0 if moving > 0 else 1
            self._scores[mover] += abs(captured) - 1
            if abs(captured) > 1:
                self._numbered[1 - mover] -= 1
        if self.turn is not self._options.first:
            self.fullmove_number += 1
        self.turn = self.turn.other

    def _unmake(self) -> Move:
        self._cache = None
        undo = self._undo.pop()
        move = self.move_stack.pop()
        b = self._squares
        moving = b[undo.to]
        b[undo.fr] = moving
        b[undo.to] = undo.captured
        if undo.captured:
            mover = 0 if moving > 0 else 1
            self._scores[mover] -= abs(undo.captured) - 1
            if abs(undo.captured) > 1:
                self._numbered[1 - mover] += 1
        self.fullmove_number = undo.fullmove
        self.turn = self.turn.other
        return move

    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._undo:
            raise IndexError("pop from an empty move stack")
        return self._unmake()

    def peek(self) -> Move:
        return self.move_stack[-1]

    # -------------------------------------------------------------- game end
    def is_check(self) -> bool:
        """Could the opponent capture the side to move's 0 if it were their turn?

        Cờ Toán has no check: no move is ever illegal because of this, and a player may leave
        the 0 exposed. It is offered as a warning for displays (an LED alert, a red cell).
        """
        sign = 1 if self.turn is WHITE else -1
        zero = WHITE_ZERO_SQ if sign > 0 else BLACK_ZERO_SQ
        if self._squares[zero] != sign or self._ended() is not None:
            return False
        return any(_sq(move.to_point) == zero for move in self._generate(-sign, captures_only=True))

    def _leader(self) -> Color | None:
        white, black = self._scores
        if white == black:
            return None
        return WHITE if white > black else BLACK

    def _ended(self) -> Outcome | None:
        """The endings the position shows by itself, before looking for legal moves."""
        b = self._squares
        if b[WHITE_ZERO_SQ] != 1:
            return Outcome(Termination.ZERO_CAPTURED, BLACK)
        if b[BLACK_ZERO_SQ] != -1:
            return Outcome(Termination.ZERO_CAPTURED, WHITE)
        target = self._options.target
        if target is not None:
            if self._scores[0] >= target:
                return Outcome(Termination.POINTS, WHITE)
            if self._scores[1] >= target:
                return Outcome(Termination.POINTS, BLACK)
        if self._numbered[0] < 2 and self._numbered[1] < 2:
            return Outcome(Termination.POINTS, self._leader())
        return None

    def outcome(self, *, stop: bool = False) -> Outcome | None:
        """How the game has ended, or None while it goes on.

        Capturing a 0 wins outright (`ZERO_CAPTURED`). A side reaching the agreed points target
        wins on `POINTS`; so does the higher score when both sides are down to one numbered
        piece, or (``stop=True``) when the players stop the game now. A side to move with no
        legal move ends the game on points too (`NO_LEGAL_MOVE`). Equal points are a draw.
        """
        ended = self._ended()
        if ended is not None:
            return ended
        if not self._legal():
            return Outcome(Termination.NO_LEGAL_MOVE, self._leader())
        if stop:
            return Outcome(Termination.POINTS, self._leader())
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None


# --------------------------------------------------------------------- reading positions
def _parse_int(text: str, what: str, low: int, high: int) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 6) or not low <= int(text) <= high:
        raise InvalidFenError(f"{what} {text!r} is not a whole number from {low} to {high}")
    return int(text)


def _parse_row(row: str, rank: int, squares: list[int]) -> None:
    file = 0
    index = 0
    while index < len(row):
        char = row[index]
        black = char == "-"
        if black:
            index += 1
            char = row[index] if index < len(row) else ""
        if char == "." and not black:
            code = EMPTY
        elif len(char) == 1 and char.isascii() and char.isdigit():
            code = -(int(char) + 1) if black else int(char) + 1
        else:
            token = ("-" if black else "") + char
            raise InvalidFenError(
                f"{token!r} in row {rank + 1} ({row!r}) is not a cell: use '.', a digit (White) or -digit (Black)")
        if file >= FILES:
            raise InvalidFenError(f"row {rank + 1} ({row!r}) has more than {FILES} cells")
        squares[rank * FILES + file] = code
        file += 1
        index += 1
    if file != FILES:
        raise InvalidFenError(f"row {rank + 1} ({row!r}) has {file} cells, not {FILES}")


def _parse_fen(fen: str) -> tuple[list[int], Color, GameOptions, tuple[int, int], int]:
    if not isinstance(fen, str) or not fen.strip():
        raise InvalidFenError("empty position string")
    parts = fen.split()
    if len(parts) > 7:
        raise InvalidFenError(f"position string has {len(parts)} fields, at most 7: {fen!r}")
    rows = parts[0].split("/")
    if len(rows) != RANKS:
        raise InvalidFenError(f"position {parts[0]!r} has {len(rows)} rows, not {RANKS}")
    squares = [EMPTY] * CELLS
    for index, row in enumerate(rows):
        _parse_row(row, RANKS - 1 - index, squares)
    _validate_placement(squares)

    side = parts[1] if len(parts) > 1 else "w"
    if side not in ("w", "b"):
        raise InvalidFenError(f"side to move {side!r} is not w or b")
    turn = WHITE if side == "w" else BLACK
    operations = parts[2] if len(parts) > 2 else OPERATIONS
    target = parts[3] if len(parts) > 3 else "-"
    first = parts[5] if len(parts) > 5 else side
    try:
        options = GameOptions.from_fen_fields(operations, target, first)
    except InvalidOptionError as error:
        raise InvalidFenError(str(error)) from None
    scores = (0, 0)
    if len(parts) > 4:
        scores = _parse_scores(parts[4], squares, options)
    fullmove = _parse_int(parts[6], "move number", 1, 999_999) if len(parts) > 6 else 1
    return squares, turn, options, scores, fullmove


def _parse_scores(text: str, squares: list[int], options: GameOptions) -> tuple[int, int]:
    white_text, dash, black_text = text.partition("-")
    if not dash:
        raise InvalidFenError(f"scores {text!r} are not written like 12-5 (White's first)")
    white = _parse_int(white_text, "White's score", 0, SET_POINTS)
    black = _parse_int(black_text, "Black's score", 0, SET_POINTS)
    # A side can only have scored what is missing from the other side's set.
    black_left = sum(-c - 1 for c in squares if c < 0)
    white_left = sum(c - 1 for c in squares if c > 0)
    if white > SET_POINTS - black_left:
        raise InvalidFenError(
            f"White's score {white} is more than the {SET_POINTS - black_left} points missing from Black's set")
    if black > SET_POINTS - white_left:
        raise InvalidFenError(
            f"Black's score {black} is more than the {SET_POINTS - white_left} points missing from White's set")
    if options.target is not None and white >= options.target and black >= options.target:
        raise InvalidFenError(f"both scores {white}-{black} reach the target {options.target}")
    return white, black


def misplaced(piece: Piece, point: Point) -> str | None:
    """Why `piece` can never stand on `point`, or None: a 0 never leaves its marked cell.

    >>> misplaced(Piece(0, WHITE), parse_cell("e3"))
    'White 0 on e3: the 0 stands only on its marked cell e2'
    >>> misplaced(Piece(0, BLACK), parse_cell("e10")) is None and misplaced(Piece(7, WHITE), parse_cell("e10")) is None
    True
    """
    home = WHITE_ZERO if piece.color is WHITE else BLACK_ZERO
    if piece.value == 0 and tuple(point) != tuple(home):
        return f"{piece} on {cell_name(point)}: the 0 stands only on its marked cell {cell_name(home)}"
    return None


def _validate_placement(squares: list[int]) -> None:
    """Reject what no Cờ Toán set can show: two pieces of one value, a 0 off its marked cell."""
    seen: dict[int, int] = {}
    for sq, code in enumerate(squares):
        if not code:
            continue
        piece = Piece.from_code(code)
        if code in seen:
            raise InvalidFenError(
                f"two {piece}s, on {cell_name(_point(seen[code]))} and {cell_name(_point(sq))}: a set has one of each")
        seen[code] = sq
        wrong = misplaced(piece, _point(sq))
        if wrong:
            raise InvalidFenError(wrong)
    if 1 not in seen and -1 not in seen:
        raise InvalidFenError("neither 0 is on the board: a game ends when the first 0 is taken")
