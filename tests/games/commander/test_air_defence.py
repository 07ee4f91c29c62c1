"""§8 air defence: rings, shoot-downs, one-for-one (D3–D6, D36, D38, D39)."""

from games.commander import SECRETARY, Fate, rules
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED, Kind, Piece

from .helpers import play, with_kings


def ring_points(board, color):
    masks = rules.ring_masks(board.squares, color)
    return {tr.seed_name(s) for s in range(tr.SQUARES) if masks[s]}


def test_s8_1_providers_and_radii():
    """§8.1: AA gun r=1, missile r=2, navy r=1; carried providers project nothing (D39)."""
    assert ring_points(with_kings({"4,5": "G"}), RED) == {"4,5", "3,5", "5,5", "4,4", "4,6"}
    assert len(ring_points(with_kings({"4,5": "S"}), RED)) == 13
    assert len(ring_points(with_kings({"4,1": "N"}), RED)) == 5
    assert ring_points(with_kings({"4,5": "(EG)"}), RED) == set()   # D39
    assert len(ring_points(with_kings({"4,1": "(NF)"}), RED)) == 5  # a navy carrier still does


def test_s8_1_hero_ring_is_one_larger_d6():
    """D6: a hero provider's ring has radius r+1."""
    assert rules.ring_radius(Piece(Kind.ANTI_AIRCRAFT, RED, True)) == 2
    assert rules.ring_radius(Piece(Kind.MISSILE, RED, True)) == 3
    assert rules.ring_radius(Piece(Kind.NAVY, RED, True)) == 2


def test_s8_2_ring_geometry_closed_disc_d4():
    """§8.2, D4: closed Euclidean disc with the centre; r=1 has no diagonals, r=2 has (±1,±1),
    r=3 has (±2,±2); the edge clips."""
    centre = tr.parse_point("5,5")
    disc = lambda r: {(tr.va_of(p) - 5, tr.ha_of(p) - 5) for p in rules._DISCS[r][centre]}  # noqa: E731
    assert (1, 1) not in disc(1) and len(disc(1)) == 5
    assert (1, 1) in disc(2) and (2, 1) not in disc(2) and len(disc(2)) == 13
    assert {(2, 2), (1, 2), (0, 3)} <= disc(3) and (3, 1) not in disc(3)
    assert len(rules._DISCS[1][tr.parse_point("0,0")]) == 3


def test_s8_3_shot_down_en_route_rulebook_example():
    """§8.3.1: `K9,8@"P5,8` — the aircraft passes a ring that does not cover its target and burns;
    the target is untouched; the defender scores the aircraft."""
    board = with_kings({"9,8": "f", "7,8": "G", "5,8": "A"}, turn="b")
    turn = SECRETARY.parse(board, 'K9,8@"P5,8')
    assert turn.actions[0].fate is Fate.SHOT_DOWN
    board.push(turn)
    assert board.squares[tr.parse_point("5,8")] is not None and board.squares[tr.parse_point("9,8")] is None
    assert board.scores == {RED: 40, BLUE: 0}


def test_s8_3_passengers_burn_with_the_aircraft():
    """§8.3.1: the aircraft's passengers are removed and scored too."""
    board = with_kings({"9,8": "(fi)", "7,8": "G", "5,8": "A"}, turn="b")
    play(board, '(KB)9,8@"P5,8')
    assert board.scores[RED] == 50


def test_s8_3_quiet_flight_into_a_ring_is_shot_down_at_the_target_d3():
    """§8.3.2, D3: the move is legal and generated; the aircraft burns where it lands."""
    board = with_kings({"3,5": "F", "6,5": "g"})
    turn = SECRETARY.parse(board, 'K3,5@"5,5')
    assert turn in board.legal_moves
    board.push(turn)
    assert board.count(RED, Kind.AIR_FORCE) == 0 and board.scores[BLUE] == 40


def test_s8_3_capture_inside_a_ring_is_one_for_one():
    """§8.3.2: attacking an AA gun (inside its own ring) destroys both; each side scores."""
    board = with_kings({"3,5": "F", "6,5": "g"})
    turn = SECRETARY.parse(board, "K3,5><X6,5")
    board.push(turn)
    assert board.squares[tr.parse_point("6,5")] is None and board.squares[tr.parse_point("3,5")] is None
    assert board.scores == {RED: 10, BLUE: 40}


def test_s8_3_overlapping_rings_still_one_for_one_d5():
    """D5: a target covered by two rings is still a one-for-one, not a shoot-down."""
    board = with_kings({"3,5": "F", "6,5": "i", "6,6": "g", "6,4": "g"})
    turn = SECRETARY.parse(board, "K3,5><B6,5")
    assert turn.actions[0].fate is Fate.EXCHANGE


def test_s8_3_boarding_a_navy_inside_a_ring_is_safe_d36():
    """D36: landing on a friendly navy inside an enemy ring is safe; only the path counts."""
    board = with_kings({"3,4": "F", "3,2": "N", "4,2": "g"})
    turn = SECRETARY.parse(board, "K3,4_3,2(HK)")
    assert turn.actions[0].fate is Fate.NORMAL


def test_s8_4_hero_aircraft_is_stealth():
    """§8.4 scenario: a hero aircraft flies through rings and takes an AA gun without a one-for-one."""
    board = with_kings({"3,5": "+F", "5,5": "g", "7,5": "g", "8,5": "s"})
    turn = SECRETARY.parse(board, "#K3,5@X7,5")
    assert turn.actions[0].fate is Fate.NORMAL
    board.push(turn)
    assert board.squares[tr.parse_point("7,5")][0] == Piece(Kind.AIR_FORCE, RED, True)
    assert board.scores == {RED: 10, BLUE: 0}


def test_s8_4_rings_act_only_on_flights_d38():
    """D38: a standing aircraft inside a newly placed ring is not destroyed; the AA gun may
    still capture it on its own turn."""
    board = with_kings({"5,5": "F", "6,6": "g"}, turn="b")
    play(board, "X6,6_6,5")
    assert board.count(RED, Kind.AIR_FORCE) == 1
    play(board, "*0,8_0,9")
    play(board, "X6,5@K5,5")
    assert board.count(RED, Kind.AIR_FORCE) == 0 and board.scores[BLUE] == 40
