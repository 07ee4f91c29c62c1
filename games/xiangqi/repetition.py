"""Repetition under seed 001: perpetual check or chase loses, other repetition draws.

Seed 001 (Điều 7) lets the side that keeps checking, or keeps breaking a forbidden-move rule
(chasing a piece without end), lose; both sides repeating without breaking a rule, or both
breaking the same rule, is a draw. RULES.md §1 makes Fairy-Stockfish's judgement for its
``xiangqi`` variant (AXF chasing rules) the referee, so this module reproduces that judgement
(facts read from Fairy-Stockfish ``src/position.cpp``: ``Position::is_optional_game_end``,
``Position::chased``, ``slider_blockers``, ``attackers_to``; the code here is our own).

How a verdict is reached:

* Only the plies since the last capture count (and only those after the root position of
  the record). A verdict needs the current position to stand for the **third** time in that
  window, looking back two plies at a time (same side to move).
* Over the plies from the earlier of those two occurrences to now, a side that gave check
  with every one of its moves is perpetually checking; a side whose every move "chased" the
  same enemy piece (followed as it moves) is perpetually chasing.
* One side perpetually checking loses; both → draw. Otherwise one side perpetually chasing
  loses; both → draw. Otherwise a plain repetition: draw.

Decisions where the seed is silent (RULES.md §1 delegates them to Fairy-Stockfish):

* perpetual check is judged before chase: a side checking every move loses even if the
  other side chased every move; both sides checking every move is a draw;
* a draw because both sides broke the same rule is reported as
  ``Outcome(Termination.REPETITION, None)`` (`repetition_facts` tells which rules were broken);
* history before the root position (a FEN) is unknown, so the window also stops there;
* check and chase facts are computed only when a third occurrence is found, by rebuilding the
  positions of the window from the undo log, and are kept per ply on the board (``push``
  stays as fast as before; ``pop`` forgets the popped ply).

What a move chases (``chased_by_last_move``), in Fairy-Stockfish's AXF reading: a piece the
move newly attacks — directly, by discovery, by pinning its defender, or by a discovered-check
threat — that is not the general, not a soldier still on its own side of the river, not the
same kind of piece attacking back, and that is unprotected (a chariot attacked by a horse or
cannon, or a chariot, horse or cannon attacked by an elephant or advisor, counts even when
protected).

>>> from games.xiangqi.board import Board, Move
>>> board = Board("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1")
>>> for text in "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2".split():
...     board.push(Move.from_iccs(text))
>>> board.outcome()
Outcome(termination=<Termination.PERPETUAL_CHASE: 'perpetual chase'>, winner=<Color.BLACK: 'b'>)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from games.base import BLACK, WHITE, Outcome, Termination
from games.xiangqi import tables as T

if TYPE_CHECKING:
    from games.xiangqi.board import Board

SQUARES = T.SQUARES
GENERAL, ADVISOR, ELEPHANT, HORSE, CHARIOT, CANNON, SOLDIER = (
    T.GENERAL, T.ADVISOR, T.ELEPHANT, T.HORSE, T.CHARIOT, T.CANNON, T.SOLDIER)


def _bit(sq: int) -> int:
    return 1 << sq


def _squares_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _side(sign: int) -> int:
    """Table index of a colour sign: 0 White (+1), 1 Black (-1)."""
    return 0 if sign > 0 else 1


def _region(predicate) -> tuple[int, int]:
    masks = []
    for color in (0, 1):
        mask = 0
        for sq in range(SQUARES):
            if predicate(color, sq % T.FILES, sq // T.FILES):
                mask |= _bit(sq)
        masks.append(mask)
    return masks[0], masks[1]


PALACE = _region(T.in_palace)
OWN_HALF = _region(lambda c, f, r: T.own_side(c, r))
# Soldiers past the river also move sideways ("promoted" soldiers in Fairy-Stockfish).
CROSSED = (OWN_HALF[1], OWN_HALF[0])


def _neighbours(sq: int, deltas) -> tuple[int, ...]:
    f, r = sq % T.FILES, sq // T.FILES
    return tuple(T.square(f + df, r + dr) for df, dr in deltas
                 if 0 <= f + df < T.FILES and 0 <= r + dr < T.RANKS)


ORTHOGONAL = tuple(_neighbours(sq, ((0, 1), (0, -1), (1, 0), (-1, 0))) for sq in range(SQUARES))
DIAGONAL = tuple(_neighbours(sq, ((1, 1), (1, -1), (-1, 1), (-1, -1))) for sq in range(SQUARES))
DIAGONAL_MASK = tuple(sum(_bit(n) for n in DIAGONAL[sq]) for sq in range(SQUARES))
ORTHOGONAL_MASK = tuple(sum(_bit(n) for n in ORTHOGONAL[sq]) for sq in range(SQUARES))


def _alfil(sq: int) -> tuple[tuple[int, int], ...]:
    """Elephant steps anywhere on the board (no river limit), with the eye to keep empty."""
    f, r = sq % T.FILES, sq // T.FILES
    return tuple((T.square(f + df, r + dr), T.square(f + df // 2, r + dr // 2))
                 for df, dr in ((2, 2), (2, -2), (-2, 2), (-2, -2))
                 if 0 <= f + df < T.FILES and 0 <= r + dr < T.RANKS)


ALFIL = tuple(_alfil(sq) for sq in range(SQUARES))
LINES = tuple(
    sum(_bit(T.square(sq % T.FILES, r)) for r in range(T.RANKS))
    | sum(_bit(T.square(f, sq // T.FILES)) for f in range(T.FILES))
    for sq in range(SQUARES))
FILE_MASK = tuple(sum(_bit(T.square(sq % T.FILES, r)) for r in range(T.RANKS)) for sq in range(SQUARES))
RANK_MASK = tuple(sum(_bit(T.square(f, sq // T.FILES)) for f in range(T.FILES)) for sq in range(SQUARES))


def _soldier_raw(sign: int, sq: int) -> tuple[int, ...]:
    """Forward and both sideways steps, river or not (the bare pattern)."""
    f, r = sq % T.FILES, sq // T.FILES
    steps = ((0, sign), (1, 0), (-1, 0))
    return tuple(T.square(f + df, r + dr) for df, dr in steps
                 if 0 <= f + df < T.FILES and 0 <= r + dr < T.RANKS)


SOLDIER_RAW = (tuple(_soldier_raw(1, sq) for sq in range(SQUARES)),
               tuple(_soldier_raw(-1, sq) for sq in range(SQUARES)))


# ----------------------------------------------------------------------------- attacks
def _pieces(b: list[int], code: int) -> int:
    mask = 0
    for sq, piece in enumerate(b):
        if piece == code:
            mask |= _bit(sq)
    return mask


def _side_pieces(b: list[int], sign: int) -> int:
    mask = 0
    for sq, piece in enumerate(b):
        if piece * sign > 0:
            mask |= _bit(sq)
    return mask


def raw_attacks(b: list[int], sign: int, kind: int, sq: int) -> int:
    """Occupied points a piece of `kind` and colour `sign` on `sq` would attack, ignoring the
    palace and river limits (the bare movement pattern on board `b`)."""
    mask = 0
    if kind == CHARIOT:
        for ray in T.RAYS[sq]:
            for to in ray:
                if b[to]:
                    mask |= _bit(to)
                    break
    elif kind == CANNON:
        for ray in T.RAYS[sq]:
            screened = False
            for to in ray:
                if b[to]:
                    if screened:
                        mask |= _bit(to)
                        break
                    screened = True
    elif kind == HORSE:
        for to, leg in T.HORSE_MOVES[sq]:
            if b[to] and not b[leg]:
                mask |= _bit(to)
    elif kind == ELEPHANT:
        for to, eye in ALFIL[sq]:
            if b[to] and not b[eye]:
                mask |= _bit(to)
    elif kind == ADVISOR:
        for to in DIAGONAL[sq]:
            if b[to]:
                mask |= _bit(to)
    elif kind == GENERAL:
        for to in ORTHOGONAL[sq]:
            if b[to]:
                mask |= _bit(to)
    else:
        for to in SOLDIER_RAW[_side(sign)][sq]:
            if b[to]:
                mask |= _bit(to)
    return mask


def attacks_from(b: list[int], sign: int, kind: int, sq: int) -> int:
    """What the piece really attacks: the bare pattern cut to its region (general and advisor
    in the palace, elephant on its own half, a soldier before the river only straight on)."""
    color = _side(sign)
    mask = raw_attacks(b, sign, kind, sq)
    if kind in (GENERAL, ADVISOR):
        mask &= PALACE[color]
    elif kind == ELEPHANT:
        mask &= OWN_HALF[color]
    elif kind == SOLDIER and not (CROSSED[color] >> sq) & 1:
        mask &= FILE_MASK[sq]
    return mask


def attackers_to(b: list[int], target: int, sign: int, hidden: tuple[int, ...] = ()) -> int:
    """Pieces of colour `sign` attacking `target`, with the points in `hidden` treated as empty
    for lines, legs and eyes (the pieces standing there still count as attackers, as in
    Fairy-Stockfish). Generals, advisors and elephants count only inside their region; the
    flying general does not count."""
    def occupied(sq: int) -> bool:
        return b[sq] != 0 and sq not in hidden

    color = _side(sign)
    mask = 0
    chariot, cannon = sign * CHARIOT, sign * CANNON
    for ray in T.RAYS[target]:
        screened = False
        for sq in ray:
            if occupied(sq):
                if screened:
                    if b[sq] == cannon:
                        mask |= _bit(sq)
                    break
                if b[sq] == chariot:
                    mask |= _bit(sq)
                screened = True
    horse = sign * HORSE
    for sq, leg in T.HORSE_ATTACKERS[target]:
        if b[sq] == horse and not occupied(leg):
            mask |= _bit(sq)
    soldier = sign * SOLDIER
    for sq in T.SOLDIER_ATTACKERS[color][target]:
        if b[sq] == soldier:
            mask |= _bit(sq)
    if (PALACE[color] >> target) & 1:
        general, advisor = sign * GENERAL, sign * ADVISOR
        for sq in ORTHOGONAL[target]:
            if b[sq] == general:
                mask |= _bit(sq)
        for sq in DIAGONAL[target]:
            if b[sq] == advisor:
                mask |= _bit(sq)
    if (OWN_HALF[color] >> target) & 1:
        elephant = sign * ELEPHANT
        for sq, eye in ALFIL[target]:
            if b[sq] == elephant and not occupied(eye):
                mask |= _bit(sq)
    return mask


def blockers_for_general(b: list[int], king: int, sign: int) -> int:
    """Pieces of either colour whose removal would expose the general of colour `sign` to an
    enemy chariot (one piece between), cannon (either of two pieces between) or horse (its
    leg). The flying general is not included (Fairy-Stockfish's ``blockersForKing``)."""
    if king < 0:
        return 0
    mask = 0
    chariot, cannon, horse = -sign * CHARIOT, -sign * CANNON, -sign * HORSE
    for ray in T.RAYS[king]:
        seen: list[int] = []
        for sq in ray:
            if b[sq]:
                seen.append(sq)
                if len(seen) == 3:
                    break
        if len(seen) >= 2 and b[seen[1]] == chariot:
            mask |= _bit(seen[0])
        if len(seen) == 3 and b[seen[2]] == cannon:
            mask |= _bit(seen[0]) | _bit(seen[1])
    for sq, leg in T.HORSE_ATTACKERS[king]:
        if b[sq] == horse and b[leg]:
            mask |= _bit(leg)
    return mask


def _line_of_sight(b: list[int], origin: int, hidden: int) -> int:
    """First occupied point on each line from `origin`, with `hidden` treated as empty."""
    mask = 0
    for ray in T.RAYS[origin]:
        for sq in ray:
            if b[sq] and sq != hidden:
                mask |= _bit(sq)
                break
    return mask


PALACE_POINTS = (tuple(_squares_of(PALACE[0])), tuple(_squares_of(PALACE[1])))


def _find_general(b: list[int], sign: int) -> int:
    code = sign * GENERAL
    for sq in PALACE_POINTS[_side(sign)]:
        if b[sq] == code:
            return sq
    return -1


# ------------------------------------------------------------------------------ chasing
def chased_by_last_move(before: list[int], after: list[int], frm: int, to: int) -> int:
    """The points of the pieces of the side to move in `after` that the move `frm`→`to`
    (which led from `before` to `after`) chases, as a bit mask of points."""
    mover = 1 if after[to] > 0 else -1
    victim = -mover
    vcolor = _side(victim)
    victim_king = _find_general(after, victim)
    mover_king = _find_general(after, mover)
    victim_pieces = _side_pieces(after, victim)
    mover_pieces = _side_pieces(after, mover)

    pins = blockers_for_general(after, victim_king, victim)
    if mover_king >= 0:
        on_file = FILE_MASK[mover_king] & victim_pieces
        if victim_king >= 0 and (on_file >> victim_king) & 1:
            others = on_file & ~_bit(victim_king)
            if others & (others - 1) == 0:
                pins |= others

    victim_of_kind = {kind: _pieces(after, victim * kind) for kind in range(1, 8)}
    immune = victim_of_kind[GENERAL] | (victim_of_kind[SOLDIER] & ~CROSSED[vcolor])
    chased = 0

    def add(attacker: int, kind: int, attacks: int) -> None:
        nonlocal chased
        if not attacks & ~chased:
            return
        attacks &= ~immune
        if kind in (HORSE, CANNON):
            chased |= attacks & victim_of_kind[CHARIOT]
        if kind in (ELEPHANT, ADVISOR):
            chased |= attacks & (victim_of_kind[CHARIOT] | victim_of_kind[CANNON] | victim_of_kind[HORSE])
        if kind == HORSE and any(after[sq] for sq in DIAGONAL[attacker]):
            # A horse attacked by a horse attacks back unless its own leg is blocked.
            for sq in _squares_of(attacks & victim_of_kind[HORSE]):
                if (raw_attacks(after, victim, HORSE, sq) >> attacker) & 1:
                    attacks ^= _bit(sq)
        else:
            attacks &= ~victim_of_kind[kind] | pins
        for sq in _squares_of(attacks):
            roots = attackers_to(after, sq, victim, (attacker,)) & ~pins
            if not roots or (roots == victim_of_kind[GENERAL] and mover_king >= 0
                             and (_line_of_sight(after, mover_king, attacker) >> sq) & 1):
                chased |= _bit(sq)

    kind = abs(after[to])
    if kind not in (GENERAL, SOLDIER):
        direct = attacks_from(after, mover, kind, to) & victim_pieces
        if kind in (CHARIOT, CANNON):
            direct &= ~(FILE_MASK[to] if frm % T.FILES == to % T.FILES else RANK_MASK[to])
        add(to, kind, direct)

    candidates = (
        (ORTHOGONAL_MASK[frm] & _pieces(after, mover * HORSE))
        | (DIAGONAL_MASK[frm] & _pieces(after, mover * ELEPHANT))
        | (LINES[frm] & ~_bit(frm) & (_pieces(after, mover * CANNON) | _pieces(after, mover * CHARIOT)))
        | (LINES[to] & ~_bit(to) & _pieces(after, mover * CANNON)))
    for sq in _squares_of(candidates):
        kind = abs(after[sq])
        found = (victim_pieces & raw_attacks(after, mover, kind, sq)
                 & ~raw_attacks(before, mover, kind, sq))
        add(sq, kind, found)

    new_blockers = (blockers_for_general(after, victim_king, victim)
                    & ~blockers_for_general(before, _find_general(before, victim), victim))
    # A defender newly pinned to its general no longer protects: its wards are chased.
    for sq in _squares_of(new_blockers & victim_pieces):
        wards = victim_pieces & ~immune & raw_attacks(after, victim, abs(after[sq]), sq)
        mover_free = ~blockers_for_general(after, mover_king, mover)
        for ward in _squares_of(wards):
            if attackers_to(after, ward, mover) & mover_free:
                chased |= _bit(ward)
    # A piece that now screens a check threatens whatever it attacks when it steps away.
    for sq in _squares_of(new_blockers & mover_pieces):
        threatened = attacks_from(after, mover, abs(after[sq]), sq) & victim_pieces
        near_king = attacks_from(after, victim, GENERAL, victim_king) if victim_king >= 0 else 0
        chased |= threatened & ~near_king
        for ward in _squares_of(threatened & near_king):
            if attackers_to(after, ward, mover, (sq, victim_king)) & ~_bit(sq):
                chased |= _bit(ward)
    return chased


def _checked(b: list[int], sign: int) -> bool:
    """Is the general of colour `sign` attacked (the flying general not counted)?"""
    king = _find_general(b, sign)
    return king >= 0 and attackers_to(b, king, -sign) != 0


class PlyRecord(NamedTuple):
    """What the judgement needs of one ply: did it give check, and what did it chase."""

    check: bool
    chased: int


# ------------------------------------------------------------------------------ verdict
def _records(board: Board, first: int) -> dict[int, PlyRecord]:
    """Records of plies `first`..n (ply p is the move that led to position p), memoised on
    the board. Positions are rebuilt backwards from the current one through the undo log."""
    undo = board._undo
    n = len(undo)
    cache = board._ply_records
    missing = [p for p in range(max(first, 1), n + 1) if p not in cache]
    if missing:
        start = missing[0]
        boards: dict[int, list[int]] = {n: board._board[:]}
        b = board._board[:]
        for p in range(n, start - 1, -1):
            code, captured = undo[p - 1].code, undo[p - 1].captured
            frm, to = divmod(code, SQUARES)
            b[frm] = b[to]
            b[to] = captured
            boards[p - 1] = b[:]
        for p in range(start, n + 1):
            if p in cache:
                continue
            frm, to = divmod(undo[p - 1].code, SQUARES)
            after = boards[p]
            mover = 1 if after[to] > 0 else -1
            cache[p] = PlyRecord(_checked(after, -mover),
                                 chased_by_last_move(boards[p - 1], after, frm, to))
    return {p: cache[p] for p in range(max(first, 1), n + 1)}


def _undo_move(mask: int, code: int) -> int:
    """Follow chased pieces back over a move: a piece that moved is traced to where it was."""
    frm, to = divmod(code, SQUARES)
    if (mask >> to) & 1:
        return (mask ^ _bit(to)) | _bit(frm)
    return mask


class RepetitionFacts(NamedTuple):
    """Who broke which rule over the repeated stretch. "Mover" is the side that just moved,
    "to_move" the side to move now."""

    checks_by_mover: bool
    checks_by_to_move: bool
    chase_by_mover: int
    chase_by_to_move: int


def repetition_facts(board: Board) -> RepetitionFacts | None:
    """The facts behind a verdict, or None while the position has not stood three times in
    the window since the last capture."""
    undo = board._undo
    n = len(undo)
    window = min(board.halfmove_clock, n)
    if window < 4:
        return None
    key = board._key
    distance, seen = 0, 0
    for i in range(4, window + 1, 2):
        if undo[n - i].key == key:
            seen += 1
            if seen == 2:
                distance = i
                break
    if not distance:
        return None

    records = _records(board, n - distance)

    def check(p: int) -> bool:
        if p == 0:  # the root: is its side to move in check?
            root = board.root()
            return _checked(root._board, 1 if root.turn is WHITE else -1)
        return records[p].check

    def code(p: int) -> int:
        return undo[p - 1].code

    # The mover's moves are plies n, n-2, … back to the earlier occurrence (included); the
    # other side's are n-1, n-3, … strictly inside the stretch.
    checks_by_mover = all(check(n - j) for j in range(0, distance + 1, 2))
    checks_by_to_move = all(check(n - j) for j in range(1, distance, 2))
    chase_by_mover = _undo_move(records[n].chased, code(n - 1)) & records[n - 2].chased
    for j in range(4, distance + 1, 2):
        if n - j == 0:  # the root position was reached by no move, so chased nothing
            continue
        chase_by_mover = _undo_move(chase_by_mover, code(n - j + 1)) & records[n - j].chased
    chase_by_to_move = _undo_move(records[n - 1].chased, code(n - 2)) & records[n - 3].chased
    for j in range(5, distance, 2):
        chase_by_to_move = _undo_move(chase_by_to_move, code(n - j + 1)) & records[n - j].chased
    return RepetitionFacts(checks_by_mover, checks_by_to_move, chase_by_mover, chase_by_to_move)


def judge_repetition(board: Board) -> Outcome | None:
    """The verdict on the current position by the repetition rules, or None."""
    facts = repetition_facts(board)
    if facts is None:
        return None
    to_move = board.turn
    if facts.checks_by_mover or facts.checks_by_to_move:
        return _verdict(Termination.PERPETUAL_CHECK, facts.checks_by_mover, facts.checks_by_to_move, to_move)
    if facts.chase_by_mover or facts.chase_by_to_move:
        return _verdict(Termination.PERPETUAL_CHASE, bool(facts.chase_by_mover), bool(facts.chase_by_to_move),
                        to_move)
    return Outcome(Termination.REPETITION, None)


def _verdict(rule: Termination, by_mover: bool, by_to_move: bool, to_move) -> Outcome:
    """One side breaking the rule loses; both breaking it is a plain draw by repetition."""
    if by_mover and by_to_move:
        return Outcome(Termination.REPETITION, None)
    return Outcome(rule, to_move if by_mover else (BLACK if to_move is WHITE else WHITE))
