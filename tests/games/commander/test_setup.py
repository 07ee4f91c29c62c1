"""§3 pieces and setups, the machine FEN (§13.4), custom setups (D31), the 9-piece battle (D30)."""

import pytest

from games import InvalidFenError
from games.commander import NINE_PIECE_FEN, STARTING_FEN, Board, Kind
from games.commander import terrain as tr
from games.commander.pieces import BLUE, RED
from games.commander.setups import SetupError, reveal, validate_setup

from .helpers import make

STANDARD = {
    Kind.COMMANDER: ["0,6"], Kind.HEADQUARTERS: ["1,5", "1,7"], Kind.AIR_FORCE: ["1,4", "1,8"],
    Kind.NAVY: ["1,1", "3,2"], Kind.ARTILLERY: ["2,3", "2,9"], Kind.MISSILE: ["2,6"],
    Kind.ANTI_AIRCRAFT: ["3,4", "3,8"], Kind.TANK: ["3,5", "3,7"], Kind.INFANTRY: ["4,2", "4,10"],
    Kind.ENGINEER: ["4,3", "4,9"], Kind.MILITIA: ["4,6"],
}


def test_s3_1_nineteen_pieces_of_eleven_types_per_side():
    """§3.1: 19 pieces per side, 11 types, with the seed's counts; colours differ only."""
    board = Board()
    for color in (RED, BLUE):
        assert len(board.pieces(color)) == 19
        assert {p.kind for _, p in board.pieces(color)} == set(Kind)
    assert board.count(RED, Kind.MISSILE) == board.count(RED, Kind.MILITIA) == board.count(RED, Kind.COMMANDER) == 1


def test_s3_1_letters_and_values():
    """§3.1, D28, D35: FEN letters (monorepo), secretary letters and values."""
    assert "".join(k.fen for k in Kind) == "nftehcimags"
    assert {k.letter for k in Kind} == set("*BTDCPXLKHS")
    assert {k: k.base_value for k in Kind} == {
        Kind.COMMANDER: 0, Kind.INFANTRY: 10, Kind.TANK: 20, Kind.MILITIA: 10, Kind.ENGINEER: 10,
        Kind.ARTILLERY: 30, Kind.ANTI_AIRCRAFT: 10, Kind.MISSILE: 20, Kind.AIR_FORCE: 40, Kind.NAVY: 80,
        Kind.HEADQUARTERS: 0,
    }


def test_s3_2_standard_setup_matches_the_table_and_mirrors():
    """§3.2: every piece on its point; Blue = Red mirrored across the river (VA → 11−VA)."""
    board = Board()
    assert board.fen() == STARTING_FEN
    for kind, points in STANDARD.items():
        for point in points:
            square = tr.parse_point(point)
            mirror = tr.index(11 - tr.va_of(square), tr.ha_of(square))
            assert board.squares[square] == ((kind, RED, False),)
            assert board.squares[mirror] == ((kind, BLUE, False),)
    assert sum(1 for s in board.squares if s) == 38


def test_s3_2_start_fen_is_the_monorepo_fen():
    """§3.2 / §13.4: our start FEN is the monorepo's, field for field."""
    assert STARTING_FEN == (
        "6c4/1n2fh1hf2/3a2s2a1/2n1gt1tg2/2ie2m2ei/11/11/2IE2M2EI/2N1GT1TG2/3A2S2A1/1N2FH1HF2/6C4 r - - 0 1")


def test_s13_4_fen_round_trips_stacks_heroes_scores_and_mode():
    """§13.4: stacks in parentheses carrier first, '+' marks heroes; scores and mode ride along."""
    fen = "4c6/11/2(+NT+F)8/11/11/11/11/11/11/4(EA)6/11/5(HC)5 b 120,40 w 3 17"
    board = Board(fen)
    assert board.fen() == fen
    stack = board.squares[tr.parse_point("9,2")]
    assert [(p.kind, p.hero) for p in stack] == [(Kind.NAVY, True), (Kind.TANK, False), (Kind.AIR_FORCE, True)]
    assert board.scores[RED] == 120 and board.scores[BLUE] == 40 and board.turn is BLUE


@pytest.mark.parametrize("fen,words", [
    ("6c4/11 r", "ranks"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/6C5 r", "points"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/6X4 r", "piece letter"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/6C4 x", "side"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/6C4 r 1,2,3", "scores"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/6C4 r - q", "mode"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/5(TT)5 r", "legal stack"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/5(TI4 r", "not closed"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/I5C4 r", "sea"),
    ("6c4/11/11/11/11/11/11/11/11/11/11/2CC7 r", "at most"),
])
def test_s13_4_bad_fen_names_what_is_wrong(fen, words):
    """§13.4: a bad FEN raises InvalidFenError (a ValueError) whose message names the fault."""
    with pytest.raises(InvalidFenError, match=words):
        Board(fen)


def _moved(changes: dict[str, str | None]) -> str:
    """The start position with some points changed (point → FEN stack or None)."""
    from games.commander.board import _parse_pieces

    board = Board()
    for point, text in changes.items():
        board.set_stack_at(tr.parse_point(point), _parse_pieces(text.strip("()"), 0) if text else None)
    return board.fen()


def test_s3_3_secret_setup_is_validated_d31():
    """§3.3, D31: the template passes; wrong half, stacks (other than C in HQ), facing commanders fail."""
    validate_setup(STARTING_FEN)
    validate_setup(_moved({"0,6": None, "1,5": "(HC)"}))
    with pytest.raises(SetupError, match="own half"):
        validate_setup(_moved({"4,6": None, "6,6": "M"}))
    with pytest.raises(SetupError, match="stack"):
        validate_setup(_moved({"4,2": None, "3,2": "(NI)"}))
    with pytest.raises(SetupError, match="face"):
        validate_setup(_moved({"0,6": None, "0,0": None, "11,6": None, "4,10": None, "7,10": None,
                               "0,10": "C", "11,10": "c", "4,8": "I", "7,8": "i"}))
    with pytest.raises(SetupError, match="missing"):
        validate_setup(_moved({"4,6": None}))


def test_s3_3_reveal_merges_two_secret_halves():
    """§3.3: each side deploys alone; both are revealed together and checked."""
    board = Board()
    red = Board(STARTING_FEN)
    blue = Board(STARTING_FEN)
    for square, stack in enumerate(board.squares):
        if stack and stack[0].color is BLUE:
            red.squares[square] = None
        elif stack:
            blue.squares[square] = None
    assert reveal(red.fen(), blue.fen()).split()[0] == STARTING_FEN.split()[0]
    with pytest.raises(SetupError):
        reveal(blue.fen(), red.fen())


def test_s3_3_nine_piece_setup_d30():
    """§3.3, D30: 2 N, 2 Af, 2 Aa, 2 A, 1 Ms per side on their standard points; no C, no HQ."""
    board = Board(NINE_PIECE_FEN)
    for color in (RED, BLUE):
        kinds = sorted(p.kind for _, p in board.pieces(color))
        assert kinds == sorted([Kind.NAVY] * 2 + [Kind.AIR_FORCE] * 2 + [Kind.ANTI_AIRCRAFT] * 2
                               + [Kind.ARTILLERY] * 2 + [Kind.MISSILE])
    standard = Board()
    for square, stack in enumerate(board.squares):
        if stack:
            assert standard.squares[square] == stack
    assert board.mode.value == "nine"


def test_make_helper_validates_terrain():
    with pytest.raises(ValueError):
        make({"0,0": "T"})
