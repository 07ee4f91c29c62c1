"""The likeliest position a real set can show, read from per-point probabilities.

Reading every point on its own can give three red horses, or an elephant across the river:
the classifier confuses glyphs of one colour far more often than it misses a piece. A real
set has two horses and its elephants never cross, so the whole board is read at once: the
placement with the highest log-likelihood among those the set allows.

- No class more often than the start position holds it (pieces are never added, and no
  piece changes kind in these games; a Commander Chess stack counts every disc in it).
- Every piece only on points the rules let it stand on (each game's `misplaced`): in Xiangqi
  the points it can reach from the start; in Commander Chess a navy only on the sea, the
  coast and the navigable river, every other piece (a stack's carrier, on top) only on land;
  in Cờ Toán a 0 only on its marked cell, which it never leaves.
- Xiangqi: both generals on the board, unless a hand hides a point of their palace.

An occluded point keeps its `occluded` reading and takes no part.

>>> import numpy as np
>>> from games import Point
>>> from vision.classes import classes
>>> names = classes("xiangqi")
>>> points = [Point(4, 0), Point(1, 0), Point(7, 0), Point(4, 2)]
>>> p = np.full((4, len(names)), 0.01)
>>> p[:, names.index("red_horse")] = 0.9  # four horses, a set has two
>>> p[0, names.index("red_general")] = 0.05
>>> p[3, names.index("red_elephant")] = 0.06
>>> read = likeliest_placement("xiangqi", names, points, p / p.sum(1, keepdims=True), np.zeros(4, bool))
>>> [read[point] for point in points]
['red_general', 'red_horse', 'red_horse', 'red_elephant']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache

import numpy as np

import games
from games import BLACK, WHITE, Point, commander, cotoan, xiangqi
from vision.classes import EMPTY, OCCLUDED, appearance, class_of_letter, fen_letter

# The costs are -log p, p floored at 1e-9 (at most ~21 nats): a placement the set forbids costs
# far more than any allowed reading, so it is chosen only if nothing else fits (never: every
# point may always be read empty).
_FLOOR = 1e-9
_FORBIDDEN = 1e6
# Subtracted from the cost of a required piece (a Xiangqi general) so that it is always placed.
_REQUIRED_BONUS = 1e3


@cache
def set_limits(game: str) -> dict[str, int]:
    """How many pieces of each class the game's set holds (its start position, stacks included)."""
    board = games.get(game).board()
    if game == "commander":  # `appearance` shows a stack's top only; `pieces` lists every disc
        return dict(Counter(class_of_letter(game, piece.fen()) for color in (WHITE, BLACK)
                            for _, piece in board.pieces(color)))
    return dict(Counter(c for c in appearance(game, board).values() if c != EMPTY))


@cache
def _allowed(game: str, name: str, point: Point) -> bool:
    """Whether the rules let a piece of class `name` stand on `point` (each game's `misplaced`)."""
    letter = fen_letter(game, name)
    if game == "xiangqi":
        return xiangqi.misplaced(xiangqi.Piece.from_symbol(letter), point) is None
    if game == "commander":
        return commander.misplaced(commander.Piece.from_fen(letter), point) is None
    if game == "cotoan":
        return cotoan.misplaced(cotoan.Piece.from_symbol(letter), point) is None
    return True


def _required(game: str) -> tuple[str, ...]:
    return ("red_general", "black_general") if game == "xiangqi" else ()


def likeliest_placement(game: str, names: Sequence[str], points: Sequence[Point], probabilities: np.ndarray,
                        occluded: np.ndarray) -> dict[Point, str]:
    """Point → class: the allowed placement of highest likelihood (see the module's doc)."""
    limits = set_limits(game)
    seen = [i for i in range(len(points)) if not occluded[i]]
    hidden = {points[i] for i in range(len(points)) if occluded[i]}
    placement = {points[i]: OCCLUDED for i in range(len(points)) if occluded[i]}
    if not seen:
        return placement
    # One column per piece the set holds, and one "empty" column per point.
    columns = [name for name in names if name in limits for _ in range(limits[name])]
    cost = -np.log(np.maximum(probabilities[seen], _FLOOR))
    by_name = {name: index for index, name in enumerate(names)}
    matrix = np.empty((len(seen), len(columns) + len(seen)))
    for column, name in enumerate(columns):
        matrix[:, column] = cost[:, by_name[name]]
        for row, index in enumerate(seen):
            if not _allowed(game, name, points[index]):
                matrix[row, column] = _FORBIDDEN
    matrix[:, len(columns):] = cost[:, [by_name[EMPTY]]]
    for name in _required(game):
        home = [p for p in points if _allowed(game, name, p)]
        if not any(p in hidden for p in home):
            matrix[:, [c for c, n in enumerate(columns) if n == name]] -= _REQUIRED_BONUS
    chosen = _assign(matrix)
    for row, index in enumerate(seen):
        column = chosen[row]
        placement[points[index]] = columns[column] if column < len(columns) else EMPTY
    return placement


def _assign(cost: np.ndarray) -> np.ndarray:
    """The column given to each row in a least-cost assignment (rows ≤ columns; each column used
    at most once): the Hungarian method with potentials, its inner loop over columns in numpy."""
    rows, cols = cost.shape
    u = np.zeros(rows + 1)
    v = np.zeros(cols + 1)
    owner = np.zeros(cols + 1, dtype=int)  # owner[j]: the row (1-based) holding column j; 0 = free
    way = np.zeros(cols + 1, dtype=int)
    for row in range(1, rows + 1):
        owner[0] = row
        j0 = 0
        slack = np.full(cols + 1, np.inf)
        used = np.zeros(cols + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = owner[j0]
            reduced = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (reduced < slack[1:])
            slack[1:][better] = reduced[better]
            way[1:][better] = j0
            candidates = np.where(free, slack[1:], np.inf)
            j1 = int(np.argmin(candidates)) + 1
            delta = candidates[j1 - 1]
            u[owner[used]] += delta
            v[used] -= delta
            slack[1:][free] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    chosen = np.empty(rows, dtype=int)
    for column in range(1, cols + 1):
        if owner[column]:
            chosen[owner[column] - 1] = column - 1
    return chosen
