"""The eleven piece types, their letters and values, and which stacks are legal (§3.1, §7.1, §11).

>>> Piece.from_fen("+F").describe()
'Red hero air force'
>>> arrange([Piece(Kind.INFANTRY, RED), Piece(Kind.NAVY, RED), Piece(Kind.TANK, RED)])[0].kind.name
'NAVY'
>>> is_legal_stack((Piece(Kind.NAVY, RED), Piece(Kind.AIR_FORCE, RED), Piece(Kind.AIR_FORCE, RED)))
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from games.base import BLACK, WHITE, Color, InvalidFenError

RED = WHITE   # player 1, bottom, moves first by default (§1.4, D33)
BLUE = BLACK


def color_name(color: Color) -> str:
    return "Red" if color is RED else "Blue"


class Kind(enum.IntEnum):
    """Piece types. The order is the stacking priority of carriers (§7.1: N > Af > T; E; HQ)."""

    NAVY = 0
    AIR_FORCE = 1
    TANK = 2
    ENGINEER = 3
    HEADQUARTERS = 4
    COMMANDER = 5
    INFANTRY = 6
    MILITIA = 7
    ARTILLERY = 8
    ANTI_AIRCRAFT = 9
    MISSILE = 10

    # Enum's own hash is a Python-level call; pieces are hashed a great deal in split turns.
    __hash__ = int.__hash__

    @property
    def fen(self) -> str:
        """Machine FEN letter (monorepo): lowercase; Red writes it uppercase."""
        return _FEN_LETTERS[self]

    @property
    def letter(self) -> str:
        """Secretary notation letter (seed; D28 where the seed is silent)."""
        return _SECRETARY_LETTERS[self]

    @property
    def base_value(self) -> int:
        """§11.1 points; the commander and HQ are 0 (D8, D35)."""
        return _VALUES[self]

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


_FEN_LETTERS = {
    Kind.COMMANDER: "c", Kind.INFANTRY: "i", Kind.TANK: "t", Kind.MILITIA: "m",
    Kind.ENGINEER: "e", Kind.ARTILLERY: "a", Kind.ANTI_AIRCRAFT: "g", Kind.MISSILE: "s",
    Kind.AIR_FORCE: "f", Kind.NAVY: "n", Kind.HEADQUARTERS: "h",
}
_SECRETARY_LETTERS = {
    Kind.COMMANDER: "*", Kind.INFANTRY: "B", Kind.TANK: "T", Kind.MILITIA: "D",
    Kind.ENGINEER: "C", Kind.ARTILLERY: "P", Kind.ANTI_AIRCRAFT: "X", Kind.MISSILE: "L",
    Kind.AIR_FORCE: "K", Kind.NAVY: "H", Kind.HEADQUARTERS: "S",
}
_VALUES = {
    Kind.INFANTRY: 10, Kind.ENGINEER: 10, Kind.ANTI_AIRCRAFT: 10, Kind.MILITIA: 10,
    Kind.TANK: 20, Kind.MISSILE: 20, Kind.ARTILLERY: 30, Kind.AIR_FORCE: 40, Kind.NAVY: 80,
    Kind.COMMANDER: 0, Kind.HEADQUARTERS: 0,
}
FROM_FEN = {letter: kind for kind, letter in _FEN_LETTERS.items()}
FROM_SECRETARY = {letter: kind for kind, letter in _SECRETARY_LETTERS.items()}

HERO_BONUS = 10
COMMANDER_BONUS = 100  # §11.2, D8: destroying the commander earns +100 once
BATTLE_BONUS = 100     # §12.1

HEAVY = frozenset({Kind.ARTILLERY, Kind.ANTI_AIRCRAFT, Kind.MISSILE})            # §6.3
PERSONS = frozenset({Kind.COMMANDER, Kind.INFANTRY, Kind.MILITIA})                # §7.1 "P"
DEEP_WATER_WADERS = frozenset({Kind.TANK, Kind.INFANTRY, Kind.MILITIA, Kind.COMMANDER, Kind.ENGINEER})


class Piece(NamedTuple):
    """One piece: type, colour and hero status (§10: permanent once earned)."""

    kind: Kind
    color: Color
    hero: bool = False

    @property
    def value(self) -> int:
        """Points the enemy scores for destroying it (§11.1: a hero is worth +10)."""
        return self.kind.base_value + (HERO_BONUS if self.hero else 0)

    def fen(self) -> str:
        letter = self.kind.fen.upper() if self.color is RED else self.kind.fen
        return ("+" if self.hero else "") + letter

    @classmethod
    def from_fen(cls, text: str) -> Piece:
        hero = text.startswith("+")
        letter = text[1:] if hero else text
        kind = FROM_FEN.get(letter.lower()) if len(letter) == 1 else None
        if kind is None:
            raise InvalidFenError(f"{text!r} is not a Commander Chess piece letter (c i t m e a g s f n h)")
        return cls(kind, RED if letter.isupper() else BLUE, hero)

    def secretary(self) -> str:
        return ("#" if self.hero else "") + self.kind.letter

    def promoted(self) -> Piece:
        return self._replace(hero=True)

    def describe(self) -> str:
        return f"{color_name(self.color)} {'hero ' if self.hero else ''}{self.kind.label}"


Stack = tuple[Piece, ...]  # carrier first, then passengers in canonical order


def arrange(pieces: Iterable[Piece]) -> Stack:
    """Order pieces as a stack: the carrier (lowest Kind) first, then the passengers, tanks
    before aircraft before persons as the seed writes them: ``(HTK)``, ``(TB)``."""
    ordered = sorted(pieces, key=lambda p: (p.kind, not p.hero))
    if len(ordered) > 2:
        ordered[1:] = sorted(ordered[1:], key=lambda p: (_PASSENGER_ORDER.get(p.kind, p.kind + 2), not p.hero))
    return tuple(ordered)


_PASSENGER_ORDER = {Kind.TANK: 0, Kind.AIR_FORCE: 1}


# §7.1 (D10, D11): what each carrier may hold. Navy sets are checked by `_navy_load_ok`.
_CARRIES = {
    Kind.TANK: PERSONS,
    Kind.AIR_FORCE: PERSONS | {Kind.TANK},
    Kind.ENGINEER: HEAVY,
    Kind.HEADQUARTERS: frozenset({Kind.COMMANDER}),
}


def _navy_load_ok(load: Sequence[Kind]) -> bool:
    """{Af}, {T}, {P}, {Af,Af}, {T,T}, {Af,T}, {Af,P}, {T,P} with P one person (§7.1, D10)."""
    if not 1 <= len(load) <= 2:
        return False
    persons = sum(1 for k in load if k in PERSONS)
    others = [k for k in load if k not in PERSONS]
    if persons > 1 or any(k not in (Kind.AIR_FORCE, Kind.TANK) for k in others):
        return False
    return True


def is_legal_stack(stack: Sequence[Piece]) -> bool:
    """A single piece, or a carrier (stack[0]) with a load it may carry, all one colour (§7.1)."""
    if not stack or len(stack) > 3:
        return False
    if len(stack) == 1:
        return True
    color = stack[0].color
    if any(p.color is not color for p in stack):
        return False
    carrier, load = stack[0].kind, [p.kind for p in stack[1:]]
    if carrier is Kind.NAVY:
        return _navy_load_ok(load)
    allowed = _CARRIES.get(carrier)
    return allowed is not None and len(load) == 1 and load[0] in allowed


def combine(pieces: Iterable[Piece]) -> Stack | None:
    """The legal flat stack made of `pieces`, or None (§7.1: stacks are flat)."""
    stack = arrange(pieces)
    return stack if is_legal_stack(stack) else None


def stack_value(stack: Iterable[Piece]) -> int:
    """§11.1: a captured stack scores the sum of its pieces."""
    return sum(p.value for p in stack)


def remove_pieces(stack: Stack, group: Sequence[Piece]) -> Stack:
    """`stack` without the pieces of `group` (a sub-multiset of it)."""
    rest = list(stack)
    for piece in group:
        rest.remove(piece)
    return arrange(rest)
