"""§13 secretary notation: symbols, syntax, the seed's and rulebook's examples, fuzzing (D27–D29)."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import IllegalMoveError, NotationError
from games.commander import SECRETARY, Board, Fate, Kind
from games.commander import terrain as tr
from games.commander.notation import SECRETARY_SQUARES, op_of
from games.commander.pieces import BLUE, RED
from games.movetext import split_movetext

from .helpers import make, play, with_kings


def test_s13_1_symbols_in_ascii_d28():
    """§13.1, D28: _ move, @ capture, @_ in place (also @̲), @" shot down (also @”), >< one-for-one,
    > check, ^ decisive, # hero; annotations + ++ - -- = ? !! $ are accepted."""
    board = with_kings({"4,4": "A", "7,4": "i", "4,1": "n"})
    assert SECRETARY.parse(board, "P4,4@B7,4") == SECRETARY.parse(board, "P4.4@B7.4+")
    strike = SECRETARY.parse(board, "P4,4@_H4,1")
    assert SECRETARY.parse(board, "P4,4@\u0332H4,1") == strike
    for mark in ("++", "-", "--", "=", "?", "!!", ">", "^"):
        assert SECRETARY.parse(board, "P4,4@B7,4" + mark)
    flight = with_kings({"9,8": "f", "7,8": "G", "5,8": "A"}, turn="b")
    assert SECRETARY.parse(flight, "K9,8@”P5,8") == SECRETARY.parse(flight, 'K9,8@"P5,8')


def test_s13_1_writer_marks_check_decisive_and_heroes():
    """§13.1: the writer adds > for check, ^ for the decisive blow, and # for a hero piece."""
    board = make({"0,8": "C", "9,4": "T", "11,6": "c", "11,3": "h", "0,3": "H", "0,4": "H", "11,4": "h"})
    turn = SECRETARY.parse(board, "T9,4_9,6")
    assert SECRETARY.format(board, turn) == "T9,4_9,6>"
    board.push(turn)
    play(board, "*11,6_11,7")
    kill = SECRETARY.parse(board, "#T9,6_11,6" if False else "#T9,6_10,6")
    assert SECRETARY.format(board, kill).startswith("#T9,6_10,6")
    board = make({"0,8": "C", "1,8": "I", "2,8": "c", "0,3": "H", "11,3": "h"})
    assert SECRETARY.format(board, SECRETARY.parse(board, "B1,8@*2,8")) == "B1,8@*2,8^"


def test_s13_2_move_syntax_stacks_and_boarding():
    """§13.2: <piece><from><op>[<target>]<to>; stacks in parentheses carrier first; boarding is
    the move followed by the stack it makes: B4,2_4,3(TB)."""
    board = with_kings({"4,2": "I", "4,3": "T"})
    turn = SECRETARY.parse(board, "B4,2_4,3(TB)")
    assert SECRETARY.format(board, turn) == "B4,2_4,3(TB)"
    board.push(turn)
    play(board, "*11,6_10,6")
    assert SECRETARY.format(board, SECRETARY.parse(board, "(TB)4,3_5,3")) == "(TB)4,3_5,3"


def test_s13_3_seed_example_navy_stack_move():
    """§13.3 seed: `(HTK)5.2_9.2` replays in a constructed position."""
    board = with_kings({"5,2": "(NTF)"})
    turn = SECRETARY.parse(board, "(HTK)5.2_9.2")
    assert SECRETARY.format(board, turn) == "(HTK)5,2_9,2"
    board.push(turn)
    assert [p.kind for p in board.squares[tr.parse_point("9,2")]] == [Kind.NAVY, Kind.TANK, Kind.AIR_FORCE]


def test_s13_3_seed_example_split_with_check():
    """§13.3 seed: `(HTK)H9.2@H11.2/T9.2_9.4/ K9.2>*11.4` — the navy's missile takes the navy
    on 11,2 by replacement, the tank moves, the aircraft left on 9,2 checks the commander."""
    board = make({"9,2": "(NTF)", "11,2": "n", "11,4": "c", "0,8": "C", "0,3": "H", "11,8": "h"})
    text = "(HTK)H9.2@H11.2/T9.2_9.4/ K9.2>*11.4"
    turn = SECRETARY.parse(board, text)
    written = SECRETARY.format(board, turn)
    assert written.startswith("(HTK)H9,2@H11,2/T9,2_9,4/") and "K9,2>*11,4" in written
    assert SECRETARY.parse(board, written) == turn
    board.push(turn)
    assert board.is_check()
    assert board.squares[tr.parse_point("11,2")][0].kind is Kind.NAVY and board.scores[RED] == 80
    assert board.squares[tr.parse_point("9,2")][0].kind is Kind.AIR_FORCE
    assert split_movetext(text + " *11,4_11,5") == [text.replace(" ", ""), "*11,4_11,5"]


def test_s13_3_rulebook_example_aircraft_shot_down():
    """§13.3 rulebook: `K9,8@"P5,8` replays: the aircraft burns on the way."""
    board = with_kings({"9,8": "f", "7,8": "G", "5,8": "A"}, turn="b")
    turn = SECRETARY.parse(board, 'K9,8@"P5,8')
    assert turn.actions[0].fate is Fate.SHOT_DOWN and op_of(turn.actions[0]) == '@"'
    assert SECRETARY.format(board, turn) == 'K9,8@"P5,8'


def test_s13_3_rulebook_figure_7_tank_and_militia():
    """§13.3 rulebook Figure 7: `(TM) T6,6@Aa8,6/M6,6@In7,7`, in the seed's letters
    `(TD)T6,6@X8,6/D6,6@B7,7`: two captures in one turn."""
    board = with_kings({"6,6": "(TM)", "8,6": "g", "7,7": "i"})
    play(board, "(TD) T6,6@X8,6/D6,6@B7,7")
    assert board.scores[RED] == 20
    assert board.squares[tr.parse_point("8,6")][0].kind is Kind.TANK
    assert board.squares[tr.parse_point("7,7")][0].kind is Kind.MILITIA


def test_s13_3_rulebook_figure_7_engineer_example_as_artillery():
    """§13.3: `(EAa) E5,4_6,4/ Aa5,4@Ms3,6` fits artillery ('P'), not an AA gun: the engineer
    re-crosses and the artillery it carried captures two steps away diagonally."""
    board = with_kings({"5,4": "(EA)", "3,6": "s"})
    play(board, "(CP) C5,4_6,4/ P5,4@L3,6")
    assert board.squares[tr.parse_point("3,6")][0].kind is Kind.ARTILLERY
    board = with_kings({"5,4": "(EG)", "3,6": "s"})
    with pytest.raises(IllegalMoveError):
        play(board, "(CX) C5,4_6,4/ X5,4@L3,6")


def test_s13_4_machine_fen_marks_heroes_with_plus():
    """§13.4: the FEN writes heroes with '+' and stacks in parentheses."""
    board = with_kings({"4,4": "(T+I)"})
    assert "(T+I)" in board.fen()


def test_d27_coordinates_read_both_separators_written_with_comma():
    """D27: '3.5' and '3,5' both read; ',' is written; a1…k12 squares are another notation."""
    board = Board()
    turn = SECRETARY.parse(board, "T3.5_5.5")
    assert SECRETARY.format(board, turn) == "T3,5_5,5"
    assert SECRETARY_SQUARES.format(board, turn) == "Tf4_f6"
    assert SECRETARY.parse(board, "Tf4_f6") == turn


@pytest.mark.parametrize("text,words", [
    ("", "empty"), ("T3,5", "operator"), ("Q3,5_5,5", "piece letter"), ("T3,5_5,5&", "unexpected"),
    ("T3,5_B5,5", "no target"), ("(T)3,5_5,5", "2–3 pieces"),
    ("T3,5_5,5/T4,5_5,5", "every part"), ("T13,5_5,5", "point"),
])
def test_s13_2_bad_notation_names_the_problem(text, words):
    """§13.2: malformed text raises NotationError with a message naming the fault."""
    with pytest.raises(NotationError, match=words):
        SECRETARY.parse(Board(), text)


def test_s13_2_illegal_turn_is_an_illegal_move_error():
    board = Board()
    with pytest.raises(IllegalMoveError, match="not a legal turn"):
        SECRETARY.parse(board, "T3,5_6,5")
    with pytest.raises(IllegalMoveError, match="no piece"):
        SECRETARY.parse(board, "T5,5_6,5")
    with pytest.raises(IllegalMoveError, match="stack"):
        SECRETARY.parse(board, "(TB)3,5_4,5")


def test_s13_round_trip_over_random_positions():
    """§13: every legal turn of positions along seeded random games writes and reads back to itself."""
    rng = random.Random(13)
    for _game in range(2):
        board = Board(mode="war")
        for _ in range(25):
            turns = board.generate_turns()
            if not turns:
                break
            for turn in rng.sample(turns, min(8, len(turns))):
                assert SECRETARY.parse(board, SECRETARY.format(board, turn)) == turn
            board.push(rng.choice(turns))
    assert board.turn in (RED, BLUE)


ALPHABET = "*BTDCPXLKHS#()0123456789.,_@\"”><^!+-=?$/ abcdefghijkq&\u0332"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_fuzzed_notation_raises_only_value_errors(text):
    """Fuzz: any text either parses to a legal turn or raises a ValueError subclass with a message."""
    board = with_kings({"5,2": "(NTF)", "4,4": "T", "6,4": "i"})
    try:
        turn = SECRETARY.parse(board, text)
    except ValueError as error:
        assert str(error)
    else:
        assert turn in board.legal_moves


FEN_ALPHABET = "cCiItTmMeEaAgGsSfFnNhH+()/0123456789 rbw-,9x"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=FEN_ALPHABET, max_size=90))
def test_fuzzed_fen_raises_only_value_errors(text):
    """Fuzz: any FEN either reads (and round-trips) or raises a ValueError subclass with a message."""
    try:
        board = Board(text)
    except ValueError as error:
        assert str(error)
    else:
        assert Board(board.fen()).fen() == board.fen()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(list(Board(make({"0,8": "C", "11,6": "c"}).fen()).board_fen())), max_size=30))
def test_fuzzed_fen_mutations_raise_only_value_errors(chars):
    """Fuzz: shuffled pieces of a real FEN placement."""
    text = "".join(chars) + " r"
    try:
        Board(text)
    except ValueError as error:
        assert str(error)


def test_blue_moves_first_in_notation():
    board = Board(Board().fen().replace(" r ", " b "))
    assert SECRETARY.parse(board, "T8,5_6,5").actions[0].group[0].color is BLUE


MATE_FEN = "9ic/10i/11/11/10A/11/11/11/11/11/11/4C3I2 r - w 0 1"


def test_s13_1_n13_checkmate_is_written_while_the_game_goes_on():
    """§13.1, §9.2, N13: `^` (chiếu hết) marks a checkmate although nothing is captured yet: the
    artillery's fire reaches the commander, which its own infantry hem in; no reply saves it."""
    board = Board(MATE_FEN)
    turn = SECRETARY.parse(board, "P7,10_8,10")
    assert SECRETARY.format(board, turn) == "P7,10_8,10^"
    board.push(turn)
    assert board.result() is None and board.is_check() and board.is_checkmate()
    assert len(board.legal_moves) > 0  # D1: Blue may still move; none of its turns helps


def test_s13_1_n13_check_with_an_escape_is_only_check():
    """§13.1, N13: with a way out (the infantry on 11,9 gone, the commander steps to 11,9) the
    same turn is a plain check, `>`."""
    board = Board(MATE_FEN.replace("9ic", "10c"))
    turn = SECRETARY.parse(board, "P7,10_8,10")
    assert SECRETARY.format(board, turn) == "P7,10_8,10>"
    board.push(turn)
    assert board.is_check() and not board.is_checkmate()


def test_s13_1_n13_capturing_the_checker_or_ending_the_game_saves_the_commander():
    """N13: a reply that captures the checking piece is an escape; so is a reply that ends the
    game (here Blue's infantry on 9,10 can take the artillery, so no mate)."""
    board = Board("9ic/11/10i/11/10A/11/11/11/11/11/11/4C3I2 r - w 0 1")
    assert not board.is_check()
    turn = SECRETARY.parse(board, "P7,10_8,10")
    assert SECRETARY.format(board, turn) == "P7,10_8,10>"


def test_s13_1_n13_checkmate_round_trips_and_decisive_blows_keep_their_mark():
    """§13.1: a turn written with `^` reads back as the same turn; the raid's final blow is still
    `^` (the game ends), and a finished game is no checkmate."""
    board = Board(MATE_FEN)
    turn = SECRETARY.parse(board, "P7,10_8,10")
    assert SECRETARY.parse(board, SECRETARY.format(board, turn)) == turn
    board.push(turn)
    play(board, "B10,10_9,10")
    blow = next(t for t in board.legal_moves if t.actions[0].target == tr.parse_point("11,10"))
    text = SECRETARY.format(board, blow)
    assert text.endswith("^") and SECRETARY.parse(board, text) == blow
    board.push(blow)
    assert board.result() is not None and not board.is_checkmate()


def test_s13_1_n13_safe_mode_checkmate_ends_the_game_with_no_legal_move():
    """D1 safe mode, D32, N13: where self-exposure is forbidden the mated side has no legal turn;
    the game ends (no legal move) and the mating turn still carries `^`."""
    board = Board(MATE_FEN, safe=True)
    turn = SECRETARY.parse(board, "P7,10_8,10")
    assert SECRETARY.format(board, turn) == "P7,10_8,10^"
    board.push(turn)
    assert board.result().termination.value == "no legal move" and board.is_checkmate()


def test_a_turns_own_name_reads_back_captures_included():
    """`Turn.name()` writes a capture without its target's letter, as the grammar allows
    (`part := [group] point op [target] point`): the reader takes it back."""
    import random

    rng = random.Random(13)
    board, read = Board(), 0
    for _ in range(120):
        turns = list(board.legal_moves)
        if not turns or board.is_game_over():
            break
        for turn in turns:
            if any(op in turn.name() for op in ("@", "><")):
                assert SECRETARY.parse(board, turn.name()) == turn, turn.name()
                read += 1
        captures = [t for t in turns if "@" in t.name()]
        board.push(rng.choice(captures if captures and rng.random() < 0.5 else turns))
    assert read > 50
