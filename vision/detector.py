"""Per-point class probabilities from a camera frame, with the shipped ONNX classifier.

The runtime needs only onnxruntime and OpenCV: no torch. A frame is cut into one crop per
board point (`vision.crops`), the crops go through the classifier in one batch, and the
answer is an `Observation`: for every point, probabilities over {empty, each piece class}
and an `occluded` flag (a hand or arm hides the point, or it lies outside the frame; its
probabilities then say little).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration import Calibration
from games import Point
from vision.classes import OCCLUDED, classes, fen_letter
from vision.crops import CropExtractor
from vision.parts import STATION_CPUS, Parts
from vision.position import likeliest_placement

if TYPE_CHECKING:
    from vision.adapt import Adaptation

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
OCCLUSION_THRESHOLD = 0.5
EMBEDDING_OUTPUT = "embedding"  # the second output `models.add_embedding_output` adds
TEMPERATURE_KEY = "temperature"  # in the model's metadata; absent: 1
MIN_CROPS_A_PART = 8  # below about eight crops a part, handing one to another thread costs more than it saves
# A crop whose likeliest class is less sure than this is read again (`PointClassifier.read_again`):
# one to four crops a frame, a quarter to a half fewer misread points on held-out renders (chosen on
# renders of the training split; `models.evaluate --reread-below` measures it, `benchmarks/vision.py`
# what it costs).
REREAD_BELOW = 0.95
# The second read also sees the crop magnified this much about its centre: the disc then fills
# the crop but for a thin ring of board. On 400 renders a game of the training split (scratch,
# 2026-12-04) it left 279, 117 and 491 points misread (Cờ Tướng, Cờ Toán, Cờ Tư Lệnh) where a
# fourth quarter turn left 316, 144 and 517; 1.1× left 293, 127, 493 and 1.3× 274, 109, 494.
REREAD_MAGNIFIED = 1.2


class ModelNotFoundError(ValueError):
    """No usable classifier is shipped or given for this game: no file, or none onnxruntime loads."""


@dataclass
class Observation:
    """What the camera saw on one frame: per point, class probabilities and occlusion."""

    game: str
    classes: tuple[str, ...]  # empty first, then the piece classes
    points: list[Point]
    probabilities: np.ndarray  # len(points) × len(classes), rows sum to 1
    occluded: np.ndarray  # bool per point

    def best(self, point: Point) -> tuple[str, float]:
        row = self.probabilities[self.points.index(point)]
        index = int(np.argmax(row))
        return self.classes[index], float(row[index])

    def placement(self) -> dict[Point, str]:
        """Point → class: the likeliest position the game's set allows (`vision.position`),
        read over the whole board at once; occluded points read `occluded`."""
        return likeliest_placement(self.game, self.classes, self.points, self.probabilities, self.occluded)

    def board_fen(self, files: int, ranks: int, placement: dict[Point, str] | None = None) -> str:
        """The board part of a FEN (occluded points read empty): of `placement` if given, else
        of each point's most likely class on its own.

        Cờ Toán's FEN writes one `.` per empty cell, because its digits are pieces.
        """
        grid = {p: None for p in self.points}
        for index, point in enumerate(self.points):
            if self.occluded[index]:
                continue
            name = placement[point] if placement else self.classes[int(np.argmax(self.probabilities[index]))]
            grid[point] = fen_letter(self.game, name)
        rows = []
        for rank in range(ranks - 1, -1, -1):
            row, empty = "", 0
            for file in range(files):
                letter = grid.get(Point(file, rank))
                if letter is None and self.game == "cotoan":
                    row += "."
                    continue
                if letter is None:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + letter
                empty = 0
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    def to_json(self, placement: dict[Point, str] | None = None) -> list[dict]:
        """Per point: the class (of `placement` if given, else the most likely on its own), the
        classifier's probability for it, and the occluded flag."""
        out = []
        for index, point in enumerate(self.points):
            row = self.probabilities[index]
            best = int(np.argmax(row))
            if placement and placement[point] in self.classes:
                best = self.classes.index(placement[point])
            out.append({"file": point.file, "rank": point.rank, "class": self.classes[best],
                        "confidence": round(float(row[best]), 4), "occluded": bool(self.occluded[index])})
        return out


def magnified(crops: np.ndarray, factor: float) -> np.ndarray:
    """The crops (N × S × S × 3) enlarged by `factor` about their centres, cut back to S × S."""
    side = crops.shape[1]
    centre = (side - 1) / 2
    enlarge = cv2.getRotationMatrix2D((centre, centre), 0, factor)
    return np.stack([cv2.warpAffine(crop, enlarge, (side, side), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE) for crop in crops])


def cpu_session(path: Path, threads: int = STATION_CPUS):
    """An onnxruntime session on the CPU as the station runs its models: `threads` intra-op
    threads that do not spin between runs."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Threads that spin after a batch waiting for the next keep their CPUs busy, and a station
    # has two: the camera's decoding, the tracker and the server need them between frames.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def default_model_path(game: str) -> Path:
    return MODELS_DIR / f"{game}-points.onnx"


class PointClassifier:
    """One game's ONNX point classifier, loaded once and shared by every board of that game.

    A batch of crops is spread over `threads` CPUs by cutting it into as many parts, each run
    at once by its own single-threaded session. One session with two threads splits every layer
    between them instead, and the deep layers (4 × 4 and 2 × 2 pixels a crop) split poorly: one
    such run took about 1.4 times as long as the parts on the same frames (README, "Measured").
    """

    def __init__(self, game: str, model_path: Path | None = None, threads: int = STATION_CPUS) -> None:
        path = Path(model_path) if model_path else default_model_path(game)
        if not path.is_file():
            raise ModelNotFoundError(f"no point classifier for {game!r} at {path}")
        self.parts = Parts(threads, f"{game}-crops")
        try:
            self.sessions = [cpu_session(path, 1) for _ in range(threads)]
        except Exception as error:  # onnxruntime raises its own kinds for a file it cannot load
            raise ModelNotFoundError(f"{path} is not an ONNX model onnxruntime can load "
                                     f"({type(error).__name__})") from None
        self.session = self.sessions[0]
        self.input_name = self.session.get_inputs()[0].name
        outputs = [output.name for output in self.session.get_outputs()]
        self.probabilities_name = outputs[0]
        # Models re-shipped by `models.add_embedding_output` also give their pooled features,
        # which adapting to a user's set (`vision.adapt`) compares; older files still work.
        self.embedding_name = EMBEDDING_OUTPUT if EMBEDDING_OUTPUT in outputs else None
        image = self.session.get_inputs()[0]
        # The 8-bit models take the crops' bytes as cut (`models.quantize.take_bytes`); the float
        # models RGB in [0, 1], channels first, as ultralytics trained them.
        self.takes_bytes = image.type == "tensor(uint8)"
        side = image.shape[1] if self.takes_bytes else image.shape[2]
        self.size = int(side) if isinstance(side, int) else _metadata_size(self.session)
        self.model_classes = _model_classes(self.session, game)
        # A model trained to convergence is sure of itself even when wrong; its metadata may
        # carry the temperature that softens it (`models.calibrate_temperature`), so that a
        # misread point costs the rules-guided search what it should.
        meta = self.session.get_modelmeta().custom_metadata_map
        self.temperature = float(meta.get(TEMPERATURE_KEY, "1"))
        self.game = game
        wanted = [c for c in classes(game) if c != OCCLUDED]
        missing = set(wanted) - set(self.model_classes)
        if missing:
            raise ModelNotFoundError(f"model {path.name} lacks classes {sorted(missing)}")
        self.order = [self.model_classes.index(c) for c in wanted]
        self.occluded_index = self.model_classes.index(OCCLUDED) if OCCLUDED in self.model_classes else None
        self.classes = tuple(wanted)

    @property
    def has_embedding(self) -> bool:
        return self.embedding_name is not None

    def __call__(self, crops: np.ndarray) -> np.ndarray:
        """Model probabilities (softened by the model's temperature) for a batch of BGR crops
        (N × S × S × 3), each read once."""
        return self._softened(self._run([self.probabilities_name], crops)[0])

    def read(self, crops: np.ndarray, thorough: bool = False, reread_below: float = REREAD_BELOW,
             first: np.ndarray | None = None) -> np.ndarray:
        """Probabilities as the station reads crops: each once (`first`, if that read is made
        already), and those whose likeliest class is below `reread_below` again (`read_again`);
        `thorough`, as one still photo affords, every crop again."""
        probabilities = self(crops) if first is None else first
        again = np.ones(len(crops), bool) if thorough else self.unsure(probabilities, reread_below)
        if again.all():
            return self.read_again(crops, probabilities)
        if again.any():
            probabilities = probabilities.copy()
            probabilities[again] = self.read_again(crops[again], probabilities[again])
        return probabilities

    def read_again(self, crops: np.ndarray, first: np.ndarray) -> np.ndarray:
        """A second read of crops whose first read (`first`, probabilities as `__call__` gives
        them) was unsure: the mean of five, the first and the crops turned by 90, 180 and 270°
        (a round piece may face any way) and magnified by `REREAD_MAGNIFIED` (its glyph larger),
        the four new ones in one run: a few unsure crops cost one call."""
        views = [np.rot90(crops, turn, axes=(1, 2)) for turn in (1, 2, 3)] + [magnified(crops, REREAD_MAGNIFIED)]
        reads = self(np.concatenate(views))
        return (first + reads.reshape(len(views), len(crops), -1).sum(axis=0)) / (len(views) + 1)

    @staticmethod
    def unsure(probabilities: np.ndarray, reread_below: float = REREAD_BELOW) -> np.ndarray:
        """Per crop, whether `read` reads it again: its likeliest class is below `reread_below`."""
        return probabilities.max(axis=1) < reread_below

    def _run(self, outputs: list[str], crops: np.ndarray) -> list[np.ndarray]:
        """The model's `outputs` for a batch of BGR crops, its parts run at once."""
        def run_part(slot: int, part: np.ndarray) -> list[np.ndarray]:
            batch = np.ascontiguousarray(part) if self.takes_bytes else _batch(part)
            return self.sessions[slot].run(outputs, {self.input_name: batch})

        answers = self.parts.run(run_part, crops, smallest=MIN_CROPS_A_PART)
        if len(answers) == 1:
            return answers[0]
        return [np.concatenate([answer[index] for answer in answers]) for index in range(len(outputs))]

    def _softened(self, probabilities: np.ndarray) -> np.ndarray:
        if self.temperature == 1.0:
            return probabilities
        # Floored at the smallest normal float, not higher: a sharp model's least likely classes
        # fall below 1e-12, and a higher floor would shrink their gaps unevenly.
        softer = np.power(np.clip(probabilities, np.finfo(np.float32).tiny, 1.0), 1.0 / self.temperature)
        return (softer / softer.sum(axis=1, keepdims=True)).astype(np.float32)

    def probabilities_and_embeddings(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw probabilities and pooled features (N × D) in one pass; needs a model with the
        `embedding` output."""
        if self.embedding_name is None:
            raise ModelNotFoundError(f"the {self.game} model has no {EMBEDDING_OUTPUT!r} output; "
                                     "re-ship it with `python -m models.add_embedding_output`")
        probabilities, embeddings = self._run([self.probabilities_name, self.embedding_name], crops)
        return self._softened(probabilities), embeddings


class Detector:
    """Reads one calibrated board: frame → `Observation`."""

    def __init__(self, game: str, calibration: Calibration, model_path: Path | None = None,
                 classifier: PointClassifier | None = None, adaptation: Adaptation | None = None,
                 thorough: bool = False, reread_below: float = REREAD_BELOW) -> None:
        """`thorough`: every crop is read a second time as the station reads the crops it is
        unsure of (`PointClassifier.read_again`, five views averaged): one still photo can afford
        what a live camera cannot (`models.evaluate --thorough` measures what it buys). Otherwise
        only the crops read less surely than `reread_below` are (`PointClassifier.read`)."""
        self.classifier = classifier or PointClassifier(game, model_path)
        self.thorough = thorough
        self.reread_below = reread_below
        self.game = game
        self.calibration = calibration
        self.extractor = CropExtractor(calibration, self.classifier.size)
        self.adaptation: Adaptation | None = None
        self.face_extractor: CropExtractor | None = None
        self.adapt(adaptation)

    def adapt(self, adaptation: Adaptation | None) -> None:
        """Read through `adaptation` (to the user's set) from now on; None: the model alone."""
        if adaptation is not None and adaptation.game != self.game:
            raise ValueError(f"the adaptation is for {adaptation.game}, not {self.game}")
        if adaptation is not None and adaptation.needs_features and not self.classifier.has_embedding:
            raise ModelNotFoundError(f"the {self.game} model has no {EMBEDDING_OUTPUT!r} output, which the "
                                     "adaptation to the user's set reads")
        self.adaptation = adaptation
        self.face_extractor = adaptation.templates.extractor(self.calibration) \
            if adaptation is not None and adaptation.templates is not None else None

    def recalibrate(self, calibration: Calibration) -> None:
        """The board moved under the camera: cut the crops where its points now lie."""
        self.calibration = calibration
        self.extractor = CropExtractor(calibration, self.extractor.size)
        self.adapt(self.adaptation)

    def adapted(self, probabilities: np.ndarray, frame: np.ndarray, rows: np.ndarray | None = None,
                embeddings: np.ndarray | None = None) -> np.ndarray:
        """`probabilities` (over `classes`, of the extractor's points `rows`, or all) through the
        adaptation, when there is one."""
        if self.adaptation is None:
            return probabilities
        faces = None
        if self.face_extractor is not None:
            faces = self.face_extractor.extract(frame).images if rows is None else \
                self.face_extractor.extract_some(frame, [int(r) for r in rows])
        return self.adaptation.apply(probabilities, embeddings, self.classifier.classes, faces)

    @property
    def classes(self) -> tuple[str, ...]:
        return self.classifier.classes

    def observe(self, frame: np.ndarray) -> Observation:
        crops = self.extractor.extract(frame)
        c = self.classifier
        embeddings = None
        if self.adaptation is not None and self.adaptation.needs_features:
            raw, embeddings = c.probabilities_and_embeddings(crops.images)
            # the embeddings stay those of the crops as cut
            raw = c.read(crops.images, self.thorough, self.reread_below, first=raw)
        else:
            raw = c.read(crops.images, self.thorough, self.reread_below)
        if c.occluded_index is not None:
            occluded = raw[:, c.occluded_index] >= OCCLUSION_THRESHOLD
        else:
            occluded = np.zeros(len(raw), bool)
        # A point the camera does not frame is unseen, whatever its smeared crop looks like.
        occluded |= self.extractor.outside(frame)
        probabilities = raw[:, c.order]
        probabilities = probabilities / np.clip(probabilities.sum(axis=1, keepdims=True), 1e-9, None)
        probabilities = self.adapted(probabilities, frame, embeddings=embeddings)
        return Observation(self.game, c.classes, crops.points, probabilities, occluded)


def _batch(crops: np.ndarray) -> np.ndarray:
    """BGR uint8 crops → the model's RGB float NCHW batch."""
    # Reordered while still bytes, then converted and scaled in place: the same floats, bit for
    # bit, as converting first, at an eighth of the cost (about 1 ms of a 90-crop frame's 9).
    batch = np.ascontiguousarray(crops.transpose(0, 3, 1, 2)[:, ::-1]).astype(np.float32)
    batch /= np.float32(255.0)
    return batch


def _metadata_size(session) -> int:
    import ast

    size = session.get_modelmeta().custom_metadata_map.get("imgsz", "[64, 64]")
    return int(ast.literal_eval(size)[0])


def _model_classes(session, game: str) -> list[str]:
    """Class names as the exporter wrote them into the model's metadata."""
    meta = session.get_modelmeta().custom_metadata_map
    names = meta.get("names")
    if names:
        try:
            parsed = json.loads(names)
        except json.JSONDecodeError:
            import ast

            parsed = ast.literal_eval(names)
        if isinstance(parsed, dict):
            return [parsed[k] for k in sorted(parsed, key=lambda k: int(k))]
        return list(parsed)
    return list(classes(game))


def read_image(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{str(path)!r} is not an image OpenCV can read")
    return image
