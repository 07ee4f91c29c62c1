"""One test per rule sentence of seed 002 (Cờ Toán Việt Nam), quoted in English.

The seed is Vietnamese; each docstring gives the sentence in English (and the decision of
games/cotoan/RULES.md where the seed leaves a choice open, as "D<n>").
"""

import pytest

from games.base import BLACK, WHITE, GameOverError, IllegalMoveError, Termination
from games.cotoan import GEOMETRY, NOTATION, Board, GameOptions, InvalidOptionError, Piece, parse_cell
from tests.games.cotoan.helpers import board, captures, destinations, written

# ----------------------------------------------------------------------------- the board


def test_board_has_99_cells_in_9_columns_a_to_i_and_11_rows():
    """"The board is rectangular, with 99 cells, divided into 9 columns marked a–i and 11 rows
    marked 1–11." """
    assert GEOMETRY.placement == "cells"
    assert (GEOMETRY.files, GEOMETRY.ranks) == (9, 11)
    assert len(list(GEOMETRY.points())) == 99
    assert GEOMETRY.file_names == tuple("abcdefghi")
    assert GEOMETRY.rank_names == tuple(str(r) for r in range(1, 12))
    assert parse_cell("i11") == GEOMETRY.parse_point("i11")
    for bad in ("j1", "a12", "a0", "e"):
        with pytest.raises(ValueError, match=bad):
            parse_cell(bad)


def test_the_diagonal_cells_on_row_2_and_row_10_of_column_5_hold_the_0s():
    """"The cells on row 2, column 5 and row 10, column 5 have a diagonal: the place of the 0." """
    assert [GEOMETRY.point_name(p) for p in GEOMETRY.marks] == ["e2", "e10"]
    start = Board()
    assert start.piece_at(parse_cell("e2")) == Piece(0, WHITE)
    assert start.piece_at(parse_cell("e10")) == Piece(0, BLACK)


# ----------------------------------------------------------------------------- the pieces


def test_each_player_has_10_pieces_of_two_colours():
    """"The pieces are round, of two different colours. Each player has 10 pieces." """
    start = Board()
    assert start.piece_count(WHITE) == 10 and start.piece_count(BLACK) == 10


def test_the_pieces_show_1_to_9_and_one_piece_is_0():
    """"Each piece shows dots (or digits) for the numbers 1–9 ... and one piece has the number 0." """
    pieces = Board().piece_map().values()
    for color in (WHITE, BLACK):
        assert sorted(p.value for p in pieces if p.color is color) == list(range(10))


# ----------------------------------------------------------------------------- the setup


def test_pieces_stand_in_cells_on_the_end_rows_1_and_11():
    """"The pieces are placed in the cells. Each player sets his pieces on the end rows of the
    board (row 1 and row 11)." """
    start = Board()
    for point, piece in start.piece_map().items():
        if piece.value:
            assert point.rank == (0 if piece.color is WHITE else 10)


def test_pieces_1_to_9_go_from_left_to_right():
    """"The pieces from 1 to 0 are set from left to right." (D2: each player from his own left:
    a1 = 1 … i1 = 9, i11 = 1 … a11 = 9)."""
    start = Board()
    row1 = [start.piece_at(parse_cell(f"{f}1")).value for f in "abcdefghi"]
    row11 = [start.piece_at(parse_cell(f"{f}11")).value for f in "ihgfedcba"]
    assert row1 == row11 == list(range(1, 10))


def test_the_0_is_placed_on_the_diagonal_cell_and_nowhere_else():
    """"The 0 is placed on the diagonal cell." A 0 anywhere else is no position of the game."""
    with pytest.raises(ValueError, match="marked cell e2"):
        board({"e3": 0, "a1": 1}, {"a11": 1}, zeros=False)
    with pytest.raises(ValueError, match="marked cell e10"):
        board({"a1": 1}, {"e10": 0, "d10": 0}, zeros=False)


def test_before_the_game_the_pieces_are_set_in_their_start_position():
    """"Before the game starts, put the board in the middle. Set the pieces on the board in
    their start position." — every new game, whatever its options, starts from it."""
    for options in (GameOptions(), GameOptions(operations="+", target=20, first=BLACK)):
        game = Board.new_game(options)
        assert game.board_fen() == Board().board_fen() and game.scores == (0, 0)
        assert game.move_stack == [] and game.fullmove_number == 1


# ----------------------------------------------------------------------------- moving


def test_the_0_never_moves_and_1_to_9_go_along_rows_columns_and_diagonals():
    """"Except the 0, which may not leave its place because it is 0 movement, the other pieces
    1–9 may all go along rows, columns and diagonals." """
    b = board({"e6": 3, "a1": 1}, {"a11": 1})
    reached = destinations(b, "e6")
    for cell in ("e7", "e9", "e3", "h6", "b6", "f7", "h9", "d5", "b3", "d7", "b9", "f5", "h3"):
        assert cell in reached
    assert "f8" not in reached  # a knight's jump is no direction of the game
    assert all(m.from_point != parse_cell("e2") for m in Board().legal_moves)
    with pytest.raises(IllegalMoveError, match="0 never"):
        Board().push(NOTATION.parse(Board(), "0:e2-e3"))


def test_the_most_steps_is_the_value_2_up_to_2_and_9_up_to_9():
    """"Each empty cell on the board is one step. The most steps is the piece's own value: the 2
    may go at most 2 empty cells, the 9 at most 9, as the player wishes." and again under
    "Moving a piece": "Apart from the 0, the pieces go at most as many steps as their points." """
    b = board({"e6": 2, "a1": 9}, {"i11": 1})
    two = destinations(b, "e6")
    assert {"e7", "e8", "e4", "c6", "g8"} <= two and not {"e9", "b6", "h9"} & two
    assert len(two) == 16
    nine = destinations(b, "a1")
    assert {"a10", "i9", "i1", "c3"} <= nine and "a11" not in nine
    with pytest.raises(IllegalMoveError, match="at most 2"):
        b.push(NOTATION.parse(b, "2:e6-e9"))


def test_the_1_moves_to_a_neighbouring_cell_only():
    """"The 1, being 1 movement, only goes to one cell next to the cell it stands on." """
    b = board({"e6": 1, "a1": 2}, {"i11": 1})
    assert destinations(b, "e6") == {"d5", "e5", "f5", "d6", "f6", "d7", "e7", "f7"}


def test_pieces_may_not_jump_over_other_pieces():
    """"The pieces may not jump over the heads of other pieces." (own or enemy, D5)"""
    b = board({"e4": 5, "e6": 1}, {"g4": 3, "i11": 1})
    reached = destinations(b, "e4")
    assert "e5" in reached and not {"e6", "e7", "e8"} & reached   # own 1 on e6
    assert "f4" in reached and not {"g4", "h4"} & reached          # enemy 3 on g4
    assert "e3" in reached and "e2" not in reached and "e1" not in reached  # own 0 on e2
    with pytest.raises(IllegalMoveError, match="e6 is in the way"):
        b.push(NOTATION.parse(b, "5:e4-e8"))


def test_a_plain_move_never_ends_on_an_occupied_cell():
    """D5: "Each empty cell is one step": a plain move ends on an empty cell; pieces are taken
    only by calculation."""
    b = board({"e4": 5}, {"e5": 3, "i11": 1})
    assert "e5" not in destinations(b, "e4")
    with pytest.raises(IllegalMoveError, match="only by a calculation"):
        b.push(NOTATION.parse(b, "5:e4-e5"))


def test_one_player_goes_first_then_the_players_take_turns():
    """"Choose one player to go first. The two players take turns." (D3: an option, White by
    default.)"""
    assert Board.new_game().turn is WHITE
    game = Board.new_game(GameOptions(first=BLACK))
    assert game.turn is BLACK and game.fen().split()[5] == "b"
    game.push(NOTATION.parse(game, "9:a11-a5"))
    assert game.turn is WHITE
    with pytest.raises(IllegalMoveError, match="not White's"):
        game.push(NOTATION.parse(game, "a5-a6"))
    game.push(NOTATION.parse(game, "9:i1-i5"))
    assert game.turn is BLACK and game.fullmove_number == 2


def test_one_piece_acts_per_turn_a_move_or_a_capture():
    """"On his turn the player may move and capture with one piece" (D6: a turn is one plain
    move or one capture, never both)."""
    b = board({"e3": 8, "e4": 5}, {"e7": 4, "a11": 1})
    b.push(NOTATION.parse(b, "8+5xe7"))
    assert b.turn is BLACK
    assert b.piece_at(parse_cell("e7")) == Piece(8, WHITE)
    assert b.piece_at(parse_cell("e3")) is None


# ----------------------------------------------------------------------------- capturing


@pytest.mark.parametrize("direction", ["N", "NE", "E", "SE", "S", "SW", "W", "NW"])
def test_step_1_two_pieces_side_by_side_in_any_of_the_8_directions(direction):
    """"Step 1: move the pieces so that two stand in two cells next to each other vertically,
    horizontally or diagonally (to make an operation, with no enemy piece blocking ahead)." """
    df, dr = {"N": (0, 1), "NE": (1, 1), "E": (1, 0), "SE": (1, -1), "S": (0, -1), "SW": (-1, -1),
              "W": (-1, 0), "NW": (-1, 1)}[direction]

    def cell(k):  # k cells from e6 in the direction
        return "abcdefghi"[4 + k * df] + str(6 + k * dr)

    # The 3 on e6 with the 1 next to it: 3 - 1 = 2 cells beyond the 1.
    side_by_side = board({cell(0): 3, cell(1): 1}, {cell(3): 2})
    assert f"3-1x{cell(3)}" in captures(side_by_side)
    # One cell apart, the two pieces make no operation.
    apart = board({cell(0): 3, cell(2): 1}, {cell(3): 2})
    assert captures(apart) == set()


def test_step_2_each_operation_gives_the_distance_from_the_front_piece_to_the_enemy():
    """"Step 2: then combine them with addition (+), subtraction (-), multiplication (x) or
    division (:) to get a result. The result of each operation is the move that can capture an
    enemy piece, that is, the distance from the outermost piece of the operation to the captured
    piece." """
    # 9 on c3 behind 2 on c4: 9+2=11→1, 9-2=7, 9*2=18→8 (off the board), 9:2=4 rest 1 → 4 or 1.
    near = board({"c3": 9, "c4": 2}, {"c5": 3})
    assert captures(near) == {"9+2xc5", "9:2xc5"}
    middle = board({"c3": 9, "c4": 2}, {"c8": 4})
    assert captures(middle) == {"9:2xc8"}
    far = board({"c3": 9, "c4": 2}, {"c11": 6})
    assert captures(far) == {"9-2xc11"}
    # 7 on c3 behind 3 on c4: 7*3=21→1, 7:3=2 rest 1.
    times = board({"c3": 7, "c4": 3}, {"c5": 5})
    assert captures(times) == {"7*3xc5", "7:3xc5"}
    # A result that points at an empty cell or at one's own piece captures nothing.
    own = board({"c3": 9, "c4": 2, "c5": 1, "c8": 4}, {"a11": 1})
    assert captures(own) == set()


def test_worked_example_8_behind_5_forward_by_8_minus_5_or_8_plus_5():
    """"A player has an 8 and a 5 side by side, the 8 below and the 5 above in a column; he may
    take 8-5=3 or 8+5=13 to capture the opponent's piece standing on the third cell (counted from
    the cell of the 5 in front) if he wants to attack forward." """
    b = board({"e3": 8, "e4": 5}, {"e7": 6, "a11": 1})
    assert {"8-5xe7", "8+5xe7"} <= captures(b)
    for record in ("8-5xe7", "8+5xe7"):
        move = NOTATION.parse(b, record)
        assert NOTATION.format(b, move) == record
    assert NOTATION.parse(b, "8-5xe7") != NOTATION.parse(b, "8+5xe7")  # the record keeps the operation


def test_worked_example_the_8_takes_the_captured_pieces_place():
    """"Then put the 8 in the place of the opponent's piece that was captured." """
    b = board({"e3": 8, "e4": 5}, {"e7": 6, "a11": 1})
    b.push(NOTATION.parse(b, "8-5xe7"))
    assert b.piece_at(parse_cell("e7")) == Piece(8, WHITE)
    assert b.piece_at(parse_cell("e4")) == Piece(5, WHITE)
    assert b.piece_at(parse_cell("e3")) is None
    assert b.score(WHITE) == 45 - 1 - 0 and b.scores[1] == 45 - 13


def test_worked_example_backward_with_5_plus_8_counted_from_the_8():
    """"If he wants to capture backwards, he takes 5+8=13 and captures the piece standing on the
    3rd cell counted from the 8." (D7: the 5, the attacker, lands.)"""
    b = board({"e6": 8, "e7": 5}, {"e3": 4, "a11": 1})
    assert "5+8xe3" in captures(b)
    b.push(NOTATION.parse(b, "5+8xe3"))
    assert b.piece_at(parse_cell("e3")) == Piece(5, WHITE)
    assert b.piece_at(parse_cell("e7")) is None


def test_a_sum_or_product_above_10_counts_by_its_units_digit():
    """"If the result of an addition or multiplication is greater than 10, only the units digit
    counts for the capture. Example: 5+8=13, so 3 is the point to capture." """
    b = board({"e3": 5, "e4": 8}, {"e7": 2, "a11": 1})
    assert captures(b) == {"5+8xe7"}            # 13 → 3
    p = board({"c3": 9, "c4": 7}, {"c7": 2})
    assert captures(p) == {"9*7xc7"}            # 63 → 3


def test_division_may_use_the_quotient_or_the_remainder():
    """"If the division has a remainder, the remainder may be used to capture. Example: the 8
    divided by the 5 makes 1 rest 3, so the cell where the opponent's piece may be captured is
    1 or 3 cells away from the 5." """
    for target in ("e5", "e7"):
        b = board({"e3": 8, "e4": 5}, {target: 6, "a11": 1}, operations=":")
        assert captures(b) == {f"8:5x{target}"}
    assert captures(board({"e3": 8, "e4": 5}, {"e6": 6, "a11": 1}, operations=":")) == set()
    equal = board({"e3": 8, "e4": 3}, {"e6": 6, "a11": 1}, operations=":")  # 8:3 = 2 rest 2
    assert captures(equal) == {"8:3xe6"}


def test_the_smaller_piece_may_only_add_to_the_larger():
    """"The smaller piece may not use subtraction, multiplication or division with remainder
    against the larger piece." """
    # The 3 on c3 behind the 4 on c4: 4-3, 3*4=12→2 and 3:4 = 0 rest 3 are not the 3's to use.
    b = board({"c3": 3, "c4": 4}, {"c5": 2, "c6": 4, "c7": 5})
    assert captures(b) == set()
    for record in ("3-4xc5", "3*4xc6", "3:4xc7"):
        with pytest.raises(IllegalMoveError, match="smaller piece may only add"):
            b.push(NOTATION.parse(b, record))
    # Adding is allowed: 3+4 = 7 cells beyond the 4.
    assert captures(board({"c3": 3, "c4": 4}, {"c11": 7})) == {"3+4xc11"}


def test_a_sum_or_product_ending_in_0_has_no_value():
    """"An addition or multiplication with 0 in the units place counts as having no value." """
    column = {"c5": 1, "c6": 2, "c7": 3, "c8": 4, "c9": 6, "c10": 7, "c11": 9}  # a victim at every distance
    for attacker, op, front in ((6, "+", 4), (9, "+", 1), (5, "*", 2), (5, "*", 4), (8, "*", 5)):
        b = board({"c3": attacker, "c4": front}, column, operations=op)
        assert captures(b) == set(), (attacker, op, front)
        with pytest.raises(IllegalMoveError, match="no value"):
            b.push(NOTATION.parse(b, f"{attacker}{op}{front}xc5"))


def test_an_enemy_piece_in_the_way_blocks_the_capture():
    """"If an opponent's piece stands in the way ahead, the opponent's piece cannot be captured.
    Example: 8+5=13 can capture any opponent's piece (1, 2, 3, 4 …) standing on the 3rd cell from
    one's own 5, but if opponent's pieces stand on the 1st or 2nd cell, the piece on the 3rd
    cell cannot be captured." """
    for victim in (1, 2, 3, 4):
        free = board({"e3": 8, "e4": 5}, {"e7": victim, "a11": 9})
        assert "8+5xe7" in captures(free)
    for blocker in ("e5", "e6"):
        blocked = board({"e3": 8, "e4": 5}, {"e7": 4, blocker: 2, "a11": 9})
        assert "8+5xe7" not in captures(blocked)
        with pytest.raises(IllegalMoveError, match=f"{blocker} stands in the way"):
            blocked.push(NOTATION.parse(blocked, "8+5xe7"))
    # D12: one's own piece in the way blocks too.
    own = board({"e3": 8, "e4": 5, "e6": 1}, {"e7": 4, "a11": 9})
    assert "8+5xe7" not in captures(own)


def test_the_operations_are_agreed_before_the_game_for_example_addition_only():
    """"The operations are agreed by the two players at the start. Example: addition only." """
    everything = board({"e3": 8, "e4": 5}, {"e7": 4, "a11": 1})
    assert captures(everything) == {"8+5xe7", "8-5xe7", "8:5xe7"}
    only_plus = board({"e3": 8, "e4": 5}, {"e7": 4, "a11": 1}, operations="+")
    assert captures(only_plus) == {"8+5xe7"}
    with pytest.raises(IllegalMoveError, match="not among the operations"):
        only_plus.push(NOTATION.parse(only_plus, "8-5xe7"))
    assert Board.new_game(GameOptions(operations="+")).options.operations == "+"
    with pytest.raises(InvalidOptionError):
        GameOptions(operations="")
    with pytest.raises(InvalidOptionError, match="'%'"):
        GameOptions(operations="+%")


def test_the_attack_goes_the_way_of_the_operation():
    """"The direction of attack is the direction of the operation. Example: 1+2, the 1 attacks
    towards the 2; 2+1, the 2 attacks towards the 1." """
    # 1 on c5, 2 on c6: 1+2 = 3 cells up from the 2 (c9); 2+1 = 3 cells down from the 1 (c2).
    b = board({"c5": 1, "c6": 2}, {"c9": 3, "c2": 4, "a11": 1})
    assert captures(b) == {"1+2xc9", "2+1xc2"}
    up = NOTATION.parse(b, "1+2xc9")
    assert up.from_point == parse_cell("c5")
    down = NOTATION.parse(b, "2+1xc2")
    assert down.from_point == parse_cell("c6")


# ----------------------------------------------------------------------------- end of the game


def test_capturing_the_opponents_0_at_any_time_wins_absolutely():
    """"During play, whenever a player captures the opponent's 0, he wins absolutely." and, from
    the introduction: "The 0 is the people, not a general or a king, and a player who lets the
    people be captured by the opponent loses absolutely." """
    b = board({"e6": 5, "e7": 8}, {"a11": 1, "b11": 2})
    assert b.is_check() is False       # White's own 0 is safe
    b.push(NOTATION.parse(b, "5+8xe10"))   # 13 → 3 cells beyond e7: Black's 0
    outcome = b.outcome()
    assert outcome.termination is Termination.ZERO_CAPTURED and outcome.winner is WHITE
    assert list(b.legal_moves) == []
    with pytest.raises(GameOverError):
        b.push(NOTATION.parse(Board(), "9:i1-i5"))


def test_the_game_may_end_on_points_when_neither_0_can_be_taken():
    """"When both sides cannot capture the 0 (both have fewer than 2 pieces, both have played a
    long time without taking each other's 0 …) the game may be ended and decided by points." """
    lone = board({"a5": 3}, {"i7": 9})            # one numbered piece each: ends by itself
    outcome = lone.outcome()
    assert lone.scores == (36, 42)
    assert outcome.termination is Termination.POINTS and outcome.winner is BLACK
    assert list(lone.legal_moves) == []
    two = board({"a5": 3, "b5": 4}, {"i7": 9})    # one side still has two: play goes on
    assert two.outcome() is None
    stalled = Board()
    assert stalled.outcome() is None
    stopped = stalled.outcome(stop=True)          # a long game the players stop
    assert stopped.termination is Termination.POINTS and stopped.winner is None


def test_each_piece_scores_its_face_value_and_the_higher_total_wins():
    """"Each piece has as many points as its value: the 1 is 1 point, the 2 is 2 points … The
    points are added up to give each player's final score. The player with more points wins the
    game." (D17: the captured pieces score.)"""
    b = board({"e3": 8, "e4": 5, "a1": 1}, {"e7": 6, "i11": 1, "h11": 2}, scores="0-0")
    b.push(NOTATION.parse(b, "8+5xe7"))
    assert b.scores == (6, 0)
    assert b.outcome(stop=True).winner is WHITE
    b.pop()
    assert b.scores == (0, 0)


def test_a_points_target_of_10_to_45_ends_the_game():
    """"Before the game the two sides may agree a points scale for each game of 10-15-20-…-45
    points, and play 1-3-5-7 … games." """
    b = board({"e3": 8, "e4": 5, "a1": 1}, {"e7": 6, "i11": 1, "h11": 2}, target="10", scores="5-0")
    assert b.outcome() is None
    b.push(NOTATION.parse(b, "8+5xe7"))
    outcome = b.outcome()
    assert b.scores == (11, 0)
    assert outcome.termination is Termination.POINTS and outcome.winner is WHITE
    for target in (10, 15, 20, 25, 30, 35, 40, 45):
        assert GameOptions(target=target).target == target
    for wrong in (5, 12, 50, 0):
        with pytest.raises(InvalidOptionError, match=str(wrong)):
            GameOptions(target=wrong)


def test_written_moves_cover_the_whole_start_position():
    """The start: no capture is possible, every move is a plain move of 1…9."""
    moves = written(Board())
    assert len(moves) == 87 and all(":" in m and "x" not in m for m in moves)


def test_is_check_warns_that_the_0_can_be_taken_but_forbids_nothing():
    """D22: no check in Cờ Toán; `is_check()` tells the side to move its 0 is exposed."""
    exposed = board({"a1": 1, "b1": 2}, {"e6": 8, "e5": 5, "i11": 1})   # Black's 8+5 reaches e2
    assert exposed.is_check()
    assert len(exposed.legal_moves) > 0    # every move stays legal, even one that ignores it
    assert not board({"a1": 1, "b1": 2}, {"e6": 8, "e5": 5, "i11": 1}, turn="b").is_check()
