"""Recognition speed: one 1280×720 frame → `Observation`, against a full-frame YOLO detector.

    .venv/bin/python benchmarks/vision.py [--frames 60] [--rounds 2]

Frames: for each game, a short rendered game (`models.synth.video`, benchmark seed 1000,
hands coming in and out, light drift, camera shake), decoded from its video file, with the
render's true calibration fixed for the whole run, as a calibrated station has.

Ours: `vision.detector.Detector(game, calibration).observe(frame)`: one crop per point, the
shipped 8-bit `models/<game>-points.onnx` on the batch (cut in two parts, one per CPU, each run
by its own single-threaded session), a second read of the crops it is unsure of, turned three
ways and magnified (`PointClassifier.read_again`, since 2026-12-04; the magnified view since
2026-12-05), and the `Observation`. Its baselines, on the
same frames in the same run: each crop read once, as until 2026-12-04; the whole batch in one
session of two threads (as the station ran until 2026-12-03); and the float model the 8-bit one
was made from (`models/<game>-points.float.onnx`, `models.quantize`).

Peer, on the same decoded frames in the same run: ultralytics YOLO11n *detect* at 640 px
with one class per piece of the game, exported to ONNX (`models.peer_detector`), run the way
a detector pipeline runs it: letterbox to 640×640, onnxruntime, then box decoding and a
class-aware NMS in numpy. The peer's weights are UNTRAINED: banco has no trained full-frame
detector, and the time a frame costs depends on the architecture and the input size, not on
the weights. Untrained heads score nothing above a detection threshold, which would leave NMS
with nothing to do; so NMS is always fed the 300 highest-scoring boxes (300 is ultralytics'
own cap on boxes per image, `max_det`), a full board's worth of candidates. The peer also
still lacks what ours already gives: which board point each piece stands on.

What to expect: by ultralytics' count YOLO11n-cls costs 0.033 GFLOPs for one 64 px crop, so a
frame's batch of 90 (Xiangqi), 99 (Cờ Toán) or 132 (Commander Chess) crops costs 2.9–4.3
GFLOPs against YOLO11n-detect's 6.5 at 640 px: the crops hold about as many pixels as the
letterboxed frame, and the saving comes from not running a detection neck and head on them.
The peer runs in float, as exported; an 8-bit peer would gain too, so the like-for-like
architecture ratio is the float row's against the peer's (both medians are printed).

All run with onnxruntime on the CPU, on 2 threads that do not spin between runs: ours as two
single-threaded sessions, a part of the batch each; the one-run baseline and the peer as one
session of 2 intra-op threads. On a machine with more than 2 CPUs the process is pinned to 2
of them. The peer's ONNX (about 10 MB,
never shipped) is made once with the training environment: ``make detector-onnx``; without it
the peer is skipped, saying so, and ours is still timed.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, and this file's name would then
# hide the `vision` package (the issue names the benchmark after the room it measures).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse
import os
import statistics
import time

import cv2
import numpy as np

from calibration import profile
from models.peer_detector import PEER_IMGSZ, peer_detector_path
from models.quantize import float_model_path
from models.synth.video import cached_game, game_suite
from vision.classes import CLASSES, piece_classes
from vision.detector import Detector, PointClassifier, cpu_session, default_model_path
from vision.parts import STATION_CPUS

THREADS = STATION_CPUS  # the recognition issue's "2 cores"
TARGET_MS = 30.0  # the recognition issue: median frame → Observation at most 30 ms on 2 cores
PLIES = 6
SEED = 1000  # benchmark seeds are 1000–9999 (models.synth.video)
NMS_CANDIDATES = 300
NMS_IOU = 0.45
LETTERBOX_GREY = 114


def pin_to_cores(count: int) -> list[int]:
    """Run on `count` CPUs at most, so that "2 cores" means the same on any machine."""
    available = sorted(os.sched_getaffinity(0))
    chosen = available[:count]
    if len(available) > count:
        os.sched_setaffinity(0, chosen)
    cv2.setNumThreads(len(chosen))
    return chosen


def game_frames(game: str, count: int) -> tuple[list[np.ndarray], dict]:
    """`count` frames spread over a short rendered game of `game`, and its truth."""
    (spec,) = game_suite(game, count=1, first_seed=SEED, plies=PLIES, illegal=0, unseen=0)
    rendered = cached_game(**spec)
    capture = cv2.VideoCapture(str(rendered.video))
    frames = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        frames.append(frame)
    capture.release()
    if not frames:
        raise RuntimeError(f"{rendered.video} gave no frames")
    step = max(1, len(frames) // count)
    return frames[::step][:count], rendered.truth_data


class OneSessionClassifier(PointClassifier):
    """The shipped classifier as the station ran it until 2026-12-03: the whole batch in one
    session whose two threads split each layer between them."""

    def __init__(self, game: str) -> None:
        super().__init__(game, threads=1)
        self.session = self.sessions[0] = cpu_session(default_model_path(game), THREADS)


class PeerDetector:
    """A full-frame detector's path: letterbox, inference, box decoding, NMS."""

    def __init__(self, path: Path, game: str, threads: int = THREADS) -> None:
        # Opened as ours is, threads not spinning: the two take turns frame by frame, and the
        # threads of whichever ran last, spinning, would take the CPUs from the other's turn.
        self.session = cpu_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name
        self.size = int(self.session.get_inputs()[0].shape[2])
        self.classes = piece_classes(game)
        outputs = self.session.get_outputs()[0].shape  # 1 × (4 + classes) × anchors
        if outputs[1] != 4 + len(self.classes):
            raise ValueError(f"{path.name} has {outputs[1] - 4} classes, {game} has {len(self.classes)}: "
                             "make it again with python -m models.peer_detector --force")

    def letterbox(self, frame: np.ndarray) -> tuple[np.ndarray, float, tuple[int, int]]:
        height, width = frame.shape[:2]
        scale = min(self.size / width, self.size / height)
        new_w, new_h = round(width * scale), round(height * scale)
        resized = cv2.resize(frame, (new_w, new_h), interpolation=cv2.INTER_LINEAR)
        left, top = (self.size - new_w) // 2, (self.size - new_h) // 2
        canvas = np.full((self.size, self.size, 3), LETTERBOX_GREY, np.uint8)
        canvas[top:top + new_h, left:left + new_w] = resized
        return canvas, scale, (left, top)

    def __call__(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boxes (x0, y0, x1, y1 in frame pixels), scores and class indices after NMS."""
        canvas, scale, (left, top) = self.letterbox(frame)
        batch = np.ascontiguousarray(canvas[..., ::-1].transpose(2, 0, 1)[None], dtype=np.float32) / 255.0
        (raw,) = self.session.run(None, {self.input_name: batch})
        predictions = raw[0].T  # anchors × (cx, cy, w, h, class scores...)
        class_scores = predictions[:, 4:]
        labels = class_scores.argmax(axis=1)
        scores = class_scores[np.arange(len(labels)), labels]
        keep = np.argpartition(-scores, NMS_CANDIDATES)[:NMS_CANDIDATES]
        centre, extent = predictions[keep, :2], predictions[keep, 2:4]
        boxes = np.concatenate([centre - extent / 2, centre + extent / 2], axis=1)
        boxes = (boxes - np.array([left, top, left, top], np.float32)) / scale
        chosen = class_aware_nms(boxes, scores[keep], labels[keep], NMS_IOU)
        return boxes[chosen], scores[keep][chosen], labels[keep][chosen]


def class_aware_nms(boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray, iou_limit: float) -> np.ndarray:
    """Greedy non-maximum suppression; boxes of different classes never suppress each other."""
    # Moving each class's boxes to its own far-away region keeps classes apart in one pass.
    span = float(np.abs(boxes).max()) + 1.0
    shifted = boxes + (labels[:, None] * 2 * span)
    x0, y0, x1, y1 = shifted.T
    areas = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    order = np.argsort(-scores)
    kept = []
    while order.size:
        best, rest = order[0], order[1:]
        kept.append(best)
        width = np.clip(np.minimum(x1[best], x1[rest]) - np.maximum(x0[best], x0[rest]), 0, None)
        height = np.clip(np.minimum(y1[best], y1[rest]) - np.maximum(y0[best], y0[rest]), 0, None)
        overlap = width * height
        iou = overlap / np.maximum(areas[best] + areas[rest] - overlap, 1e-9)
        order = rest[iou <= iou_limit]
    return np.array(kept, dtype=int)


def timed(calls: dict, frames: list[np.ndarray], rounds: int, warmup: int = 3) -> dict[str, list[float]]:
    """Milliseconds per call of each of `calls` on every frame, `rounds` times, after a few
    unmeasured calls. The calls take turns frame by frame (their order alternating), so a busy
    neighbour on a shared machine slows both alike instead of skewing the ratio."""
    for frame in frames[:warmup]:
        for call in calls.values():
            call(frame)
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for turn in range(rounds * len(frames)):
        frame = frames[turn % len(frames)]
        for name in names if turn % 2 == 0 else reversed(names):
            started = time.perf_counter()
            calls[name](frame)
            samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def p95(samples: list[float]) -> float:
    return float(np.percentile(samples, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60, help="frames per game")
    parser.add_argument("--rounds", type=int, default=2, help="times each frame is timed")
    parser.add_argument("--game", choices=sorted(CLASSES), action="append", help="default: all three")
    args = parser.parse_args()
    cores = pin_to_cores(THREADS)
    import onnxruntime

    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print(f"CPUs used: {len(cores)} {cores}; onnxruntime {onnxruntime.__version__}; ours: {THREADS} single-threaded "
          f"sessions, a part of the batch each; one run and the peer: {THREADS} intra-op threads")
    print("peer: YOLO11n-detect at 640 px, UNTRAINED weights (timing only: the architecture's cost; "
          "it recognises nothing)")
    rows = []
    for game in args.game or ["xiangqi", "commander", "cotoan"]:
        frames, truth = game_frames(game, args.frames)
        calibration = profile.from_dict(truth["calibration"])
        detector = Detector(game, calibration)
        observation = detector.observe(frames[-1])
        peer_path = peer_detector_path(game, PEER_IMGSZ)
        calls = {"ours": detector.observe,
                 "one read": Detector(game, calibration, classifier=detector.classifier, reread_below=0).observe,
                 "one session": Detector(game, calibration, classifier=OneSessionClassifier(game)).observe}
        float_path = float_model_path(game)
        if float_path.is_file():
            calls["float"] = Detector(game, calibration, model_path=float_path).observe
        peer = PeerDetector(peer_path, game) if peer_path.is_file() else None
        if peer:
            calls["peer"] = peer
        samples = timed(calls, frames, args.rounds)
        ours = samples["ours"]
        median = statistics.median(ours)
        print(f"{game}: {len(frames)} frames {frames[0].shape[1]}×{frames[0].shape[0]}, {args.rounds} rounds, "
              f"{len(observation.points)} points, {detector.classifier.size} px crops")
        print(f"  ours, point crops:        median {median:6.1f} ms  p95 {p95(ours):6.1f} ms  min {min(ours):6.1f} ms  "
              f"(target ≤ {TARGET_MS:g} ms: {'met' if median <= TARGET_MS else 'NOT met'})")
        once = samples["one read"]
        c = detector.classifier
        unsure = np.mean([c.unsure(c(detector.extractor.extract(f).images)).sum() for f in frames])
        print(f"  ours, each crop once:     median {statistics.median(once):6.1f} ms  p95 {p95(once):6.1f} ms  "
              f"min {min(once):6.1f} ms  (no second read; {unsure:.1f} crops a frame read again above)")
        print(f"  re-reads / once:          {median / statistics.median(once):.2f}×")
        whole = samples["one session"]
        print(f"  ours, one 2-thread run:   median {statistics.median(whole):6.1f} ms  p95 {p95(whole):6.1f} ms  "
              f"min {min(whole):6.1f} ms  (the whole batch in one run)")
        print(f"  one run / two parts:      {statistics.median(whole) / median:.2f}×")
        if "float" in samples:
            kept = samples["float"]
            print(f"  ours, float model:        median {statistics.median(kept):6.1f} ms  p95 {p95(kept):6.1f} ms  "
                  f"min {min(kept):6.1f} ms  ({float_path.name}, before `models.quantize`)")
            print(f"  float / 8-bit (medians):  {statistics.median(kept) / median:.2f}×")
        if peer is None:
            print(f"  YOLO11n-640 skipped: no {peer_path} (make detector-onnx, or "
                  f".venv-train/bin/python -m models.peer_detector --game {game})")
            continue
        theirs = samples["peer"]
        boxes = len(peer(frames[-1])[0])
        ratio = statistics.median(theirs) / median
        rows.append(ratio)
        print(f"  YOLO11n-640, untrained:   median {statistics.median(theirs):6.1f} ms  "
              f"p95 {p95(theirs):6.1f} ms  min {min(theirs):6.1f} ms  "
              f"({len(peer.classes)} classes, {boxes} boxes after NMS)")
        print(f"  YOLO-640 / ours (medians): {ratio:.1f}×")
    load = os.getloadavg()[0]
    print(f"load average at end: {load:.1f}" + (f" (above {len(cores)}: other work shared these CPUs)"
                                                  if load > len(cores) else ""))
    if rows:
        print(f"ours is {min(rows):.1f}–{max(rows):.1f}× faster than a full-frame YOLO11n-640 per frame")


if __name__ == "__main__":
    main()
