"""The station's routes: its status for the pages, and the LED mirror script."""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
from importlib import resources
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from server.api.deps import GameId
from server.api.schemas import Problem
from server.app import call
from server.auth import StationKey, Writer
from server.station.status import status_message

router = APIRouter(tags=["stations"], responses={404: {"model": Problem}, 422: {"model": Problem}})
KEEPALIVE_SECONDS = 15.0


@router.get("/api/games/{game_id}/station")
async def station_status(game_id: GameId, request: Request) -> dict[str, Any]:
    """The latest status of the game's station: LED frame, devices, camera, recent events."""
    await call(request.app.state.recorder.get_game, game_id)  # 404 for a game that does not exist
    status = request.app.state.stations.get(game_id)
    if status is None:
        raise HTTPException(404, f"no station reports for game {game_id}")
    return status


class StationStatusIn(BaseModel):
    """What a station says of itself (`Orchestrator.status`). Every field may be left out; those
    given must have their types, so that the pages can show them. Other fields are kept as sent."""

    model_config = ConfigDict(extra="allow")

    station: str | None = Field(None, description="the station's name")
    camera: Literal["starting", "watching", "lost", "ended"] | None = Field(
        None, description="starting, watching, lost or ended")
    frames: int | None = Field(None, ge=0, strict=True, description="frames read so far")
    ply: int | None = Field(None, ge=0, strict=True, description="plies on the station's board")
    clock: dict[str, Any] | None = Field(None, description="device, connected, white_ms, black_ms, running")
    leds: dict[str, Any] | None = Field(None, description="the LED frame: grid, palette, points")
    leds_device: dict[str, Any] | None = Field(None, description="device, connected")
    waiting: int | None = Field(None, ge=0, strict=True, description="moves in the outbox, not yet on the record")
    camera_warnings: list[str] = Field(default_factory=list, description=(
        "`banco calibrate`'s warnings for the camera's calibration as it stands, one sentence each; "
        "empty when none applies"))
    events: list[dict[str, Any]] = Field(default_factory=list, description="the station's recent doubts")


@router.post("/api/games/{game_id}/station", status_code=204,
             responses={401: {"model": Problem, "description": "no key"},
                        403: {"model": Problem, "description": "wrong key"},
                        404: {"model": Problem, "description": "no such game"},
                        422: {"model": Problem, "description": "a field of the wrong type"}})
async def report_status(game_id: GameId, request: Request, who: Writer, status: StationStatusIn) -> Response:
    """A remote station reports its status (X-Station-Key of the game's board)."""
    await call(request.app.state.recorder.get_game, game_id)  # 404 for a game that does not exist
    request.app.state.stations.update(game_id, status.model_dump(exclude_none=True))
    return Response(status_code=204)


@router.get("/api/station/game", responses={
    401: {"model": Problem, "description": "no key"},
    404: {"model": Problem, "description": "no such board, or no game in progress on it"}})
async def station_game(request: Request, station_key: StationKey = None) -> dict[str, Any]:
    """The game in progress on the board whose key this is (X-Station-Key): a station started
    with its key alone asks which game to record."""
    if not station_key:
        raise HTTPException(401, "a station key (X-Station-Key) is required")
    game = await call(request.app.state.recorder.current_game, station_key)
    return {"game_id": game.id, "board_id": game.board_id, "variant": game.variant}


class AdaptationIn(BaseModel):
    """Photos of the start position and the calibration of the camera that took them."""

    calibration: dict[str, Any] = Field(description="the profile `banco calibrate` wrote (its JSON)")
    photos: list[str] = Field(min_length=1, max_length=4,
                              description="base64 JPEG or PNG photos of the start position, that camera's view")


class AdaptationOut(BaseModel):
    game: str
    report: dict[str, Any]  # what was held out, accuracies before/after, seconds, used (see below)
    summary: str
    adaptation: str  # base64 of the .npz file: write it beside the profile and name it there
    profile_key: str  # the profile's JSON key that names the file
    framing: str = Field(description="`banco calibrate`'s warning of the points this camera does not wholly "
                         "show (outside the photos, or cut by their edge), and what to do; empty when it shows "
                         "them all")
    view_warnings: list[str] = Field(default_factory=list, description=(
        "`banco calibrate`'s other warnings of this camera, one sentence each: pieces it sees under 20 px in "
        "radius (misread several times as often), and for Cờ Tư Lệnh a view more than 30° off straight down; "
        "each names what to do. Empty when none applies"))


def _photo_bytes(text: str, number: int) -> bytes:
    """A photo's bytes from its base64: standard or URL-safe, line breaks (as the `base64`
    command writes) and a ``data:image/…;base64,`` prefix allowed."""
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    text = "".join(text.split()).replace("-", "+").replace("_", "/")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"photo {number} is not base64 (the characters A–Z a–z 0–9 + / or - _, "
                         "and = padding)") from None
    if not data:
        raise ValueError(f"photo {number} is empty")
    return data


def _adapt(game: str, body: AdaptationIn) -> AdaptationOut:
    """`banco calibrate --start-position`'s adaptation, for a station that sends its photos."""
    import cv2
    import numpy as np

    from calibration.camera import cut_short_jpeg
    from calibration.profile import from_dict
    from vision.adapt import PROFILE_KEY, adapt_to_start
    from vision.detector import PointClassifier

    calibration = from_dict(body.calibration, source="calibration")
    if calibration.layout.geometry.name != game:
        raise ValueError(f"the calibration is for a {calibration.layout.geometry.name} board, but this game is {game}")
    shots = []
    for number, text in enumerate(body.photos, 1):
        data = _photo_bytes(text, number)
        if cut_short_jpeg(data):
            raise ValueError(f"photo {number} is a JPEG cut short (its end is missing): send the whole file")
        frame = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"photo {number} is not an image (JPEG or PNG)")
        # The same view at another resolution is scaled to, as `banco recognize` does.
        shots.append((frame, calibration.for_image_size((frame.shape[1], frame.shape[0]), f"photo {number}")))
    report = adapt_to_start(PointClassifier(game), shots)
    buffer = io.BytesIO()
    report.adaptation.save(buffer)
    return AdaptationOut(game=game, report=report.to_json(), summary=report.summary(),
                         adaptation=base64.b64encode(buffer.getvalue()).decode("ascii"), profile_key=PROFILE_KEY,
                         framing=calibration.framing_warning(), view_warnings=calibration.view_warnings())


@router.post("/api/games/{game_id}/station/adaptation", response_model=AdaptationOut,
             responses={401: {"model": Problem, "description": "no key"},
                        403: {"model": Problem, "description": "wrong key"},
                        422: {"model": Problem, "description": "not a start position, or bad photos or calibration"}})
async def adapt_to_set(game_id: GameId, request: Request, who: Writer, body: AdaptationIn) -> AdaptationOut:
    """Adapt the point classifier to the set on the game's board from photos of its start
    position (X-Station-Key of the game's board, or the referee): the adaptation file comes
    back with how well it read points it did not train on. When `report.used` is false, the
    adaptation read those points worse than the shipped model: keep the model (do not name the
    file in the profile), as `banco calibrate --start-position` does."""
    row = await call(request.app.state.recorder.get_game, game_id)
    try:
        return await asyncio.to_thread(_adapt, row.variant, body)
    except ValueError as error:
        raise HTTPException(422, str(error)) from None


@router.get("/api/games/{game_id}/station/stream", response_class=StreamingResponse)
async def station_stream(game_id: GameId, request: Request) -> StreamingResponse:
    """Server-Sent Events `station`: each a full status, the newest only for a slow viewer."""
    await call(request.app.state.recorder.get_game, game_id)  # 404 for a game that does not exist
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
