"""The position string and the move notation: round trips, clear errors, fuzzing."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import BLACK, BancoError, IllegalMoveError, InvalidFenError, NotationError, Outcome, Termination
from games.cotoan import NOTATION, STARTING_FEN, VARIANT, Board, GameOptions, Move, parse_cell
from tests.games.cotoan.helpers import board

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_start_position_string():
    assert Board().fen() == STARTING_FEN == VARIANT.starting_fen
    assert STARTING_FEN.split()[1:] == ["w", "+-*:", "-", "0-0", "w", "1"]


def test_options_scores_and_move_number_round_trip():
    game = Board.new_game(GameOptions(operations="+:", target=25, first=BLACK))
    fen = game.fen()
    assert fen.split()[1:] == ["b", "+:", "25", "0-0", "b", "1"]
    assert Board(fen).fen() == fen
    game.push(NOTATION.parse(game, "9:a11-a5"))
    game.push(NOTATION.parse(game, "9:i1-i5"))
    assert game.fen().split()[-1] == "2"
    assert Board(game.fen()).fen() == game.fen()


def test_short_position_strings_take_defaults():
    cells = STARTING_FEN.split()[0]
    assert Board(cells).fen() == STARTING_FEN
    assert Board(f"{cells} b").fen().split()[1:] == ["b", "+-*:", "-", "0-0", "b", "1"]
    assert Board(f"{cells} w ×÷").options.operations == "*:"


@pytest.mark.parametrize("fen, words", [
    ("", ["empty"]),
    ("   ", ["empty"]),
    ("x/y", ["2 rows", "not 11"]),
    (STARTING_FEN.replace("123456789", "12345678"), ["row 1", "8 cells"]),
    (STARTING_FEN.replace("123456789", "123456799"), ["two White 9s", "h1", "i1"]),
    (STARTING_FEN.replace("123456789", "123456789."), ["row 1", "more than 9"]),
    (STARTING_FEN.replace("123456789", "12345678a"), ["'a'", "row 1"]),
    (STARTING_FEN.replace("123456789", "12345678-"), ["'-'", "row 1"]),
    (STARTING_FEN.replace("....0....", "...0....."), ["White 0 on d2", "e2"]),
    (STARTING_FEN.replace("....0....", ".........").replace("....-0....", "........."), ["neither 0"]),
    (STARTING_FEN.replace(" w +", " x +"), ["side to move", "'x'"]),
    (STARTING_FEN.replace("+-*:", "+%"), ["'%'"]),
    (STARTING_FEN.replace(" - 0-0", " 12 0-0"), ["12", "target"]),
    (STARTING_FEN.replace(" - 0-0", " ten 0-0"), ["'ten'"]),
    (STARTING_FEN.replace("0-0", "3-0"), ["White's score 3", "0 points missing"]),
    (STARTING_FEN.replace("0-0", "00"), ["scores", "'00'"]),
    (STARTING_FEN.replace("0-0", "0-99"), ["Black's score", "'99'"]),
    (STARTING_FEN.replace(" w 1", " q 1"), ["first player", "'q'"]),
    (STARTING_FEN.replace(" w 1", " w 0"), ["move number", "'0'"]),
    (STARTING_FEN + " extra", ["8 fields"]),
])
def test_bad_position_strings_say_what_is_wrong(fen, words):
    with pytest.raises(InvalidFenError) as caught:
        Board(fen)
    for word in words:
        assert word in str(caught.value)


def test_both_scores_cannot_reach_the_target():
    with pytest.raises(InvalidFenError, match="both scores"):
        board({"a5": 3}, {"i7": 3}, target="10", scores="12-11")


def test_a_missing_0_is_the_end_of_a_won_game():
    over = board({"a5": 3, "b5": 4}, {"e2": 7, "e10": 0, "i11": 1}, zeros=False)
    assert over.outcome() == Outcome(Termination.ZERO_CAPTURED, BLACK)
    assert list(over.legal_moves) == [] and Board(over.fen()).fen() == over.fen()


def test_set_fen_failure_leaves_the_board_unchanged():
    game = Board()
    game.push(NOTATION.parse(game, "9:i1-i5"))
    fen = game.fen()
    with pytest.raises(InvalidFenError):
        game.set_fen("nonsense")
    assert game.fen() == fen and len(game.move_stack) == 1


# ----------------------------------------------------------------------------- notation


def test_notation_round_trips_every_legal_move():
    crowded = board({"e3": 8, "e4": 5, "d4": 3, "c3": 9, "f5": 1}, {"e7": 6, "c7": 2, "h7": 4, "a11": 7})
    moves = list(crowded.legal_moves)
    assert any(move.is_capture for move in moves)
    for move in moves:
        text = NOTATION.format(crowded, move)
        assert NOTATION.parse(crowded, text) == move
        assert VARIANT.parse_move(crowded, text) == move
        assert Move.from_str(str(move)) == move


def test_notation_accepts_other_spellings():
    b = board({"e3": 8, "e4": 5}, {"e7": 6, "a11": 1})
    assert NOTATION.parse(b, " 8−5xE7 ") == NOTATION.parse(b, "8-5xe7")
    assert NOTATION.parse(b, "8÷5xe7") == NOTATION.parse(b, "8/5xe7") == NOTATION.parse(b, "8:5xe7")
    three = board({"e3": 7, "e4": 3}, {"e5": 6, "a11": 1})
    assert NOTATION.parse(three, "7x3xe5") == NOTATION.parse(three, "7×3xe5") == NOTATION.parse(three, "7*3xe5")
    assert NOTATION.parse(Board(), "i1-i5") == NOTATION.parse(Board(), "9:i1i5")


@pytest.mark.parametrize("text, error, words", [
    ("hello", NotationError, ["'hello'", "5:c1-c4", "8+5xe7"]),
    ("9:i1-i12", NotationError, ["'9:i1-i12'"]),
    ("8%5xe7", NotationError, ["'%'"]),
    ("5:i1-i5", IllegalMoveError, ["i1 holds White 9", "not White's 5"]),
    ("9:i1-i11", IllegalMoveError, ["at most 9"]),
    ("9:i1-h3", IllegalMoveError, ["not on a line"]),
    ("e5-e6", IllegalMoveError, ["e5 is empty"]),
    ("8+5xh5", IllegalMoveError, ["next to White's 8 towards h5 is an empty cell (h2)", "not White's 5"]),
    ("8+5xe7", IllegalMoveError, ["not on a line", "h1"]),
    ("9+8xa11", IllegalMoveError, ["'9+8xa11'"]),
])
def test_bad_moves_say_what_is_wrong(text, error, words):
    with pytest.raises(error) as caught:
        NOTATION.parse(Board(), text)
    for word in words:
        assert word in str(caught.value)


def test_push_of_a_bad_move_object_is_a_value_error():
    for bad in (Move(parse_cell("e2"), parse_cell("e3")), "e2e3", None):
        with pytest.raises(ValueError):
            Board().push(bad)


# ----------------------------------------------------------------------------- fuzzing

_fen_alphabet = st.sampled_from(list("0123456789.-/ wb+*:x-" + "ae\u00d7\u2212\n\t"))


def _mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    for kind, where, char in edits:
        where %= max(1, len(text))
        if kind == 0:
            text = text[:where] + char + text[where + 1:]
        elif kind == 1:
            text = text[:where] + char + text[where:]
        else:
            text = text[:where] + text[where + 1:]
    return text


def _only_value_errors(call, text):
    try:
        call(text)
    except ValueError as error:
        assert isinstance(error, BancoError), f"{type(error).__name__} for {text!r}"
        assert str(error).strip(), f"empty message for {text!r}"


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 400), _fen_alphabet), min_size=1, max_size=6))
def test_fuzzed_position_strings_raise_only_value_errors(edits):
    _only_value_errors(Board, _mutate(STARTING_FEN, edits))


@FUZZ
@given(st.text(max_size=120))
def test_random_text_as_position_raises_only_value_errors(text):
    _only_value_errors(Board, text)


_FUZZ_BOARD = board({"e3": 8, "e4": 5, "d4": 3}, {"e7": 6, "c7": 2, "a11": 7})
_move_alphabet = st.sampled_from(list("0123456789abcdefghijx:+-*/÷×−. XI"))


@FUZZ
@given(st.text(alphabet=_move_alphabet, max_size=12))
def test_fuzzed_moves_raise_only_value_errors(text):
    _only_value_errors(lambda t: NOTATION.parse(_FUZZ_BOARD, t), text)
    _only_value_errors(lambda t: VARIANT.parse_move(_FUZZ_BOARD, t), text)
    _only_value_errors(Move.from_str, text)


@FUZZ
@given(st.text(max_size=30))
def test_random_text_as_move_raises_only_value_errors(text):
    _only_value_errors(lambda t: NOTATION.parse(Board(), t), text)
