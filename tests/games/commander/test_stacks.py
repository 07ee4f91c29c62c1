"""§7 carrying, boarding and split turns (D9, D10, D11, D25, D29)."""

import pytest

from games import IllegalMoveError, NotationError
from games.commander import SECRETARY, Fate
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED, Kind, Piece, combine, is_legal_stack

from .helpers import play, targets, with_kings

K = {"N": Kind.NAVY, "F": Kind.AIR_FORCE, "T": Kind.TANK, "E": Kind.ENGINEER, "H": Kind.HEADQUARTERS,
     "C": Kind.COMMANDER, "I": Kind.INFANTRY, "M": Kind.MILITIA, "A": Kind.ARTILLERY, "G": Kind.ANTI_AIRCRAFT,
     "S": Kind.MISSILE}


def stack(letters):
    return [Piece(K[ch], RED) for ch in letters]


@pytest.mark.parametrize("letters,legal", [
    ("TC", True), ("TI", True), ("TM", True), ("TT", False), ("TA", False), ("TE", False),
    ("FC", True), ("FI", True), ("FT", True), ("FF", False), ("FTI", False),
    ("NF", True), ("NT", True), ("NI", True), ("NFF", True), ("NTT", True), ("NFT", True), ("NFI", True),
    ("NTI", True), ("NII", False), ("NIM", False), ("NE", False), ("NA", False), ("NFTI", False),
    ("EA", True), ("EG", True), ("ES", True), ("EI", False), ("EAG", False),
    ("HC", True), ("HI", False), ("IM", False), ("GA", False),
])
def test_s7_1_who_carries_whom_d10_d11(letters, legal):
    """§7.1, D10, D11: the carrying table; navy sets {Af},{T},{P},{Af,Af},{T,T},{Af,T},{Af,P},{T,P};
    the aircraft may carry a tank; at most 3 pieces; passengers carry nothing."""
    assert (combine(stack(letters)) is not None) == legal


def test_s7_1_stacks_are_flat_and_one_colour():
    """§7.1: a tank with infantry boarding a navy makes the flat stack {N: T, In}; colours never mix."""
    board = with_kings({"4,3": "(TI)", "4,2": "N"})
    play(board, "(TB)4,3_4,2(HTB)")
    assert [p.kind for p in board.squares[tr.parse_point("4,2")]] == [Kind.NAVY, Kind.TANK, Kind.INFANTRY]
    assert not is_legal_stack((Piece(Kind.TANK, RED), Piece(Kind.INFANTRY, BLUE)))


def test_s7_2_boarding_is_the_whole_turn_d9():
    """§7.2, D9: a passenger moving onto its carrier, or a carrier picking it up, is one turn;
    then the opponent moves (no extra turn is lost)."""
    board = with_kings({"4,4": "I", "4,5": "T"})
    assert "4,5" in targets(board, "4,4")   # infantry climbs onto the tank...
    assert "4,4" in targets(board, "4,5")   # ...or the tank picks it up
    play(board, "T4,5_4,4(TB)")
    assert board.turn is BLUE and board.fullmove_number == 1
    play(board, "*11,6_10,6")
    assert board.turn is RED


def test_s7_2_persons_and_tanks_reach_sea_only_to_board():
    """§7.2: a person or tank may step onto a sea point only to board a navy there."""
    board = with_kings({"4,2": "I", "4,1": "N", "5,2": "T", "5,1": None})
    assert "4,1" in targets(board, "4,2")
    assert "5,1" not in targets(board, "5,2") and "5,0" not in targets(board, "5,2")


def test_s7_3_whole_stack_moves_with_carrier_rules_seed_example():
    """§7.3 seed example `(HTK)5.2_9.2`: a navy carrying a tank and an aircraft sails 4 steps."""
    board = with_kings({"5,2": "(NTF)"})
    play(board, "(HTK)5.2_9.2")
    assert [p.kind for p in board.squares[tr.parse_point("9,2")]] == [Kind.NAVY, Kind.TANK, Kind.AIR_FORCE]
    assert board.squares[tr.parse_point("5,2")] is None


def test_s7_3_aircraft_aboard_a_navy_is_not_threatened_by_rings():
    """§7.3, §8.4: the navy sails its aircraft through enemy rings; nothing is shot down."""
    board = with_kings({"5,1": "(NF)", "7,2": "g", "8,0": None})
    turn = SECRETARY.parse(board, "(HK)5,1_9,1")
    assert turn.actions[0].fate is Fate.NORMAL
    board.push(turn)
    assert board.count(RED, Kind.AIR_FORCE) == 1


def test_s7_4_split_each_piece_acts_once_from_the_point():
    """§7.4: in a split every action starts from S and every piece acts at most once."""
    board = with_kings({"4,5": "(TI)"})
    for turn in board.turns_from(tr.parse_point("4,5")):
        acted = [p for a in turn.actions for p in a.group]
        assert all(a.origin == tr.parse_point("4,5") for a in turn.actions)
        assert sorted(acted) == sorted(set(acted)) or len(acted) <= 2


def test_s7_4_remainder_must_be_legal_on_the_point():
    """§7.4: an infantry may not be left alone at sea when its navy sails away."""
    board = with_kings({"4,1": "(NI)"})
    for turn in board.turns_from(tr.parse_point("4,1")):
        here = list(board.squares)
        from games.commander.rules import apply_action

        for action in turn.actions:
            apply_action(here, action)
        rest = here[tr.parse_point("4,1")]
        assert rest is None or rest[0].kind is Kind.NAVY
    with pytest.raises(IllegalMoveError):
        play(board, "(HB)H4,1_5,1")
    play(board, "(HB)B4,1_4,2/H4,1_5,1")


def test_s7_4_reboarding_another_carrier():
    """§7.4: a sub-move may end on another friendly carrier if the result is a legal stack."""
    board = with_kings({"4,4": "(TI)", "4,5": "T"})
    play(board, "(TB)B4,4_4,5(TB)")
    assert [p.kind for p in board.squares[tr.parse_point("4,5")]] == [Kind.TANK, Kind.INFANTRY]


def test_s7_4_bombing_aircraft_returns_to_the_split_point():
    """§7.4: an aircraft that bombs from a stack returns to S, still aboard."""
    board = with_kings({"4,1": "(NF)", "6,3": "i"})
    play(board, "(HK)K4,1@_B6,3")
    assert [p.kind for p in board.squares[tr.parse_point("4,1")]] == [Kind.NAVY, Kind.AIR_FORCE]
    assert board.squares[tr.parse_point("6,3")] is None and board.scores[RED] == 10


def test_s7_4_d25_sub_moves_see_the_board_left_by_earlier_ones():
    """D25: order matters. The navy's gun first destroys the AA gun whose ring guards the road,
    and then the aircraft flies the same road safely; the other order loses the aircraft."""
    board = with_kings({"5,0": "(NF)", "5,2": "g", "5,4": "t"})
    safe = SECRETARY.parse(board, "(HK)H5,0@X5,2/K5,0@T5,4")
    assert [a.fate for a in safe.actions] == [Fate.NORMAL, Fate.NORMAL]
    lost = SECRETARY.parse(board, '(HK)K5,0@"T5,4/H5,0@X5,2')
    assert lost.actions[0].fate is Fate.SHOT_DOWN
    assert safe != lost


def test_scenario_three_piece_split_capturing_twice():
    """Scenario: a navy carrying a tank and an aircraft splits: the navy captures, the aircraft
    captures, the tank moves, all in one turn (seed: "ăn vài ba quân")."""
    board = with_kings({"8,2": "(NTF)", "10,2": "n", "8,6": "i", "11,6": None, "11,10": "c"})
    turn = SECRETARY.parse(board, "(HTK)H8,2@H10,2/K8,2@B8,6/T8,2_8,4")
    board.push(turn)
    assert board.scores[RED] == 80 + 10
    assert board.squares[tr.parse_point("10,2")][0].kind is Kind.NAVY
    assert board.squares[tr.parse_point("8,6")][0].kind is Kind.AIR_FORCE
    assert board.squares[tr.parse_point("8,4")][0].kind is Kind.TANK
    assert board.squares[tr.parse_point("8,2")] is None


def test_d29_ampersand_is_not_notation():
    """D29: the rulebook's '&' (Figure 7) is undefined: one action per piece per turn."""
    board = with_kings({"8,2": "(NTF)", "10,0": "n", "10,4": "t"})
    with pytest.raises(NotationError):
        SECRETARY.parse(board, "(HTK)H8,2@H10,0&T10,4/T8,2_8,4")
