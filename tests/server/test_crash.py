"""A server killed with SIGKILL in the middle of a game serves every committed move after restart."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time

import httpx

import games
from tests.server.conftest import REFEREE, free_port, new_game


def random_game(plies: int, seed: int) -> list[str]:
    board = games.get("xiangqi").board()
    rng = random.Random(seed)
    moves = []
    for _ in range(plies):
        legal = sorted(str(move) for move in board.legal_moves)
        if not legal or board.outcome() is not None:
            break
        choice = rng.choice(legal)
        board.push(games.get("xiangqi").notation("iccs").parse(board, choice))
        moves.append(choice)
    return moves


def start_server(port: int, database: str | None, **env_extra: str) -> subprocess.Popen:
    env = dict(os.environ, BANCO_REFEREE_TOKEN=REFEREE, **env_extra)
    env.pop("BANCO_DATABASE_URL", None)
    command = [sys.executable, "-m", "banco", "serve", "--port", str(port)]
    if database is not None:
        command += ["--database", database]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/events", timeout=1)
            return process
        except httpx.HTTPError:
            if process.poll() is not None:
                raise RuntimeError(f"banco serve exited: {process.stderr.read().decode()}") from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("banco serve did not start within 30 s")


def test_sigkill_mid_game_loses_no_committed_move(tmp_path):
    database = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    moves = random_game(60, seed=8)
    server = start_server(port, database)
    acknowledged: list[str] = []
    try:
        with httpx.Client(base_url=url, timeout=5) as http:
            game_id, station = new_game(http)

            def play() -> None:
                for move in moves:
                    try:
                        answer = http.post(f"/api/games/{game_id}/moves", json={"move": move}, headers=station)
                    except httpx.HTTPError:
                        return  # the server died under us: this move may or may not be stored
                    if answer.status_code != 201:
                        return
                    acknowledged.append(move)

            player = threading.Thread(target=play)
            player.start()
            while len(acknowledged) < 15 and player.is_alive():
                time.sleep(0.005)
            server.send_signal(signal.SIGKILL)  # mid-game, with requests in flight
            server.wait(10)
            player.join(10)
    finally:
        if server.poll() is None:
            server.kill()
    assert 15 <= len(acknowledged) < len(moves)

    server = start_server(port, database)
    try:
        with httpx.Client(base_url=url, timeout=5) as http:
            stored = [m["text"] for m in http.get(f"/api/games/{game_id}/moves").json()]
            snapshot = http.get(f"/api/games/{game_id}/snapshot").json()
            # Every acknowledged move is there, in order; at most the one in flight beyond them.
            assert stored[:len(acknowledged)] == acknowledged
            assert len(stored) - len(acknowledged) in (0, 1)
            assert stored == moves[:len(stored)]
            assert snapshot["moves"]["iccs"] == stored
            # And the game goes on from there.
            following = moves[len(stored)]
            answer = http.post(f"/api/games/{game_id}/moves", json={"move": following}, headers=station)
            assert answer.status_code == 201, answer.text
    finally:
        server.kill()
        server.wait(10)


def test_by_default_the_record_is_a_sqlite_file_in_the_user_data_directory(tmp_path):
    port = free_port()
    server = start_server(port, None, XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
            game_id, station = new_game(http)
            http.post(f"/api/games/{game_id}/moves", json={"move": "h2e2"}, headers=station)
    finally:
        server.kill()
        server.wait(10)
    database = tmp_path / "data" / "banco" / "banco.sqlite3"
    assert database.exists()
    import sqlite3

    with sqlite3.connect(database) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert connection.execute("SELECT text FROM moves").fetchall() == [("h2e2",)]
