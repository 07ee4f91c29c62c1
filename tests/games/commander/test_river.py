"""§6 river crossing: fords, deep water, heavy pieces, engineers, the referee's penalty (D12, D17, D26)."""

import pytest

from games import IllegalMoveError
from games.commander import SECRETARY
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED, Kind

from .helpers import play, targets, with_kings


def test_s6_1_every_piece_crosses_at_a_ford():
    """§6.1: at a ford even heavy pieces cross; multi-step moves through it are fine (3,5→6,5)."""
    board = with_kings({"3,5": "A", "5,7": "G", "4,7": None})
    assert "6,5" in targets(board, "3,5")
    assert "6,7" in targets(board, "5,7")


def test_s6_2_light_pieces_wade_deep_water_navy_never_crosses():
    """§6.2: tank, infantry, militia, commander, engineer cross deep water; the aircraft flies;
    the navy stays on navy points."""
    for letter in "TIME":
        board = with_kings({"5,9": letter})
        assert "6,9" in targets(board, "5,9"), letter
    board = with_kings({"5,9": "F"})
    assert "7,9" in targets(board, "5,9")
    board = with_kings({"5,4": "N"})
    assert "6,4" in targets(board, "5,4") and "6,5" not in targets(board, "5,4")


@pytest.mark.parametrize("letter", ["A", "G", "S"])
def test_s6_3_heavy_pieces_do_not_wade_deep_water(letter):
    """§6.3: artillery, AA gun and missile never cross deep water by a quiet move."""
    board = with_kings({"5,9": letter})
    assert "6,9" not in targets(board, "5,9")
    board = with_kings({"5,2": letter})
    assert "6,2" not in targets(board, "5,2")  # the river mouth is deep too (D17)


@pytest.mark.parametrize("letter,target", [("A", "7,9"), ("G", "6,9"), ("S", "6,9"), ("A", "6,10")])
def test_s6_3_heavy_pieces_cross_deep_water_by_capturing(letter, target):
    """§6.3(b): a capture with replacement may cross any river step, diagonal included."""
    board = with_kings({"5,9": letter, target: "i"})
    turn = next(t for t in board.turns_from(tr.parse_point("5,9")) if t.actions[0].target == tr.parse_point(target))
    board.push(turn)
    assert board.squares[tr.parse_point(target)][0].kind is not Kind.INFANTRY


def test_s6_4_engineer_carries_a_heavy_piece_only_across_d12():
    """§6.4, D12: a loaded engineer makes only the crossing step (5,h)↔(6,h); the heavy piece
    leaves it later by a split."""
    board = with_kings({"5,9": "(EA)"})
    whole = [t for t in board.turns_from(tr.parse_point("5,9")) if len(t.actions) == 1
             and len(t.actions[0].group) == 2]
    assert [tr.seed_name(t.actions[0].target) for t in whole] == ["6,9"]
    board = with_kings({"4,9": "(EA)"})
    assert not [t for t in board.turns_from(tr.parse_point("4,9")) if len(t.actions[0].group) == 2]


def test_s6_5_penalty_turn_in_referee_mode_d26():
    """§6.5, D26: strict mode never offers an illegal heavy crossing; the referee puts the piece
    back, the turn passes and `$` is recorded. Other illegal input is still rejected."""
    board = with_kings({"5,9": "A", "8,8": "i"}, referee=True)
    assert "6,9" not in targets(board, "5,9")
    fen = board.fen()
    turn = SECRETARY.parse(board, "P5,9_6,9$")
    assert turn.penalty
    board.push(turn)
    assert board.turn is BLUE and board.board_fen() == fen.split()[0]
    assert SECRETARY.format(board, board.pop()) == "P5,9_6,9$"
    with pytest.raises(IllegalMoveError):
        play(board, "P5,9_9,9$")
    strict = with_kings({"5,9": "A"})
    with pytest.raises(IllegalMoveError, match="referee"):
        play(strict, "P5,9_6,9$")
    assert board.turn is RED


def test_scenario_engineer_carries_a_missile_across_deep_water():
    """Scenario (§6.4, §7.4): the engineer picks up the missile, crosses deep water, and the
    missile leaves it on the far bank by a split."""
    board = with_kings({"4,9": "E", "5,9": "S", "11,9": "g"})
    play(board, "C4,9_5,9(CL)")
    assert [p.kind for p in board.squares[tr.parse_point("5,9")]] == [Kind.ENGINEER, Kind.MISSILE]
    play(board, "X11,9_10,9")  # Blue waits (secretary letters: X = AA gun, L = missile)
    play(board, "(CL)5,9_6,9")
    play(board, "X10,9_11,9")
    play(board, "(CL)L6,9_7,9")
    assert board.squares[tr.parse_point("7,9")] == ((Kind.MISSILE, RED, False),)
    assert board.squares[tr.parse_point("6,9")] == ((Kind.ENGINEER, RED, False),)
