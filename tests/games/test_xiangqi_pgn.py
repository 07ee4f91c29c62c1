"""PGN for Xiangqi: headers, Format, FEN, clocks, comments, results, errors, fuzzing."""

from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.base import BancoError, Termination
from games.xiangqi import Board, Move
from games.xiangqi.pgn import (
    Game,
    GameMove,
    PgnError,
    format_clock,
    parse_clock,
    read_game,
    read_games,
    write_game,
)

WXF_GAME = """[Game "Chinese Chess"]
[Event "Club night"]
[Red "Lan"]
[Black "Minh"]
[Result "1-0"]
[Format "WXF"]

{Opening comment} 1. C2.5 {[%clk 0:14:32] central cannon} H8+7 {[%clk 0:14:50]}
2. H2+3 R9.8 {[%clk 0:13:58] rook out} 3. R1.2 $1 C8+4 1-0
"""

ENDGAME_FEN = "3k5/9/9/9/9/pp7/9/1n2B4/9/3AKA3 w - - 0 1"


def iccs(text):
    return Move.from_iccs(text)


def test_read_wxf_game_with_clocks_and_comments():
    game = read_game(WXF_GAME)
    assert [m.move.iccs() for m in game.moves] == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7h3"]
    assert game.headers["Red"] == "Lan" and game.result == "1-0"
    assert game.comment == "Opening comment"
    assert [m.clock for m in game.moves[:3]] == [872.0, 890.0, None]
    assert game.moves[0].comment == "central cannon"
    assert game.moves[3].comment == "rook out" and game.moves[3].clock == 838.0
    assert game.board().fen() == "rnbakabr1/9/1c4n2/p1p1p1p1p/9/9/P1P1P1PcP/1C2C1N2/9/RNBAKABR1 w - - 6 4"


@pytest.mark.parametrize("notation", ["iccs", "wxf", "vn-coord", "vn", "chinese"])
def test_round_trip_with_fen_clocks_and_comments(notation):
    board = Board(ENDGAME_FEN)
    game = Game(headers={"Game": "Chinese Chess", "Event": 'A "quoted" name', "FEN": ENDGAME_FEN})
    game.comment = "White to play"
    for index, text in enumerate(["e2c4", "b2d1", "c4e2", "d1b2"]):
        game.add_move(iccs(text), clock=600 - 7.5 * index, comment="" if index % 2 else f"note {index}")
        board.push(iccs(text))
    game.result = "*"
    text = write_game(game, notation)
    assert f'[FEN "{ENDGAME_FEN}"]' in text and "[%clk 0:10:00]" in text and "{note 2}" not in text
    again = read_game(text)
    assert again.headers["Event"] == 'A "quoted" name'
    assert again.root_fen == ENDGAME_FEN
    assert again.comment == "White to play"
    assert again.moves == game.moves
    assert again.board() == board
    assert write_game(again, notation) == text


def test_black_to_move_and_numbering():
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    game = Game(headers={"FEN": fen})
    game.add_move(iccs("h9g7"))
    game.add_move(iccs("h0g2"))
    text = write_game(game, "vn-coord")
    assert "1... Mg7 2. Mg2 *" in text and '[Format "vn-coord"]' in text
    assert read_game(text).moves == game.moves


def test_iccs_format_writes_dashes_and_reads_both():
    game = read_game('[Game "Chinese Chess"]\n[Format "ICCS"]\n\n1. h2e2 H9-G7 *\n')
    assert [m.move.iccs() for m in game.moves] == ["h2e2", "h9g7"]
    assert "1. H2-E2 H9-G7 *" in write_game(game)


def test_no_format_header_reads_any_notation():
    game = read_game("1. Phe2 M8.7 2. H2+3 車９平８ *")
    assert [m.move.iccs() for m in game.moves] == ["h2e2", "h9g7", "h0g2", "i9h9"]


def test_several_games_and_variations():
    text = WXF_GAME + "\n" + '[Game "Chinese Chess"]\n[Format "ICCS"]\n\n1. h2e2 (1. b2e2 b9c7) h9g7 0-1\n'
    found = read_games(text)
    assert len(found) == 2
    assert found[1].result == "0-1" and [m.move.iccs() for m in found[1].moves] == ["h2e2", "h9g7"]


def test_old_mac_line_ends_and_comments_inside_variations_read_as_written():
    # Lone CRs end lines (and ';' comments) as LF does; a ';' comment's brackets inside a
    # variation are words, not the variation's end.
    text = '[Format "ICCS"]\r\r1. h2e2 h9g7 ; 屏风马\r2. h0g2 (2. b0c2 ; 或(炮8平6\r b9c7) i9h9 *\r'
    game = read_game(text)
    assert [m.move.iccs() for m in game.moves] == ["h2e2", "h9g7", "h0g2", "i9h9"]
    with pytest.raises(PgnError, match="line 4: move 2"):
        read_game('[Format "ICCS"]\r\r1. h2e2 h9g7\r2. h2e2 *\r')


def test_records_as_chinese_programs_write_them():
    # Chinese results and game names, the placeholder of the side that does not move, and WXF's
    # front/rear mark before the letter.
    game = read_game('[Game "中国象棋"]\n[Result "红胜"]\n\n1. 炮二平五 马８进７ 2. 马二进三')
    assert game.result == "1-0" and len(game.moves) == 3
    black_first = '[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"]\n\n'
    game = read_game(black_first + "1. …… 马8进7 2. 马二进三 黑胜")
    assert game.result == "0-1" and [m.move.iccs() for m in game.moves] == ["h9g7", "h0g2"]
    assert read_game(black_first + "1. ... h9g7 和棋").result == "1/2-1/2"
    game = read_game('[Format "WXF"]\n[FEN "4k4/9/9/9/2C6/9/9/2C6/9/3K5 w - - 0 1"]\n\n1. +C.5 *')
    assert game.moves[0].move.iccs() == "c5e5"


def test_half_point_result_sign():
    assert read_game("1. h2e2 h9g7 ½-½").result == "1/2-1/2"


def test_result_from_header_when_movetext_has_none():
    assert read_game('[Result "1/2-1/2"]\n\n1. h2e2 h9g7').result == "1/2-1/2"


def test_game_from_board_and_sample_game_replays_to_checkmate():
    text = resources.files("games.xiangqi.data").joinpath("sample.pgn").read_text(encoding="utf-8")
    game = read_game(text)
    assert "composed" in game.headers["Event"].lower()
    outcome = game.board().outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE
    assert game.result == outcome.result()
    again = Game.from_board(game.board())
    assert [m.move for m in again.moves] == [m.move for m in game.moves] and again.result == game.result


@pytest.mark.parametrize("text, where", [
    ('[Game "Chinese Chess"]\n[Format "ICCS"]\n\n1. h2e2 h9h7 *', "line 4: move 1 (Black) 'h9h7'"),
    ('[Game "Chinese Chess"]\n[Format "Klingon"]\n\n1. h2e2 *', "line 2: [Format \"Klingon\"]"),
    ('[FEN "rnbakabnr/9/9 w"]\n\n1. h2e2', "line 1: [FEN"),
    ('[Event "x"\n1. h2e2', "line 1: malformed header"),
    ("1. h2e2 {unclosed", "line 1: comment"),
    ("1. h2e2 (h9g7", "line 1: variation"),
    ("1. h2e2 {[%clk 1:xx:00]}", "line 1: clock '1:xx:00'"),
    ('[Game "Chess"]\n\n1. e4', '[Game "Chess"]'),
    ("1. h2e2 ) h9g7", "unexpected ')'"),
    ('[Result "2-0"]\n\n1. h2e2', "result '2-0'"),
    ('[FEN "9/9/9/9/9/9/9/9/9/4K³ w"]\n\n1. h2e2', "line 1: [FEN"),
])
def test_bad_pgn_names_line_and_token(text, where):
    with pytest.raises(PgnError) as caught:
        read_game(text)
    assert isinstance(caught.value, ValueError)
    assert where in str(caught.value)


def test_empty_text_has_no_game():
    with pytest.raises(PgnError, match="no game"):
        read_game("   \n")


def test_clock_text():
    assert parse_clock("0:14:32") == 872.0 and parse_clock("14:32") == 872.0
    assert format_clock(872.0) == "0:14:32" and format_clock(3725.5) == "1:02:05.5"
    with pytest.raises(PgnError):
        parse_clock("1::2")


def test_game_move_defaults():
    assert GameMove(iccs("h2e2")) == GameMove(iccs("h2e2"), None, "")


PGN_SYMBOLS = '[]{}()";%$.01234 \nh2e9g7PCX+-=/GameFormatICCSWXFFEN"clk:1-0*\\'


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=60), st.text(alphabet=PGN_SYMBOLS, max_size=60)))
def test_fuzzed_pgn_raises_only_value_errors(text):
    try:
        read_games(text)
    except ValueError as error:
        assert isinstance(error, BancoError) and str(error)


def test_a_file_with_a_byte_order_mark_and_full_width_move_numbers_reads_as_without():
    """Windows editors save UTF-8 with a byte-order mark; Chinese records number moves in
    full-width digits ('１．')."""
    plain = read_game('[Game "Chinese Chess"]\n\n1. 炮二平五 马８进７ 2. 马二进三 *\n')
    marked = read_game('\ufeff[Game "Chinese Chess"]\n\n１．炮二平五 马８进７ ２．马二进三 *\n')
    assert [m.move for m in marked.moves] == [m.move for m in plain.moves]
    assert [str(m.move) for m in plain.moves] == ["h2e2", "h9g7", "h0g2"]


def test_an_off_board_move_is_refused_as_illegal_with_its_points_named():
    from games import Point
    from games.base import IllegalMoveError

    named = r"illegal move Move\(Point\(file=0, rank=0\), Point\(file=9, rank=9\)\)"
    with pytest.raises(IllegalMoveError, match=named):
        Board().push(Move(Point(0, 0), Point(9, 9)))


def test_long_comments_wrap_at_79_characters_and_read_back_the_same():
    data = resources.files("games.xiangqi") / "data"
    text = (data / "xu-tianhong-tao-hanming-1997.pgn").read_text(encoding="utf-8")
    game = read_game(text)
    comments = [game.comment] + [move.comment for move in game.moves]
    assert max(len(comment or "") for comment in comments) > 79  # the premise: a comment longer than a line
    written = write_game(game)
    assert max(len(line) for line in written.split("\n\n", 1)[1].splitlines()) <= 79
    again = read_game(written)
    assert [(m.move, m.comment, m.clock) for m in again.moves] == [(m.move, m.comment, m.clock) for m in game.moves]
    assert again.comment == game.comment
