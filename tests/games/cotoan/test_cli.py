"""`banco perft` and `banco moves` for Cờ Toán, through the registry."""

import subprocess
import sys

from games.cotoan import STARTING_FEN

CAPTURE_FEN = ("-9-8-7.-5-4-3-2-1/....-0..../........./........./....-6..../........./"
               "........./....5..../....8..../....0..../1234.67.9 w")


def banco(*args):
    return subprocess.run([sys.executable, "-m", "banco", *args], capture_output=True, text=True)


def one_clear_line(result, *words):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_perft_from_the_start():
    result = banco("perft", "--game", "cotoan", "--depth", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "7458"


def test_perft_from_a_position_string_starting_with_a_minus():
    result = banco("perft", "--game", "co-toan", "--fen", STARTING_FEN, "--depth", "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "87"


def test_moves_lists_captures_with_their_operations():
    result = banco("moves", "--game", "cotoan", "--fen", CAPTURE_FEN)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert {"8+5xe7", "8-5xe7", "8:5xe7"} <= set(lines)
    assert len(lines) == len(set(lines))


def test_moves_after_moves():
    result = banco("moves", "--game", "cotoan", "--moves", "1. 9:i1-i5 9:a11-a6 2. 9:i5-i9")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert "9:a6-a2" in lines and all(":" in line for line in lines)


def test_illegal_move_is_one_line_naming_the_token_and_the_rule():
    one_clear_line(banco("moves", "--game", "cotoan", "--moves", "9:i1-i5 9:a11-a1"),
                   "9:a11-a1", "move 1", "Black", "at most 9")


def test_unreadable_move_is_one_line():
    one_clear_line(banco("moves", "--game", "cotoan", "--moves", "9:i1-z5"), "9:i1-z5", "move 1")


def test_bad_position_string_is_one_line():
    one_clear_line(banco("perft", "--game", "cotoan", "--fen", "123/456", "--depth", "1"), "rows")
    one_clear_line(banco("moves", "--game", "cotoan", "--fen", STARTING_FEN.replace("0-0", "9-9")),
                   "score")


def test_unknown_notation_is_one_line():
    one_clear_line(banco("moves", "--game", "cotoan", "--notation", "iccs"), "iccs", "cotoan")
