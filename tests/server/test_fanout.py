"""Past one process: two API processes share the record and fan snapshots out through Redis Streams."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from server.config import Settings
from tests.server.conftest import REFEREE, LiveServer, new_game
from tests.server.test_live import SseReader
from tests.services import unavailable

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


@pytest.fixture
def redis_url(tmp_path):
    if not Path(REDIS).exists():
        unavailable("redis-server missing: the Debian package redis-server (make test installs it)")
    socket_path = tmp_path / "redis.sock"
    process = subprocess.Popen([REDIS, "--port", "0", "--unixsocket", str(socket_path), "--save", "",
                                "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while not socket_path.exists():
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            unavailable("redis-server did not start")
        time.sleep(0.05)
    yield f"unix://{socket_path}"
    process.kill()
    process.wait(5)


def test_a_move_posted_to_one_process_reaches_viewers_of_another(sqlite_url, redis_url):
    settings = Settings(database_url=sqlite_url, referee_token=REFEREE, redis_url=redis_url)
    with LiveServer(settings) as writer, LiveServer(settings) as reader_server:
        with httpx.Client(base_url=writer.url) as http:
            game_id, station = new_game(http)
            reader = SseReader(f"{reader_server.url}/api/games/{game_id}/stream")
            _, first = reader.next()
            assert first["ply"] == 0
            time.sleep(0.3)  # the reader process's stream cursor starts at "now"
            assert http.post(f"/api/games/{game_id}/moves", json={"move": "h2e2"}, headers=station).status_code == 201
            event_id, snapshot = reader.next()
            assert snapshot["moves"]["iccs"] == ["h2e2"] and event_id == snapshot["seq"]
            reader.close()
