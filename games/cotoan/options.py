"""What the players agree before a game (seed 002): operations, points target, first player.

>>> options = GameOptions(operations="+", target=15, first=BLACK)
>>> options.operations, options.fen_fields()
('+', ('+', '15', 'b'))
>>> GameOptions.from_fen_fields("+-*:", "-", "w") == GameOptions()
True
"""

from __future__ import annotations

from dataclasses import dataclass

from games.base import BLACK, WHITE, BancoError, Color
from games.cotoan.arithmetic import OPERATIONS, normalize_operations

# "hai bên có thể thỏa thuận thang điểm cho mỗi ván là 10-15-20-…-45 điểm"
TARGETS = tuple(range(10, 46, 5))


class InvalidOptionError(BancoError):
    """A game option the seed does not allow (an unknown operation, a points target off 10…45)."""


def parse_color(text: str, what: str) -> Color:
    if text == "w":
        return WHITE
    if text == "b":
        return BLACK
    raise InvalidOptionError(f"{what} {text!r} is not w or b")


@dataclass(frozen=True)
class GameOptions:
    """The agreed rules of one game.

    `operations`: the allowed operations among ``+ - * :`` (canonical string, any order and the
    spellings − × ÷ / accepted). `target`: the points that end the game when a side has
    captured that many (10, 15, … 45), or None for no target. `first`: the side that moves first.
    """

    operations: str = OPERATIONS
    target: int | None = None
    first: Color = WHITE

    def __post_init__(self) -> None:
        try:
            canonical = normalize_operations(self.operations)
        except BancoError as error:
            raise InvalidOptionError(f"operations {self.operations!r}: {error}") from None
        object.__setattr__(self, "operations", canonical)
        if self.target is not None and (
                isinstance(self.target, bool) or not isinstance(self.target, int) or self.target not in TARGETS):
            raise InvalidOptionError(
                f"points target {self.target!r} is not one of {', '.join(map(str, TARGETS))} (or none)")
        if not isinstance(self.first, Color):
            raise InvalidOptionError(f"first player {self.first!r} is not a Color")

    def fen_fields(self) -> tuple[str, str, str]:
        """The three option fields of the position string: operations, target, first player."""
        target = "-" if self.target is None else str(self.target)
        return self.operations, target, self.first.value

    @classmethod
    def from_fen_fields(cls, operations: str, target: str, first: str) -> GameOptions:
        if target == "-":
            points: int | None = None
        elif target.isascii() and target.isdigit() and len(target) <= 3:
            points = int(target)
        else:
            raise InvalidOptionError(f"points target {target!r} is not a number or '-'")
        return cls(operations=operations, target=points, first=parse_color(first, "first player"))
