"""Server-Sent Events for spectators, overlays and the event overview."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import StreamingResponse

from server.api.deps import EventId, GameId, RecorderDep
from server.api.schemas import Problem
from server.app import call
from server.live import sse_message

router = APIRouter(tags=["live"], responses={404: {"model": Problem}, 422: {"model": Problem}})
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
LastEventId = Annotated[str | None, Header(alias="Last-Event-ID", max_length=20)]
SinceQuery = Annotated[int | None, Query(ge=0, le=2**62, description="resume after this event id")]


def _resume_point(header: str | None, query: int | None) -> int:
    if query is not None:
        return query
    if header and header.strip().isdigit():
        return int(header.strip())
    return -1


async def _stream(request: Request, topic: str, load, after: int) -> StreamingResponse:
    hub = request.app.state.hub
    naive = request.app.state.naive
    retry = b"retry: 2000\n\n"
    if naive is not None:
        return _NaiveStream(naive, topic, [retry] + _since(await load(), after))
    # Subscribe before reading the current state, so a change in between is not missed.
    subscription = hub.subscribe(topic)
    try:
        current = await load()
    except BaseException:
        subscription.close()
        raise
    return _QueueStream(subscription, [retry] + _since(current, after))


def _since(snapshots: list[dict], after: int) -> list[bytes]:
    """The messages of `snapshots` newer than `after`, in id order: a viewer cut off mid-burst
    resumes after the last id it got and misses none."""
    return [sse_message(snapshot) for snapshot in sorted(snapshots, key=lambda s: s["seq"]) if snapshot["seq"] > after]


@router.get("/api/games/{game_id}/stream", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}})
async def game_stream(game_id: GameId, request: Request, recorder: RecorderDep,
                      last_event_id: LastEventId = None, since: SinceQuery = None):
    """Snapshots of one game. Each event's id is its seq; reconnect with Last-Event-ID to resume."""
    await call(recorder.get_game, game_id)

    async def load() -> list[dict]:
        return [await call(recorder.snapshot, game_id)]

    return await _stream(request, f"game:{game_id}", load, _resume_point(last_event_id, since))


@router.get("/api/events/{event_id}/stream", response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}})
async def event_stream(event_id: EventId, request: Request, recorder: RecorderDep,
                       last_event_id: LastEventId = None, since: SinceQuery = None,
                       round_id: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None):
    """Snapshots of every game of an event (or of one of its rounds: only that round's games,
    now and as they change)."""
    await call(recorder.get_event, event_id)
    if round_id is not None:
        round_row = await call(recorder.get_round, round_id)
        if round_row.event_id != event_id:
            raise HTTPException(404, f"round {round_id} belongs to event {round_row.event_id}, not {event_id}")

    async def load() -> list[dict]:
        rows = await call(recorder.list_games, event_id, round_id)
        return [await call(recorder.snapshot, row.id) for row in rows]

    topic = f"event:{event_id}" if round_id is None else f"round:{round_id}"
    return await _stream(request, topic, load, _resume_point(last_event_id, since))


class _QueueStream(StreamingResponse):
    """Hands the viewer's socket to its subscription (see `server.live`), then waits for it to leave."""

    def __init__(self, subscription, first: list[bytes]) -> None:
        super().__init__(iter(()), media_type="text/event-stream", headers=HEADERS)
        self.subscription, self.first = subscription, first

    async def __call__(self, scope, receive, send) -> None:
        subscription = self.subscription

        async def write(message: bytes) -> None:
            await send({"type": "http.response.body", "body": message, "more_body": True})

        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            for message in self.first:
                await write(message)
            await subscription.attach(write)
            while not subscription.closed and (await receive())["type"] != "http.disconnect":
                pass
        except OSError:
            pass
        finally:
            subscription.close()


class _NaiveStream(StreamingResponse):
    """The benchmark's peer: the publisher awaits this viewer's socket write itself."""

    def __init__(self, naive, topic: str, first: list[bytes]) -> None:
        super().__init__(iter(()), media_type="text/event-stream", headers=HEADERS)
        self.naive, self.topic, self.first = naive, topic, first

    async def __call__(self, scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})

        async def push(message: bytes) -> None:
            await send({"type": "http.response.body", "body": message, "more_body": True})

        for message in self.first:
            await push(message)
        self.naive.add(self.topic, push)
        try:
            while (await receive())["type"] != "http.disconnect":
                pass
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            self.naive.remove(self.topic, push)
