"""Live feed under load: N concurrent SSE viewers on loopback while a game is played.

For each broadcaster (banco's bounded per-viewer queues, and the naive peer: one shared loop
awaiting every viewer's send in turn) this starts one server process on 127.0.0.1, connects the
viewers, plays a game through the station API, and measures for every (viewer, move) the time
from the move's POST to the viewer reading the snapshot, plus the server's CPU while the game
was played. A few viewers are "stalled": they shrink their receive buffer and stop reading,
as a phone in a tunnel would. Everything is bounded: fixed moves, fixed deadlines.

The viewers must not be what is measured: on a 2-core machine they share the CPUs with the
server. Each is a bare asyncio protocol (uvloop when installed, like the server) that only looks
for ``id: N`` lines, a few hundred per client process; their CPU during the game is printed
beside the server's. A first version read with StreamReader under a per-read timeout and spent
about four times the server's CPU doing so, which is what its latencies measured.

On loopback the kernel lets the server queue megabytes for a stalled socket (tcp_wmem
autotuning), so within one game a stalled viewer rarely pushes back on the server; the
isolation itself is tested in tests/server/test_live.py with a send that never completes.

The machine is shared and noisy: each broadcaster runs `--rounds` times, the order alternating
(queues then naive, naive then queues, …), and the samples are pooled; the p99 of each round is
printed too, so a round that met a busy neighbour shows.

    .venv/bin/python benchmarks/live.py --viewers 2000 --moves 30 --rounds 2
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
# Settings as `banco serve` builds them (BANCO_* environment, then these arguments).
settings = Settings.from_env(database_url=sys.argv[1], referee_token=sys.argv[2], broadcaster=sys.argv[3])
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


class ViewerProtocol(asyncio.Protocol):
    """One SSE client on a raw socket: notes when each event id first arrives, and nothing more.

    It does no parsing beyond finding ``id: N`` lines, so a few processes of these cost far less
    CPU than the server they measure.
    """

    def __init__(self, request: bytes, stalled: bool, connected: asyncio.Future) -> None:
        self.request, self.stalled, self.connected = request, stalled, connected
        self.arrivals: dict[int, float] = {}
        self.transport: asyncio.Transport | None = None
        self.tail = b""

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        text = self.tail + data
        for match in EVENT_ID.finditer(text):
            self.arrivals.setdefault(int(match.group(1)), now)
        self.tail = text[-32:]
        if not self.connected.done():
            self.connected.set_result(None)
            if self.stalled:
                self.transport.pause_reading()  # never read again, like a phone in a tunnel

    def connection_lost(self, exc) -> None:
        if not self.connected.done():
            self.connected.set_exception(ConnectionError(f"viewer lost its connection: {exc}"))


async def _connect(port: int, game_id: int, stalled: bool) -> ViewerProtocol:
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if stalled:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await loop.sock_connect(sock, (HOST, port))
    request = (f"GET /api/games/{game_id}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
               f"Accept: text/event-stream\r\n\r\n").encode()
    connected = loop.create_future()
    _, protocol = await loop.create_connection(lambda: ViewerProtocol(request, stalled, connected), sock=sock)
    return protocol


async def _viewers(port: int, game_id: int, count: int, stalled: int, ready, stop_flag, results) -> None:
    clients: list[ViewerProtocol] = []
    for start in range(0, count, 100):  # connect in waves to stay inside the accept backlog
        wave = await asyncio.gather(*(_connect(port, game_id, start + i < stalled)
                                      for i in range(min(100, count - start))))
        await asyncio.wait_for(asyncio.gather(*(c.connected for c in wave)), 120)
        clients += wave
    ready.set()
    while not stop_flag.is_set():
        await asyncio.sleep(0.05)
    for client in clients:
        client.transport.close()
    results.put([(c.stalled, c.arrivals) for c in clients])


def viewer_process(*args) -> None:
    try:
        import uvloop  # the server runs on uvloop too (uvicorn[standard]); the cheaper, the fairer
    except ImportError:
        asyncio.run(_viewers(*args))
    else:
        uvloop.run(_viewers(*args))


def _cpu(times) -> float:
    return times.user + times.system


def _p99(ordered: list[float]) -> float:
    return ordered[int(0.99 * (len(ordered) - 1))] if ordered else float("nan")


def measure(mode: str, viewers: int, stalled: int, moves: list[str], interval: float, workers: int) -> dict:
    import multiprocessing

    port = free_port()
    directory = tempfile.mkdtemp(prefix="banco-bench-")
    database = f"sqlite:///{directory}/live.sqlite3"
    server = subprocess.Popen([sys.executable, "-c", SERVER, database, TOKEN, mode, str(port)], cwd=ROOT)
    base = f"http://{HOST}:{port}"
    headers = {"Authorization": f"Bearer {TOKEN}"}
    context = multiprocessing.get_context("spawn")
    processes = []
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            for _ in range(300):
                try:
                    http.get("/api/events")
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            event = http.post("/api/events", json={"name": "bench"}, headers=headers).json()
            board = http.post(f"/api/events/{event['id']}/boards", json={"number": 1}, headers=headers).json()
            game = http.post("/api/games", json={"board_id": board["id"], "initial_ms": 900_000},
                             headers=headers).json()
            station = {"X-Station-Key": board["station_key"]}

            stop_flag, results = context.Event(), context.Queue()
            readies = []
            for index in range(workers):
                count = viewers // workers + (1 if index < viewers % workers else 0)
                share = stalled // workers + (1 if index < stalled % workers else 0)
                ready = context.Event()
                process = context.Process(target=viewer_process,
                                          args=(port, game["id"], count, share, ready, stop_flag, results))
                process.start()
                processes.append(process)
                readies.append(ready)
            for ready in readies:
                if not ready.wait(180):
                    raise RuntimeError("viewers did not connect within 180 s")

            process = psutil.Process(server.pid)
            clients = [psutil.Process(p.pid) for p in processes]
            cpu_before, wall_before = process.cpu_times(), time.perf_counter()
            clients_before = sum(_cpu(c.cpu_times()) for c in clients)
            sent: dict[int, float] = {}
            post_ms = []
            blocked = 0
            for move in moves:
                started = time.perf_counter()
                try:
                    answer = http.post(f"/api/games/{game['id']}/moves", json={"move": move}, headers=station,
                                       timeout=10)
                except httpx.TimeoutException:
                    blocked += 1  # the station waited 10 s for its move to be accepted: stop the game
                    break
                post_ms.append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
                sent[answer.json()["seq"]] = started
                time.sleep(interval)
            time.sleep(min(10, 2 + len(moves) * 0.05))  # bounded wait for the last snapshots
            cpu_after, wall_after = process.cpu_times(), time.perf_counter()
            clients_cpu = sum(_cpu(c.cpu_times()) for c in clients) - clients_before
            stop_flag.set()
            gathered = []
            for _ in processes:
                gathered += results.get(timeout=60)
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    per_move: dict[int, list[float]] = {seq: [] for seq in sent}
    for is_stalled, arrivals in gathered:
        if is_stalled:
            continue
        for seq, started in sent.items():
            arrived = arrivals.get(seq)
            if arrived is not None:
                per_move[seq].append((arrived - started) * 1000)
    return {"mode": mode, "per_move": [sorted(values) for values in per_move.values()],
            "expected": len(moves) * (viewers - stalled), "moves_accepted": len(sent), "blocked": blocked,
            "cpu_s": _cpu(cpu_after) - _cpu(cpu_before), "wall_s": wall_after - wall_before,
            "clients_cpu_s": clients_cpu, "post_ms": post_ms}


def summarize(runs: list[dict]) -> dict:
    """One broadcaster's runs pooled: every (viewer, move) latency of every round counts once."""
    per_move = [values for run in runs for values in run["per_move"]]
    latencies = sorted(value for values in per_move for value in values)
    move_p99 = sorted(_p99(values) for values in per_move if values)
    post_ms = [value for run in runs for value in run["post_ms"]]
    cpu, wall = sum(run["cpu_s"] for run in runs), sum(run["wall_s"] for run in runs)
    return {
        "mode": runs[0]["mode"], "rounds": len(runs),
        "p50_ms": statistics.median(latencies) if latencies else float("nan"),
        "p99_ms": _p99(latencies),
        "max_ms": latencies[-1] if latencies else float("nan"),
        "round_p99_ms": [_p99(sorted(v for values in run["per_move"] for v in values)) for run in runs],
        "move_p99_median_ms": statistics.median(move_p99) if move_p99 else float("nan"),
        "move_p99_worst_ms": move_p99[-1] if move_p99 else float("nan"),
        "delivered": len(latencies), "expected": sum(run["expected"] for run in runs),
        "moves_accepted": sum(run["moves_accepted"] for run in runs), "blocked": sum(run["blocked"] for run in runs),
        "cpu_s": cpu, "cpu_pct": 100 * cpu / wall if wall else float("nan"),
        "clients_cpu_s": sum(run["clients_cpu_s"] for run in runs),
        "post_p50_ms": statistics.median(post_ms) if post_ms else float("nan"),
        "post_max_ms": max(post_ms) if post_ms else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=2000)
    parser.add_argument("--stalled", type=int, default=20, help="viewers that stop reading")
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between moves")
    parser.add_argument("--workers", type=int, default=4, help="viewer processes")
    parser.add_argument("--rounds", type=int, default=2,
                        help="runs per broadcaster, alternating which goes first; samples are pooled")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.viewers + 256)), hard))
    moves = opening(args.moves)
    print(f"banco live benchmark: {args.viewers} SSE viewers ({args.stalled} stalled) on {HOST}, "
          f"{len(moves)} moves every {args.interval}s, one server process per broadcaster and round "
          f"({args.rounds} rounds), "
          f"viewers in {args.workers} client processes; cpus={os.cpu_count()}")
    runs: dict[str, list[dict]] = {"queues": [], "naive": []}
    for index in range(args.rounds):  # the order alternates, so neither side always goes first
        for mode in ("queues", "naive") if index % 2 == 0 else ("naive", "queues"):
            runs[mode].append(measure(mode, args.viewers, args.stalled, moves, args.interval, args.workers))
    results = {mode: summarize(mode_runs) for mode, mode_runs in runs.items()}
    for mode, r in results.items():
        print(f"{mode:>7}: move→viewer p50 {r['p50_ms']:8.1f} ms  p99 {r['p99_ms']:8.1f} ms  "
              f"max {r['max_ms']:8.1f} ms  delivered {r['delivered']}/{r['expected']}  "
              f"moves accepted {r['moves_accepted']}/{len(moves) * r['rounds']}  "
              f"server CPU {r['cpu_s']:.2f} s ({r['cpu_pct']:.0f}%)  "
              f"station POST p50 {r['post_p50_ms']:.1f} ms max {r['post_max_ms']:.1f} ms")
        rounds = ", ".join(f"{value:.1f}" for value in r["round_p99_ms"])
        print(f"{'':>7}  p99 by round: {rounds} ms; per move p99: median {r['move_p99_median_ms']:.1f} ms, "
              f"worst {r['move_p99_worst_ms']:.1f} ms; viewer processes' CPU {r['clients_cpu_s']:.2f} s")
    q, n = results["queues"], results["naive"]
    print(f"ratios naive/queues: p50 {n['p50_ms'] / q['p50_ms']:.2f}x  p99 {n['p99_ms'] / q['p99_ms']:.2f}x  "
          f"server CPU {n['cpu_s'] / q['cpu_s']:.2f}x  station POST p50 {n['post_p50_ms'] / q['post_p50_ms']:.2f}x")
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
