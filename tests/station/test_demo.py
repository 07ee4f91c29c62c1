"""The demo pipeline end to end, headless: a rendered video of each game, the real tracker and
classifier, the simulated clock and LED board, and the server's record.

Short games keep the suite fast (the full games run in `make demo`). The videos are rendered
into this test session's cache, so each is rendered once.
"""

from __future__ import annotations

import time

import pytest

from banco.demo import PRESS_AFTER_S, build, run_headless
from tests.station.doubles import CameraBack, CameraLost

SHORT = {"xiangqi": 8, "commander": 6, "cotoan": 6}


@pytest.fixture(scope="module")
def video_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("videos")


def recorded(run):
    snapshot = run.app.state.recorder.snapshot(run.game_id)
    return snapshot["moves"][snapshot["default_notation"]]


def check_clock(run, report):
    """The record's clock times are the device's figures at each press, and those follow the
    video: the mover's time goes down by the time between the presses, then up by 10 s."""
    rows = run.app.state.recorder.moves(run.game_id)
    assert (rows[0].white_ms, rows[0].black_ms) == (900_000, 900_000)  # the first move starts the clock
    presses = [(press.white_ms, press.black_ms) for press in report.presses]
    assert [(row.white_ms, row.black_ms) for row in rows[1:]] == presses
    fps = run.truth["fps"]
    pressed_at = [(entry["frame_done"] + round(PRESS_AFTER_S * fps)) / fps for entry in run.truth["moves"]]
    white = black = 900_000
    for ply in range(2, len(rows) + 1):
        spent = (pressed_at[ply - 1] - pressed_at[ply - 2]) * 1000
        if ply % 2 == 0:
            black = black - spent + 10_000
        else:
            white = white - spent + 10_000
        row = rows[ply - 1]
        assert abs(row.white_ms - white) <= 150 and abs(row.black_ms - black) <= 150, (ply, row.white_ms,
                                                                                          row.black_ms, white, black)


@pytest.mark.parametrize("game", sorted(SHORT))
def test_the_demo_pipeline_records_the_source_game_with_its_clock(game, tmp_path, video_cache, monkeypatch):
    monkeypatch.setenv("BANCO_CACHE_DIR", str(video_cache))
    run = build(game, plies=SHORT[game], speed=0, database=tmp_path / "demo.sqlite3")
    report = run_headless(run)
    assert recorded(run) == run.moves
    check_clock(run, report)
    # The LED board shows the last move's end in bright amber, as the page's mirror does.
    from hardware.leds import LAST_TO

    device = run.station.leds.simulator.device if run.station.leds.simulator else None
    assert run.station._frame is not None and LAST_TO in run.station._frame.cells
    assert device is None or device.frame is None or device.frame == run.station._frame


def test_the_camera_stops_for_five_seconds_and_the_missed_moves_are_recovered(tmp_path, video_cache, monkeypatch):
    """The picture is cut while plies 3 and 4 are played; the source then stalls for 5 s more."""
    monkeypatch.setenv("BANCO_CACHE_DIR", str(video_cache))
    from banco.demo import demo_game
    from models.synth.video import cached_game

    chosen = demo_game("xiangqi")
    rendered = cached_game("xiangqi", chosen.moves[:6], seed=1001, fps=15, size=(960, 540), unseen=[3])
    run = build("xiangqi", speed=0, database=tmp_path / "demo.sqlite3", rendered=rendered)
    resume = rendered.truth_data["unseen"][0]["resume_frame"]
    frames = run.station.source

    def stalling():
        for index, item in enumerate(frames):
            if index == resume:
                yield CameraLost("unplugged")
                time.sleep(5.0)
                yield CameraBack()
            yield item

    run.station.source = stalling()
    report = run_headless(run)
    assert recorded(run) == run.moves
    texts = [event["text"] for event in report.events]
    assert any(text.startswith("camera lost") for text in texts) and "camera back" in texts
