"""§4 turns, blocking and capture modes; §5 the eleven pieces (D13–D15, D22–D24, D40, D41)."""

from games.commander import Act, Board, Fate, Kind
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED

from .helpers import make, names, targets, with_kings  # noqa: F401


def test_s4_1_every_turn_is_one_piece_stack_or_split_from_one_point():
    """§4.1: a turn moves one piece or stack, boards, or splits one stack; all from one point."""
    board = Board()
    for turn in board.legal_moves:
        assert len({a.origin for a in turn.actions}) == 1
    board = with_kings({"4,4": "(TI)"})
    kinds = {len(t.actions) for t in board.turns_from(tr.parse_point("4,4"))}
    assert kinds == {1, 2}


def test_s4_2_first_mover_is_a_parameter_d33():
    """§4.2, D33: Red moves first by default; a FEN (or a match) may give Blue the first move."""
    assert Board().turn is RED
    board = Board(Board().fen().replace(" r ", " b "))
    assert board.turn is BLUE and all(t.actions[0].group[0].color is BLUE for t in board.legal_moves)


def test_s4_3_straight_lines_only():
    """§4.3: every action runs along one of the 8 rays; nothing moves like a knight."""
    board = Board()
    for turn in board.legal_moves:
        for action in turn.actions:
            dva = tr.va_of(action.target) - tr.va_of(action.origin)
            dha = tr.ha_of(action.target) - tr.ha_of(action.origin)
            assert dva == 0 or dha == 0 or abs(dva) == abs(dha)


def test_s4_4_direct_fire_and_ground_moves_are_blocked():
    """§4.4: a tank is blocked for moves and captures by a piece between; an HQ is an obstacle."""
    board = with_kings({"3,5": "T", "4,5": "H", "5,5": "i", "3,6": "i"})
    assert "5,5" not in targets(board, "3,5")
    assert "3,6" in targets(board, "3,5")  # adjacent capture


def test_s4_4_aircraft_flies_over_and_artillery_shoots_over():
    """§4.4: the aircraft flies over anything; artillery captures over pieces but moves only on
    an empty path (§5.5)."""
    board = with_kings({"3,5": "F", "4,5": "H", "5,5": "i", "2,3": "A", "3,3": "I", "5,3": "i", "4,3": None})
    assert {"5,5", "6,5", "7,5"} <= targets(board, "3,5")
    assert "5,3" in targets(board, "2,3")          # capture over the infantry on 3,3
    assert "4,3" not in targets(board, "2,3")      # quiet move blocked by it


def test_s4_4_navy_passes_friends_and_is_blocked_by_enemies_d14():
    """§4.4, D14: a navy moves through friendly pieces; an enemy piece stops it."""
    board = with_kings({"3,2": "N", "4,2": "I", "6,2": "i"})
    moves = targets(board, "3,2")
    assert "5,2" in moves and "7,2" not in moves


def test_s4_4_terrain_never_blocks_a_capture_ray():
    """§4.4: terrain decides where pieces stand, not what they hit: an artillery shot crosses the
    river gap and the sea lane."""
    board = with_kings({"4,4": "A", "7,4": "t", "4,3": None})
    assert "7,4" in targets(board, "4,4")


def _capture(board, origin, target):
    square, goal = tr.parse_point(origin), tr.parse_point(target)
    return {a.act for t in board.turns_from(square) for a in t.actions if a.target == goal and a.is_capture}


def test_s4_5_land_pieces_strike_at_sea_and_replace_on_the_coast():
    """§4.5: ground weapons capture a navy at sea in place, and replace on the coast."""
    board = with_kings({"4,2": "I", "4,1": "n", "5,2": "n"})
    assert _capture(board, "4,2", "4,1") == {Act.STRIKE}
    assert _capture(board, "4,2", "5,2") == {Act.CAPTURE}


def test_s4_5_navy_missile_replaces_on_water_path_else_in_place_d15():
    """§4.5, D15: the anti-ship missile replaces along water; with land between, it strikes in place."""
    board = with_kings({"5,3": "N", "5,0": "n", "8,6": None})
    assert _capture(board, "5,3", "5,0") == {Act.CAPTURE}
    board = with_kings({"4,1": "N", "6,3": "n"})  # diagonal 4,1→5,2→6,3 is water
    assert _capture(board, "4,1", "6,3") == {Act.CAPTURE}
    board = with_kings({"6,4": "N", "4,2": "n"})  # 6,4→5,3→4,2 crosses the land corner (4,2)-(5,3)
    assert _capture(board, "6,4", "4,2") == {Act.STRIKE}


def test_s4_5_navy_gun_replaces_on_the_coast_strikes_inland_d24():
    """§4.5, D24: the gun captures any non-navy; on the coast by water it replaces, inland in place."""
    board = with_kings({"4,1": "N", "4,2": "i", "4,4": "f"})
    assert _capture(board, "4,1", "4,2") == {Act.CAPTURE}
    assert _capture(board, "4,1", "4,4") == {Act.STRIKE}   # an aircraft on land too (D24)


def test_s4_5_aircraft_capture_modes():
    """§4.5: vs a land target replace or return (D7: no safety condition); vs a target at sea,
    return only; vs an aircraft, replace only."""
    board = with_kings({"3,5": "F", "5,5": "i", "3,1": "n", "5,7": "f"})
    assert _capture(board, "3,5", "5,5") == {Act.CAPTURE, Act.STRIKE}
    assert _capture(board, "3,5", "5,7") == {Act.CAPTURE}
    board = with_kings({"3,4": "F", "3,1": "n"})
    assert {a.act for t in board.turns_from(tr.parse_point("3,4")) for a in t.actions
            if a.target == tr.parse_point("3,1")} == {Act.STRIKE}


def test_s4_5_capturing_a_stack_removes_and_scores_every_piece():
    """§4.5, §11.1: a stack is targeted as its carrier; all its pieces go and score together."""
    board = with_kings({"5,5": "T", "6,5": "(tm)"})
    turn = next(t for t in board.legal_moves if t.name() == "T5,5@6,5")
    board.push(turn)
    assert board.scores[RED] == 30 and board.squares[tr.parse_point("6,5")] == ((Kind.TANK, RED, False),)


def test_s4_6_no_promotion_but_heroes_and_captured_pieces_never_return():
    """§4.6: no piece changes type; the piece count only falls along a game."""
    import random

    board = Board(mode="war")
    rng = random.Random(4)
    counts = [38]
    for _ in range(60):
        if board.result():
            break
        kinds_before = sorted(p.kind for c in (RED, BLUE) for _, p in board.pieces(c))
        board.push(rng.choice(list(board.legal_moves)))
        kinds_after = sorted(p.kind for c in (RED, BLUE) for _, p in board.pieces(c))
        assert all(kinds_before.count(k) >= kinds_after.count(k) for k in Kind)
        counts.append(len(kinds_after))
    assert counts == sorted(counts, reverse=True)


def test_s5_1_commander_moves_far_orthogonally_captures_adjacent_only():
    """§5.1: any distance orthogonally, never diagonally; captures one step only."""
    board = make({"3,5": "C", "11,6": "c", "3,8": "i", "4,6": "i", "5,5": None})
    moves = targets(board, "3,5")
    assert {"4,5", "5,5", "6,5", "11,5", "3,6", "3,7", "3,2", "0,5"} <= moves
    assert "3,8" not in moves and "4,6" not in moves
    board = make({"3,5": "C", "11,6": "c", "3,6": "i"})
    assert "3,6" in targets(board, "3,5")


def test_s5_1_commander_enters_sea_only_to_board_a_navy_and_strikes_a_navy_at_sea_d40():
    """§5.1, D40: the commander steps onto a sea point only aboard a friendly navy; an adjacent
    navy at sea is captured in place."""
    board = make({"4,2": "C", "4,1": "N", "3,1": None, "5,1": "n", "11,6": "c"})
    moves = targets(board, "4,2")
    assert "4,1" in moves
    board = make({"4,2": "C", "4,1": "n", "11,6": "c"})
    assert _capture(board, "4,2", "4,1") == {Act.STRIKE}


def test_s5_2_infantry_engineer_aa_step_one_orthogonally():
    """§5.2: one step forward, back or sideways; no diagonal; a navy at sea is hit in place."""
    for letter in "IEG":
        board = with_kings({"4,4": letter, "5,5": "i"})
        assert targets(board, "4,4") == {"5,4", "3,4", "4,5", "4,3"}
    board = with_kings({"6,2": "E", "6,1": "n"})
    assert _capture(board, "6,2", "6,1") == {Act.STRIKE}


def test_s5_2_engineer_cannot_be_carried():
    """§5.2: the engineer carries heavy pieces but rides nothing."""
    board = with_kings({"4,3": "E", "4,4": "T", "5,3": "F", "4,2": "(NT)"})
    assert targets(board, "4,3") == {"3,3"}


def test_s5_3_militia_steps_in_eight_directions():
    """§5.3: like infantry, plus one diagonal step."""
    board = with_kings({"4,4": "M"})
    assert len(targets(board, "4,4")) == 8


def test_s5_4_tank_moves_one_or_two_and_strikes_at_sea():
    """§5.4: 1–2 steps orthogonally, blocked by a piece between; at sea it captures in place."""
    board = with_kings({"4,4": "T"})
    assert targets(board, "4,4") == {"5,4", "6,4", "3,4", "2,4", "4,5", "4,6", "4,3", "4,2"}
    board = with_kings({"4,3": "T", "4,1": "n"})
    assert _capture(board, "4,3", "4,1") == {Act.STRIKE}


def test_s5_5_artillery_range_and_capture_modes():
    """§5.5: 1–3 steps in 8 directions; at sea in place (1–3), on the coast replace."""
    board = with_kings({"4,5": "A"})
    # 3 in each of 8 directions, except the two diagonals that would cross deep water (§6.3)
    assert len(targets(board, "4,5")) == 3 * 8 - 2 * 2
    board = with_kings({"4,4": "A", "4,1": "n", "7,1": "n", "1,1": None})
    assert _capture(board, "4,4", "4,1") == {Act.STRIKE}
    assert _capture(board, "4,4", "7,1") == {Act.STRIKE}
    board = with_kings({"4,4": "A", "4,2": "n"})
    assert _capture(board, "4,4", "4,2") == {Act.CAPTURE}


def test_s5_6_missile_reach_is_the_radius_two_disc_and_blocked_d13():
    """§5.6, D13: up to 2 orthogonally or 1 diagonally (12 points); blocked by a piece between."""
    board = with_kings({"3,5": "S"})
    assert len(targets(board, "3,5")) == 12
    board = with_kings({"3,5": "S", "4,5": "I", "5,5": "i"})
    assert "5,5" not in targets(board, "3,5")


def test_s5_6_missile_captures_navy_at_sea_in_place_d23():
    """D23: the missile may capture a navy at sea, in place."""
    board = with_kings({"4,3": "S", "4,1": "n"})
    assert _capture(board, "4,3", "4,1") == {Act.STRIKE}


def test_s5_7_aircraft_range_and_landing():
    """§5.7: 1–4 steps in 8 directions over anything; may not end at sea unless on a friendly navy."""
    board = with_kings({"4,4": "F", "4,1": "N"})
    moves = targets(board, "4,4")
    assert {"8,4", "1,4", "4,8", "8,8", "0,8"} - {"0,8"} <= moves and "0,0" not in moves
    assert "4,1" in moves and "4,0" not in moves and "3,1" not in moves


def test_s5_8_navy_moves_on_navy_points_with_missile_and_gun():
    """§5.8: 1–4 steps on navy points; missile 1–4 vs navies; gun 1–3 vs everything else; value 80."""
    board = with_kings({"4,1": "N", "8,1": "n", "4,5": "i", "4,4": "i"})
    assert "8,1" in targets(board, "4,1")       # missile at 4
    assert "4,4" in targets(board, "4,1")       # gun at 3
    assert "4,5" not in targets(board, "4,1")   # gun range 3
    assert Kind.NAVY.base_value == 80


def test_s5_9_headquarters_never_moves_but_can_be_destroyed():
    """§5.9: the HQ neither moves nor captures; it can be captured like any piece."""
    board = with_kings({"1,5": "H", "2,5": "i"})
    assert board.turns_from(tr.parse_point("1,5")) == []
    board = with_kings({"1,5": "h", "2,5": "I"})
    assert "1,5" in targets(board, "2,5")


def test_d22_any_piece_may_capture_an_aircraft():
    """D22: not only air defence: an infantry takes an adjacent aircraft."""
    board = with_kings({"4,4": "I", "5,4": "f"})
    assert _capture(board, "4,4", "5,4") == {Act.CAPTURE}


def test_d41_rays_are_eight_and_engineers_bridge():
    """D41: "straight in all directions" = the 8 rays; "bridges soldiers" = engineers (who carry heavies)."""
    board = with_kings({"4,4": "A"})
    directions = set()
    for t in board.turns_from(tr.parse_point("4,4")):
        a = t.actions[0]
        dva = tr.va_of(a.target) - tr.va_of(a.origin)
        dha = tr.ha_of(a.target) - tr.ha_of(a.origin)
        directions.add(((dva > 0) - (dva < 0), (dha > 0) - (dha < 0)))
    assert len(directions) == 8
    board = with_kings({"4,4": "E", "4,5": "A"})
    assert "4,5" in targets(board, "4,4")  # the engineer picks the artillery up


def test_fates_exist_for_every_action():
    assert {f.value for f in Fate} == {"normal", "shot down", "one-for-one"}
