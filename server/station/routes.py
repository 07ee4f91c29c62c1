"""The station's routes: its status for the pages, and the LED mirror script."""

from __future__ import annotations

import asyncio
from importlib import resources
from typing import Any

from fastapi import APIRouter, Body, HTTPException, Request
from fastapi.responses import Response, StreamingResponse

from server.api.deps import GameId
from server.app import call
from server.auth import Writer
from server.station.status import status_message

router = APIRouter(tags=["stations"])
KEEPALIVE_SECONDS = 15.0


@router.get("/api/games/{game_id}/station")
async def station_status(game_id: GameId, request: Request) -> dict[str, Any]:
    """The latest status of the game's station: LED frame, devices, camera, recent events."""
    status = request.app.state.stations.get(game_id)
    if status is None:
        raise HTTPException(404, f"no station reports for game {game_id}")
    return status


@router.post("/api/games/{game_id}/station", status_code=204,
             responses={401: {"description": "no key"}, 403: {"description": "wrong key"}})
async def report_status(game_id: GameId, request: Request, who: Writer,
                        status: dict[str, Any] = Body(...)) -> Response:  # noqa: B008
    """A remote station reports its status (X-Station-Key of the game's board)."""
    await call(request.app.state.recorder.get_game, game_id)  # 404 for a game that does not exist
    request.app.state.stations.update(game_id, status)
    return Response(status_code=204)


@router.get("/api/games/{game_id}/station/stream", response_class=StreamingResponse)
async def station_stream(game_id: GameId, request: Request) -> StreamingResponse:
    """Server-Sent Events `station`: each a full status, the newest only for a slow viewer."""
    registry = request.app.state.stations
    queue = registry.subscribe(game_id)

    async def events():
        try:
            yield b": station\n\n"
            while True:
                try:
                    status = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield b": keepalive\n\n"
                    continue
                yield status_message(status)
        finally:
            registry.unsubscribe(game_id, queue)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.get("/static/station.js", include_in_schema=False)
async def station_script() -> Response:
    text = resources.files("server.station").joinpath("station.js").read_text(encoding="utf-8")
    return Response(text, media_type="text/javascript; charset=utf-8")
