"""Real Chromium on the demo's live page: the board, the clocks running, the LED mirror and a
move list growing as the station records the rendered game. A screenshot at move 20 is kept
as a test artifact (its path is printed)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from banco.demo import build
from server.station.embedded import free_port, serve_with_station
from tests.server.test_browser import ARGS, CHROMIUM

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} missing: the Debian package chromium (make test installs it)")
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


def test_the_demo_page_shows_the_board_clocks_leds_and_a_growing_move_list(tmp_path, monkeypatch):
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("BANCO_CACHE_DIR", str(tmp_path / "cache"))
    run = build("xiangqi", plies=22, speed=4.0, database=tmp_path / "demo.sqlite3", exit_at_end=False)
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
