"""The Commander Chess board: 11×12 points, sea, coast, river with two fords (COMMANDER_RULES §1–2).

Points are indexed ``VA * 11 + HA``: VA is the row (0 at Red's side), HA the column (0 at the
sea edge). The seed writes a point ``VA,HA`` (or ``VA.HA``); the chess-like name is
``a1``…``k12`` (file ``a`` + HA, rank VA + 1).

>>> parse_point("3,5") == parse_point("3.5") == parse_point("f4")
True
>>> seed_name(parse_point("k12")), square_name(index(8, 4))
('11,10', 'e9')
>>> is_sea(index(4, 1)), is_navy_point(index(5, 3)), crossing_kind(index(5, 5), index(6, 5))
(True, True, 'ford')
"""

from __future__ import annotations

import re

from games.base import Geometry, NotationError, Point

HA_COUNT = 11  # vertical lines, columns 0..10
VA_COUNT = 12  # horizontal lines, rows 0..11
SQUARES = HA_COUNT * VA_COUNT
FILE_LETTERS = "abcdefghijk"

ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))  # (dVA, dHA)
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ALL_DIRECTIONS = ORTHOGONAL + DIAGONAL

# §2.3: the only shallow crossings are the vertical steps on HA 5 and HA 7.
FORD_COLUMNS = frozenset({5, 7})
# §2.4: the deep river section a navy may enter.
NAVIGABLE_RIVER = frozenset({(5, 3), (5, 4), (6, 3), (6, 4)})
# §2.7: unit cells (by lower-left corner) that count as water for navy diagonals.
WATER_CELLS = frozenset({(va, ha) for va in range(VA_COUNT - 1) for ha in (0, 1)} | {(5, 2), (5, 3)})


def index(va: int, ha: int) -> int:
    """The linear index of point ``VA,HA``."""
    return va * HA_COUNT + ha


def va_of(square: int) -> int:
    return square // HA_COUNT


def ha_of(square: int) -> int:
    return square % HA_COUNT


def on_board(va: int, ha: int) -> bool:
    return 0 <= va < VA_COUNT and 0 <= ha < HA_COUNT


def is_sea(square: int) -> bool:
    """§2.1: HA 0 and 1, the whole height. Only navies stand here."""
    return ha_of(square) <= 1


def is_coast(square: int) -> bool:
    """§2.2: HA 2, where navies and land pieces may both stand."""
    return ha_of(square) == 2


def is_navy_point(square: int) -> bool:
    """§2.5: sea, coast and the four navigable river points."""
    return ha_of(square) <= 2 or (va_of(square), ha_of(square)) in NAVIGABLE_RIVER


def is_land(square: int) -> bool:
    """§2.6: every point with HA ≥ 2."""
    return ha_of(square) >= 2


def half_of(square: int) -> int:
    """0 for Red's half (VA 0–5), 1 for Blue's (VA 6–11)."""
    return 0 if va_of(square) <= 5 else 1


def crossing_kind(a: int, b: int) -> str | None:
    """For one step a→b: None when it does not cross the river, else 'ford' or 'deep' (§2.3)."""
    va_a, va_b = va_of(a), va_of(b)
    if {va_a, va_b} != {5, 6}:
        return None
    ha_a, ha_b = ha_of(a), ha_of(b)
    if ha_a == ha_b and ha_a in FORD_COLUMNS:
        return "ford"
    return "deep"


def diagonal_over_water(a: int, b: int) -> bool:
    """§2.7: a diagonal step a→b crosses a water cell (always true for orthogonal steps)."""
    va_a, ha_a, va_b, ha_b = va_of(a), ha_of(a), va_of(b), ha_of(b)
    if va_a == va_b or ha_a == ha_b:
        return True
    return (min(va_a, va_b), min(ha_a, ha_b)) in WATER_CELLS


def navy_step_ok(a: int, b: int) -> bool:
    """A navy may step a→b: both navy points and, diagonally, over a water cell."""
    return is_navy_point(b) and is_navy_point(a) and diagonal_over_water(a, b)


def ray(square: int, direction: tuple[int, int], length: int) -> list[int]:
    """The points 1..length steps from `square` along `direction`, clipped at the edge."""
    dva, dha = direction
    va, ha = va_of(square), ha_of(square)
    points = []
    for _ in range(length):
        va += dva
        ha += dha
        if not on_board(va, ha):
            break
        points.append(index(va, ha))
    return points


def square_name(square: int) -> str:
    """The chess-like name: ``a1`` … ``k12``."""
    return f"{FILE_LETTERS[ha_of(square)]}{va_of(square) + 1}"


def seed_name(square: int, separator: str = ",") -> str:
    """The seed's ``VA,HA`` name (D27: written with a comma)."""
    return f"{va_of(square)}{separator}{ha_of(square)}"


_SEED_POINT = re.compile(r"^(\d{1,2})[.,](\d{1,2})$")
_SQUARE_POINT = re.compile(r"^([a-k])(\d{1,2})$")


def parse_point(text: str) -> int:
    """Read ``VA,HA``, ``VA.HA`` (D27) or ``a1``…``k12``; NotationError names a bad one."""
    token = text.strip()
    match = _SEED_POINT.match(token)
    if match:
        va, ha = int(match.group(1)), int(match.group(2))
    else:
        match = _SQUARE_POINT.match(token.lower())
        if not match:
            raise NotationError(f"{text!r} is not a Commander Chess point (VA,HA like 3,5 or a1…k12)")
        ha, va = FILE_LETTERS.index(match.group(1)), int(match.group(2)) - 1
    if not on_board(va, ha):
        raise NotationError(f"{text!r} is off the board (VA 0–11, HA 0–10)")
    return index(va, ha)


_POINTS = tuple(Point(s % HA_COUNT, s // HA_COUNT) for s in range(SQUARES))


def to_point(square: int) -> Point:
    """The shared `Point`: file = HA, rank = VA."""
    return _POINTS[square]


def from_point(point: Point) -> int:
    if not (isinstance(point, tuple) and len(point) == 2 and on_board(point[1], point[0])):
        raise NotationError(f"{point!r} is not a point of the Commander Chess board")
    return index(point[1], point[0])


def _lines() -> tuple[tuple[Point, Point], ...]:
    lines = [(Point(0, va), Point(HA_COUNT - 1, va)) for va in range(VA_COUNT)]
    for ha in range(HA_COUNT):
        if ha <= 1:  # the sea is drawn continuous
            lines.append((Point(ha, 0), Point(ha, VA_COUNT - 1)))
        else:  # the river gap interrupts the land columns
            lines.append((Point(ha, 0), Point(ha, 5)))
            lines.append((Point(ha, 6), Point(ha, VA_COUNT - 1)))
    return tuple(lines)


def _region(predicate) -> frozenset[Point]:
    return frozenset(to_point(s) for s in range(SQUARES) if predicate(s))


GEOMETRY = Geometry(
    name="commander",
    files=HA_COUNT,
    ranks=VA_COUNT,
    placement="intersections",
    file_names=tuple(FILE_LETTERS),
    rank_names=tuple(str(r) for r in range(1, VA_COUNT + 1)),
    regions={
        "sea": _region(is_sea),
        "coast": _region(is_coast),
        "navigable-river": _region(lambda s: (va_of(s), ha_of(s)) in NAVIGABLE_RIVER),
        "ford-ends": _region(lambda s: va_of(s) in (5, 6) and ha_of(s) in FORD_COLUMNS),
        "side:white": _region(lambda s: half_of(s) == 0),
        "side:black": _region(lambda s: half_of(s) == 1),
    },
    lines=_lines(),
)
