"""§11 scoring and §12 endings, modes and matches (D8, D30, D32–D35, D37)."""

import pytest

from games import GameOverError, Termination
from games.commander import Board, Mode
from games.commander.board import GameResult
from games.commander.match import Match
from games.commander.pieces import BLUE, RED, Kind, Piece
from games.commander.terrain import parse_point

from .helpers import make, play, with_kings


def test_s11_1_values_hero_bonus_and_stack_sum_d35():
    """§11.1, D35: the seed's values; hero +10; a stack scores the sum; the HQ is worth 0."""
    assert Piece(Kind.HEADQUARTERS, RED).value == 0
    board = with_kings({"5,5": "T", "6,5": "(+tm)"})
    play(board, "T5,5@T6,5")
    assert board.scores[RED] == 30 + 10


def test_s11_2_commander_kill_is_plus_100_once_d8():
    """§11.2, D8: the commander has no piece value; destroying it earns +100 once (not 100 + 100)."""
    board = make({"0,8": "C", "1,8": "I", "2,8": "c", "0,3": "H", "11,3": "h"})
    play(board, "B1,8@*2,8")
    result = board.result()
    assert result.captured[RED] == 0 and result.bonus[RED] == 100 and result.points[RED] == 100


def test_s11_3_shoot_downs_and_one_for_one_score_for_both():
    """§11.3: the defender scores a shot-down aircraft; in a one-for-one each side scores."""
    board = with_kings({"3,5": "F", "6,5": "g"})
    play(board, "K3,5><X6,5")
    assert board.scores == {RED: 10, BLUE: 40}


@pytest.mark.parametrize("battle,removed", [
    ("sea", {"10,1": None, "8,2": None}),
    ("air", {"10,4": None, "10,8": None}),
    ("land", {"7,2": None, "7,10": None, "8,5": None, "8,7": None, "9,3": None, "9,9": None}),
])
def test_s12_1_battles_end_the_game_with_plus_100(battle, removed):
    """§12.1: losing both navies (sea), both aircraft (air) or infantry+tanks+artillery (land)
    ends a battle-mode game; the other side gets +100 and points decide."""
    board = Board()
    for point, stack in removed.items():
        board.set_stack_at(parse_point(point), stack)
    result = board.result()
    assert result.termination is Termination.BATTLE_WON and result.lost[BLUE] == (battle,)
    assert result.bonus == {RED: 100, BLUE: 0} and result.winner is RED
    assert not board.legal_moves


def test_s12_1_points_decide_even_after_a_battle():
    """§12.1: the side that won the battle can still lose on total points."""
    board = Board()
    board.scores[BLUE] = 500
    for point in ("10,1", "8,2"):  # Blue's navies are gone: Red wins the sea battle...
        board.set_stack_at(parse_point(point), None)
    result = board.result()
    assert result.lost[BLUE] == ("sea",) and result.bonus[RED] == 100
    assert result.winner is BLUE and result.termination is Termination.BATTLE_WON  # ...and loses on points


def test_s12_1_raid_is_an_absolute_win_and_always_active_d34():
    """§12.1, D34: losing the commander ends every mode with commanders; it wins whatever the
    points; a configuration may drop battles but never the raid."""
    board = Board(mode="battle", objectives=["sea"])
    assert board.objectives == frozenset({"sea", "raid"})
    board = make({"0,8": "C", "1,8": "I", "2,8": "c", "0,3": "H", "11,3": "h"}, mode="b")
    board.scores[BLUE] = 900
    play(board, "B1,8@*2,8")
    result = board.result()
    assert result.winner is RED and result.absolute and result.termination is Termination.COMMANDER_CAPTURED
    assert "Siêu Tư lệnh" in result.describe()


def test_s12_1_time_limit_and_ties():
    """§12.1: at the time limit points decide; equal points are a draw."""
    board = Board()
    board.declare_time_up()
    assert board.result().termination is Termination.POINTS and board.result().winner is None
    board = Board(Board().fen().replace(" r - ", " r 30,20 "))
    board.declare_time_up()
    assert board.outcome().winner is RED
    with pytest.raises(GameOverError):
        board.push(next(iter(Board().legal_moves)))


def test_s12_1_both_sides_complete_objectives_in_one_turn_d37():
    """D37: a one-for-one between the last aircraft of each side ends both air battles: both
    sides get +100 and points decide (here a draw)."""
    board = with_kings({"3,5": "F", "6,5": "f", "6,6": "g"}, mode="b")
    board.set_mode("battle", ["air"])
    play(board, "K3,5><K6,5")
    result = board.result()
    assert result.lost == {RED: ("air",), BLUE: ("air",)}
    assert result.bonus == {RED: 100, BLUE: 100} and result.points == {RED: 140, BLUE: 140}
    assert result.winner is None and result.outcome().result() == "1/2-1/2"


def test_s12_2_total_war_ends_only_with_the_commander():
    """§12.2: in total war battles do not end the game; the commander's loss does, +100."""
    board = Board(mode="war")
    board.set_stack_at(parse_point("10,1"), None)
    board.set_stack_at(parse_point("8,2"), None)
    assert board.result() is None
    board.declare_time_up()
    assert board.result().termination is Termination.POINTS


def test_s12_3_nine_piece_battle_d30():
    """§12.3, D30: ends when a side has lost both navies or both aircraft; +100; no raid."""
    board = make({"4,1": "N", "5,1": "n", "3,5": "F", "9,5": "f"}, mode="9")
    assert board.mode is Mode.NINE_PIECE and board.result() is None
    play(board, "H4,1@H5,1")
    result = board.result()
    assert result.lost[BLUE] == ("sea",) and result.points[RED] == 180 and result.winner is RED


def test_s12_4_ply_limit_and_no_legal_move_d32_d34():
    """§12.4, D32, D34: a ply limit stands in for the clock; no legal move ends and scores the game."""
    board = Board(ply_limit=2)
    board.push(next(iter(board.legal_moves)))
    board.push(next(iter(board.legal_moves)))
    assert board.result().termination is Termination.POINTS
    assert board.copy(stack=False).result().termination is Termination.POINTS  # the stand-in clock ran out
    half = Board(ply_limit=2)
    half.push(next(iter(half.legal_moves)))
    rest = half.copy(stack=False)
    assert rest.result() is None
    rest.push(next(iter(rest.legal_moves)))
    assert rest.result().termination is Termination.POINTS
    # Every Red turn here boards an HQ that a Blue artillery covers: with the monorepo's safe
    # filter (D1 option) none is left, and D32 ends and scores the game.
    pieces = {"0,2": "C", "1,2": "H", "0,3": "H", "11,6": "c", "3,2": "a", "3,3": "a"}
    assert make(pieces).result() is None
    stuck = make(pieces, safe=True)
    result = stuck.result()
    assert result is not None and result.termination is Termination.NO_LEGAL_MOVE
    assert not stuck.legal_moves and stuck.generate_turns() == []


def test_s12_5_match_of_three_to_five_games_loser_moves_first_d33():
    """§12.5, §4.2, D33: 3–5 games; the previous loser moves first; most wins, then points."""
    with pytest.raises(ValueError):
        Match(games=2)
    match = Match(games=3, first=BLUE)
    assert match.new_board().turn is BLUE
    won = lambda w: GameResult(Termination.POINTS, w, {RED: 10, BLUE: 5}, {RED: 0, BLUE: 0}, {RED: (), BLUE: ()})  # noqa: E731
    match.record(won(RED))
    assert match.first_mover is BLUE
    match.record(won(BLUE))
    assert match.first_mover is RED
    assert not match.is_over()
    match.record(won(RED))
    assert match.is_over() and match.winner() is RED
    with pytest.raises(GameOverError):
        match.record(won(RED))
