"""Adapting to the user's set: points read right before and after, against the shipped model.

    .venv/bin/python benchmarks/adapt.py [--games xiangqi commander cotoan] [--photos 10] [--sets 2]

For each game and each *user's set* (a `models.synth.stage.Stage`: one board, one camera, one
set of pieces drawn with the held-out fonts and textures, every piece of a kind alike as in a
real set), the set is adapted to from **one** rendered photo of the start position
(`vision.adapt.adapt_to_start`), then read on `--photos` other photos of middle-game positions
(legal random games, `models.synth.playout`) of that same set:

* *station*: the same camera and board, later in the game (light drifts);
* *moved*: the same set on a new board, under a new camera and light for every photo.

The peer is the shipped model reading the same photos in the same run: points right, boards
read exactly, the ratio of errors (adapted / model), and the adaptation's wall time (2 threads).
What the adaptation costs a station per frame: `Detector.observe` with and without it on the
station photos, the two taking turns, each one's first frame (which builds its crop maps, once
per calibration) untimed.
With ``--variants`` it also prints every adaptation method and blend weight on the same photos,
which is how `vision.adapt`'s defaults were chosen.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where benchmarks/vision.py would
# hide the `vision` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import games  # noqa: E402
from calibration.homography import DEFAULT_HEIGHT_RATIO  # noqa: E402
from calibration.markers import calibrate_from_markers  # noqa: E402
from models.synth.dataset import disturbed  # noqa: E402
from models.synth.playout import random_game  # noqa: E402
from models.synth.stage import Stage  # noqa: E402
from models.synth.video import seen, stack_sizes  # noqa: E402
from vision.adapt import Adaptation, GlyphTemplates, adapt_to_start, collect, fit, start_labels  # noqa: E402
from vision.classes import EMPTY, appearance  # noqa: E402
from vision.crops import CropExtractor  # noqa: E402
from vision.detector import Detector, PointClassifier  # noqa: E402

SIZE = (1280, 720)


def middle_games(game: str, count: int, seed: int) -> list:
    """`count` positions from legal random games, 12 to 60 plies in."""
    variant = games.get(game)
    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        plies = rng.randint(12, 60)
        moves = random_game(game, plies, seed=rng.randrange(1 << 30))
        board = variant.board()
        for move in moves:
            board.push(variant.parse_move(board, move))
        boards.append(board)
    return boards


def located(stage: Stage, frame: np.ndarray, rng: random.Random):
    """The calibration a station would make: from the printed markers on the photo, pieces of
    the default guessed height (`banco recognize`'s); a slightly-off truth if no markers show."""
    layout = stage.calibration.layout
    try:
        return calibrate_from_markers(layout, frame, piece_height_mm=DEFAULT_HEIGHT_RATIO * layout.pitch_mm * 0.45)
    except ValueError:
        return disturbed(stage.calibration, rng)


def photo(stage: Stage, game: str, board, index: int) -> np.ndarray:
    stage.set_position(seen(game, board), stack_sizes(game, board))
    return stage.frame(index)


class Reading:
    """Model probabilities and features of every point of some photos, with the truth."""

    def __init__(self, classifier: PointClassifier, shots: list[tuple[np.ndarray, object, dict]]) -> None:
        probabilities, embeddings, labels, board, images = [], [], [], [], []
        index = {c: i for i, c in enumerate(classifier.classes)}
        for number, (frame, calibration, truth) in enumerate(shots):
            crops = CropExtractor(calibration, classifier.size).extract(frame)
            raw, features = classifier.probabilities_and_embeddings(crops.images)
            p = raw[:, classifier.order]
            probabilities.append(p / p.sum(axis=1, keepdims=True))
            embeddings.append(features.astype(np.float64))
            images.append(GlyphTemplates.extractor(calibration).extract(frame).images)
            labels.extend(index[truth[point]] for point in crops.points)
            board.extend([number] * len(crops.points))
        self.classes = classifier.classes
        self.probabilities = np.concatenate(probabilities)
        self.embeddings = np.concatenate(embeddings)
        self.labels = np.array(labels)
        self.board = np.array(board)
        self.images = np.concatenate(images)

    def score(self, adaptation: Adaptation | None) -> tuple[float, float, float]:
        """(points right, points holding a piece right, boards read exactly)."""
        p = self.probabilities
        if adaptation is not None:
            p = adaptation.apply(p, self.embeddings, self.classes, self.images)
        right = np.argmax(p, axis=1) == self.labels
        pieces = self.labels != self.classes.index(EMPTY)
        boards = [bool(right[self.board == b].all()) for b in np.unique(self.board)]
        return float(right.mean()), float(right[pieces].mean()), float(np.mean(boards))


def run_set(game: str, classifier: PointClassifier, seed: int, photos: int, variants: bool) -> dict:
    rng = random.Random(seed)
    stage = Stage(game, random.Random(rng.randrange(1 << 30)), size=SIZE, split="test")
    start = games.get(game).board()
    start_frame = photo(stage, game, start, 0)
    calibration = located(stage, start_frame, rng)
    boards = middle_games(game, photos, seed)
    station = [(photo(stage, game, b, 450 * (i + 1)), calibration, appearance(game, b))
               for i, b in enumerate(boards)]
    moved = []
    for i, b in enumerate(boards):
        other = Stage(game, random.Random(rng.randrange(1 << 30)), size=SIZE, split="test")
        other.set_seed = stage.set_seed  # the same set of pieces
        frame = photo(other, game, b, 30 * i)
        moved.append((frame, located(other, frame, rng), appearance(game, b)))

    began = time.perf_counter()
    report = adapt_to_start(classifier, [(start_frame, calibration)])
    seconds = time.perf_counter() - began
    out = {"seconds": seconds, "report": report}
    # What the adaptation costs a station per frame: Detector.observe with and without it.
    plain = Detector(game, calibration, classifier=classifier)
    tuned = Detector(game, calibration, classifier=classifier, adaptation=report.adaptation)
    # Each detector's first frame also builds its crop maps, once per calibration: not timed.
    for detector in (plain, tuned):
        detector.observe(station[0][0])
    timings: dict[str, list[float]] = {"observe_model": [], "observe_adapted": []}
    for frame, _, _ in station:
        for name, detector in (("observe_model", plain), ("observe_adapted", tuned)):
            began = time.perf_counter()
            detector.observe(frame)
            timings[name].append(time.perf_counter() - began)
    out.update({name: float(np.median(times)) for name, times in timings.items()})
    for name, shots in (("station", station), ("moved", moved)):
        reading = Reading(classifier, shots)
        out[name] = {"model": reading.score(None), "adapted": reading.score(report.adaptation)}
        if variants:
            samples = collect(classifier, [(start_frame, calibration)])
            for method in ("prototypes", "head", "both"):
                adaptation = fit(game, classifier.classes, samples, None, method)
                out[name][method] = reading.score(adaptation)
            for temperature in (20.0, 40.0, 80.0):
                for weight in (0.0, 0.5, 1.0):
                    adaptation = fit(game, classifier.classes, samples, None, "templates",
                                     template_temperature=temperature, template_model_weight=weight)
                    out[name][f"templates t={temperature:g} w={weight:g}"] = reading.score(adaptation)
            for method in ("head+templates", "prototypes+templates"):
                out[name][method] = reading.score(fit(game, classifier.classes, samples, None, method))
    assert start_labels(game)  # the start position labelled every point
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=["xiangqi", "commander", "cotoan"])
    parser.add_argument("--photos", type=int, default=10)
    parser.add_argument("--sets", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--variants", action="store_true")
    args = parser.parse_args()
    for game in args.games:
        classifier = PointClassifier(game)
        totals: dict[str, dict[str, list]] = {}
        seconds, observe_model, observe_adapted = [], [], []
        for number in range(args.sets):
            result = run_set(game, classifier, args.seed + 1000 * number, args.photos, args.variants)
            seconds.append(result["seconds"])
            observe_model.append(result["observe_model"])
            observe_adapted.append(result["observe_adapted"])
            report = result["report"]
            print(f"{game} set {number + 1}: {report.summary()}; start photo agrees {report.agreement[0]:.0%} "
                  "with the start FEN on empty/side")
            for scenario in ("station", "moved"):
                for name, value in result[scenario].items():
                    totals.setdefault(scenario, {}).setdefault(name, []).append(value)
        print(f"\n{game}: {args.sets} set(s), adapted on 1 start photo each, read on {args.photos} "
              f"middle-game photos per set and scenario; adaptation {np.mean(seconds):.1f} s (mean wall)")
        model_ms, adapted_ms = np.mean(observe_model) * 1000, np.mean(observe_adapted) * 1000
        print(f"  Detector.observe per frame (each set's median after its first frame, averaged): model "
              f"{model_ms:.0f} ms, adapted {adapted_ms:.0f} ms (× {adapted_ms / model_ms:.2f})")
        for scenario, rows in totals.items():
            model_points = np.mean([v[0] for v in rows["model"]])
            print(f"  {scenario}:")
            for name, values in rows.items():
                points, pieces, boards = (np.mean([v[i] for v in values]) for i in range(3))
                # A ratio to no errors at all is no figure: say so instead of dividing by almost nothing.
                ratio = (f"errors × {(1 - points) / (1 - model_points):.2f} of the model's" if model_points < 1
                         else "errors: the model made none")
                print(f"    {name:<28} points {points:8.2%}  pieces {pieces:7.2%}  boards exact {boards:6.1%}  "
                      f"{ratio}")
        print()


if __name__ == "__main__":
    main()
