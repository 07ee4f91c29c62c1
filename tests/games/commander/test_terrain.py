"""§1 board and coordinates, §2 terrain (D16, D17, D27)."""

import pytest

from games import NotationError
from games import get as get_variant
from games.commander import Board
from games.commander import terrain as tr
from games.commander.board import STARTING_FEN

from .helpers import make, names


def test_s1_1_board_has_11_by_12_points():
    """§1.1: 11 vertical lines (HA 0–10) × 12 horizontal lines (VA 0–11) = 132 points."""
    geometry = get_variant("commander").geometry
    assert (geometry.files, geometry.ranks) == (11, 12)
    assert len(list(geometry.points())) == tr.SQUARES == 132
    assert geometry.placement == "intersections"


@pytest.mark.parametrize("text,va,ha", [
    ("3,5", 3, 5), ("3.5", 3, 5), ("0,0", 0, 0), ("0,7", 0, 7), ("0,10", 0, 10),
    ("11,10", 11, 10), ("11,0", 11, 0), ("8,4", 8, 4),
])
def test_s1_2_seed_coordinates_read_va_first(text, va, ha):
    """§1.2, D27: "VA,HA", VA (row) first; both '.' and ',' separate; written with ','."""
    square = tr.parse_point(text)
    assert (tr.va_of(square), tr.ha_of(square)) == (va, ha)
    assert tr.seed_name(square) == f"{va},{ha}"


@pytest.mark.parametrize("bad", ["12,0", "0,11", "3;5", "", "l1", "a13", "a0", "x", "3,"])
def test_s1_2_bad_points_raise_notation_error(bad):
    """§1.2: points off the 12×11 grid are rejected with the text named."""
    with pytest.raises(NotationError, match="point|off the board"):
        tr.parse_point(bad)


@pytest.mark.parametrize("seed,square", [
    ("0,0", "a1"), ("0,7", "h1"), ("0,10", "k1"), ("3,5", "f4"), ("8,4", "e9"), ("11,0", "a12"), ("11,10", "k12"),
])
def test_s1_3_chess_like_coordinates(seed, square):
    """§1.3: file a+HA, rank VA+1; the table of the spec."""
    assert tr.square_name(tr.parse_point(seed)) == square
    assert tr.parse_point(square) == tr.parse_point(seed)
    assert get_variant("commander").geometry.point_name(tr.to_point(tr.parse_point(seed))) == square


def test_s1_4_orientation_red_bottom_sea_on_reds_left():
    """§1.4: Red at VA 0–4, Blue at VA 7–11; sea on Red's left (HA 0–1); halves VA 0–5 / 6–11."""
    board = Board(STARTING_FEN)
    for square, stack in enumerate(board.squares):
        if stack:
            assert (tr.va_of(square) <= 4) == (stack[0].color.value == "w")
    assert tr.is_sea(tr.index(0, 0)) and tr.is_sea(tr.index(11, 1)) and not tr.is_sea(tr.index(0, 10))
    assert [tr.half_of(tr.index(va, 5)) for va in (0, 5, 6, 11)] == [0, 0, 1, 1]


def test_s2_1_sea_points_only_navies_stand():
    """§2.1: HA 0–1 are sea (24 points); a land piece may not stand there alone."""
    assert sum(tr.is_sea(s) for s in range(tr.SQUARES)) == 24
    make({"4,1": "N", "0,6": "C", "11,8": "c"})
    with pytest.raises(ValueError, match="sea"):
        make({"4,1": "I", "0,6": "C", "11,8": "c"})
    make({"4,1": "(NI)", "0,6": "C", "11,8": "c"})  # a passenger of a navy may be at sea


def test_s2_2_coast_is_for_navies_and_land_pieces():
    """§2.2: HA 2 (12 points) holds navies and land pieces alike."""
    assert sum(tr.is_coast(s) for s in range(tr.SQUARES)) == 12
    make({"4,2": "N", "3,2": "T", "0,6": "C", "11,8": "c"})


def test_s2_3_fords_are_the_vertical_steps_on_ha5_and_ha7_d17():
    """§2.3, D17: only (5,5)–(6,5) and (5,7)–(6,7) are fords; the mouth, other files and
    diagonals are deep; steps not crossing VA5/VA6 are not crossings."""
    kind = lambda a, b: tr.crossing_kind(tr.parse_point(a), tr.parse_point(b))  # noqa: E731
    assert kind("5,5", "6,5") == kind("6,7", "5,7") == "ford"
    for a, b in [("5,2", "6,2"), ("5,3", "6,3"), ("5,6", "6,6"), ("5,10", "6,10"), ("5,5", "6,6"), ("5,4", "6,5")]:
        assert kind(a, b) == "deep", (a, b)
    assert kind("4,5", "5,5") is None


def test_s2_4_navigable_river_points_d16():
    """§2.4, D16: a navy may enter d6 e6 d7 e7 and nowhere else inland; f6 is closed."""
    board = make({"5,2": "N", "0,6": "C", "11,8": "c"})
    moves = names(board)
    assert {"H5,2_5,3", "H5,2_5,4", "H5,2_6,3"} <= moves
    assert "H5,2_5,5" not in moves and "H5,2_5,6" not in moves
    assert {tr.square_name(tr.index(*p)) for p in tr.NAVIGABLE_RIVER} == {"d6", "e6", "d7", "e7"}


def test_s2_5_and_s2_6_navy_and_land_point_counts():
    """§2.5: 40 navy-accessible points; §2.6: 108 land points (HA ≥ 2)."""
    assert sum(tr.is_navy_point(s) for s in range(tr.SQUARES)) == 40
    assert sum(tr.is_land(s) for s in range(tr.SQUARES)) == 108


def test_s2_7_navy_diagonal_must_cross_water():
    """§2.7: c5↔d6 and c8↔d7 are closed to navies (land corner); c6↔d7 over the river is open."""
    assert not tr.navy_step_ok(tr.parse_point("c5"), tr.parse_point("d6"))
    assert not tr.navy_step_ok(tr.parse_point("c8"), tr.parse_point("d7"))
    assert tr.navy_step_ok(tr.parse_point("c6"), tr.parse_point("d7"))
    board = make({"4,2": "N", "0,6": "C", "11,8": "c"})
    assert "H4,2_5,3" not in names(board)
