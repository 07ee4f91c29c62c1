"""Adapting the point classifier to the user's own set, from photos of the start position.

The start position is known, so a photo of it labels every point for free: the pieces from
the game's start FEN (a Commander Chess stack shows its carrier, `vision.classes.appearance`)
and the empty points. Three components can be fitted from those crops:

- *templates* (pixels): each piece's face as the start photo shows it, matched against a
  crop at any turn and a little off-centre (`GlyphTemplates`). Pieces of one set look alike,
  so this reads the kinds and digits the shipped models confuse (they see them turned any
  way, and were trained on other sets);
- a softmax *head* on the classifier's pooled features (the shipped ONNX files give them as
  a second output, `models.add_embedding_output`), fitted here in numpy on the crops slightly
  shifted, turned and re-lit;
- class *prototypes*: mean features per class, compared by cosine similarity.

At run time each component's scores are blended with the shipped model's (log-linear) over
the classes the start position showed: the features' over all of them, the templates' among
each side's pieces where the model sees a piece (emptiness and side are what the model reads
well). A class the start position never showed keeps the model's probability.
`benchmarks/adapt.py` measured which combination reads a held-out set best (DEFAULT_METHOD).

Nothing here needs torch: numpy, OpenCV and the ONNX classifier only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np

import games
from calibration import Calibration
from games import Point
from vision.classes import EMPTY, OCCLUDED, SIDES, appearance
from vision.crops import CROP_SPAN_RADII, CropExtractor
from vision.detector import PointClassifier
from vision.parts import STATION_CPUS, Parts

VERSION = 1
# Profile JSON key naming the adaptation file, relative to the profile.
PROFILE_KEY = "adaptation"
# Augmented copies of every start-position crop (the crop itself is one more).
AUGMENTED_COPIES = 8
# A photo is a start position when at least this share of the points where it or the start
# FEN shows a piece agree on empty / first side / second side (what even a weak model reads
# best). Low on purpose: the shipped Commander model agreed only ~70 % on one rendered start
# photo under a slightly-off calibration (`benchmarks/adapt.py` prints each start photo's
# agreement); an empty board or the sides swapped agree far less.
START_AGREEMENT = 0.5
# A start piece the model reads as an empty point this surely is a piece missing from the photo:
# emptiness is what even an unadapted model reads best. More such points than this share of the
# start's pieces (at least two) mean a photo of another position, whose labels would teach the
# set's templates empty board.
MISSING_SURE = 0.9
MISSING_SHARE = 0.1

# Components: prototypes and head work on the classifier's features, templates on the pixels.
COMPONENTS = ("prototypes", "head", "templates")
# Measured by `benchmarks/adapt.py --variants` (model card): templates alone cut the errors on
# held-out photos of a set 2–7×; the features' head and prototypes alone cut them by 5–35 %, and
# added to the templates helped in some runs and hurt in others.
DEFAULT_METHOD = "templates"
# Template correlation → logit, and the weight of the model's log-probability beside it, chosen
# of 20/40/80 × 0/0.5/1 by `benchmarks/adapt.py --variants` (Xiangqi needs the model's say). 40
# was the compromise while the Commander and Cờ Toán models read little beyond a piece's side;
# with their stronger models 20 is at least as good on every game and scenario, and 40 made the
# third Cờ Toán model read worse than alone (errors × 1.29 and × 2.58; × 0.59 and × 0.95 at 20).
TEMPLATE_TEMPERATURE = 20.0
TEMPLATE_MODEL_WEIGHT = 1.0


class AdaptationError(ValueError):
    """The photos or the adaptation file cannot be used to adapt the classifier."""


class NotStartPositionError(AdaptationError):
    """A photo does not show the game's start position."""


# Glyph templates: the face of a piece in polar coordinates (rings × angles) around its centre,
# so that turning the piece is a cyclic shift along the angle, found for every shift at once by FFT.
RINGS, ANGLES = 10, 64
# Of the piece radius: the glyph, inside the rim; wider rings reach the disc's side and
# shading, which stay put in the picture when the piece turns (`benchmarks/adapt.py`).
FACE_RADII = (0.1, 0.6)
EDGE_RADII = (0.8, 1.25)  # where a template's disc edge is looked for (radius and thickness vary)
# How far off the crop's centre a piece's face may lie, in 64 px crop pixels: pieces stand off
# their point, the height of thick pieces is guessed (a tall disc's face lies well off it seen
# from a slant), calibrations are a little off.
SEARCH_PX = 16.0
# Faces are matched on crops wider than the classifier's (at the same pixels per mm), so that
# a face that far off still lies whole inside.
FACE_CROP_SIZE = 96
FACE_SPAN_RADII = CROP_SPAN_RADII * FACE_CROP_SIZE / 64
COARSE_STEP_PX, FINE_STEP_PX = 3.0, 1.0


# A crop's matching takes about 2 ms; a part of fewer than four is not worth another thread.
MIN_CROPS_A_PART = 4
_TEMPLATE_PARTS = Parts(STATION_CPUS, "templates")


def _grid(half: float, step: float) -> np.ndarray:
    ticks = np.arange(-half, half + 1e-9, step)
    return np.array([(dx, dy) for dy in ticks for dx in ticks])


class GlyphTemplates:
    """Rotation- and shift-tolerant matching of crops against the start photo's pieces.

    Each template is one piece's face as the start photo shows it (its disc found by the
    edge of the disc), unrolled in polar coordinates and kept as its FFT along the angle. A
    crop is unrolled around candidate centres near the crop's centre; the normalised
    correlation with a template, at the best centre and the best turn, is its score.
    """

    def __init__(self, spectra: np.ndarray, labels: Sequence[str], size: int) -> None:
        self.spectra = spectra  # M × RINGS × (ANGLES // 2 + 1), complex
        self.labels = tuple(labels)
        self.size = size
        self.radius = size / FACE_SPAN_RADII
        scale = size / 64
        self.coarse = _grid(SEARCH_PX * scale, COARSE_STEP_PX * scale)
        self.fine = _grid(2 * FINE_STEP_PX * scale, FINE_STEP_PX * scale)
        angles = np.linspace(0, 2 * np.pi, ANGLES, endpoint=False)
        self._cos, self._sin = np.cos(angles)[None, :], np.sin(angles)[None, :]
        self._circles: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}

    def _unroll(self, gray: np.ndarray, centres: np.ndarray, radii: tuple[float, float], rings: int) -> np.ndarray:
        """C × rings × ANGLES samples of `gray` on circles around each centre."""
        key = (radii, rings)
        if key not in self._circles:
            r = np.linspace(radii[0] * self.radius, radii[1] * self.radius, rings)[:, None]
            self._circles[key] = ((r * self._cos).astype(np.float32), (r * self._sin).astype(np.float32))
        dx, dy = self._circles[key]
        centres = centres.astype(np.float32)
        xs = (centres[:, 0, None, None] + dx).reshape(-1, ANGLES)
        ys = (centres[:, 1, None, None] + dy).reshape(-1, ANGLES)
        # OpenCV's remap takes maps of fewer than 32,767 rows: sample in slices.
        step = 32000 // rings * rings
        samples = np.concatenate([cv2.remap(gray, xs[i:i + step], ys[i:i + step], cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_REFLECT) for i in range(0, len(xs), step)])
        return samples.reshape(len(centres), rings, ANGLES)

    def _faces(self, gray: np.ndarray, centres: np.ndarray) -> np.ndarray:
        """Zero-mean, unit-norm polar faces' spectra around each centre: C × RINGS × F."""
        faces = self._unroll(gray, centres, FACE_RADII, RINGS)
        faces = faces - faces.mean(axis=(1, 2), keepdims=True)
        faces /= np.linalg.norm(faces, axis=(1, 2), keepdims=True) + 1e-6
        return np.fft.rfft(faces, axis=2).astype(np.complex64)

    def disc_centre(self, gray: np.ndarray) -> np.ndarray:
        """Where the disc's edge is strongest all round: the centre of a template's face."""
        centre = (self.size - 1) / 2
        centres = centre + np.concatenate([self.coarse, _grid(SEARCH_PX * self.size / 64, FINE_STEP_PX)])
        smooth = cv2.GaussianBlur(gray, (0, 0), 1.0)
        gx, gy = cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
        ex = self._unroll(gx, centres, EDGE_RADII, 10)
        ey = self._unroll(gy, centres, EDGE_RADII, 10)
        radial = np.abs(ex * self._cos + ey * self._sin)
        return centres[int(np.argmax(radial.max(axis=1).mean(axis=1)))]

    @classmethod
    def from_crops(cls, crops: np.ndarray, labels: Sequence[str]) -> GlyphTemplates:
        size = crops.shape[1]
        empty = cls(np.zeros((0, RINGS, ANGLES // 2 + 1), complex), (), size)
        spectra = []
        for crop in crops:
            centre = empty.disc_centre(_gray(crop))
            spectra.append(empty._faces(_gray(crop), centre[None])[0])
        return cls(np.array(spectra), labels, size)

    @staticmethod
    def extractor(calibration: Calibration) -> CropExtractor:
        """Cuts the (wider) crops that templates are made from and matched against."""
        return CropExtractor(calibration, FACE_CROP_SIZE, FACE_SPAN_RADII)

    def scores(self, crops: np.ndarray) -> np.ndarray:
        """N × M: each crop's best normalised correlation with each template, the crops in
        parts at once on the station's CPUs (`vision.parts`)."""
        parts = _TEMPLATE_PARTS.run(lambda _slot, part: self._scores(part), crops, smallest=MIN_CROPS_A_PART)
        return np.concatenate(parts)

    def _scores(self, crops: np.ndarray) -> np.ndarray:
        out = np.empty((len(crops), len(self.labels)))
        conj = np.conj(self.spectra)
        centre = (self.size - 1) / 2
        for n, crop in enumerate(crops):
            gray = _gray(crop)
            coarse = centre + self.coarse
            corr = self._correlate(self._faces(gray, coarse), conj)  # C × M
            best = coarse[int(np.argmax(corr.max(axis=1)))]
            fine = self._correlate(self._faces(gray, best + self.fine), conj)
            out[n] = np.maximum(corr.max(axis=0), fine.max(axis=0))
        return out

    @staticmethod
    def _correlate(faces: np.ndarray, conj: np.ndarray) -> np.ndarray:
        """C × M best correlation over every turn (cyclic shift along the angle)."""
        cross = np.matmul(faces.transpose(2, 0, 1), conj.transpose(2, 1, 0))  # F × C × M, summed over rings
        return np.fft.irfft(cross, n=ANGLES, axis=0).max(axis=0)

    def class_scores(self, crops: np.ndarray, classes: Sequence[str]) -> np.ndarray:
        """N × len(classes): the best score among each class's templates (-inf for none)."""
        per_template = self.scores(crops)
        out = np.full((len(crops), len(classes)), -np.inf)
        for k, name in enumerate(classes):
            columns = [m for m, label in enumerate(self.labels) if label == name]
            if columns:
                out[:, k] = per_template[:, columns].max(axis=1)
        return out


def _gray(crop: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)





@dataclass
class Adaptation:
    """The fitted adaptation of one game's classifier to one set of pieces."""

    game: str
    classes: tuple[str, ...]  # the classes the start position showed, in the detector's order
    centre: np.ndarray  # D: the mean training feature, removed before comparing
    scale: np.ndarray  # D: per-feature spread, divided out
    prototypes: np.ndarray | None  # K × D, unit length
    head_weights: np.ndarray | None  # D × K
    head_bias: np.ndarray | None  # K
    temperature: float  # prototype cosine → logit
    model_weight: float  # how much of the shipped model's log-probability is kept
    method: str = "both"
    meta: dict = field(default_factory=dict)
    templates: GlyphTemplates | None = None
    template_temperature: float = TEMPLATE_TEMPERATURE  # correlation → logit
    template_model_weight: float = TEMPLATE_MODEL_WEIGHT

    @property
    def needs_features(self) -> bool:
        """Whether `apply` reads the classifier's features (else the model's probabilities do)."""
        return self.prototypes is not None or self.head_weights is not None

    def logits(self, embeddings: np.ndarray) -> np.ndarray:
        """Adapted log-scores (N × K, over `classes`) of pooled features."""
        features = (embeddings - self.centre) / self.scale
        scores = np.zeros((len(features), len(self.classes)))
        if self.prototypes is not None:
            unit = features / np.clip(np.linalg.norm(features, axis=1, keepdims=True), 1e-9, None)
            scores += _log_softmax(unit @ self.prototypes.T * self.temperature)
        if self.head_weights is not None:
            scores += _log_softmax(features @ self.head_weights + self.head_bias)
        return scores

    def apply(self, probabilities: np.ndarray, embeddings: np.ndarray | None, classes: Sequence[str],
              crops: np.ndarray | None = None) -> np.ndarray:
        """The detector's probabilities (N × C over `classes`) adapted.

        Features (prototypes, head): over the classes the start position showed, a log-linear
        blend of the adapted scores and the model's, sharing the mass the model gave them.
        Templates (with `crops`): on points that hold a piece, the kinds of each side are
        re-weighed by how well the face matches the start photo's pieces, sharing the mass the
        side had. Classes the start position never showed keep the model's probability.
        """
        out = probabilities.copy()
        if self.needs_features:
            if embeddings is None:
                raise AdaptationError("this adaptation reads the classifier's features; none were given")
            index = [list(classes).index(c) for c in self.classes]
            model = np.clip(out[:, index], 1e-9, None)
            mass = model.sum(axis=1, keepdims=True)
            blended = self.logits(embeddings) + self.model_weight * np.log(model / mass)
            out[:, index] = np.exp(_log_softmax(blended)) * mass
        if self.templates is not None and crops is not None:
            out = self._apply_templates(out, crops, list(classes))
        return out

    def _apply_templates(self, probabilities: np.ndarray, crops: np.ndarray, classes: list[str]) -> np.ndarray:
        # Emptiness and side are what the model reads well; only points likely to hold a piece
        # are matched (the matching is the costly part).
        rows = np.flatnonzero(probabilities[:, classes.index(EMPTY)] < 0.5) if EMPTY in classes \
            else np.arange(len(probabilities))
        if not len(rows):
            return probabilities
        scores = self.templates.class_scores(crops[rows], classes)
        for side in SIDES[self.game]:
            index = [k for k, name in enumerate(classes)
                     if name.startswith(side + "_") and np.isfinite(scores[0, k])]
            if len(index) < 2:
                continue
            model = np.clip(probabilities[np.ix_(rows, index)], 1e-9, None)
            mass = model.sum(axis=1, keepdims=True)
            logits = self.template_temperature * scores[:, index] + self.template_model_weight * np.log(model / mass)
            probabilities[np.ix_(rows, index)] = np.exp(_log_softmax(logits)) * mass
        return probabilities

    def save(self, path: Path | BinaryIO) -> None:
        """Write the adaptation as a small .npz (to a path, or to an open binary file)."""
        arrays = {"centre": self.centre, "scale": self.scale}
        for name in ("prototypes", "head_weights", "head_bias"):
            value = getattr(self, name)
            if value is not None:
                arrays[name] = value.astype(np.float32)
        header = {"version": VERSION, "game": self.game, "classes": list(self.classes), "method": self.method,
                  "temperature": self.temperature, "model_weight": self.model_weight, "meta": self.meta,
                  "template_temperature": self.template_temperature,
                  "template_model_weight": self.template_model_weight}
        if self.templates is not None:
            header |= {"template_labels": list(self.templates.labels), "template_size": self.templates.size}
            arrays |= {"template_real": self.templates.spectra.real, "template_imag": self.templates.spectra.imag}
        fields = {"header": np.array(json.dumps(header))} | {k: v.astype(np.float32) for k, v in arrays.items()}
        if hasattr(path, "write"):
            np.savez_compressed(path, **fields)
            return
        with open(path, "wb") as handle:
            np.savez_compressed(handle, **fields)

    @classmethod
    def load(cls, path: Path | BinaryIO) -> Adaptation:
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                arrays = {name: data[name].astype(np.float64) for name in data.files if name != "header"}
        except FileNotFoundError:
            raise AdaptationError(f"adaptation file {str(path)!r} does not exist") from None
        except (OSError, ValueError, KeyError):
            # numpy's own words ("pickled data", "bad zip") name its format, not the user's mistake.
            raise AdaptationError(f"{str(path)!r} is not an adaptation file (damaged, or another kind of file): "
                                  "run banco calibrate --start-position again") from None
        if header.get("version") != VERSION:
            raise AdaptationError(f"{path}: adaptation version {header.get('version')!r}, expected {VERSION}")
        templates = None
        if "template_real" in arrays:
            templates = GlyphTemplates(arrays["template_real"] + 1j * arrays["template_imag"],
                                       header["template_labels"], int(header["template_size"]))
        return cls(game=header["game"], classes=tuple(header["classes"]), centre=arrays["centre"],
                   scale=arrays["scale"], prototypes=arrays.get("prototypes"),
                   head_weights=arrays.get("head_weights"), head_bias=arrays.get("head_bias"),
                   temperature=float(header["temperature"]), model_weight=float(header["model_weight"]),
                   method=header.get("method", "both"), meta=header.get("meta", {}), templates=templates,
                   template_temperature=float(header.get("template_temperature", TEMPLATE_TEMPERATURE)),
                   template_model_weight=float(header.get("template_model_weight", TEMPLATE_MODEL_WEIGHT)))


def _log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


# ---------------------------------------------------------------------------- training data
def start_labels(game: str) -> dict[Point, str]:
    """The class the camera should see at every point of the game's start position."""
    return appearance(game, games.get(game).board())


def augment(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A crop as it might look another time: shifted a few pixels (a piece off its point, a
    calibration a little off), turned (pieces lie any way round), re-lit and re-contrasted."""
    size = crop.shape[0]
    angle = rng.uniform(0, 360)
    shift = rng.normal(0, 0.04 * size, 2)
    matrix = cv2.getRotationMatrix2D((size / 2 - 0.5, size / 2 - 0.5), angle, rng.uniform(0.94, 1.06))
    matrix[:, 2] += shift
    turned = cv2.warpAffine(crop, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    gain = rng.uniform(0.75, 1.25) * rng.uniform(0.92, 1.08, 3)
    offset = rng.uniform(-15, 15)
    out = turned.astype(np.float32) * gain + offset
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.0))
    return np.clip(out, 0, 255).astype(np.uint8)


@dataclass
class Samples:
    """Features of labelled crops: which photo and which point each came from."""

    embeddings: np.ndarray  # N × D
    probabilities: np.ndarray  # N × C, the detector's (model order mapped to detector classes)
    labels: np.ndarray  # N, index into the detector classes
    photo: np.ndarray  # N, index of the photo
    point: np.ndarray  # N, index of the point
    original: np.ndarray  # N bool: the crop as cut, not an augmented copy
    faces: np.ndarray  # photos·points × F × F × 3: the wider crops of `GlyphTemplates`, unaugmented

    @property
    def points_per_photo(self) -> int:
        """Every point of the board, framed or not: `faces` holds each photo's all."""
        return len(self.faces) // (int(self.photo.max()) + 1)

    @property
    def unframed(self) -> int:
        """How many points, over all the photos, lay outside their photo and were left out."""
        return (int(self.photo.max()) + 1) * self.points_per_photo - int(self.original.sum())

    def face_crops(self, rows: np.ndarray) -> np.ndarray:
        return self.faces[self.photo[rows] * self.points_per_photo + self.point[rows]]

    def holding_pieces(self, classes: Sequence[str]) -> np.ndarray:
        """Per crop, whether its point holds a piece: its label (into `classes`) is not empty."""
        return self.labels != list(classes).index(EMPTY)


def collect(classifier: PointClassifier, photos: Sequence[tuple[np.ndarray, Calibration]],
            copies: int = AUGMENTED_COPIES, seed: int = 0, features: bool = True) -> Samples:
    """Cut every point of every start photo, labelled from the start FEN; with `features`,
    also `copies` augmented copies of each crop and the classifier's features of all.

    A point outside its photo is left out: its crop is the frame's edge smeared outwards, and
    the start FEN's label on it would teach the set's chariot (most often, a corner) that smear."""
    if features and not classifier.has_embedding:
        raise AdaptationError(f"the {classifier.game} model has no feature output to adapt; "
                              "re-ship it with `python -m models.add_embedding_output`")
    copies = copies if features else 0
    labels = start_labels(classifier.game)
    rng = np.random.default_rng(seed)
    class_index = {c: i for i, c in enumerate(classifier.classes)}
    parts = []
    for number, (frame, calibration) in enumerate(photos):
        if calibration.layout.geometry.name != classifier.game:
            raise AdaptationError(f"photo {number + 1} is calibrated for {calibration.layout.geometry.name}, "
                                  f"not {classifier.game}")
        extractor = CropExtractor(calibration, classifier.size)
        crops, outside = extractor.extract(frame), extractor.outside(frame)
        if outside.all():
            raise AdaptationError(f"photo {number + 1} shows none of the board: every point lies outside it "
                                  "(is its calibration for another photo?)")
        images, label, point, original = [], [], [], []
        for index, (p, crop) in enumerate(zip(crops.points, crops.images, strict=True)):
            if outside[index]:
                continue
            for copy in range(copies + 1):
                images.append(crop if copy == 0 else augment(crop, rng))
                label.append(class_index[labels[p]])
                point.append(index)
                original.append(copy == 0)
        if features:
            raw, embeddings = classifier.probabilities_and_embeddings(np.array(images))
        else:
            raw, embeddings = classifier(np.array(images)), np.zeros((len(images), 0))
        probabilities = raw[:, classifier.order]
        probabilities /= np.clip(probabilities.sum(axis=1, keepdims=True), 1e-9, None)
        faces = GlyphTemplates.extractor(calibration).extract(frame).images
        parts.append((embeddings.astype(np.float64), probabilities, np.array(label), np.full(len(label), number),
                      np.array(point), np.array(original), faces))
    return Samples(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def start_agreement(game: str, classes: Sequence[str], probabilities: np.ndarray,
                    labels: np.ndarray) -> tuple[float, float]:
    """(agreement, agreement if the sides were swapped) between the model's reading and the
    start FEN on what even an unadapted model reads well: empty, or which side's piece. Counted
    over the points where either says a piece stands, so an empty board agrees 0 %."""
    first, _ = SIDES[game]

    def coarse(name: str) -> int:
        return 0 if name in (EMPTY, OCCLUDED) else 1 if name.startswith(first + "_") else 2

    coarse_of = np.array([coarse(c) for c in classes])
    read = coarse_of[np.argmax(probabilities, axis=1)]
    truth = coarse_of[labels]
    counted = (read != 0) | (truth != 0)
    if not counted.any():
        return 0.0, 0.0
    agree = float(np.mean(read[counted] == truth[counted]))
    swapped = float(np.mean(read[counted] == np.where(truth == 0, 0, 3 - truth)[counted]))
    return agree, swapped


def check_start_position(game: str, classes: Sequence[str], samples: Samples, photos: int,
                         names: Sequence[str] | None = None) -> list[float]:
    """Each photo's agreement with the start FEN; `NotStartPositionError` for a photo that
    does not show the start position, named by `names` (its file) or by its number."""
    first, second = SIDES[game]
    agreements = []
    for number in range(photos):
        rows = (samples.photo == number) & samples.original
        agree, swapped = start_agreement(game, classes, samples.probabilities[rows], samples.labels[rows])
        if agree < START_AGREEMENT:
            hint = (" (the two sides look swapped: is the calibration's first rank on the wrong side?)"
                    if swapped > agree else "")
            raise NotStartPositionError(
                f"{names[number] if names else f'photo {number + 1}'} does not look like the {game} start "
                f"position: only {agree:.0%} of the "
                f"points where it or the start FEN has a piece agree on empty / {first} / {second} (at least "
                f"{START_AGREEMENT:.0%} expected){hint}")
        missing = _missing_pieces(classes, samples.probabilities[rows], samples.labels[rows])
        pieces = int((samples.labels[rows] != list(classes).index(EMPTY)).sum())
        if missing > max(2, MISSING_SHARE * pieces):
            raise NotStartPositionError(
                f"{names[number] if names else f'photo {number + 1}'} does not look like the {game} start "
                f"position: {missing} of the {pieces} points where it has a piece read as empty (at most "
                f"{max(2, int(MISSING_SHARE * pieces))} expected): are all the pieces set up?")
        agreements.append(agree)
    return agreements


def _missing_pieces(classes: Sequence[str], probabilities: np.ndarray, labels: np.ndarray) -> int:
    """How many points the start FEN puts a piece on the model reads as surely empty."""
    empty = list(classes).index(EMPTY)
    return int(((labels != empty) & (probabilities[:, empty] >= MISSING_SURE)).sum())


# ---------------------------------------------------------------------------- fitting
def _fit_head(features: np.ndarray, targets: np.ndarray, classes: int, l2: float = 1e-3,
              steps: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression, class-balanced, by full-batch gradient descent with
    Adam (a few hundred steps on ~1,000 × 1,280: well under a second)."""
    n, d = features.shape
    counts = np.bincount(targets, minlength=classes).astype(np.float64)
    sample_weight = (1.0 / np.clip(counts, 1, None))[targets]
    sample_weight /= sample_weight.sum()
    onehot = np.eye(classes)[targets]
    weights = np.zeros((d, classes))
    bias = np.zeros(classes)
    moments = [np.zeros_like(weights), np.zeros_like(bias)]
    squares = [np.zeros_like(weights), np.zeros_like(bias)]
    rate, beta1, beta2 = 0.01, 0.9, 0.999
    for step in range(1, steps + 1):
        probs = np.exp(_log_softmax(features @ weights + bias))
        error = (probs - onehot) * sample_weight[:, None]
        grads = [features.T @ error + l2 * weights, error.sum(axis=0)]
        for i, (param, grad) in enumerate(zip((weights, bias), grads, strict=True)):
            moments[i] = beta1 * moments[i] + (1 - beta1) * grad
            squares[i] = beta2 * squares[i] + (1 - beta2) * grad * grad
            param -= rate * (moments[i] / (1 - beta1 ** step)) / (np.sqrt(squares[i] / (1 - beta2 ** step)) + 1e-8)
    return weights, bias


def components(method: str) -> set[str]:
    """``"head+templates"`` → {"head", "templates"}; ``"both"`` is prototypes and head."""
    parts = set(method.replace("both", "prototypes+head").split("+"))
    if not parts or not parts <= set(COMPONENTS):
        raise AdaptationError(f"unknown adaptation method {method!r}: join {', '.join(COMPONENTS)} with '+'")
    return parts


def fit(game: str, classes: Sequence[str], samples: Samples, rows: np.ndarray | None = None,
        method: str = DEFAULT_METHOD, temperature: float = 20.0, model_weight: float = 1.0,
        template_temperature: float = TEMPLATE_TEMPERATURE,
        template_model_weight: float = TEMPLATE_MODEL_WEIGHT) -> Adaptation:
    """Fit the adaptation on `samples` (or the subset `rows`)."""
    parts = components(method)
    if parts & {"prototypes", "head"} and samples.embeddings.shape[1] == 0:
        raise AdaptationError(f"method {method!r} reads the classifier's features, but they were not collected")
    rows = np.ones(len(samples.labels), bool) if rows is None else rows
    embeddings, labels = samples.embeddings[rows], samples.labels[rows]
    shown = sorted(set(labels.tolist()))
    covered = tuple(classes[i] for i in shown)
    targets = np.searchsorted(shown, labels)
    centre = embeddings.mean(axis=0) if len(embeddings) else np.zeros(embeddings.shape[1])
    scale = embeddings.std(axis=0) + 1e-3 + 0.1 * (embeddings.std() if embeddings.size else 0.0)
    features = (embeddings - centre) / scale
    prototypes = head_weights = head_bias = templates = None
    if "prototypes" in parts:
        unit = features / np.clip(np.linalg.norm(features, axis=1, keepdims=True), 1e-9, None)
        means = np.array([unit[targets == k].mean(axis=0) for k in range(len(shown))])
        prototypes = means / np.clip(np.linalg.norm(means, axis=1, keepdims=True), 1e-9, None)
    if "head" in parts:
        head_weights, head_bias = _fit_head(features, targets, len(shown))
    if "templates" in parts:
        faces = rows & samples.original & samples.holding_pieces(classes)
        templates = GlyphTemplates.from_crops(samples.face_crops(faces), [classes[k] for k in samples.labels[faces]])
    return Adaptation(game, covered, centre, scale, prototypes, head_weights, head_bias, temperature,
                      model_weight, method, templates=templates, template_temperature=template_temperature,
                      template_model_weight=template_model_weight)


# ---------------------------------------------------------------------------- the whole job
@dataclass
class AdaptationReport:
    adaptation: Adaptation
    held_out: str  # what the accuracies were measured on
    held_out_points: int
    # Of those, the ones with a piece on them. The templates re-weigh only what the model reads
    # as a piece, so with none (one Cờ Toán start photo: each digit shows once a side, and only
    # classes shown twice are halved) the accuracies are bound to tie and say nothing of them.
    held_out_pieces: int
    model_accuracy: float  # the shipped model on the held-out points
    adapted_accuracy: float  # the adaptation fitted without them, on them
    seconds: float
    agreement: list[float] = field(default_factory=list)  # each photo's, with the start FEN
    unframed_points: int = 0  # points outside their photo, left out of fitting and measuring

    @property
    def helps(self) -> bool:
        """Whether the adaptation read the held-out points at least as well as the model: else
        the model is kept. A strong model may read a set better than templates of one photo do."""
        return bool(self.adapted_accuracy >= self.model_accuracy)

    def summary(self, used: bool | None = None) -> str:
        """One line for the user; `used` (default: `helps`) says whether the adaptation is used."""
        used = self.helps if used is None else used
        if self.helps:
            verdict = ""
        elif used:
            verdict = "; the adaptation read them worse, but is used all the same"
        else:
            verdict = "; the adaptation read them worse, so the model is kept"
        notes = (f"; {self.unframed_points} point(s) outside the photo(s) left out"
                 if self.unframed_points else "")
        if self.held_out_pieces == 0:
            notes += ("; none of those points holds a piece, so they cannot tell whether the adaptation "
                      "reads the pieces better: give a second start photo")
        return (f"adapted to this set in {self.seconds:.1f} s; on {self.held_out} ({self.held_out_points} points): "
                f"model {self.model_accuracy:.1%} → adapted {self.adapted_accuracy:.1%} of points right{verdict}"
                f"{notes}")

    def to_json(self, used: bool | None = None) -> dict:
        return {"held_out": self.held_out, "held_out_points": self.held_out_points,
                "model_accuracy": round(self.model_accuracy, 4),
                "adapted_accuracy": round(self.adapted_accuracy, 4), "seconds": round(self.seconds, 2),
                "start_agreement": [round(a, 4) for a in self.agreement], "unframed_points": self.unframed_points,
                "held_out_pieces": self.held_out_pieces,
                "method": self.adaptation.method, "classes": len(self.adaptation.classes),
                "used": self.helps if used is None else used}


def _accuracy(adaptation: Adaptation | None, classes: Sequence[str], samples: Samples, rows: np.ndarray) -> float:
    probabilities = samples.probabilities[rows]
    if adaptation is not None:
        probabilities = adaptation.apply(probabilities, samples.embeddings[rows], classes, samples.face_crops(rows))
    return float(np.mean(np.argmax(probabilities, axis=1) == samples.labels[rows]))


def _point_halves(labels: np.ndarray) -> np.ndarray:
    """Fold 0/1 per point: every class's points alternate between the halves; a class with a
    single point stays in fold 0 (training) since it cannot be held out."""
    fold = np.zeros(len(labels), int)
    for label in np.unique(labels):
        where = np.flatnonzero(labels == label)
        if len(where) > 1:
            fold[where[1::2]] = 1
    return fold


def adapt_to_start(classifier: PointClassifier, photos: Sequence[tuple[np.ndarray, Calibration]],
                   method: str = DEFAULT_METHOD, seed: int = 0, names: Sequence[str] | None = None) -> AdaptationReport:
    """Adapt `classifier` to the set on `photos` of the start position (each with its calibration;
    `names`, their files, name a photo that does not show it).

    Measured before the final fit: with two or more photos, each photo is read by an
    adaptation fitted on the others; with one, half the points of every class that has two or
    more are read by an adaptation fitted on the other half.
    """
    if not photos:
        raise AdaptationError("give at least one photo of the start position")
    began = time.perf_counter()
    classes = classifier.classes
    game = classifier.game
    samples = collect(classifier, photos, seed=seed, features=bool(components(method) & {"prototypes", "head"}))
    agreement = check_start_position(game, classes, samples, len(photos), names)
    model_right = adapted_right = 0
    if len(photos) > 1:
        for number in range(len(photos)):
            test = (samples.photo == number) & samples.original
            adaptation = fit(game, classes, samples, samples.photo != number, method)
            model_right += _accuracy(None, classes, samples, test) * test.sum()
            adapted_right += _accuracy(adaptation, classes, samples, test) * test.sum()
        held_out = samples.original  # every photo in turn
        what = "each start photo, adapted on the other(s)"
    else:
        fold_of_point = np.zeros(samples.points_per_photo, int)
        fold_of_point[samples.point[samples.original]] = _point_halves(samples.labels[samples.original])
        fold = fold_of_point[samples.point]
        test = (fold == 1) & samples.original
        adaptation = fit(game, classes, samples, fold == 0, method)
        model_right = _accuracy(None, classes, samples, test) * test.sum()
        adapted_right = _accuracy(adaptation, classes, samples, test) * test.sum()
        held_out = test
        what = ("half the points of every class shown twice or more, adapted on the rest "
                "(give a second start photo for a whole held-out photo)")
    final = fit(game, classes, samples, None, method)
    final.meta = {"photos": len(photos), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    seconds = time.perf_counter() - began
    held = int(held_out.sum())
    pieces = int((held_out & samples.holding_pieces(classes)).sum())
    return AdaptationReport(final, what, held, pieces, model_right / max(held, 1), adapted_right / max(held, 1),
                            seconds, agreement, samples.unframed)


# ---------------------------------------------------------------------------- profiles
def adaptation_path(profile: Path) -> Path:
    """Where the adaptation of a profile is written: beside it, ``<profile stem>.adapt.npz``."""
    return profile.with_name(profile.stem + ".adapt.npz")


def save_with_profile(adaptation: Adaptation, profile: Path) -> Path:
    """Write the adaptation beside the profile and name it in the profile's JSON."""
    try:
        data = json.loads(profile.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError) as error:
        raise AdaptationError(f"cannot read calibration profile {str(profile)!r}: {error}") from None
    if data.get("game") != adaptation.game:
        raise AdaptationError(f"{profile} calibrates a {data.get('game')} board, not {adaptation.game}")
    path = adaptation_path(profile)
    adaptation.save(path)
    data[PROFILE_KEY] = path.name
    profile.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _profile_data(profile: Path) -> dict:
    """The profile's JSON object, or {} when it cannot be read (the profile loader says why)."""
    try:
        data = json.loads(Path(profile).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def named_adaptation(profile: Path) -> Path | None:
    """The adaptation file a profile names (beside it), or None when it names none or cannot be read."""
    name = _profile_data(profile).get(PROFILE_KEY)
    return Path(profile).with_name(str(name)) if name else None


def load_for_profile(profile: Path) -> Adaptation | None:
    """The adaptation a profile names, or None when it names none."""
    data = _profile_data(profile)
    name = data.get(PROFILE_KEY)
    if not name:
        return None
    adaptation = Adaptation.load(Path(profile).with_name(str(name)))
    if adaptation.game != data.get("game"):
        raise AdaptationError(f"{name} adapts a {adaptation.game} classifier, but {profile} is {data.get('game')}")
    return adaptation
