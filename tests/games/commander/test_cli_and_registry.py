"""The registry and CLI contracts for Commander Chess (issue 3)."""

import doctest
import subprocess
import sys

import pytest

import games
from games.commander import Board, Turn


def banco(*args):
    return subprocess.run([sys.executable, "-m", "banco", *args], capture_output=True, text=True)


def test_registry_maps_commander_to_games_commander():
    variant = games.get("commander")
    assert variant.name == "commander" and variant.board_class is Board
    assert games.get("cotulenh") is variant and games.get("co-tu-lenh") is variant
    assert isinstance(variant.board(), games.Board)
    assert variant.default_notation == "secretary"
    assert isinstance(next(iter(variant.board().legal_moves)), Turn)
    assert set(variant.extras) == {"turns_to", "validate_setup", "reveal"}


def test_cli_perft_prints_the_count_last():
    result = banco("perft", "--game", "commander", "--depth", "1")
    assert result.returncode == 0 and result.stdout.strip().splitlines()[-1] == "116"


def test_cli_moves_after_moves_in_secretary_notation():
    result = banco("moves", "--game", "commander", "--moves", "1. T3,5_5,5 T8,5_6,5")
    assert result.returncode == 0
    lines = result.stdout.split()
    assert "T5,5@T6,5" in lines and len(lines) == len(set(lines))


def test_cli_moves_split_turn_with_spaces():
    from .helpers import make

    board = make({"9,2": "(NTF)", "11,2": "n", "11,4": "c", "0,8": "C", "0,3": "H", "11,8": "h"})
    fen = board.fen()
    result = banco("moves", "--game", "commander", "--fen", fen, "--moves", "(HTK)H9.2@H11.2/T9.2_9.4/ K9.2>*11.4")
    assert result.returncode == 0, result.stderr
    assert "*11,4_11,5" in result.stdout.split()


@pytest.mark.parametrize("args,word", [
    (("moves", "--game", "commander", "--moves", "T3,5_9,5"), "T3,5_9,5"),
    (("perft", "--game", "commander", "--fen", "6c4/11 r", "--depth", "1"), "ranks"),
    (("moves", "--game", "commander", "--notation", "klingon"), "klingon"),
])
def test_cli_bad_input_is_one_line(args, word):
    result = banco(*args)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and word in result.stderr


@pytest.mark.parametrize("module", ["board", "terrain", "pieces", "notation", "observe", "match", "setups",
                                    "__init__"])
def test_docstring_examples_run(module):
    """The runnable examples in the module docstrings are true."""
    import importlib

    mod = importlib.import_module(f"games.commander.{module}" if module != "__init__" else "games.commander")
    failures, _ = doctest.testmod(mod)
    assert failures == 0
