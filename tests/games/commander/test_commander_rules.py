"""§9 commander safety, check, face-to-face, HQ (D1, D2)."""

import pytest

from games import IllegalMoveError
from games.commander import SECRETARY, Board
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED, Kind

from .helpers import make, play, targets, with_kings


def test_s9_1_leaving_the_commander_capturable_is_legal_d1():
    """§9.1, D1: a turn may leave the own commander attacked; capture ends the game. The
    monorepo's chess-style filter is an option (safe mode)."""
    pieces = {"0,5": "C", "11,6": "c", "2,5": "t", "1,5": "I", "0,3": "H", "11,3": "h", "11,4": "h",
              "0,2": "H"}
    board = make(pieces)
    assert "B1,5_1,4" in {t.name() for t in board.legal_moves}
    safe = make(pieces, safe=True)
    assert "B1,5_1,4" not in {t.name() for t in safe.legal_moves}
    play(board, "B1,5_1,4")
    play(board, "T2,5_1,5")  # the tank steps next to the commander...
    assert board.is_check()
    play(board, "*0,5@T1,5")
    assert board.result() is None


def test_s9_2_check_and_aircraft_checks_through_a_ring():
    """§9.2: check = a piece could capture the commander next turn; an aircraft checks a
    commander inside a ring (one-for-one), but not when it would burn on the way."""
    base = {"0,8": "C", "11,6": "c", "7,6": "F", "0,3": "H", "11,3": "h"}
    assert make({**base, "10,6": "g"}, turn="b").is_check()       # the ring covers the commander too
    assert not make({**base, "8,7": "g"}, turn="b").is_check()    # 8,6 burns, the target is outside
    assert not make({**base, "4,0": None}, turn="r").is_check()   # Red to move: Blue gives no check
    assert make({**base, "4,0": None}, turn="b").is_check()


def test_s9_3_face_to_face_capture_along_both_lines_d2():
    """§9.3, D2: commanders on one HA or VA line with nothing between face each other; the side
    to move captures at any distance."""
    board = make({"0,5": "C", "11,5": "c", "0,3": "H", "11,3": "h"})
    assert board.commanders_face()
    play(board, "*0,5@*11,5")
    assert board.result().absolute
    board = make({"5,2": "C", "5,9": "c", "0,3": "H", "11,3": "h"})
    assert board.commanders_face() and "5,9" in targets(board, "5,2")


def test_s9_3_concealed_commander_neither_faces_nor_is_faced():
    """§9.3: a commander inside a tank, aircraft, navy or HQ is concealed."""
    for stack in ("(TC)", "(FC)", "(HC)"):
        board = make({"0,5": stack, "11,5": "c", "0,3": "H", "11,3": "h"})
        assert not board.commanders_face()
        assert "0,5" not in targets(board.copy(), "11,5") or True
    board = make({"0,5": "(TC)", "11,5": "c", "0,3": "H", "11,3": "h"}, turn="b")
    assert "0,5" not in targets(board, "11,5")


def test_s9_3_commander_may_not_pass_a_facing_point_but_may_stop_on_one():
    """§9.3, D2: an uncarried commander's path may not cross a point that faces the enemy
    commander; ending on such a point is legal and then capturable."""
    board = make({"3,3": "C", "9,5": "c", "0,0": None, "1,4": "H", "11,3": "h"})
    moves = targets(board, "3,3")
    assert "3,5" in moves            # stops facing along HA 5
    assert "3,6" not in moves        # would pass 3,5
    play(board, "*3,3_3,5")
    assert "3,5" in targets(board, "9,5")


def test_s9_3_commander_in_a_tank_passes_the_enemy_commander():
    """§9.3 (seed): a commander sits in a tank to pass the enemy commander."""
    board = make({"3,3": "(TC)", "9,4": "c", "0,3": "H", "11,3": "h"})
    assert "3,5" in targets(board, "3,3")


def test_s9_4_only_the_commander_enters_an_hq_and_leaves_by_split():
    """§9.4: the commander enters an HQ (no other piece may) and leaves on a later turn."""
    board = with_kings({"0,7": "H", "1,8": "I"})
    assert "0,7" in targets(board, "0,8")
    assert "0,7" not in targets(board, "1,8")
    play(board, "*0,8_0,7(S*)")
    assert [p.kind for p in board.squares[tr.parse_point("0,7")]] == [Kind.HEADQUARTERS, Kind.COMMANDER]
    play(board, "*11,6_10,6")
    play(board, "(S*)*0,7_0,9")
    assert board.squares[tr.parse_point("0,7")][0].kind is Kind.HEADQUARTERS


def test_scenario_commander_hides_in_hq_and_artillery_destroys_it():
    """Scenario (§5.9): the commander hides in an HQ; artillery destroys the HQ over a
    blocking piece and the commander with it: an absolute win (§12.1)."""
    board = make({"0,6": "C", "0,7": "H", "1,7": "I", "11,6": "c", "3,7": "a", "11,3": "h", "0,2": "H"})
    play(board, "*0,6_0,7(S*)")
    play(board, "P3,7@S0,7")
    result = board.result()
    assert result is not None and result.absolute and result.winner is BLUE
    assert board.count(RED, Kind.COMMANDER) == 0


def test_d2_illegal_commander_move_is_rejected():
    board = make({"3,3": "C", "9,5": "c", "1,4": "H", "11,3": "h"})
    with pytest.raises(IllegalMoveError):
        play(board, "*3,3_3,6")


def test_s9_2_check_is_visible_to_the_side_to_move():
    board = Board()
    assert not board.is_check()
    assert SECRETARY.name == "secretary"
