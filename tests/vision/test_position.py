"""The whole board read at once (`vision.position`): the set's limits, where pieces may stand,
the generals, occluded points, and the assignment's optimality."""

import itertools

import numpy as np
import pytest

from games import Point
from vision.classes import EMPTY, OCCLUDED, classes
from vision.position import _assign, likeliest_placement, set_limits


def _probabilities(game: str, reads: dict[Point, dict[str, float]]) -> tuple[list[Point], np.ndarray]:
    """Rows for `reads`: the named classes get their weight, every other class a little."""
    names = classes(game)
    points = list(reads)
    p = np.full((len(points), len(names)), 0.002)
    for row, point in enumerate(points):
        for name, weight in reads[point].items():
            p[row, names.index(name)] = weight
    return points, p / p.sum(axis=1, keepdims=True)


def _read(game: str, reads: dict[Point, dict[str, float]], occluded: set[Point] = frozenset()) -> dict:
    points, p = _probabilities(game, reads)
    hidden = np.array([point in occluded for point in points])
    return likeliest_placement(game, classes(game), points, p, hidden)


def test_the_set_limits_come_from_the_start_position_stacks_included():
    assert sum(set_limits("xiangqi").values()) == 32 and set_limits("xiangqi")["red_soldier"] == 5
    assert sum(set_limits("cotoan").values()) == 20 and set(set_limits("cotoan").values()) == {1}
    # Commander Chess: 19 pieces a side, carried ones (the navy's load) counted too.
    assert sum(set_limits("commander").values()) == 38
    assert set_limits("commander")["blue_air_force"] == 2


def test_a_third_chariot_becomes_the_least_unlikely_other_piece():
    reads = {Point(0, 0): {"red_chariot": 0.95},
             Point(8, 0): {"red_chariot": 0.9},
             Point(1, 5): {"red_chariot": 0.6, "red_cannon": 0.3}}
    read = _read("xiangqi", reads | {Point(4, 0): {"red_general": 0.9}, Point(4, 9): {"black_general": 0.9}})
    assert [read[p] for p in reads] == ["red_chariot", "red_chariot", "red_cannon"]


def test_pieces_stand_only_where_the_rules_let_them():
    reads = {Point(4, 5): {"red_elephant": 0.7, "red_soldier": 0.2},   # an elephant across the river
             Point(1, 7): {"black_soldier": 0.6, "black_horse": 0.3},  # a soldier behind its start
             Point(3, 1): {"red_advisor": 0.8, "red_chariot": 0.1}}    # the palace's side, not a diagonal
    read = _read("xiangqi", reads | {Point(4, 0): {"red_general": 0.9}, Point(4, 9): {"black_general": 0.9}})
    assert [read[p] for p in reads] == ["red_soldier", "black_horse", "red_chariot"]


def test_both_generals_are_on_the_board_unless_their_palace_is_hidden():
    reads = {Point(4, 1): {"red_horse": 0.8, "red_general": 0.15},
             Point(3, 9): {"black_advisor": 0.9}, Point(5, 9): {EMPTY: 0.9, "black_general": 0.05}}
    read = _read("xiangqi", reads)
    assert read[Point(4, 1)] == "red_general" and read[Point(5, 9)] == "black_general"
    assert read[Point(3, 9)] == "black_advisor"
    # A hand over e9: Black's general may be under it, so nothing is forced on f10.
    hidden = _read("xiangqi", reads | {Point(4, 8): {OCCLUDED: 0.9}}, occluded={Point(4, 8)})
    assert hidden[Point(5, 9)] == EMPTY and hidden[Point(4, 8)] == OCCLUDED
    assert hidden[Point(4, 1)] == "red_general"


def test_cotoan_holds_each_digit_once_a_side():
    reads = {Point(0, 0): {"black_6": 0.9}, Point(3, 4): {"black_6": 0.55, "black_9": 0.4}}
    read = _read("cotoan", reads)
    assert [read[p] for p in reads] == ["black_6", "black_9"]


def test_cotoan_reads_a_0_only_on_its_marked_cell():
    # e2 (White's 0) and e10 (Black's): a 0 never moves, so one seen elsewhere is another digit.
    reads = {Point(2, 5): {"white_0": 0.6, "white_9": 0.3},
             Point(4, 9): {"black_9": 0.5, "black_0": 0.45}, Point(3, 3): {"black_0": 0.55, EMPTY: 0.4}}
    read = _read("cotoan", reads)
    assert [read[p] for p in reads] == ["white_9", "black_9", EMPTY]
    assert _read("cotoan", {Point(4, 1): {"white_0": 0.6, "white_9": 0.3}})[Point(4, 1)] == "white_0"


def test_commander_counts_the_limits():
    reads = {Point(4, 0): {"red_missile": 0.9}, Point(5, 5): {"red_missile": 0.5, "red_militia": 0.45},
             Point(2, 2): {"blue_tank": 0.9}}
    read = _read("commander", reads)
    assert [read[p] for p in reads] == ["red_missile", "red_militia", "blue_tank"]


def test_commander_pieces_keep_to_their_terrain():
    # a1 and b7 are sea (navies only); c3 is coast (both); d6 is navigable river (both); g5 is land.
    reads = {Point(0, 0): {"red_tank": 0.6, "red_navy": 0.3},
             Point(1, 6): {"blue_infantry": 0.7, EMPTY: 0.25},
             Point(2, 2): {"red_navy": 0.9},
             Point(3, 5): {"blue_navy": 0.9},
             Point(6, 4): {"red_navy": 0.6, "red_tank": 0.35}}
    read = _read("commander", reads)
    assert [read[p] for p in reads] == ["red_navy", EMPTY, "red_navy", "blue_navy", "red_tank"]


@pytest.mark.parametrize("seed", range(40))
def test_the_assignment_is_the_cheapest(seed):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(1, 6))
    cost = rng.random((rows, int(rng.integers(rows, 8))))
    chosen = _assign(cost)
    assert len(set(chosen)) == rows
    best = min(sum(cost[r, c[r]] for r in range(rows))
               for c in itertools.permutations(range(cost.shape[1]), rows))
    assert sum(cost[r, chosen[r]] for r in range(rows)) == pytest.approx(best)
