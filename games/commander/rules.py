"""What one piece or one sub-stack may do from its point: moves, captures, air defence, check.

This module knows the rules of §4–§10 for a single *action*; `games.commander.board` builds
whole turns (one action, or a split of several) out of them.

A position here is a plain list of 132 entries, each None or a `Stack` (carrier first).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import NamedTuple

from games.base import Color
from games.commander import terrain as tr
from games.commander.pieces import HEAVY, Kind, Piece, Stack, arrange, combine, remove_pieces, stack_value

Squares = list[Stack | None]


class Act(enum.Enum):
    """What an action does (§4.5)."""

    MOVE = "move"          # quiet move, or boarding a friendly carrier (§7.2)
    CAPTURE = "capture"    # replacement: the group ends on the target's point
    STRIKE = "strike"      # in place: the target is removed, the group stays (or returns) on its point

    # Members are singletons: identity hashing keeps the generator's lookups at C speed.
    __hash__ = object.__hash__


class Fate(enum.Enum):
    """How air defence resolved a flight (§8.3)."""

    NORMAL = "normal"
    SHOT_DOWN = "shot down"   # the flying stack is destroyed; a target is untouched
    EXCHANGE = "one-for-one"  # target and flying stack are both destroyed

    __hash__ = object.__hash__


class Action(NamedTuple):
    """One piece (or sub-stack, carrier first) acting from `origin` on `target`."""

    group: Stack
    origin: int
    target: int
    act: Act
    fate: Fate = Fate.NORMAL

    @property
    def is_capture(self) -> bool:
        return self.act is not Act.MOVE


# --------------------------------------------------------------------------- geometry tables
_RAYS: list[list[list[int]]] = [
    [tr.ray(s, d, 11) for d in tr.ALL_DIRECTIONS] for s in range(tr.SQUARES)
]
_ORTHOGONAL_INDEXES = (0, 1, 2, 3)
_ALL_INDEXES = tuple(range(8))


def _disc(square: int, radius: int) -> list[int]:
    va, ha = tr.va_of(square), tr.ha_of(square)
    return [
        tr.index(va + dva, ha + dha)
        for dva in range(-radius, radius + 1)
        for dha in range(-radius, radius + 1)
        if dva * dva + dha * dha <= radius * radius and tr.on_board(va + dva, ha + dha)
    ]


_DISCS = {r: [_disc(s, r) for s in range(tr.SQUARES)] for r in (1, 2, 3)}

_RING_RADIUS = {Kind.ANTI_AIRCRAFT: 1, Kind.MISSILE: 2, Kind.NAVY: 1}  # §8.1


def ring_radius(piece: Piece) -> int:
    """§8.1 and D6: AA 1, missile 2, navy 1; a hero's ring is one larger; others 0."""
    radius = _RING_RADIUS.get(piece.kind, 0)
    return radius + 1 if radius and piece.hero else radius


def ring_masks(squares: Squares, color: Color) -> list[int]:
    """For every point, a bit mask of the `color` providers whose ring covers it (§8.1–8.2).

    Only top-level providers count: a carried AA gun or missile projects nothing (D39),
    a navy carrier does.
    """
    masks = [0] * tr.SQUARES
    bit = 1
    for square, stack in enumerate(squares):
        if stack is None or stack[0].color is not color:
            continue
        radius = ring_radius(stack[0])
        if radius:
            for point in _DISCS[radius][square]:
                masks[point] |= bit
            bit <<= 1
    return masks


# --------------------------------------------------------------------------- reach (§5, §10.3)
class Reach(NamedTuple):
    directions: tuple[int, ...]   # indexes into terrain.ALL_DIRECTIONS
    move: tuple[int, int]         # (orthogonal, diagonal) maximum quiet distance
    capture: tuple[int, int]      # (orthogonal, diagonal) maximum capture distance


def reach(piece: Piece) -> Reach:
    """Move and capture ranges of a piece acting as a carrier (§5 table; heroes §10.3)."""
    kind, hero = piece.kind, piece.hero
    if kind is Kind.COMMANDER:  # never a hero (D19)
        return Reach(_ORTHOGONAL_INDEXES, (11, 0), (1, 0))
    if kind is Kind.HEADQUARTERS:
        return Reach(_ALL_INDEXES, (2, 2), (2, 2)) if hero else Reach((), (0, 0), (0, 0))
    if kind in (Kind.INFANTRY, Kind.ENGINEER, Kind.ANTI_AIRCRAFT):
        return Reach(_ALL_INDEXES, (2, 2), (2, 2)) if hero else Reach(_ORTHOGONAL_INDEXES, (1, 0), (1, 0))
    if kind is Kind.MILITIA:
        n = 2 if hero else 1
        return Reach(_ALL_INDEXES, (n, n), (n, n))
    if kind is Kind.TANK:
        return Reach(_ALL_INDEXES, (3, 3), (3, 3)) if hero else Reach(_ORTHOGONAL_INDEXES, (2, 0), (2, 0))
    if kind is Kind.ARTILLERY:
        n = 4 if hero else 3
        return Reach(_ALL_INDEXES, (n, n), (n, n))
    if kind is Kind.MISSILE:
        ranges = (3, 2) if hero else (2, 1)
        return Reach(_ALL_INDEXES, ranges, ranges)
    if kind is Kind.AIR_FORCE:
        n = 5 if hero else 4
        return Reach(_ALL_INDEXES, (n, n), (n, n))
    if kind is Kind.NAVY:  # capture range here is the missile's; the gun is one shorter
        n = 5 if hero else 4
        return Reach(_ALL_INDEXES, (n, n), (n, n))
    raise AssertionError(kind)


# Capture by arcing or flying fire ignores pieces on the path (§4.4).
_UNBLOCKED_FIRE = frozenset({Kind.ARTILLERY, Kind.AIR_FORCE})


def _commander_squares(squares: Squares, color: Color) -> int | None:
    """The point of `color`'s top-level, uncarried commander, if it stands alone."""
    for square, stack in enumerate(squares):
        if stack is not None and len(stack) == 1 and stack[0].kind is Kind.COMMANDER and stack[0].color is color:
            return square
    return None


def commander_square(squares: Squares, color: Color) -> int | None:
    """The point of the stack that holds `color`'s commander (carried or not), if any."""
    for square, stack in enumerate(squares):
        if stack is not None and stack[0].color is color:
            for piece in stack:
                if piece.kind is Kind.COMMANDER:
                    return square
    return None


def _between(a: int, b: int) -> list[int] | None:
    """Points strictly between a and b on one line (orthogonal or diagonal), else None."""
    dva, dha = tr.va_of(b) - tr.va_of(a), tr.ha_of(b) - tr.ha_of(a)
    if dva == 0 and dha == 0:
        return None
    if dva != 0 and dha != 0 and abs(dva) != abs(dha):
        return None
    steps = max(abs(dva), abs(dha))
    sva, sha = (dva > 0) - (dva < 0), (dha > 0) - (dha < 0)
    return [tr.index(tr.va_of(a) + sva * k, tr.ha_of(a) + sha * k) for k in range(1, steps)]


def faces(squares: Squares, point: int, enemy: int, ignore: int = -1) -> bool:
    """§9.3 (D2): `point` and `enemy` share a VA or HA line with nothing between them."""
    if tr.va_of(point) != tr.va_of(enemy) and tr.ha_of(point) != tr.ha_of(enemy):
        return False
    between = _between(point, enemy)
    return between is not None and all(squares[p] is None or p == ignore for p in between)


def commanders_face(squares: Squares) -> bool:
    """Both commanders are top-level and alone, on one line, with nothing between (§9.3)."""
    from games.commander.pieces import BLUE, RED

    red, blue = _commander_squares(squares, RED), _commander_squares(squares, BLUE)
    return red is not None and blue is not None and faces(squares, red, blue)


def _direction_index(origin: int, target: int) -> tuple[int, int] | None:
    """(direction index, distance) from origin to target along one of the 8 rays, or None."""
    dva, dha = tr.va_of(target) - tr.va_of(origin), tr.ha_of(target) - tr.ha_of(origin)
    if dva != 0 and dha != 0 and abs(dva) != abs(dha):
        return None
    if dva == 0 and dha == 0:
        return None
    step = ((dva > 0) - (dva < 0), (dha > 0) - (dha < 0))
    return tr.ALL_DIRECTIONS.index(step), max(abs(dva), abs(dha))


# Per point and direction, the steps of the ray as (point, the step crosses deep water, a navy
# may make the step): the per-step terrain questions answered once, not on every generation.
_STEPS: list[list[tuple[tuple[int, bool, bool], ...]]] = [
    [tuple((point, tr.crossing_kind(previous, point) == "deep", tr.navy_step_ok(previous, point))
           for previous, point in zip([s, *ray], ray, strict=False))
     for ray in rays]
    for s, rays in enumerate(_RAYS)
]
_NAVY_POINT = [tr.is_navy_point(s) for s in range(tr.SQUARES)]
_LAND = [tr.is_land(s) for s in range(tr.SQUARES)]
_SEA = [tr.is_sea(s) for s in range(tr.SQUARES)]
# Points strictly between two points of one VA or HA line (the face-to-face lines, §9.3).
_LINE_BETWEEN: list[list[tuple[int, ...] | None]] = [
    [tuple(_between(a, b)) if a != b and (tr.va_of(a) == tr.va_of(b) or tr.ha_of(a) == tr.ha_of(b)) else None
     for b in range(tr.SQUARES)]
    for a in range(tr.SQUARES)
]
# The direction index from one point to another on one of the 8 rays, or -1.
DIRECTION: list[list[int]] = [
    [found[0] if (found := _direction_index(a, b)) is not None else -1 for b in range(tr.SQUARES)]
    for a in range(tr.SQUARES)
]
_NO_RINGS = [0] * tr.SQUARES
_REACH = {(kind, hero): reach(Piece(kind, Color.WHITE, hero)) for kind in Kind for hero in (False, True)}
_MOVE, _CAPTURE, _STRIKE = Act.MOVE, Act.CAPTURE, Act.STRIKE
_NORMAL, _SHOT_DOWN, _EXCHANGE = Fate.NORMAL, Fate.SHOT_DOWN, Fate.EXCHANGE
_COMBINED: dict[tuple[Stack, Stack], Stack | None] = {}


def _combined(occupant: Stack, group: Stack) -> Stack | None:
    """`combine(occupant + group)`, remembered: boarding asks the same few questions again and again."""
    key = (occupant, group)
    try:
        return _COMBINED[key]
    except KeyError:
        merged = _COMBINED[key] = combine(occupant + group)
        return merged


def _faces_through(squares: Squares, point: int, enemy: int, ignore: int) -> bool:
    between = _LINE_BETWEEN[point][enemy]
    if between is None:
        return False
    for p in between:
        if squares[p] is not None and p != ignore:
            return False
    return True


def group_actions(
    squares: Squares,
    origin: int,
    group: Stack,
    enemy_rings: Sequence[int],
    *,
    alone: bool,
    only_target: int | None = None,
    illegal_crossings: bool = False,
    only_directions: tuple[int, ...] | None = None,
) -> list[Action]:
    """Every action of `group` (pieces standing on `origin`, carrier first) under §4–§8.

    `alone` says the group is the whole stack on `origin` (only then may a commander use
    face-to-face capture, §9.3). With `only_target` only captures of that point are
    returned (used for check). With `illegal_crossings` only the quiet moves of a heavy
    piece through deep water are returned: the referee needs them to apply §6.5.
    `only_directions` (indexes into terrain.ALL_DIRECTIONS) keeps the actions along those rays;
    a loaded engineer ignores it.
    """
    carrier = group[0]
    kind, color = carrier.kind, carrier.color
    actions: list[Action] = []

    if kind is Kind.ENGINEER and len(group) > 1:
        # §6.4, D12: a loaded engineer may only make the crossing step.
        if only_target is not None or illegal_crossings:
            return actions
        va = tr.va_of(origin)
        if va in (5, 6) and tr.ha_of(origin) >= 2:
            target = origin + (tr.HA_COUNT if va == 5 else -tr.HA_COUNT)
            if squares[target] is None:
                actions.append(Action(group, origin, target, _MOVE))
        return actions

    spec = _REACH[kind, carrier.hero]
    directions = spec.directions
    if only_target is not None:
        found = _direction_index(origin, only_target)
        if found is None or found[0] not in directions:
            return actions
        directions = (found[0],)
    if only_directions is not None:
        directions = tuple(d for d in directions if d in only_directions)

    is_navy = kind is Kind.NAVY
    is_air = kind is Kind.AIR_FORCE
    heavy = kind in HEAVY
    flight_checked = is_air and not carrier.hero  # §8.4: a hero aircraft is stealth
    passes_pieces = is_air or is_navy or kind in _UNBLOCKED_FIRE
    quiet_wanted = only_target is None
    captures_wanted = not illegal_crossings
    # §6.3: heavy pieces cross deep water only by capture or on an engineer; the referee's
    # list (illegal_crossings) is exactly the other half of the heavy quiet moves.
    quiet_allowed = heavy or not illegal_crossings
    group_lands_on = _NAVY_POINT if is_navy else _LAND
    enemy_commander = None
    if kind is Kind.COMMANDER and len(group) == 1:
        enemy_commander = _commander_squares(squares, color.other)
    ignore = origin if alone else -1
    append = actions.append
    steps_from = _STEPS[origin]

    for direction in directions:
        diagonal = direction >= 4
        move_max = spec.move[diagonal] if quiet_wanted and quiet_allowed else 0
        capture_max = spec.capture[diagonal]
        if enemy_commander is not None and alone:
            capture_max = 11  # face-to-face capture at any distance, checked below
        gun_max = capture_max - 1 if is_navy else capture_max
        if not captures_wanted:
            capture_max = gun_max = 0
        limit = max(move_max, capture_max)
        if limit == 0:
            continue
        path_empty = True         # no piece strictly between origin and the current point
        path_enemy_free = True    # no enemy piece on the path (navy movement, D14)
        water_path = True         # every step so far is a navy step (§4.5 water path)
        crossed_deep = False
        commander_path_ok = True  # no passed point faces the enemy commander (§9.3, D2)
        flight_mask = 0           # union of enemy rings over the path points (§8.3)
        distance = 0
        for point, deep, navy_ok in steps_from[direction]:
            distance += 1
            if distance > limit:
                break
            if deep:
                crossed_deep = True
            if not navy_ok:
                water_path = False
            occupant = squares[point]

            if occupant is None or occupant[0].color is color:
                # A quiet move or a boarding onto `point` (§4.4, §6, §7.2).
                if (distance <= move_max and commander_path_ok
                        and (path_enemy_free and water_path if is_navy else is_air or path_empty)
                        and (not heavy or crossed_deep == illegal_crossings)):
                    fate = _NORMAL
                    if occupant is None:
                        lands = group_lands_on[point]
                        boarding_navy = False
                    else:
                        merged = _combined(occupant, group)
                        lands = merged is not None and (
                            _NAVY_POINT[point] if merged[0].kind is Kind.NAVY else _LAND[point])
                        boarding_navy = occupant[0].kind is Kind.NAVY
                    if lands:
                        if flight_checked and (flight_mask or (not boarding_navy and enemy_rings[point])):
                            fate = _SHOT_DOWN  # D36: an aircraft boarding a navy is safe on arrival
                        append(Action(group, origin, point, _MOVE, fate))
            elif distance <= capture_max and (only_target is None or point == only_target):
                _capture(actions, group, origin, point, occupant, distance, enemy_rings, flight_mask,
                         kind, is_navy, is_air, flight_checked, path_empty, water_path, capture_max,
                         gun_max, enemy_commander, alone)

            if occupant is not None:
                path_empty = False
                if occupant[0].color is not color:
                    path_enemy_free = False
            if (enemy_commander is not None and commander_path_ok
                    and _faces_through(squares, point, enemy_commander, ignore)):
                commander_path_ok = False
            if flight_checked:
                flight_mask |= enemy_rings[point]
            if not path_empty and not passes_pieces:
                break  # direct fire and ground moves stop at the first piece
            if is_navy and not path_enemy_free and not path_empty and distance >= gun_max:
                break
    return actions


def _land_ok(kind: Kind, point: int) -> bool:
    """May a stack whose carrier is `kind` stand on `point` (§2)?"""
    return _NAVY_POINT[point] if kind is Kind.NAVY else _LAND[point]


def _capture(actions, group, origin, point, occupant, distance, enemy_rings, flight_mask,
             kind, is_navy, is_air, flight_checked, path_empty, water_path, capture_max, gun_max,
             enemy_commander, alone) -> None:
    """Captures of the enemy stack on `point` and their mode (§4.5) and air defence (§8.3)."""
    target_kind = occupant[0].kind
    modes: tuple[Act, ...]
    if kind is Kind.COMMANDER:
        facing = alone and point == enemy_commander and path_empty
        if distance > 1 and not facing:
            return
        if not path_empty:
            return
        modes = _STRIKE_ONLY if _SEA[point] else _CAPTURE_ONLY
    elif is_navy:
        if target_kind is Kind.NAVY:  # anti-ship missile: direct fire (D15)
            if not path_empty:
                return
            modes = _CAPTURE_ONLY if water_path else _STRIKE_ONLY
        else:  # gun: arcing fire, replaces only along a water path onto a navy point
            if distance > gun_max:
                return
            modes = _CAPTURE_ONLY if water_path and _NAVY_POINT[point] else _STRIKE_ONLY
    elif is_air:
        if target_kind is Kind.AIR_FORCE:
            modes = _CAPTURE_ONLY            # aircraft vs aircraft must replace
        elif _SEA[point]:
            modes = _STRIKE_ONLY             # may not end at sea: bomb and return
        else:
            modes = _EITHER                  # player's choice (D7)
    else:
        if kind not in _UNBLOCKED_FIRE and not path_empty:
            return
        modes = _STRIKE_ONLY if _SEA[point] else _CAPTURE_ONLY

    if flight_checked:
        danger = enemy_rings[point]
        if flight_mask & ~danger:
            actions.append(Action(group, origin, point, _CAPTURE, _SHOT_DOWN))
            return
        if danger:
            actions.append(Action(group, origin, point, modes[0], _EXCHANGE))
            return
    for mode in modes:
        actions.append(Action(group, origin, point, mode))


_STRIKE_ONLY = (Act.STRIKE,)
_CAPTURE_ONLY = (Act.CAPTURE,)
_EITHER = (Act.CAPTURE, Act.STRIKE)


# --------------------------------------------------------------------------- applying actions
def apply_action(squares: Squares, action: Action) -> tuple[Stack, Stack]:
    """Carry out `action`; returns (enemy pieces destroyed, own pieces destroyed)."""
    group, origin, target = action.group, action.origin, action.target
    rest = remove_pieces(squares[origin], group)
    if action.fate is Fate.SHOT_DOWN:
        squares[origin] = rest or None
        return (), group
    if action.act is Act.MOVE:
        squares[origin] = rest or None
        occupant = squares[target]
        squares[target] = group if occupant is None else arrange(occupant + group)
        return (), ()
    captured = squares[target]
    squares[target] = None
    if action.fate is Fate.EXCHANGE:
        squares[origin] = rest or None
        return captured, group
    if action.act is Act.CAPTURE:
        squares[origin] = rest or None
        squares[target] = group
    return captured, ()


def destroyed_value(pieces: Stack) -> int:
    return stack_value(pieces)


# --------------------------------------------------------------------------- check (§9.2)
def checking_pieces(squares: Squares, color: Color) -> list[tuple[int, Piece]]:
    """The pieces of `color` that could capture the enemy commander on their next turn.

    A stack's carrier checks with the whole stack's move; each passenger checks with its
    own move out of the stack (§7.4). A flight shot down en route is no check; a one-for-one
    is (§9.2).
    """
    target = commander_square(squares, color.other)
    if target is None:
        return []
    rings: list[int] | None = None  # only an aircraft's flight needs them (§8.3)
    found: list[tuple[int, Piece]] = []
    toward = DIRECTION[target]
    for square, stack in enumerate(squares):
        if stack is None or stack[0].color is not color or toward[square] < 0:
            continue  # every capture runs along one of the 8 lines
        if rings is None and any(p.kind is Kind.AIR_FORCE and not p.hero for p in stack):
            rings = ring_masks(squares, color.other)
        if _hits(squares, square, stack, rings, target, alone=True):
            found.append((square, stack[0]))
        for passenger in set(stack[1:]):
            if _hits(squares, square, (passenger,), rings, target, alone=False):
                found.append((square, passenger))
    return found


def _hits(squares, square, group, rings, target, *, alone) -> bool:
    rings = _NO_RINGS if rings is None else rings
    return any(
        a.fate is not Fate.SHOT_DOWN
        for a in group_actions(squares, square, group, rings, alone=alone, only_target=target)
    )
