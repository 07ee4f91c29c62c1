"""`banco convert`, `banco moves --notation` and `banco replay` for Cờ Tướng (in-process)."""

import itertools

import pytest
from typer.testing import CliRunner

from banco.cli import app
from games.xiangqi import Board, Move
from games.xiangqi.notation import NOTATIONS

runner = CliRunner()
SEED_POSITION = "Trắng: Te0 Sd0 Sf0 Ve2 Xf8 / Đen: Te9 Sd9 Mb2 Ba4 Bb4"
SEED_FEN = "3ak4/5R3/9/9/9/pp7/9/1n2B4/9/3AKA3 w - - 0 1"
OPENING = {
    "vn-coord": "1. Phe2 Mg7 2. Mg2 Xh9",
    "vn": "1. P2-5 M8.7 2. M2.3 X9-8",
    "wxf": "1. C2=5 H8+7 2. H2+3 R9=8",
    "iccs": "1. h2e2 h9g7 2. h0g2 i9h9",
    "chinese": "1. 炮二平五 馬８進７ 2. 馬二進三 車９平８",
}


def banco(*args):
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output.strip()


@pytest.mark.parametrize("source, target", list(itertools.product(NOTATIONS, NOTATIONS)))
def test_convert_every_pair(source, target):
    code, output = banco("convert", "--game", "xiangqi", "--from", source, "--to", target, OPENING[source])
    assert code == 0, output
    assert output.splitlines()[-1] == OPENING[target]


def test_convert_seed_004_both_ways_with_fen_and_position_list():
    # The labels are optional (NOTATION.md): without them the first list is White's.
    unlabelled = SEED_POSITION.replace("Trắng: ", "").replace("Đen: ", "")
    for where in (SEED_FEN, SEED_POSITION, unlabelled):
        code, output = banco("convert", "--from", "vn", "--to", "vn-coord", "--fen", where, "1.X4-7 B2.1")
        assert code == 0 and output.splitlines()[-1] == "1.Xc8 Bb3", output
        code, output = banco("convert", "--from", "vn-coord", "--to", "vn", "--fen", where, "1.Xc8 Bb3")
        assert code == 0 and output.splitlines()[-1] == "1.X4-7 B2.1", output


def test_convert_without_from_detects_each_move():
    code, output = banco("convert", "--to", "iccs", "1. Phe2 M8.7 2. H2+3 車９平８")
    assert code == 0 and output.splitlines()[-1] == "1. h2e2 h9g7 2. h0g2 i9h9"


def test_convert_reads_moves_marked_good_or_bad_and_writes_compact_wxf_it_reads_back():
    code, output = banco("convert", "--to", "iccs", "1. C2.5! h9g7?! 2. 马二进三? *")
    assert code == 0 and output.splitlines()[-1] == "1. h2e2 h9g7 2. h0g2 *", output
    # Compact numbering, and a WXF tandem-soldier move that starts with a digit: the space stays.
    fen = "r4k1n1/9/2P4n1/p1P3P1p/2PR2P2/1C7/9/1C1R5/9/4K4 w - - 0 1"
    code, output = banco("convert", "--from", "vn", "--to", "wxf", "--fen", fen, "1.B7g-6")
    assert code == 0 and output.splitlines()[-1] == "1. 77=6", output
    code, output = banco("convert", "--from", "wxf", "--to", "iccs", "--fen", fen, output.splitlines()[-1])
    assert code == 0 and output.splitlines()[-1] == "1. c6d6", output


def test_convert_black_to_move_starts_with_ellipsis():
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    code, output = banco("convert", "--from", "iccs", "--to", "vn", "--fen", fen, "h9g7 h0g2 i9h9")
    assert code == 0 and output.splitlines()[-1] == "1... M8.7 2. M2.3 X9-8"


def test_convert_bad_move_names_token_and_move():
    code, output = banco("convert", "--from", "vn", "--to", "wxf", "1. P2-5 M8.5")
    assert code != 0
    assert "M8.5" in output and "move 1 (Black)" in output and "Traceback" not in output


@pytest.mark.parametrize("notation", list(NOTATIONS))
def test_moves_in_every_notation(notation):
    code, output = banco("moves", "--game", "xiangqi", "--moves", "h2e2 h9g7", "--notation", notation)
    assert code == 0
    lines = output.splitlines()
    board = Board()
    board.push(Move.from_iccs("h2e2"))
    board.push(Move.from_iccs("h9g7"))
    assert len(lines) == len(set(lines)) == len(list(board.legal_moves))
    expected = {"vn-coord": "Pe6", "vn": "P5.4", "wxf": "C5+4", "iccs": "e2e6", "chinese": "炮五進四"}
    assert expected[notation] in lines


def test_replay_replays_the_sample_game():
    code, output = banco("replay", "--delay", "0")
    assert code == 0, output
    assert "1. Trắng: Phe2  (P2-5)" in output
    assert output.splitlines()[-1] == "Result: 1-0 (checkmate)"


def test_convert_keeps_the_inputs_result():
    code, output = banco("convert", "--to", "iccs", "1. Phe2 Mg7 2. Pb1 1-0")
    assert code == 0 and output.splitlines()[-1] == "1. h2e2 h9g7 2. b2b1 1-0", output


def test_a_chinese_move_no_notation_reads_is_explained_by_the_chinese_notation():
    code, output = banco("convert", "--to", "iccs", "1. 炮二平十")
    assert code != 0 and "is not a Chinese move (like 炮二平五" in output, output
