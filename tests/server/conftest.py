"""Fixtures: databases (SQLite file, a fresh PostgreSQL database), the app, a live uvicorn server."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from server.config import Settings
from tests.services import unavailable

ROOT = Path(__file__).resolve().parents[2]
REFEREE = "referee-secret"
REFEREE_HEADERS = {"Authorization": f"Bearer {REFEREE}"}


def _postgres_server_url() -> tuple[str | None, str]:
    url = os.environ.get("BANCO_TEST_POSTGRES_URL")
    if url:
        return url, ""
    # Run outside `make test`: start the same private cluster the Makefile would.
    try:
        done = subprocess.run([str(ROOT / ".ci" / "postgres.sh")], cwd=ROOT, capture_output=True, text=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"could not run .ci/postgres.sh: {error}"
    if done.returncode != 0 or not done.stdout.strip():
        return None, done.stderr.strip() or "‘.ci/postgres.sh’ printed no URL"
    return done.stdout.strip(), ""


@pytest.fixture(scope="session")
def postgres_server() -> str:
    url, why = _postgres_server_url()
    if url is None:
        unavailable(f"PostgreSQL cannot start here: {why}")
    try:
        engine = create_engine(url, isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            connection.execute(text("select 1"))
        engine.dispose()
    except Exception as error:
        unavailable(f"PostgreSQL at {url} does not answer: {error}")
    return url


@pytest.fixture
def postgres_url(postgres_server: str):
    name = f"banco_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(postgres_server).set(database=name).render_as_string(hide_password=False)
    yield url
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'banco.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def settings(sqlite_url: str) -> Settings:
    return Settings(database_url=sqlite_url, referee_token=REFEREE)


@pytest.fixture
def client(settings: Settings):
    from fastapi.testclient import TestClient

    from server.app import create_app

    with TestClient(create_app(settings)) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """The app under uvicorn in a thread, on a free loopback port."""

    def __init__(self, settings: Settings) -> None:
        import uvicorn

        from server.app import create_app

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(settings)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def live_server(settings: Settings):
    with LiveServer(settings) as server:
        yield server


def new_game(http, **extra) -> tuple[int, dict[str, str]]:
    """An event with one board and a game on it; returns the game id and the station's headers."""
    event = http.post("/api/events", json={"name": "Giải thử", "game": "xiangqi"}, headers=REFEREE_HEADERS)
    assert event.status_code == 201, event.text
    board = http.post(f"/api/events/{event.json()['id']}/boards", json={"number": 1}, headers=REFEREE_HEADERS)
    assert board.status_code == 201, board.text
    body = {"white": "Lại Lý Huynh", "black": "Nguyễn Thành Bảo", "board_id": board.json()["id"]} | extra
    game = http.post("/api/games", json=body, headers=REFEREE_HEADERS)
    assert game.status_code == 201, game.text
    return game.json()["id"], {"X-Station-Key": board.json()["station_key"]}
