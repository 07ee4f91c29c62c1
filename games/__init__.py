"""Rules engines for the games banco watches. Pure Python: no I/O, no numpy, no clocks.

>>> import games
>>> variant = games.get("xiangqi")
>>> board = variant.board()
>>> len(list(board.legal_moves))
44
>>> sorted(games.names())
['commander', 'cotoan', 'xiangqi']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from games.base import (
    BLACK,
    WHITE,
    AmbiguousMoveError,
    BancoError,
    Board,
    Color,
    GameOverError,
    Geometry,
    IllegalMoveError,
    InvalidFenError,
    Move,
    Notation,
    NotationError,
    Outcome,
    Point,
    Termination,
    UnknownGameError,
)

__all__ = [
    "BLACK", "WHITE", "AmbiguousMoveError", "BancoError", "Board", "Color", "GameOverError", "Geometry",
    "IllegalMoveError", "InvalidFenError", "Move", "Notation", "NotationError", "Outcome",
    "Point", "Termination", "UnknownGameError", "Variant", "get", "names",
]


@dataclass(frozen=True)
class Variant:
    """One game as the rest of banco sees it: how to make a board, draw it and write it."""

    name: str
    title: str
    board_class: type
    geometry: Geometry
    pieces: Mapping[str, str]
    notations: Mapping[str, Notation]
    default_notation: str
    starting_fen: str
    aliases: tuple[str, ...] = ()
    extras: Mapping[str, Callable[..., object]] = field(default_factory=dict)
    # Options of the board a referee's record keeps (Commander Chess: §6.5 penalty turns).
    record_options: Mapping[str, object] = field(default_factory=dict)

    def board(self, fen: str | None = None) -> Board:
        """A new board at `fen`, or at the start position."""
        return self.board_class(fen) if fen is not None else self.board_class()

    def record_board(self, fen: str | None = None) -> Board:
        """A board for a game that a referee records: as `board`, and in Commander Chess it also
        takes the penalty turns (``$``, §6.5) that only a referee gives.

        >>> import games
        >>> games.get("commander").record_board().referee
        True
        """
        return self.board_class(fen if fen is not None else self.starting_fen, **self.record_options)

    def notation(self, name: str | None = None) -> Notation:
        """The notation called `name` (any case: a record's Format tag writes ``WXF``), or the
        game's default one."""
        key = name or self.default_notation
        try:
            return self.notations[key] if key in self.notations else self.notations[key.lower()]
        except KeyError:
            known = ", ".join(self.notations)
            raise NotationError(
                f"unknown notation {key!r} for {self.name}; known: {known}"
            ) from None

    def parse_move(self, board: Board, text: str) -> Move:
        """Read a move written in any notation this game knows, the default one first.

        A notation that reads the text as two or more legal moves stops the search: its doubt is
        the answer (`AmbiguousMoveError`), not another notation's reading of the same text."""
        order = [self.default_notation] + [n for n in self.notations if n != self.default_notation]
        errors: dict[str, NotationError] = {}
        illegal: IllegalMoveError | None = None
        for key in order:
            try:
                return self.notations[key].parse(board, text)
            except IllegalMoveError as error:
                # Well formed but illegal here; another notation may still read it (VN "P2.1"
                # cannon vs WXF soldier), so only report it when none does.
                illegal = illegal or error
            except AmbiguousMoveError:
                raise
            except NotationError as error:
                errors[key] = error
        if illegal is not None:
            raise illegal
        # The reason of the notation the text is written in, when its characters say which (a
        # Chinese move misread is better explained by the Chinese notation than by the default).
        written_in = "chinese" if any("\u4e00" <= c <= "\u9fff" for c in text) else None
        reason = errors.get(written_in) or next(iter(errors.values()), None)
        raise NotationError(f"{text!r} is not a move in any notation of {self.name} ({reason})") from reason


# The module of each game; it defines VARIANT. Imported on first use.
_MODULES = {
    "xiangqi": "games.xiangqi",
    "commander": "games.commander",
    "cotoan": "games.cotoan",
}
_ALIASES = {
    "co-tuong": "xiangqi", "cotuong": "xiangqi", "chinese-chess": "xiangqi",
    "co-tu-lenh": "commander", "cotulenh": "commander", "commander-chess": "commander",
    "co-toan": "cotoan", "math-chess": "cotoan",
}


def names() -> list[str]:
    """The registered game names."""
    return list(_MODULES)


def get(name: str) -> Variant:
    """The variant called `name` (or one of its aliases)."""
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in _MODULES:
        raise UnknownGameError(f"unknown game {name!r}; known: {', '.join(_MODULES)}")
    try:
        module = importlib.import_module(_MODULES[key])
    except ModuleNotFoundError as error:
        if error.name == _MODULES[key]:
            raise UnknownGameError(f"the {key} engine is not installed yet") from None
        raise
    return module.VARIANT
