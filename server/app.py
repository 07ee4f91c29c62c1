"""The FastAPI application: `create_app()` builds it; `banco serve` runs it with uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from games.base import BancoError, GameOverError
from server.config import Settings
from server.fanout import LocalFanout, RedisFanout
from server.live import Hub, NaiveHub
from server.matches import Matches
from server.record import ConflictError, NotFoundError, Recorder
from server.station.status import StationRegistry
from server.store import make_engine, migrate, session_factory
from server.tournament import Tournament


class StoreError(BancoError):
    """The record's database cannot be opened: a URL SQLAlchemy cannot read, or a server or
    file that cannot be reached."""


def _open_store(url: str | None):
    from sqlalchemy.exc import ArgumentError, OperationalError

    try:
        engine = make_engine(url)
        migrate(engine)
    except (ArgumentError, OperationalError) as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise StoreError(f"cannot open the record {url!r}: {reason}") from None
    return engine


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await app.state.fanout.start()
        keepalive = asyncio.create_task(app.state.hub.run_keepalive())
        if settings.freeze_startup_heap:
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            keepalive.cancel()
            await app.state.fanout.stop()

    app = FastAPI(title="banco", version="0.1.0", lifespan=lifespan,
                  description="Record, broadcast and referee games played on real boards.")
    engine = _open_store(settings.database_url)
    app.state.settings = settings
    app.state.engine = engine
    app.state.recorder = Recorder(session_factory(engine))
    app.state.tournament = Tournament(app.state.recorder)
    app.state.matches = Matches(app.state.recorder)
    app.state.hub = Hub()
    app.state.stations = StationRegistry()  # what each station (embedded or remote) reports, for the pages
    app.state.naive = NaiveHub() if settings.broadcaster == "naive" else None
    if settings.redis_url:
        app.state.fanout = RedisFanout(settings.redis_url, app.state.hub)
    elif app.state.naive is not None:
        app.state.fanout = LocalFanout(naive=app.state.naive)
    else:
        app.state.fanout = LocalFanout(hub=app.state.hub)

    @app.exception_handler(BancoError)
    async def bad_input(_request: Request, error: BancoError) -> JSONResponse:
        status = 422
        if isinstance(error, NotFoundError):
            status = 404
        elif isinstance(error, ConflictError | GameOverError):
            status = 409
        return JSONResponse({"detail": str(error)}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def malformed(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems: dict[str, None] = {}  # in order, once: a path parameter a dependency checks too fails twice
        for item in error.errors():
            where = ".".join(str(part) for part in item.get("loc", ()))
            problems[f"{where}: {item.get('msg')}"] = None
        return JSONResponse({"detail": "; ".join(problems) or "malformed request",
                             "errors": jsonable(error.errors())}, status_code=422)

    from server.api import boards, events, games_routes, live_routes, moves, pages, players, rounds, tournaments
    from server.api import matches as match_routes
    from server.station import routes as station_routes

    for module in (events, rounds, boards, players, games_routes, moves, live_routes, tournaments, pages,
                   station_routes):
        app.include_router(module.router)
    app.include_router(match_routes.router)
    return app


def jsonable(errors: list) -> list:
    from fastapi.encoders import jsonable_encoder

    cleaned = []
    for item in errors:
        item = dict(item)
        item.pop("ctx", None)
        item.pop("input", None)
        cleaned.append(item)
    return jsonable_encoder(cleaned)


async def call(function, *args, **kwargs):
    """Run a recorder call in a worker thread: the database must not block the event loop."""
    return await run_in_threadpool(function, *args, **kwargs)
