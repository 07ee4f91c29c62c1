"""`banco demo`: a whole station on a rendered video of a real game, with nothing plugged in.

The video of a complete game is rendered once and cached (`models.synth.video.cached_game`;
the first run shows a progress bar). Then everything a club would run at a table runs in
one process: the server (a fresh SQLite file, the pages), the station (tracker on the video,
the simulated banco clock and LED board behind pseudo-terminals), and two "players" who press
the clock a moment after each of their moves, as the video's truth says the hand left.
It prints the URL of the live page, which shows the game being recorded with the clocks
running and the LED board mirrored on screen.

The games: Cờ Tướng, a master game (games/xiangqi/data/liu-dahua-hu-ronghua-1997.pgn, with its
source); Cờ Tư Lệnh and Cờ Toán, complete legal games played by banco's engines
(banco/demo_games/).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import games
from games.base import BancoError, Color
from hardware.clock import TimeControl

DEMO_SEED = 1000  # the video seeds of demos and acceptance runs are 1000–9999 (models/synth/video.py)
DEMO_SIZE = (960, 540)
DEMO_FPS = 15.0
DEMO_TIME = "15+10"  # Cờ Tướng's rapid rule; for Cờ Tư Lệnh the 15-minute battle mode
PRESS_AFTER_S = 0.4  # a player presses the clock this long after the hand has left the board
PRESS_WAIT_S = 2.0  # faster than real time, the longest a player waits for the station to take a press
XIANGQI_GAME = "liu-dahua-hu-ronghua-1997.pgn"


class DemoError(BancoError):
    """The demo cannot run as asked."""


@dataclass
class DemoGame:
    game: str
    moves: list[str]
    white: str
    black: str
    title: str
    source: str


def demo_game(game: str) -> DemoGame:
    """The bundled game of `game`: a master game for Cờ Tướng, engine games for the others."""
    variant = games.get(game)
    if variant.name == "xiangqi":
        from games.xiangqi.notation import ICCS
        from games.xiangqi.pgn import read_game

        text = resources.files("games.xiangqi.data").joinpath(XIANGQI_GAME).read_text(encoding="utf-8")
        record = read_game(text)
        board = record.root()
        moves = []
        for played in record.moves:
            moves.append(ICCS.format(board, played.move))
            board.push(played.move)
        headers = record.headers
        return DemoGame("xiangqi", moves, headers.get("Red", ""), headers.get("Black", ""),
                        f"{headers.get('Event', '')} {headers.get('Date', '')[:4]}".strip(), headers.get("Source", ""))
    text = resources.files("banco.demo_games").joinpath(f"{variant.name}.txt").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines()]
    moves = [line for line in lines if line and not line.startswith("#")]
    about = " ".join(line[1:].strip() for line in lines if line.startswith("#"))
    return DemoGame(variant.name, moves, "banco (Trắng)", "banco (Đen)", "banco demo", about)


def render(game: DemoGame, plies: int | None = None, progress: Callable[[int, int], None] | None = None):
    """The cached video of the first `plies` plies of `game` (rendered the first time)."""
    from models.synth.video import cached_game

    moves = game.moves[:plies] if plies else game.moves
    return cached_game(game.game, moves, seed=DEMO_SEED, fps=DEMO_FPS, size=DEMO_SIZE, progress=progress)


def video_frames(path: Path, fps: float, speed: float, clock: list[float]) -> Iterator[tuple[Any, float]]:
    """Every frame of the video in order, stamped with its video time; at `speed` × real time
    (0: as fast as the station takes them). `clock[0]` follows the video time."""
    import cv2

    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise DemoError(f"cannot open the video {path}")
    started = time.monotonic()
    index = 0
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            timestamp = index / fps
            if speed > 0:
                delay = started + timestamp / speed - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            clock[0] = timestamp
            yield frame, timestamp
            index += 1
    finally:
        capture.release()


def players(truth: dict[str, Any], first: Color, press_clock: Callable[[Color], None]) -> Callable[[int, float], None]:
    """The two players: each presses the clock a moment after their hand has left the board."""
    fps = float(truth["fps"])
    due: dict[int, list[Color]] = {}
    for entry in truth["moves"]:
        side = first if entry["ply"] % 2 == 1 else first.other
        # Plies played while the picture was cut end on the same frame: both players press.
        due.setdefault(int(entry["frame_done"] + round(PRESS_AFTER_S * fps)), []).append(side)

    def on_frame(index: int, _timestamp: float) -> None:
        for side in due.get(index, ()):
            press_clock(side)

    return on_frame


@dataclass
class DemoRun:
    """Everything a demo run set up; `station.report` says what it did."""

    app: Any
    game_id: int
    station: Any
    truth: dict[str, Any]
    moves: list[str]
    database: Path


def build(game: str = "xiangqi", *, plies: int | None = None, speed: float = 1.0, database: Path | None = None,
          time_control: str = DEMO_TIME, exit_at_end: bool = True, leds: str | None = "sim",
          clock: str | None = "sim", progress: Callable[[int, int], None] | None = None,
          rendered=None, referee_token: str | None = None) -> DemoRun:
    """Render (or find) the video, open the server's record and make the station (not started)."""
    from calibration.markers import BoardLocator
    from calibration.profile import from_dict
    from server.app import create_app
    from server.config import Settings
    from server.station.embedded import open_game
    from server.station.orchestrator import Station
    from server.station.target import EmbeddedTarget
    from vision.detector import Detector
    from vision.tracker import MoveTracker

    chosen = demo_game(game)
    rendered = rendered or render(chosen, plies, progress)
    truth = rendered.truth_data
    control = TimeControl.parse(time_control) if time_control else None
    if database is None:
        database = Path(tempfile.mkdtemp(prefix="banco-demo-")) / "demo.sqlite3"
    app = create_app(Settings.from_env(database_url=f"sqlite:///{database}", referee_token=referee_token))
    game_id, _key = open_game(app.state.recorder, chosen.game, white=chosen.white, black=chosen.black,
                              event=chosen.title, control=control, fen=truth.get("start_fen"))
    calibration = from_dict(truth["calibration"])
    detector = Detector(chosen.game, calibration)
    video_clock = [0.0]
    board = games.get(chosen.game).board(truth.get("start_fen"))
    first = board.turn
    box: list[Any] = []

    def press(side: Color) -> None:
        simulator = box[0].clock.simulator if box else None
        if simulator is not None and simulator.plugged:
            taken = len(box[0].report.presses)
            simulator.device.press(side)
            if speed <= 0:
                # Faster than real time the video would run on while the press travels through the
                # clock's serial line: the player waits until the station has taken it, as the
                # pace of real time guarantees at speed 1.
                deadline = time.monotonic() + PRESS_WAIT_S
                while len(box[0].report.presses) <= taken and time.monotonic() < deadline:
                    time.sleep(0.005)
                time.sleep(0.02)  # and the tracker has heard it

    locator = BoardLocator(calibration)  # the rendered board has markers, as a printed one does

    def make_tracker(position):
        # The players' set is new to the model: the first still look at the start teaches it. The
        # clock is there: a move is complete when its player presses (FIDE 6.7), not when the
        # hand pauses (taking a captured piece off first leaves a board a stay capture explains).
        return MoveTracker(chosen.game, position, detector, locator.calibration, wait_for_start=False,
                           locator=locator, adapt_at_start=True, commit_on_press=True)

    station = Station(EmbeddedTarget(app, game_id), video_frames(rendered.video, float(truth["fps"]), speed,
                                                                 video_clock),
                      make_tracker, clock=clock, leds=leds, time_control=control,
                      clock_now_ms=lambda: int(video_clock[0] * 1000),
                      on_frame=players(truth, first, press), exit_at_end=exit_at_end, name=f"demo-{chosen.game}")
    box.append(station)
    moves = [entry["move"] for entry in truth["moves"]]
    return DemoRun(app, game_id, station, truth, moves, database)


def run_headless(run: DemoRun):
    """Run the demo's station to the end of its video without serving pages (tests)."""
    from server.station.embedded import run_headless as headless

    return asyncio.run(headless(run.app, lambda: run.station))


def recorded_as_source(run: DemoRun) -> tuple[int, int]:
    """How many plies, from the first, the record holds exactly as the source; and the source's."""
    snapshot = run.app.state.recorder.snapshot(run.game_id)
    recorded = snapshot["moves"][snapshot["default_notation"]]
    same = 0
    for ours, theirs in zip(recorded, run.moves, strict=False):
        if ours != theirs:
            break
        same += 1
    return same, len(run.moves)


def main(game: str, speed: float, host: str, port: int, plies: int | None, keep_serving: bool = True,
         echo: Callable[[str], None] = print, headless: bool = False) -> bool:
    """`banco demo`: render or find the video, then serve the live page while the station records."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from models.synth.video import cache_dir
    from vision.detector import default_model_path

    chosen = demo_game(game)
    if not default_model_path(chosen.game).is_file():
        raise DemoError(f"no point classifier ships for {chosen.game} yet ({default_model_path(chosen.game).name} "
                        "is missing), so the camera cannot read its pieces; try banco demo --game xiangqi")
    echo(f"banco demo: {chosen.title} — {chosen.white} vs {chosen.black} ({len(chosen.moves[:plies or None])} plies)")
    started = time.monotonic()
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} frames"),
                  TimeRemainingColumn(), transient=True) as bar:
        task = None

        def progress(done: int, total: int) -> None:
            nonlocal task
            if task is None:
                task = bar.add_task(f"first run: rendering the {chosen.game} video (cached in {cache_dir()})",
                                    total=total)
            bar.update(task, completed=done, total=total)

        rendered = render(chosen, plies, progress)
    if task is not None:
        echo(f"rendered {rendered.video} in {time.monotonic() - started:.0f} s (cached for next time)")
    # The demo's record is of a rendered game: it goes with the demo, as the simulated devices do.
    with tempfile.TemporaryDirectory(prefix="banco-demo-") as folder:
        return _run(game, speed, host, port, plies, keep_serving, echo, headless, rendered,
                    Path(folder) / "demo.sqlite3")


def _run(game: str, speed: float, host: str, port: int, plies: int | None, keep_serving: bool,
         echo: Callable[[str], None], headless: bool, rendered, database: Path) -> bool:
    from server.station.embedded import free_port, serve_with_station

    if headless:
        # No pages: the station reads the video to its end, then the record is checked against the source.
        run = build(game, plies=plies, speed=speed, rendered=rendered, database=database)
        report = run_headless(run)
        same, total = recorded_as_source(run)
        stored = len(report.stored)
        echo(f"recorded {stored} plies; the first {same} of the source's {total} as the source"
             + ("" if same == total == stored else " — the record differs"))
        return same == total == stored
    run = build(game, plies=plies, speed=speed, exit_at_end=False, rendered=rendered, database=database)
    token = run.app.state.settings.referee_token
    port = free_port(host, port)

    def ready(url: str) -> None:
        echo(f"referee console: {url}/console/{run.game_id}  (token {token})")
        echo(f"live page: {url}/games/{run.game_id}")

    async def serve() -> None:
        station_task = None

        def make():
            return run.station

        async def watch_end() -> None:
            # The video is over once the station has read it all: say so, keep serving.
            while not run.station._source_ended:
                await asyncio.sleep(0.5)
            echo(f"the video is over: {len(run.station.report.stored)} moves recorded; Ctrl-C to stop")

        station_task = asyncio.create_task(watch_end())
        try:
            await serve_with_station(run.app, make, host=host, port=port, on_ready=ready, keep_serving=keep_serving)
        finally:
            station_task.cancel()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
    return True
