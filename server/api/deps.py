"""Dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from server.record import Recorder

GameId = Annotated[int, Path(ge=1, le=2**31 - 1)]
EventId = Annotated[int, Path(ge=1, le=2**31 - 1)]
ObjectId = Annotated[int, Path(ge=1, le=2**31 - 1)]


def get_recorder(request: Request) -> Recorder:
    return request.app.state.recorder


RecorderDep = Annotated[Recorder, Depends(get_recorder)]


async def publish(request: Request, snapshot: dict) -> None:
    await request.app.state.fanout.publish(snapshot)
