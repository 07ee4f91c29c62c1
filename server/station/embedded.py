"""The embedded default: the server and the board's station in one process and one event loop.

`serve_with_station` starts uvicorn on the app and, once the app is up, the station; the
pages are served while the station records. `open_game` makes the event, board and game a
station writes to when none is given (a player at home has no tournament).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable
from typing import Any

from hardware.clock import TimeControl
from server.app import call
from server.record import timed_start_fen


def free_port(host: str = "127.0.0.1", wanted: int = 8000) -> int:
    """`wanted` when it is free, else any free port."""
    for port in (wanted, 0):
        with socket.socket() as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return probe.getsockname()[1]
    # Not an address of this machine (or none free on it): a ValueError, said in one line.
    raise ValueError(f"no free port on {host!r}: is it an address of this machine?")


def start_fen_for(game: str, control: TimeControl | None, fen: str | None = None) -> str | None:
    """Commander Chess's timed games (seed 000): 15 minutes is the battle mode, ended by the
    first battle won; 30 minutes is total war, ended only by the commander's capture. Both end
    when the game's time is used up, and then points decide (`server.record.timed_start_fen`)."""
    return timed_start_fen(game, control.base_ms if control else None, fen)


def open_game(recorder, game: str, *, white: str = "", black: str = "", event: str = "banco",
              control: TimeControl | None = None, fen: str | None = None) -> tuple[int, str]:
    """A new event with one board and a game on it; returns the game id and the station key."""
    created = recorder.create_event(event, game)
    board, key = recorder.create_board(created.id, 1, "board 1")
    row = recorder.create_game(game, white, black, board_id=board.id, start_fen=start_fen_for(game, control, fen),
                               initial_ms=control.base_ms if control else None,
                               increment_ms=control.increment_ms if control else 0)
    return row.id, key


async def serve_with_station(app, make_station: Callable[[], Any], *, host: str = "127.0.0.1", port: int = 8000,
                             on_ready: Callable[[str], None] | None = None,
                             keep_serving: bool = True) -> Any:
    """Serve `app` with uvicorn and run the station `make_station()` builds in the same loop.

    Returns the station's report. With `keep_serving` the pages stay up after the station
    ends (the demo's video is over, people are still looking) until interrupted.
    """
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            await serving
            raise OSError(f"the server could not start on {host}:{port}")
        await asyncio.sleep(0.05)
    station = make_station()
    if on_ready is not None:
        on_ready(f"http://{host}:{port}")
    try:
        report = await station.run()
        if keep_serving:
            await serving
        return report
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 5)


async def run_headless(app, make_station: Callable[[], Any],
                       before: Callable[[], Awaitable[None]] | None = None) -> Any:
    """Run a station against `app`'s record without serving HTTP (tests, benchmarks)."""
    await app.state.fanout.start()
    try:
        if before is not None:
            await before()
        return await make_station().run()
    finally:
        await app.state.fanout.stop()


async def recorded(app, game_id: int) -> list[Any]:
    return await call(app.state.recorder.moves, game_id)
