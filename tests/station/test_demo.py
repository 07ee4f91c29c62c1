"""The demo pipeline end to end, headless and in Chromium: a rendered video of each game, the real tracker and
classifier, the simulated clock and LED board, and the server's record.

Short games keep the suite fast (the full games run in `make demo`). The videos are rendered
into this test session's cache, so each is rendered once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from banco.demo import PRESS_AFTER_S, build, run_headless
from server.station.embedded import free_port, serve_with_station
from tests.server.test_browser import ARGS, CHROMIUM
from tests.services import require_file
from tests.station.doubles import CameraBack, CameraLost

# Every game's demo, on its first plies; the Chromium test below reuses
# the Xiangqi video.
SHORT = {"xiangqi": 20, "commander": 16, "cotoan": 12}


TEST_FPS = 10  # a third fewer frames to render and read than the demo's 15; the tracker keeps up


@pytest.fixture(scope="module")
def video_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("videos")  # one render per video for this module's tests


def short_video(game: str, plies: int, **options):
    from banco.demo import DEMO_SEED, DEMO_SIZE, demo_game
    from models.synth.video import cached_game

    chosen = demo_game(game)
    return cached_game(game, chosen.moves[:plies], seed=options.pop("seed", DEMO_SEED), fps=TEST_FPS,
                       size=DEMO_SIZE, **options)


def recorded(run):
    snapshot = run.app.state.recorder.snapshot(run.game_id)
    return snapshot["moves"][snapshot["default_notation"]]


def check_clock(run, report):
    """The record's clock times are the device's figures at each press, and those follow the
    video: the mover's time goes down by the time between the presses, then up by the increment
    (10 s; none in Cờ Tư Lệnh, which times the game's duration, COMMANDER_RULES D34)."""
    increment = run.station.time_control.increment_ms
    assert increment == (0 if run.truth["game"] == "commander" else 10_000)
    rows = run.app.state.recorder.moves(run.game_id)
    assert (rows[0].white_ms, rows[0].black_ms) == (900_000, 900_000)  # the first move starts the clock
    presses = [(press.white_ms, press.black_ms) for press in report.presses]
    assert [(row.white_ms, row.black_ms) for row in rows[1:]] == presses
    fps = run.truth["fps"]
    done_at = [entry["frame_done"] / fps for entry in run.truth["moves"]]
    pressed_at = [(entry["frame_done"] + round(PRESS_AFTER_S * fps)) / fps for entry in run.truth["moves"]]
    # The clock starts once the first move is recognised: after the hand left, before the press.
    black_spent = 900_000 + increment - rows[1].black_ms
    assert 0 < black_spent <= (pressed_at[1] - done_at[0]) * 1000 + 100
    assert rows[1].white_ms == 900_000
    for ply in range(3, len(rows) + 1):
        before, after = rows[ply - 2], rows[ply - 1]
        spent = (pressed_at[ply - 1] - pressed_at[ply - 2]) * 1000
        mover_before, mover_after = ((before.white_ms, after.white_ms) if ply % 2 else
                                     (before.black_ms, after.black_ms))
        waiting_before, waiting_after = ((before.black_ms, after.black_ms) if ply % 2 else
                                         (before.white_ms, after.white_ms))
        assert waiting_after == waiting_before, ply
        assert abs(mover_after - (mover_before - spent + increment)) <= 150, (ply, mover_before, mover_after, spent)


@pytest.mark.parametrize("game", sorted(SHORT))
def test_the_demo_pipeline_records_the_source_game_with_its_clock(game, tmp_path, video_cache, monkeypatch):
    monkeypatch.setenv("BANCO_CACHE_DIR", str(video_cache))
    run = build(game, speed=0, database=tmp_path / "demo.sqlite3", rendered=short_video(game, SHORT[game]))
    report = run_headless(run)
    assert recorded(run) == run.moves
    check_clock(run, report)
    # A clean game (no wrong move in the video) raises no alarm: each would send the referee to
    # look for nothing.
    assert [e["text"] for e in report.events if e["kind"] == "illegal"] == []
    # The LED board shows the last move's end in bright amber, as the page's mirror does.
    from hardware.leds import LAST_TO

    device = run.station.leds.simulator.device if run.station.leds.simulator else None
    assert run.station._frame is not None and LAST_TO in run.station._frame.cells
    assert device is None or device.frame is None or device.frame == run.station._frame


def test_the_camera_stops_for_five_seconds_and_the_missed_moves_are_recovered(tmp_path, video_cache, monkeypatch):
    """The picture is cut while plies 3 and 4 are played; the source then stalls for 5 s more."""
    monkeypatch.setenv("BANCO_CACHE_DIR", str(video_cache))
    rendered = short_video("xiangqi", 6, seed=1001, unseen=[3])
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


ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


class Served:
    """The demo (server and station in one loop) on a thread, as `banco demo` runs it."""

    def __init__(self, run) -> None:
        self.run = run
        self.port = free_port("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.port}"
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.task = self.loop.create_task(serve_with_station(
            self.run.app, lambda: self.run.station, port=self.port, on_ready=lambda _url: self.ready.set()))
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass

    def __enter__(self) -> Served:
        self.thread.start()
        assert self.ready.wait(60), "the demo server did not start"
        return self

    def __exit__(self, *exc) -> None:
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(20)


def test_the_demo_page_shows_the_board_clocks_leds_and_a_growing_move_list(tmp_path, video_cache, monkeypatch):
    require_file(CHROMIUM, f"{CHROMIUM} missing: the Debian package chromium (make test installs it)")
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("BANCO_CACHE_DIR", str(video_cache))
    run = build("xiangqi", speed=4.0, database=tmp_path / "demo.sqlite3", exit_at_end=False,
                rendered=short_video("xiangqi", SHORT["xiangqi"]))
    with Served(run) as served, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{served.url}/games/{run.game_id}")
        page.wait_for_function("document.querySelectorAll('#board .piece').length === 32", timeout=30_000)
        page.wait_for_selector("#station:not([hidden]) .leds svg", timeout=30_000)
        counts = []
        for wanted in (2, 10, 20):
            page.wait_for_function(f"Number(document.querySelector('#moves').dataset.count) >= {wanted}",
                                   timeout=180_000)
            counts.append(int(page.get_attribute("#moves", "data-count")))
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / "demo-move-20.png"
        page.screenshot(path=str(shot))
        print(f"screenshot at move {counts[-1]}: {shot}")
        assert counts == sorted(counts) and counts[-1] >= 20
        # The clock of the side on move runs; both show minutes and seconds.
        assert page.locator("#clocks span.running").count() == 1
        assert all(":" in text for text in page.locator("#clocks span").all_inner_texts())
        # The LED mirror lights the last move.
        assert int(page.get_attribute("#station .leds", "data-lit")) >= 2
        moves = page.inner_text("#moves").split()
        assert moves[:3] == ["1.", "Bc4", "Pbc7"]
        browser.close()
