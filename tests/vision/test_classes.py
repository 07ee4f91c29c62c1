"""Recognition classes per game, their FEN spellings, and what the camera should see on a board."""

import pytest

import games
from games import Point
from games.commander.pieces import BLUE, RED, Kind, Piece
from vision.classes import EMPTY, OCCLUDED, appearance, class_of_letter, classes, fen_letter, piece_classes

COMMANDER_KINDS = ("navy", "air_force", "tank", "engineer", "headquarters", "commander", "infantry", "militia",
                   "artillery", "anti_aircraft", "missile")


def test_commander_classes_are_the_contracts_names():
    names = classes("commander")
    assert names[0] == EMPTY and names[-1] == OCCLUDED
    assert set(piece_classes("commander")) == {f"{side}_{kind}" for side in ("red", "blue") for kind in COMMANDER_KINDS}
    assert len(names) == 24


def test_cotoan_classes_are_the_contracts_names():
    assert classes("cotoan") == (EMPTY, *(f"white_{d}" for d in range(10)), *(f"black_{d}" for d in range(10)),
                                 OCCLUDED)


def test_unknown_game_is_a_clear_value_error():
    with pytest.raises(ValueError, match="chess"):
        classes("chess")
    with pytest.raises(ValueError):
        appearance("chess", games.get("xiangqi").board())


@pytest.mark.parametrize("game", ["xiangqi", "commander", "cotoan"])
def test_every_piece_class_round_trips_through_its_fen_spelling(game):
    spellings = set()
    for name in piece_classes(game):
        letter = fen_letter(game, name)
        assert class_of_letter(game, letter) == name
        spellings.add(letter)
    assert len(spellings) == len(piece_classes(game))
    assert fen_letter(game, EMPTY) is None and fen_letter(game, OCCLUDED) is None


def test_fen_spellings_follow_each_engine():
    assert fen_letter("commander", "red_air_force") == Piece(Kind.AIR_FORCE, RED).fen() == "F"
    assert fen_letter("commander", "blue_missile") == Piece(Kind.MISSILE, BLUE).fen() == "s"
    assert class_of_letter("commander", "+G") == "red_anti_aircraft"  # a hero looks like any other piece
    assert fen_letter("cotoan", "white_0") == "0" and fen_letter("cotoan", "black_9") == "-9"


@pytest.mark.parametrize(("game", "letter"), [("commander", "x"), ("commander", "NF"), ("cotoan", "10"),
                                              ("cotoan", "-"), ("xiangqi", "q")])
def test_unknown_letters_are_value_errors(game, letter):
    with pytest.raises(ValueError, match="piece letter"):
        class_of_letter(game, letter)


def test_a_class_of_another_game_has_no_fen_letter():
    with pytest.raises(ValueError, match="not a piece class"):
        fen_letter("commander", "red_horse")


@pytest.mark.parametrize("game", ["xiangqi", "commander", "cotoan"])
def test_appearance_of_the_start_matches_the_fen(game):
    variant = games.get(game)
    board = variant.board()
    seen = appearance(game, board)
    assert set(seen) == set(variant.geometry.points())
    assert set(seen.values()) <= set(classes(game)) - {OCCLUDED}
    pieces = {p: c for p, c in seen.items() if c != EMPTY}
    assert len(pieces) == {"xiangqi": 32, "commander": 38, "cotoan": 20}[game]


def test_appearance_names_the_pieces_where_they_stand():
    seen = appearance("xiangqi", games.get("xiangqi").board())
    assert seen[Point(0, 0)] == "red_chariot" and seen[Point(4, 9)] == "black_general"
    seen = appearance("cotoan", games.get("cotoan").board())
    assert seen[Point(4, 1)] == "white_0" and seen[Point(4, 9)] == "black_0"
    assert seen[Point(0, 0)] == "white_1" and seen[Point(0, 10)] == "black_9"
    seen = appearance("commander", games.get("commander").board())
    assert seen[Point(6, 0)] == "red_commander" and seen[Point(6, 11)] == "blue_commander"


def test_a_commander_stack_shows_its_carrier_only():
    board = games.get("commander").board()
    point = Point(5, 4)
    board.set_stack_at(point, [Piece(Kind.INFANTRY, BLUE), Piece(Kind.TANK, BLUE)])
    assert appearance("commander", board)[point] == "blue_tank"
    board.set_stack_at(point, [Piece(Kind.AIR_FORCE, RED, hero=True), Piece(Kind.NAVY, RED)])
    assert appearance("commander", board)[point] == "red_navy"
    board.set_stack_at(point, None)
    assert appearance("commander", board)[point] == EMPTY


def test_appearance_follows_moves():
    board = games.get("cotoan").board()
    board.push(next(iter(board.legal_moves)))
    seen = appearance("cotoan", board)
    assert sum(c != EMPTY for c in seen.values()) == 20
    assert {p for p, c in seen.items() if c != EMPTY} == set(board.piece_map())
