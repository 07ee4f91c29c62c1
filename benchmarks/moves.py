"""From rendered game videos to moves: banco's tracker against a naive baseline, same run.

For every game of `models.synth.video.game_suite` (held-out board and piece styles, seeds from
1000, 10–30 fps, hands, light drift, shake, one injected illegal move and one pair of plies
cut from the picture per game) both trackers read the same 1280×720 frames:

- **banco**: `vision.tracker.MoveTracker` (motion gate, crops read only where they changed,
  windowed smoothing, likelihood over legal moves and 2–3-ply sequences);
- **naive**: the same motion gate, then on the first still frame every point classified and
  the legal move committed that explains the most changed points (no smoothing, no window).

Printed per tracker: games recovered whole, moves recovered in order (their text equal to the
truth's), positions in order (the same position after each ply: a Cờ Toán capture made by
another operation than the truth's, which no camera can tell, counts here only), spurious moves,
illegal moves reported, false illegal alarms (an `illegal` report while no illegal move is being
made and the game is on track: each asks the referee to look for nothing), latency from the hand
leaving the board (the truth's frame_done) to the commit (median, p95), frames per second
through the tracker (decoding excluded), and the ratios banco / naive.

    .venv/bin/python -m benchmarks.moves --games 30            # the acceptance count, 10 per game
    .venv/bin/python -m benchmarks.moves --games 3 --plies 40  # a quicker look
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where benchmarks/vision.py would
# hide the `vision` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import numpy as np  # noqa: E402

import games  # noqa: E402
from calibration import profile  # noqa: E402
from vision import events as ev  # noqa: E402
from vision import inference as inf  # noqa: E402
from vision.capture import FrameSource  # noqa: E402
from vision.detector import Detector, default_model_path  # noqa: E402
from vision.tracker import MoveTracker  # noqa: E402

GAMES = ("xiangqi", "commander", "cotoan")


class NaiveTracker(MoveTracker):
    """The baseline: read every point on the first still frame; commit the legal move whose
    from/to points cover the most points whose best class changed."""

    def feed(self, frame, timestamp):
        self.frames += 1
        self._now = timestamp
        moving = self._motion(frame)
        if moving:
            self.last_motion = timestamp
            self._settled = False
            return []
        if not self.started:
            self.started = True
            return [ev.StartFound(self.board.fen(), timestamp)]
        if self._settled:
            return []
        self._settled = True
        observation = self.detector.observe(frame)
        self.classified_crops += len(observation.points)
        evidence = inf.Evidence.from_observation(observation)
        view = self.rules.view(self.board)
        best = np.argmax(evidence.logp, axis=1)
        changed = {evidence.points[i] for i in np.flatnonzero(best != view)}
        if len(changed) < 2:
            return []
        scored = [(len({m.from_point, m.to_point} & changed), i, m) for i, m in enumerate(self.board.legal_moves)]
        if not scored:
            return []
        hits, _, move = max(scored, key=lambda t: (t[0], -t[1]))
        if hits < 2:
            return []
        san = self.rules.write(self.board, move)
        self.board.push(move)
        return [ev.MoveCommitted([move], [san], timestamp, {})]


@dataclass
class Score:
    name: str
    games: int = 0
    whole: int = 0
    truth_moves: int = 0
    recovered: int = 0
    positions: int = 0  # plies whose position matches the truth's, in order (the camera's own view)
    spurious: int = 0
    illegal_truth: int = 0
    illegal_reported: int = 0
    false_alarms: int = 0  # `illegal` reports with no injected illegal move near: the referee's noise
    latencies: list[float] = field(default_factory=list)
    frames: int = 0
    seconds: float = 0.0

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        lat = self.latencies
        median = statistics.median(lat) * 1000 if lat else float("nan")
        p95 = float(np.percentile(lat, 95)) * 1000 if lat else float("nan")
        return (f"{self.name:7s} games whole {self.whole}/{self.games}  moves {self.recovered}/{self.truth_moves}  "
                f"positions {self.positions}/{self.truth_moves}  "
                f"spurious {self.spurious}  illegal reported {self.illegal_reported}/{self.illegal_truth}  "
                f"false illegal alarms {self.false_alarms}  "
                f"latency median {median:.0f} ms p95 {p95:.0f} ms  {self.fps:.1f} frames/s")


def run_one(tracker: MoveTracker, video, truth: dict, score: Score) -> list:
    events = []
    stamp = 0.0
    busy = 0.0
    frames = 0
    for frame, stamp in FrameSource(video):
        began = time.perf_counter()
        events.extend(tracker.feed(frame, stamp))
        busy += time.perf_counter() - began
        frames += 1
    events.extend(tracker.finish(stamp))
    score.frames += frames
    score.seconds += busy
    judge(events, truth, score)
    return events


def judge(events: list, truth: dict, score: Score) -> None:
    fps = truth["fps"]
    expected = [m["move"] for m in truth["moves"]]
    committed: list[tuple[str, float]] = [(san, e.timestamp) for e in events if isinstance(e, ev.MoveCommitted)
                                          for san in e.san]
    matched = 0
    while matched < min(len(expected), len(committed)) and committed[matched][0] == expected[matched]:
        matched += 1
    score.games += 1
    score.truth_moves += len(expected)
    score.recovered += matched
    score.spurious += max(0, len(committed) - matched) if matched == len(expected) else 0
    score.whole += int(matched == len(expected) == len(committed))
    score.positions += same_positions(events, truth)
    for index in range(matched):
        move = truth["moves"][index]
        if move.get("cut"):
            continue
        score.latencies.append(max(0.0, committed[index][1] - move["frame_done"] / fps))
    geometry = games.get(truth["game"]).geometry
    explained: set[int] = set()
    for wrong in truth.get("illegal", []):
        score.illegal_truth += 1
        spots = {geometry.parse_point(wrong["from"]), geometry.parse_point(wrong["to"])}
        window = (wrong["frame_done"] / fps - 0.2, wrong["frame_restored"] / fps + 0.5)
        reports = [index for index, e in enumerate(events) if isinstance(e, ev.Illegal)
                   and window[0] <= e.timestamp <= window[1]]
        explained.update(reports)
        if any(spots & set(events[index].points) for index in reports):
            score.illegal_reported += 1
    # Counted only while the game is still on track: once off it, every look disagrees.
    off_track = committed[matched][1] if matched < len(committed) else float("inf")
    if matched < len(expected):
        off_track = min(off_track, truth["moves"][matched]["frame_done"] / fps)
    score.false_alarms += sum(1 for index, e in enumerate(events) if isinstance(e, ev.Illegal)
                              and index not in explained and e.timestamp < off_track)


def same_positions(events: list, truth: dict) -> int:
    """How many plies, in order, reach the truth's position. A Cờ Toán capture can be made by
    several operations (RULES.md D14) that leave the same position: the camera cannot see which
    one the player used, so it counts here although its text differs from the truth's."""
    variant = games.get(truth["game"])
    expected, seen = variant.record_board(truth["start_fen"]), variant.record_board(truth["start_fen"])
    reader = variant.notation()
    moves = [m for e in events if isinstance(e, ev.MoveCommitted) for m in e.moves]
    count = 0
    for entry, move in zip(truth["moves"], moves, strict=False):
        expected.push(reader.parse(expected, entry["move"]))
        seen.push(move)
        if seen.fen() != expected.fen():
            break
        count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games in all, shared among the games with a model")
    parser.add_argument("--plies", type=int, default=None, help="plies per game (default: the suite's, ≥ 80 moves)")
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--only", choices=GAMES, default=None, help="one game only")
    args = parser.parse_args(argv)
    from models.synth.video import cached_game, game_suite

    available = [g for g in (args.only,) if g] or [g for g in GAMES if default_model_path(g).is_file()]
    for game in GAMES:
        if game not in available and args.only is None:
            print(f"{game}: skipped, no point classifier shipped ({default_model_path(game).name})")
    per_game = max(1, args.games // max(1, len(available)))
    ours, naive = Score("banco"), Score("naive")
    for game in available:
        for spec in game_suite(game, per_game, first_seed=args.first_seed, plies=args.plies):
            began = time.perf_counter()
            rendered = cached_game(**spec)
            render_s = time.perf_counter() - began
            truth = rendered.truth_data
            cal = profile.from_dict(truth["calibration"])
            detector = Detector(game, cal)
            variant = games.get(game)
            before = (ours.recovered, naive.recovered, ours.positions)
            # banco's tracker adapts the detector to the set at the start, as a station does; the
            # naive one then reads through the same adaptation (recognition alike, tracking compared).
            run_one(MoveTracker(game, variant.record_board(truth["start_fen"]), detector, cal, adapt_at_start=True),
                    rendered.video, truth, ours)
            run_one(NaiveTracker(game, variant.record_board(truth["start_fen"]), detector, cal), rendered.video,
                    truth, naive)
            print(f"{game} seed {spec['seed']}: {len(truth['moves'])} plies at {truth['fps']:g} fps "
                  f"(render {render_s:.0f} s): banco {ours.recovered - before[0]}, naive "
                  f"{naive.recovered - before[1]} moves in order; banco {ours.positions - before[2]} positions",
                  flush=True)
    print()
    print(ours.line())
    print(naive.line())
    parts = [f"frames/s {ours.fps / naive.fps:.2f}" if naive.fps else "frames/s n/a",
             f"moves in order {ours.recovered / max(1, naive.recovered):.2f}"]
    if ours.latencies and naive.latencies and statistics.median(naive.latencies) > 0:
        parts.insert(0, f"latency median {statistics.median(ours.latencies) / statistics.median(naive.latencies):.2f}")
    else:
        parts.insert(0, "latency median n/a (the naive tracker commits on the first still frame)")
    print("ratios banco/naive: " + "  ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
