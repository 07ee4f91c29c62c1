"""Scenario games of issue 3, each played move by move in secretary notation (§12)."""

from games import Termination
from games.commander.pieces import BLUE, RED, Kind

from .helpers import make, play

BASE = {"0,8": "C", "11,6": "c", "0,3": "H", "0,4": "H", "11,3": "h", "11,4": "h"}


def test_scenario_sea_battle_won_by_sinking_both_navies():
    """§12.1 sea battle: Red sinks both Blue navies; +100; the game ends."""
    board = make({**BASE, "4,1": "N", "6,1": "n", "9,1": "n", "2,9": "F", "9,9": "f", "5,9": "I", "7,9": "i",
                  "3,9": "T", "8,9": "t", "3,8": "A", "9,8": "a"}, mode="-")
    play(board, "H4,1@H6,1")
    play(board, "B7,9_6,9")
    play(board, "H6,1@H9,1^")
    result = board.result()
    assert result.termination is Termination.BATTLE_WON and result.lost[BLUE] == ("sea",)
    assert result.points == {RED: 260, BLUE: 0} and result.winner is RED


def test_scenario_air_battle():
    """§12.1 air battle: Blue's last aircraft dies; Red wins with the bonus."""
    board = make({**BASE, "4,1": "N", "9,0": "n", "5,5": "F", "8,5": "f", "5,9": "I", "7,9": "i",
                  "3,9": "T", "8,9": "t", "3,8": "A", "9,8": "a"}, mode="-")
    play(board, "K5,5@K8,5")
    result = board.result()
    assert result.lost[BLUE] == ("air",) and result.bonus[RED] == 100 and result.winner is RED


def test_scenario_land_battle():
    """§12.1 land battle: Blue loses its last infantry, tank and artillery."""
    board = make({**BASE, "4,1": "N", "9,0": "n", "2,5": "F", "9,5": "f", "6,9": "T", "7,9": "i",
                  "3,9": "I", "3,8": "A"}, mode="-")
    play(board, "T6,9@B7,9")
    result = board.result()
    assert result.lost[BLUE] == ("land",) and result.winner is RED and result.points[RED] == 110


def test_scenario_raid():
    """§12.1 raid: the commander is destroyed: absolute win, Siêu Tư lệnh, +100."""
    armies = {"2,0": "N", "2,10": "F", "3,10": "I", "3,9": "T", "9,0": "n", "9,10": "f", "8,10": "i", "8,9": "t"}
    board = make({**BASE, **armies, "10,6": "T"}, mode="-")
    play(board, "T10,6@*11,6")
    result = board.result()
    assert result.absolute and result.winner is RED and result.termination is Termination.COMMANDER_CAPTURED
    assert result.points[RED] == 100


def test_scenario_total_war_decided_on_points_at_the_time_limit():
    """§12.2: in total war lost battles do not end the game; at 30 minutes points decide."""
    board = make({**BASE, "4,1": "N", "6,1": "n", "5,5": "F", "8,5": "f"}, mode="w")
    play(board, "H4,1@H6,1")          # Blue's last navy: no sea battle in total war
    assert board.result() is None
    play(board, "K8,5@K5,5")           # Blue takes back an aircraft
    assert board.result() is None
    board.declare_time_up()            # the clock says 30 minutes
    result = board.result()
    assert result.termination is Termination.POINTS and result.points == {RED: 80, BLUE: 40}
    assert result.winner is RED and board.count(BLUE, Kind.NAVY) == 0
