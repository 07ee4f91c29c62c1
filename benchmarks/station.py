"""What the station costs on top of the tracker, on the demo's rendered master game.

    .venv/bin/python benchmarks/station.py [--plies 16]

Peer, measured in the same run on the same video: the tracker alone (decode every frame and
`MoveTracker.feed` it). The station adds the rest of the path of a move — the simulated clock
and LED board over pseudo-terminals, binding presses, the rules engine, the SQLite record
(durable before broadcast) and the status for the pages. Both run as fast as they can; the
real-time factor is video seconds per wall second (above 1: faster than the game is played).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where benchmarks/vision.py would
# hide the `vision` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import cv2  # noqa: E402

import games  # noqa: E402
from banco.demo import DEMO_FPS, DEMO_SEED, DEMO_SIZE, build, demo_game, run_headless  # noqa: E402
from calibration.profile import from_dict  # noqa: E402
from models.synth.video import cached_game  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.tracker import MoveTracker  # noqa: E402


def bare_tracker(rendered) -> tuple[float, int, int]:
    truth = rendered.truth_data
    calibration = from_dict(truth["calibration"])
    tracker = MoveTracker("xiangqi", games.get("xiangqi").board(truth["start_fen"]), Detector("xiangqi", calibration),
                          calibration, wait_for_start=False)
    capture = cv2.VideoCapture(str(rendered.video))
    started = time.perf_counter()
    frames = moves = 0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        for event in tracker.feed(frame, frames / truth["fps"]):
            if event.kind == "move":
                moves += len(event.moves)
        frames += 1
    return time.perf_counter() - started, frames, moves


def station(rendered) -> tuple[float, int]:
    run = build("xiangqi", speed=0, database=Path(tempfile.mkdtemp()) / "bench.sqlite3", rendered=rendered)
    started = time.perf_counter()
    report = run_headless(run)
    return time.perf_counter() - started, len(report.stored)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=16)
    args = parser.parse_args()
    chosen = demo_game("xiangqi")
    rendered = cached_game("xiangqi", chosen.moves[:args.plies], seed=DEMO_SEED, fps=DEMO_FPS, size=DEMO_SIZE)
    seconds = rendered.truth_data["frames"] / rendered.truth_data["fps"]
    bare_s, frames, seen = bare_tracker(rendered)
    station_s, stored = station(rendered)
    print(f"video: {chosen.title}, {args.plies} plies, {frames} frames, {seconds:.1f} s at {DEMO_FPS:g} fps")
    print(f"tracker alone (peer): {bare_s:6.1f} s, {seen} moves seen, real-time factor {seconds / bare_s:.2f}")
    print(f"whole station:        {station_s:6.1f} s, {stored} moves recorded, real-time factor "
          f"{seconds / station_s:.2f}")
    print(f"station / tracker alone: {station_s / bare_s:.2f}x")


if __name__ == "__main__":
    main()
