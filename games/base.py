"""The shapes every game shares: points, moves, outcomes, geometry and the `Board` protocol.

The API follows python-chess: a board knows its `turn`, generates `legal_moves` lazily,
and changes only through `push` and `pop`; the end of a game is an `Outcome`.

>>> from games import get
>>> board = get("xiangqi").board()
>>> board.turn
<Color.WHITE: 'w'>
>>> board.outcome() is None
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, runtime_checkable


class BancoError(ValueError):
    """Bad input from a user: a move, a position or a notation that cannot be accepted."""


class InvalidFenError(BancoError):
    """A position string that cannot be read."""


class IllegalMoveError(BancoError):
    """A move that the rules do not allow in the current position."""


class NotationError(BancoError):
    """A move or position written in a way the notation cannot read."""


class AmbiguousMoveError(NotationError):
    """A move the notation reads, but as more than one legal move: the writer must say which."""


class UnknownGameError(BancoError):
    """A game name that is not registered."""


class GameOverError(BancoError):
    """An action that the finished game no longer allows."""


class Color(enum.Enum):
    """The two sides. The law calls them Trắng (White, first) and Đen (Black)."""

    WHITE = "w"
    BLACK = "b"

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def vietnamese(self) -> str:
        return "Trắng" if self is Color.WHITE else "Đen"


WHITE = Color.WHITE
BLACK = Color.BLACK


class Point(NamedTuple):
    """A place on a board: a file (column, 0 at White's left) and a rank (row, 0 at White's side).

    Whether the place is an intersection or a cell is the game's `Geometry.placement`.
    """

    file: int
    rank: int


@dataclass(frozen=True, slots=True)
class Move:
    """A piece going from one point to another. Games with richer turns subclass it."""

    from_point: Point
    to_point: Point


class Termination(enum.Enum):
    """Why a game ended."""

    CHECKMATE = "checkmate"
    STALEMATE = "stalemate"
    PERPETUAL_CHECK = "perpetual check"
    PERPETUAL_CHASE = "perpetual chase"
    REPETITION = "repetition"
    INSUFFICIENT_MATERIAL = "insufficient material"
    MOVE_LIMIT = "move limit"
    RESIGNATION = "resignation"
    AGREEMENT = "agreement"
    TIME_FORFEIT = "time forfeit"
    ARBITER = "arbiter decision"
    # Commander Chess and Cờ Toán endings.
    COMMANDER_CAPTURED = "commander captured"
    BATTLE_WON = "battle won"
    POINTS = "points"
    NO_LEGAL_MOVE = "no legal move"
    ZERO_CAPTURED = "zero captured"

    @property
    def play_may_go_on(self) -> bool:
        """A repetition verdict. The board gives it when a position stands for the third time
        (RULES.md §1), but seed 001 (Điều 7 g and h, draws b) has the arbiter tell the player who
        keeps repeating to change moves, and judges the game so only if he will not: a game can
        go on past it, and whatever watches the board keeps recording.

        >>> Termination.PERPETUAL_CHECK.play_may_go_on, Termination.CHECKMATE.play_may_go_on
        (True, False)
        """
        return self in (Termination.PERPETUAL_CHECK, Termination.PERPETUAL_CHASE, Termination.REPETITION)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended. `winner` is None for a draw."""

    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """The PGN result string, White's score first."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.WHITE else "0-1"


@dataclass(frozen=True)
class Geometry:
    """Everything needed to draw a board or to read one from a photo.

    `placement` says whether pieces stand on intersections (Xiangqi, Commander Chess) or in
    cells (Cờ Toán). `lines` are the segments printed on the board (empty for a board of
    cells, whose grid is implied); `regions` name sets of points (palaces, sides, sea);
    `marks` are the small crosses printed at some points.
    """

    name: str
    files: int
    ranks: int
    placement: str
    file_names: tuple[str, ...]
    rank_names: tuple[str, ...]
    regions: Mapping[str, frozenset[Point]] = field(default_factory=dict)
    lines: tuple[tuple[Point, Point], ...] = ()
    marks: tuple[Point, ...] = ()

    def __post_init__(self) -> None:
        if self.placement not in ("intersections", "cells"):
            raise ValueError(f"placement must be 'intersections' or 'cells', not {self.placement!r}")

    def points(self) -> Iterator[Point]:
        """Every point, rank by rank from White's side, file by file from White's left."""
        for rank in range(self.ranks):
            for file in range(self.files):
                yield Point(file, rank)

    def contains(self, point: Point) -> bool:
        return 0 <= point.file < self.files and 0 <= point.rank < self.ranks

    def point_name(self, point: Point) -> str:
        return self.file_names[point.file] + self.rank_names[point.rank]

    def parse_point(self, text: str) -> Point:
        """Read a point name such as ``e0`` (Xiangqi) or ``k12`` (Commander Chess)."""
        text = text.strip()
        if text and text[0] in self.file_names:
            file = self.file_names.index(text[0])
            rest = text[1:]
            if rest in self.rank_names:
                return Point(file, self.rank_names.index(rest))
        raise NotationError(f"{text!r} is not a point of the {self.name} board")


class PositionIdentity:
    """Boards that are equal when their FEN is: same position, side, counters and options."""

    def fen(self) -> str:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.fen() == other.fen()

    def __hash__(self) -> int:
        return hash(self.fen())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.fen()!r})"


@runtime_checkable
class Board(Protocol):
    """What every game's board offers; see `games.xiangqi.Board` for a full example."""

    turn: Color

    @property
    def legal_moves(self) -> Iterable[Move]: ...

    def push(self, move: Move) -> None: ...

    def pop(self) -> Move: ...

    def copy(self) -> Board: ...

    def fen(self) -> str: ...

    def set_fen(self, fen: str) -> None: ...

    def is_check(self) -> bool: ...

    def outcome(self) -> Outcome | None: ...

    def piece_at(self, point: Point) -> object | None: ...


class Notation(Protocol):
    """A way of writing moves: `format` a legal move in a position, `parse` it back."""

    name: str

    def format(self, board: Board, move: Move) -> str: ...

    def parse(self, board: Board, text: str) -> Move: ...
