"""What each station says about itself (LED frame, devices, camera, recent events), for the pages.

The record's snapshots say what happened in the game; a station's status says what the board
looks like right now: the LED frame mirrored on screen, whether the clock, LED board and camera
are connected, and the last doubts it raised. An embedded station updates the registry
directly; a remote one posts to ``POST /api/games/{id}/station`` with its station key.
Viewers follow ``GET /api/games/{id}/station/stream`` (Server-Sent Events, newest status only:
a slow viewer skips statuses, never delays the station).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hardware.protocol import LedFrame, Pattern

STATUS_QUEUE = 2
INDEX_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def led_json(frame: LedFrame | None) -> dict[str, Any] | None:
    """A frame as the protocol sends it (hardware/PROTOCOL.md §5.2): a palette of pattern
    letters with colours (in order of first use) and one palette index per point, rank by rank
    from White's side.

    >>> from hardware.leds import render, last_move
    >>> from games.base import Point
    >>> frame = led_json(render((3, 2), last_move(Point(0, 0), Point(2, 1))))
    >>> frame["palette"], frame["points"]
    (['S403000', 'O000000', 'SFFC000'], '011112')
    """
    if frame is None:
        return None
    palette: list[str] = []
    indices: dict[tuple[Pattern, int], int] = {}
    points = []
    for cell in frame.cells:
        key = (cell.pattern, cell.color if cell.pattern is not Pattern.OFF else 0)
        if key not in indices:
            if len(palette) == len(INDEX_DIGITS):
                key = (Pattern.OFF, 0)  # more than 36 looks: never happens with hardware.leds' meanings
            else:
                indices[key] = len(palette)
                palette.append(f"{key[0].value}{key[1]:06X}")
        points.append(INDEX_DIGITS[indices.get(key, 0)])
    return {"grid": [frame.files, frame.ranks], "palette": palette, "points": "".join(points)}


class StationRegistry:
    """The latest status of every station that reports to this server process."""

    def __init__(self) -> None:
        self._status: dict[int, dict[str, Any]] = {}
        self._viewers: dict[int, set[asyncio.Queue]] = {}

    def get(self, game_id: int) -> dict[str, Any] | None:
        return self._status.get(game_id)

    def update(self, game_id: int, status: dict[str, Any]) -> None:
        status = {**status, "game_id": game_id}
        self._status[game_id] = status
        for queue in list(self._viewers.get(game_id, ())):
            if queue.full():
                queue.get_nowait()  # the viewer is behind: drop the older status
            queue.put_nowait(status)

    def subscribe(self, game_id: int) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(STATUS_QUEUE)
        self._viewers.setdefault(game_id, set()).add(queue)
        current = self._status.get(game_id)
        if current is not None:
            queue.put_nowait(current)
        return queue

    def unsubscribe(self, game_id: int, queue: asyncio.Queue) -> None:
        viewers = self._viewers.get(game_id)
        if viewers is not None:
            viewers.discard(queue)


def status_message(status: dict[str, Any]) -> bytes:
    data = json.dumps(status, separators=(",", ":"), ensure_ascii=False)
    return f"event: station\ndata: {data}\n\n".encode()
