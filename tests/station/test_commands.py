"""`banco watch` and `banco demo` on bad input, and the games the demo films."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import games
from banco.cli import app
from banco.demo import demo_game
from hardware.clock import TimeControl

runner = CliRunner()


def banco(*args):
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output.strip()


@pytest.mark.parametrize("args, message", [
    (["watch", "--camera", "no-such-video.mp4"], "no-such-video.mp4"),
    (["watch", "--game", "chess"], "chess"),
    (["watch", "--camera", "0", "--server", "http://127.0.0.1:9"], "--station-key"),
    (["watch", "--camera", "0", "--station-key", "k"], "--server"),
    (["watch", "--camera", "0", "--game-id", "77", "--database", "sqlite://"], "no game with id 77"),
    (["watch", "--camera", "0", "--time", "15 minutes"], "15 minutes"),
    (["watch", "--camera", "0", "--database", "bogus"], "cannot open the record 'bogus'"),
    (["serve", "--database", "sqlite:////no-such-folder/x.db"], "cannot open the record"),
    (["demo", "--speed", "-1"], "--speed"),
    (["demo", "--plies", "0"], "--plies"),
])
def test_bad_input_is_named_and_exits_2(args, message):
    code, output = banco(*args)
    assert code == 2, output
    assert message in output


@pytest.mark.parametrize("game", ["xiangqi", "commander", "cotoan"])
def test_the_demo_games_are_legal_and_the_engine_games_complete(game):
    chosen = demo_game(game)
    variant = games.get(game)
    board = variant.board()
    for text in chosen.moves:
        board.push(variant.parse_move(board, text))
    if game == "xiangqi":
        assert (chosen.white, chosen.black, len(chosen.moves)) == ("Liu Dahua", "Hu Ronghua", 47)
        assert "wukong-xiangqi" in chosen.source  # the cited source of the master game
    else:
        assert board.outcome() is not None  # a complete game: it ends by the rules


def test_demo_headless_checks_the_record_against_the_game(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setenv("BANCO_CACHE_DIR", str(tmp_path))
    temporary = tmp_path / "temporary"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    code, output = banco("demo", "--game", "cotoan", "--plies", "4", "--speed", "0", "--headless")
    assert code == 0, output
    assert output.splitlines()[-1] == "recorded 4 plies; the first 4 of the source's 4 as the source"
    assert list(temporary.iterdir()) == []  # the demo's throwaway record went with it


def test_recorded_as_source_counts_from_the_first_ply_and_stops_at_a_difference():
    from types import SimpleNamespace

    from banco.demo import recorded_as_source

    class Recorder:
        def snapshot(self, _game_id):
            return {"default_notation": "n", "moves": {"n": ["a", "x", "c"]}}

    run = SimpleNamespace(app=SimpleNamespace(state=SimpleNamespace(recorder=Recorder())), game_id=1,
                          moves=["a", "b", "c", "d"])
    assert recorded_as_source(run) == (1, 4)


def test_watch_refuses_a_time_that_would_play_the_commander_game_in_another_mode(tmp_path):
    from server.app import create_app
    from server.config import Settings
    from server.station.embedded import open_game

    database = f"sqlite:///{tmp_path / 'club.sqlite3'}"
    app = create_app(Settings(database_url=database))
    total_war, _key = open_game(app.state.recorder, "commander", control=TimeControl.parse("30+0"))
    code, output = banco("watch", "--game", "commander", "--camera", "0", "--game-id", str(total_war),
                         "--database", database, "--time", "15+10")
    assert code == 2, output
    assert "total war (30 minutes)" in output and "--time 15+10" in output


def test_the_time_mode_check_passes_matching_times_and_other_games():
    from server.station.modes import TimeModeMismatch, refuse_mode_mismatch

    war_fen = games.get("commander").board().fen().replace(" - - ", " - w ")
    refuse_mode_mismatch("commander", war_fen, TimeControl.parse("30+10"), "game 1")
    refuse_mode_mismatch("commander", games.get("commander").starting_fen, TimeControl.parse("15+0"), "game 1")
    refuse_mode_mismatch("xiangqi", games.get("xiangqi").starting_fen, TimeControl.parse("15+0"), "game 1")
    with pytest.raises(TimeModeMismatch, match="battle mode"):
        refuse_mode_mismatch("commander", games.get("commander").starting_fen, TimeControl.parse("30+0"), "game 1")


def test_a_watch_that_finds_no_board_opens_no_game(tmp_path):
    """The game is opened once the board is found: a start that fails (here a blank video)
    leaves the record as it was, not an empty game for every try."""
    import cv2
    import numpy as np
    from sqlalchemy import create_engine, text

    video = tmp_path / "blank.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for _ in range(10):
        writer.write(np.full((240, 320, 3), 128, np.uint8))
    writer.release()
    database = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    code, output = banco("watch", "--camera", str(video), "--database", database)
    assert code == 2 and "the board was not found" in output, output
    engine = create_engine(database)
    with engine.connect() as connection:
        tables = {row[0] for row in connection.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))}
        games_kept = connection.execute(text("SELECT COUNT(*) FROM games")).scalar() if "games" in tables else 0
    assert games_kept == 0
