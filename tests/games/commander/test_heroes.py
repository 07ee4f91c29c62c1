"""§10 heroes: by check and as last defender; their powers (D6, D18–D21, D30)."""

from games.commander import Board, Mode
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED, Kind, Piece

from .helpers import make, play, targets, with_kings


def hero_at(board, point):
    return [p.hero for p in board.squares[tr.parse_point(point)]]


def test_s10_1_checking_piece_becomes_a_hero_d20():
    """§10.1, D20: after the turn, the piece that gives check is promoted, automatically."""
    board = with_kings({"8,4": "T", "11,3": None, "11,4": None})
    play(board, "T8,4_9,4")
    assert not hero_at(board, "9,4")[0]
    board = with_kings({"9,4": "T", "11,3": None, "11,4": None})
    play(board, "T9,4_9,6")
    assert hero_at(board, "9,6") == [True]


def test_s10_1_discovered_and_carried_checkers_are_promoted():
    """§10.1: a discovered attacker and a passenger able to capture both become heroes."""
    board = with_kings({"9,6": "T", "10,6": "I"})
    play(board, "B10,6_10,7")   # the infantry steps aside and uncovers the tank's line
    assert hero_at(board, "9,6") == [True] and hero_at(board, "10,7") == [False]
    board = with_kings({"10,6": "(TI)", "5,5": "I"})
    play(board, "B5,5_5,4")
    assert hero_at(board, "10,6") == [True, True]  # tank (whole stack) and the infantry (split)


def test_s10_2_last_defender_becomes_a_hero_d21():
    """§10.2, D21: a side with its commander and one other piece (HQs count, carried pieces count)
    gets that piece promoted, for either side, after any turn."""
    board = make({"0,8": "C", "0,3": "H", "2,5": "I", "11,6": "c", "11,3": "h", "5,5": "t", "3,5": None})
    play(board, "B2,5_3,5")
    play(board, "T5,5@B3,5")
    assert board.squares[tr.parse_point("0,3")] == (Piece(Kind.HEADQUARTERS, RED, True),)
    board = make({"0,8": "(TC)", "0,3": "I", "11,6": "c", "11,3": "h", "5,5": "t", "1,3": "i"})
    play(board, "B0,3@B1,3")   # Red: C carried by T plus the infantry: two others, no hero
    assert not board.squares[tr.parse_point("1,3")][0].hero


def test_s10_2_no_heroes_in_nine_piece_mode_d30():
    """§10.2, D30: the 9-piece battle has no commanders and no heroes."""
    board = make({"4,1": "N", "5,1": "n", "10,1": "n", "3,5": "F", "9,5": "f"}, mode="9")
    play(board, "H4,1@H5,1")
    assert all(not p.hero for c in (RED, BLUE) for _, p in board.pieces(c))


def test_s10_3_hero_ranges_and_diagonals():
    """§10.3: +1 range and all 8 directions: infantry 2, tank 3 (still blocked), artillery 4,
    missile 3/2, aircraft 5, navy 5 and gun 4."""
    board = with_kings({"4,5": "+I"})
    assert {"6,5", "6,7", "5,6", "2,3"} <= targets(board, "4,5")
    board = with_kings({"4,5": "+T", "4,7": "I"})
    moves = targets(board, "4,5")
    assert {"7,5", "7,8"} <= moves and "4,8" not in moves
    board = with_kings({"3,5": "+A"})
    assert "7,5" in targets(board, "3,5")
    board = with_kings({"3,5": "+S"})
    assert {"6,5", "5,7", "3,8"} <= targets(board, "3,5") and "6,8" not in targets(board, "3,5")
    board = with_kings({"2,5": "+F"})
    assert "7,5" in targets(board, "2,5")
    board = with_kings({"3,1": "+N", "8,1": "n", "3,5": "i"})
    assert {"8,1", "3,5"} <= targets(board, "3,1")


def test_s10_3_hero_value_is_ten_more():
    """§10.3, §11.1: a hero is worth +10 when destroyed."""
    assert Piece(Kind.TANK, RED, True).value == 30
    board = with_kings({"5,5": "T", "6,5": "+t"})
    play(board, "T5,5@T6,5")
    assert board.scores[RED] == 30


def test_s10_3_hero_hq_moves_like_hero_infantry_d18():
    """D18: a hero HQ moves and captures 1–2 steps in 8 directions."""
    board = with_kings({"2,5": "+H", "4,7": "i"})
    assert {"4,5", "4,7", "0,5", "2,7", "3,4"} <= targets(board, "2,5")


def test_s10_3_commander_is_never_a_hero_d19():
    """D19: the commander never becomes a hero, even when it is the checking piece."""
    board = make({"5,5": "C", "7,6": "c", "0,3": "H", "11,3": "h", "11,4": "h"})
    play(board, "*5,5_7,5")
    assert board.squares[tr.parse_point("7,5")][0].hero is False


def test_s10_3_hero_status_is_kept_inside_stacks():
    """§10.3: hero status is permanent, kept when boarding and leaving."""
    board = with_kings({"4,4": "+I", "4,5": "T"})
    play(board, "#B4,4_4,5(T#B)")
    assert Piece(Kind.INFANTRY, RED, True) in board.squares[tr.parse_point("4,5")]


def test_s10_1_rules_apply_in_standard_board():
    assert Board().mode is Mode.BATTLE
