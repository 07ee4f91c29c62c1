"""Following a knocked board without markers (calibration.follow), against keeping the first
calibration (what watch and record did before session 45).

    .venv/bin/python benchmarks/follow.py [--games xiangqi,commander,cotoan] [--seed 45]

Per game, two rendered games on a board without markers (`models.synth.video.render_game`,
`markers=False`, 960 × 540, held-out look): one knocked after ply 3 (the board slides 10–18 mm
and turns 1.5–4° under the still camera), one never knocked. Each is tracked twice from the true
starting calibration: with a `BoardFollower` as the tracker's locator, and with none (the named
baseline). Printed: the moves committed right, the `BoardMoved` events (after the knock / on the
game never knocked: false ones), how far the calibration ends from the truth after the knock (in
piece radii; the crops forgive about a third of one), and what the follower's looks cost: the
median still look, and the longest (a search for the board afresh).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where benchmarks/vision.py would
# hide the `vision` package the renderer imports.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import games  # noqa: E402
from calibration import profile  # noqa: E402
from calibration.follow import BoardFollower  # noqa: E402
from models.synth.playout import random_game  # noqa: E402
from models.synth.video import render_game  # noqa: E402
from vision import events as ev  # noqa: E402
from vision.capture import FrameSource  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.tracker import MoveTracker  # noqa: E402

PLIES = 7
KNOCKED_AFTER = 3


class TimedFollower(BoardFollower):
    """A follower that keeps how long each look took."""

    def __init__(self, calibration) -> None:
        super().__init__(calibration)
        self.seconds: list[float] = []

    def update(self, frame) -> bool:
        began = time.perf_counter()
        try:
            return super().update(frame)
        finally:
            self.seconds.append(time.perf_counter() - began)


def track(game: str, rendered, follow: bool):
    truth = rendered.truth_data
    start = profile.from_dict(truth["calibration"])
    locator = TimedFollower(start) if follow else None
    tracker = MoveTracker(game, games.get(game).board(truth["start_fen"]), Detector(game, start), start,
                          locator=locator)
    events, stamp = [], 0.0
    for frame, stamp in FrameSource(rendered.video):
        events.extend(tracker.feed(frame, stamp))
    events.extend(tracker.finish(stamp))
    committed = [san for e in events if isinstance(e, ev.MoveCommitted) for san in e.san]
    right = sum(a == b["move"] for a, b in zip(committed, truth["moves"], strict=False))
    moved = [e for e in events if isinstance(e, ev.BoardMoved)]
    return tracker, right, moved, locator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="xiangqi,commander,cotoan")
    parser.add_argument("--seed", type=int, default=45, help="the render seed (tests use 0-999 too)")
    args = parser.parse_args()
    drift_follow, drift_kept = [], []
    with tempfile.TemporaryDirectory() as folder:
        for number, game in enumerate(args.games.split(",")):
            seed = args.seed + number
            moves = random_game(game, PLIES, seed=seed)
            knocked = render_game(game, moves, Path(folder) / f"{game}-knocked", seed=seed, fps=10,
                                  size=(960, 540), board_moved_after=[KNOCKED_AFTER], markers=False)
            still = render_game(game, moves, Path(folder) / f"{game}-still", seed=seed, fps=10, size=(960, 540),
                                markers=False)
            truth = knocked.truth_data
            after = profile.from_dict(truth["board_moved"][0]["calibration"])
            radius = after.piece_radius_px()
            knock_at = truth["board_moved"][0]["frame"] / truth["fps"]
            followed, right, moved, follower = track(game, knocked, follow=True)
            kept, kept_right, _, _ = track(game, knocked, follow=False)
            _, still_right, false_moves, still_follower = track(game, still, follow=True)
            drift_follow.append(followed.calibration.drift_px(after) / radius)
            drift_kept.append(kept.calibration.drift_px(after) / radius)
            looks = sorted(follower.seconds + still_follower.seconds)
            found = [e for e in moved if e.timestamp >= knock_at]
            print(f"{game:9s} knocked game: moves right {right}/{PLIES} following, {kept_right}/{PLIES} keeping the "
                  f"first calibration; board moved noted {len(found)} time(s) after the knock "
                  f"({[round(e.timestamp - knock_at, 1) for e in found]} s after it), {len(moved) - len(found)} before")
            print(f"{game:9s} calibration after the knock, from the truth: following {drift_follow[-1]:.2f} radii, "
                  f"keeping the first {drift_kept[-1]:.2f} radii")
            print(f"{game:9s} game never knocked: moves right {still_right}/{PLIES}, board moved noted "
                  f"{len(false_moves)} time(s) (false)")
            print(f"{game:9s} looks: {len(looks)}, median {1000 * statistics.median(looks):.0f} ms, "
                  f"longest {1000 * looks[-1]:.0f} ms (a search afresh)")
    follow, kept = statistics.median(drift_follow), statistics.median(drift_kept)
    print(f"all games: after a knock the calibration ends {follow:.2f} radii from the truth following the grid, "
          f"{kept:.2f} keeping the first: {kept / max(follow, 1e-6):.1f}× nearer")


if __name__ == "__main__":
    main()
