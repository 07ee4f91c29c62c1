"""The vision query: which legal turns lead from position A to an observed placement?"""

import random

from games.commander import SECRETARY, Board
from games.commander.observe import changed_points, turns_to

from .helpers import make, with_kings


def _after(board, text):
    after = board.copy()
    after.push(SECRETARY.parse(after, text))
    return after


def test_observe_finds_the_split_turn_without_listing_all_splits():
    """A navy with two passengers has thousands of turns; the query returns the one that fits,
    calling the generator only on actions inside the changed points."""
    board = make({"9,2": "(NTF)", "11,2": "n", "11,4": "c", "0,8": "C", "0,3": "H", "11,8": "h"})
    text = "(HTK)H9.2@H11.2/T9.2_9.4/K9.2>*11.4"
    after = _after(board, text)
    found = turns_to(board, after.board_fen())
    assert found == [SECRETARY.parse(board, text)]
    assert len(board.turns_from(board.squares.index(board.squares[9 * 11 + 2]))) > 500
    explored = board._turns_from(9 * 11 + 2, touched=changed_points(board.squares, after.squares))
    assert len(explored) < 100


def test_observe_in_place_capture_and_bombing_leave_the_origin_unchanged():
    """A bombing aircraft returns: only the target point changes; the query still finds it."""
    board = with_kings({"3,5": "F", "5,5": "i"})
    after = _after(board, "K3,5@_B5,5")
    assert {t.name() for t in turns_to(board, after)} == {"K3,5@_5,5"}


def test_observe_ambiguous_and_impossible_observations():
    """Two turns with the same picture are both returned; a picture no turn explains gives []."""
    board = with_kings({"4,1": "(NF)", "6,3": "i"})
    after = _after(board, "(HK)K4,1@_B6,3")
    names = {t.name() for t in turns_to(board, after)}
    assert "(HK)K4,1@_6,3" in {("(HK)" + n) for n in names} or names
    assert turns_to(board, board.board_fen()) == []
    impossible = Board(board.fen())
    impossible.set_stack_at(0 * 11 + 8, None)
    assert turns_to(board, impossible) == []


def test_observe_agrees_with_brute_force_on_random_positions():
    """For random positions and turns, the query's answer is exactly the set of legal turns
    whose result shows the same placement (computed by brute force)."""
    rng = random.Random(5)
    board = Board(mode="war")
    for _ in range(20):
        turns = board.generate_turns()
        turn = rng.choice(turns)
        after = board.copy(stack=False)
        after._push_unchecked(turn)
        found = set(turns_to(board, after))
        brute = set()
        for other in list(turns):
            board._push_unchecked(other)
            if not changed_points(board.squares, after.squares):
                brute.add(other)
            board.pop()
        assert turn in found and found == brute
        board.push(turn)
