"""Live feed under load: N concurrent SSE viewers on loopback while a game is played.

For each broadcaster (banco's bounded per-viewer queues, and the naive peer: one shared loop
awaiting every viewer's send in turn) this starts one server process on 127.0.0.1, connects the
viewers, plays a game through the station API, and measures for every (viewer, move) the time
from the move's POST to the viewer reading the snapshot, plus the server's CPU while the game
was played. A few viewers are "stalled": they shrink their receive buffer and stop reading,
as a phone in a tunnel would. Everything is bounded: fixed moves, fixed deadlines.

    .venv/bin/python benchmarks/live.py --viewers 2000 --moves 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
TOKEN = "bench-referee"
EVENT_ID = re.compile(rb"id: (\d+)\n")
SERVER = """
import sys, uvicorn
from server.app import create_app
from server.config import Settings
settings = Settings(database_url=sys.argv[1], referee_token=sys.argv[2], broadcaster=sys.argv[3])
uvicorn.run(create_app(settings), host="127.0.0.1", port=int(sys.argv[4]), log_level="error", backlog=8192,
            timeout_graceful_shutdown=1)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def opening(plies: int) -> list[str]:
    import games

    variant = games.get("xiangqi")
    board, iccs = variant.board(), variant.notation("iccs")
    moves = []
    for index in range(plies):
        legal = sorted(str(m) for m in board.legal_moves)
        if not legal or board.outcome() is not None:
            break
        choice = legal[(index * 7) % len(legal)]
        board.push(iccs.parse(board, choice))
        moves.append(choice)
    return moves


class Viewer:
    """One SSE client on a raw socket: records when each event id arrives."""

    def __init__(self, port: int, game_id: int, stalled: bool) -> None:
        self.port, self.game_id, self.stalled = port, game_id, stalled
        self.arrivals: dict[int, float] = {}
        self.connected = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None

    async def run(self, stop: asyncio.Event) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.stalled:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, (HOST, self.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 20)
        self.writer = writer
        writer.write(f"GET /api/games/{self.game_id}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
                     f"Accept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        tail = b""
        while not stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(65536), 0.5)
            except TimeoutError:
                continue
            if not chunk:
                break
            now = time.perf_counter()
            data = tail + chunk
            for match in EVENT_ID.finditer(data):
                self.arrivals.setdefault(int(match.group(1)), now)
            tail = data[-32:]
            if not self.connected.is_set():
                self.connected.set()
                if self.stalled:
                    await stop.wait()  # never read again
                    break

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def measure(mode: str, viewers: int, stalled: int, moves: list[str], interval: float) -> dict:
    port = free_port()
    directory = tempfile.mkdtemp(prefix="banco-bench-")
    database = f"sqlite:///{directory}/live.sqlite3"
    server = subprocess.Popen([sys.executable, "-c", SERVER, database, TOKEN, mode, str(port)], cwd=ROOT)
    base = f"http://{HOST}:{port}"
    headers = {"Authorization": f"Bearer {TOKEN}"}
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for _ in range(300):
                try:
                    await http.get("/api/events")
                    break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            event = (await http.post("/api/events", json={"name": "bench"}, headers=headers)).json()
            board = (await http.post(f"/api/events/{event['id']}/boards", json={"number": 1},
                                     headers=headers)).json()
            game = (await http.post("/api/games", json={"board_id": board["id"], "initial_ms": 900_000},
                                    headers=headers)).json()
            station = {"X-Station-Key": board["station_key"]}

            stop = asyncio.Event()
            clients = [Viewer(port, game["id"], stalled=index < stalled) for index in range(viewers)]
            tasks = []
            for start in range(0, viewers, 200):  # connect in waves to stay inside the accept backlog
                batch = clients[start:start + 200]
                tasks += [asyncio.create_task(c.run(stop)) for c in batch]
                await asyncio.wait_for(asyncio.gather(*(c.connected.wait() for c in batch)), 60)

            process = psutil.Process(server.pid)
            cpu_before, wall_before = process.cpu_times(), time.perf_counter()
            sent: dict[int, float] = {}
            post_ms = []
            for move in moves:
                started = time.perf_counter()
                answer = await http.post(f"/api/games/{game['id']}/moves", json={"move": move}, headers=station)
                post_ms.append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
                sent[answer.json()["seq"]] = started
                await asyncio.sleep(interval)
            # Let the last snapshots arrive (bounded).
            deadline = time.perf_counter() + 10
            last = max(sent)
            while time.perf_counter() < deadline and not all(last in c.arrivals for c in clients[stalled:]):
                await asyncio.sleep(0.05)
            cpu_after, wall_after = process.cpu_times(), time.perf_counter()
            stop.set()
            for client in clients:
                client.close()
            await asyncio.wait(tasks, timeout=10)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    latencies = []
    delivered = 0
    for client in clients[stalled:]:
        for seq, started in sent.items():
            arrived = client.arrivals.get(seq)
            if arrived is not None:
                latencies.append((arrived - started) * 1000)
                delivered += 1
    expected = len(sent) * (viewers - stalled)
    latencies.sort()
    cpu = (cpu_after.user + cpu_after.system) - (cpu_before.user + cpu_before.system)
    return {
        "mode": mode,
        "p50_ms": statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan"),
        "max_ms": latencies[-1] if latencies else float("nan"),
        "delivered": delivered, "expected": expected,
        "cpu_s": cpu, "cpu_pct": 100 * cpu / (wall_after - wall_before),
        "post_p50_ms": statistics.median(post_ms), "post_max_ms": max(post_ms),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=2000)
    parser.add_argument("--stalled", type=int, default=20, help="viewers that stop reading")
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between moves")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.viewers + 256)), hard))
    moves = opening(args.moves)
    print(f"banco live benchmark: {args.viewers} SSE viewers ({args.stalled} stalled) on {HOST}, "
          f"{len(moves)} moves every {args.interval}s, one server process each; cpus={os.cpu_count()}")
    results = {}
    for mode in ("queues", "naive"):
        results[mode] = asyncio.run(measure(mode, args.viewers, args.stalled, moves, args.interval))
        r = results[mode]
        print(f"{mode:>7}: move→viewer p50 {r['p50_ms']:8.1f} ms  p99 {r['p99_ms']:8.1f} ms  "
              f"max {r['max_ms']:8.1f} ms  delivered {r['delivered']}/{r['expected']}  "
              f"server CPU {r['cpu_s']:.2f} s ({r['cpu_pct']:.0f}%)  "
              f"station POST p50 {r['post_p50_ms']:.1f} ms max {r['post_max_ms']:.1f} ms")
    q, n = results["queues"], results["naive"]
    print(f"ratios naive/queues: p50 {n['p50_ms'] / q['p50_ms']:.2f}x  p99 {n['p99_ms'] / q['p99_ms']:.2f}x  "
          f"server CPU {n['cpu_s'] / q['cpu_s']:.2f}x  station POST p50 {n['post_p50_ms'] / q['post_p50_ms']:.2f}x")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
