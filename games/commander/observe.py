"""For vision: which legal turns lead from a position to what the camera sees?

Split turns multiply (a navy with two passengers has thousands of them), so the query never
lists every turn. It compares the two placements, keeps the points that changed, and asks
the turn generator only for actions whose changed points all lie among them: every other
branch of the split tree is cut before it is explored. The few turns left are played and
their placement compared with the observation.

>>> from games.commander.board import Board
>>> board = Board()
>>> after = board.copy(); after.push(next(t for t in after.legal_moves if t.name() == "T3,5_5,5"))
>>> [t.name() for t in turns_to(board, after.board_fen())]
['T3,5_5,5']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.commander import terrain as tr
from games.commander.board import Board, Turn, _parse_placement
from games.commander.pieces import Stack

Placement = Sequence[Stack | None]


def _seen(stack: Stack | None, heroes: bool) -> Counter:
    if stack is None:
        return Counter()
    return Counter((p.kind, p.color, p.hero) if heroes else (p.kind, p.color) for p in stack)


def changed_points(before: Placement, after: Placement, heroes: bool = False) -> frozenset[int]:
    """The points whose pieces differ (as multisets; hero marks only if `heroes`)."""
    return frozenset(s for s in range(tr.SQUARES) if _seen(before[s], heroes) != _seen(after[s], heroes))


def turns_to(board: Board, observed: str | Placement | Board, heroes: bool = False) -> list[Turn]:
    """The legal turns of `board` whose result shows the `observed` placement.

    `observed` is a FEN placement, a list of 132 stacks or a Board. Hero marks are
    compared only with `heroes=True` (a camera may not see them).
    """
    if isinstance(observed, Board):
        after = observed.squares
    elif isinstance(observed, str):
        after = _parse_placement(observed.split()[0])
    else:
        after = list(observed)
    changed = changed_points(board.squares, after, heroes)
    if not changed or board.result() is not None:
        return []
    found: list[Turn] = []
    for origin in _candidate_origins(board, changed):
        for turn in board._turns_from(origin, touched=changed):
            board._push_unchecked(turn)
            try:
                if not changed_points(board.squares, after, heroes):
                    found.append(turn)
            finally:
                board.pop()
    return found


def _candidate_origins(board: Board, changed: frozenset[int]) -> list[int]:
    """Points of the side to move that changed, or that share a line with a changed point
    (an in-place capture leaves its origin unchanged)."""
    out = []
    for square, stack in enumerate(board.squares):
        if stack is None or stack[0].color is not board.turn:
            continue
        if square in changed or any(_aligned(square, c) for c in changed):
            out.append(square)
    return out


def _aligned(a: int, b: int) -> bool:
    dva, dha = tr.va_of(a) - tr.va_of(b), tr.ha_of(a) - tr.ha_of(b)
    return dva == 0 or dha == 0 or abs(dva) == abs(dha)
