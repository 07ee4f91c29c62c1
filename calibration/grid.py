"""Finding a board without markers or clicked corners: the printed grid itself.

Issue #6's third way to locate a board (after the printed markers and four clicked corners).
A phone photo of a paper or wooden board has no markers, but it has the grid: two families of
long straight dark lines, each family converging under perspective. The finder

1. makes a *line-evidence* map: thin dark strokes on a lighter ground (a morphological
   black-hat, so uneven light and shadows do not matter), normalised to 0–1;
2. finds long straight lines on it (probabilistic Hough pieces joined and refitted) and
   splits them into the two families by angle (and where the best grid matches poorly, again
   among fainter strokes: `RETRY_BELOW`);
3. hypothesises the grid's outer lines (two of each family, and which family holds the files;
   the best outlines are also tried as inner lines of a larger grid, since a start position
   hides the first and last ranks under pieces),
   fits the homography from the game's grid to the image, and scores each hypothesis by the
   *contrast* between evidence on the game's own printed segments (Xiangqi's river gap and
   palace diagonals, Commander's broken files across the river, Cờ Toán's cells and marked
   zero cells) and evidence a fifth of a spacing beside them, on the emptier side (many
   boards print a frame just outside the grid: against the mean of both sides the outer
   lines matched nothing, and a grid shifted by one line won). Samples sit between points,
   not on them: pieces cover the intersections; those outside the photo are left out, so a
   line the photo's edge cuts is judged by what it shows;
4. refines the best hypotheses by pulling every sample onto the strongest stroke across it
   and refitting the homography (a few rounds, narrowing), and keeps the best.

The confidence is that contrast after refinement, on the evidence with strokes of at least
`STROKE` counted whole and fainter ones in part: per printed segment, the share of its
samples on a stroke minus the share beside it (the emptier side), averaged over the segments
together with their lower quartile (about 0.3–0.9 on the renders; under `MIN_CONFIDENCE` the
finder gives up with `GridNotFoundError`).

**Orientation.** The grid alone says which family holds the files wherever the game's lines
tell them apart (Xiangqi's river breaks the files, not the ranks; Cờ Toán and Commander have
more ranks than files), but not which way round the board lies: Xiangqi's and Cờ Toán's grids
look the same turned half round, and Commander's one tell (its two sea files cross the river,
the others do not) was right on only half of the renders tried. So the finder always puts the
first rank (White's, Red's side) on the edge nearer the bottom of the photo, as a player
photographs the board from their own seat. A caller that knows better (the red general's
palace, a side's pieces at the start) turns it with `half_turned`; `--corners` fixes it too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.homography import Calibration, CalibrationError
from calibration.layout import BoardLayout
from games import Geometry, Variant

MIN_CONFIDENCE = 0.15
# Larger photos are searched shrunk to this longer side (pixels).
WORKING_SIZE = 1280
# Off-line samples sit this far (in spacings) beside each line sample.
BESIDE = 0.22
# At most this many lines of each family enter the hypotheses (the strongest).
LINES_PER_FAMILY = 20
# Evidence above this counts as a stroke (the lines looked for, the matches scored).
STROKE = 0.35
# A board matched less well than this (or not at all) is looked for again among lines of
# strokes as faint as FAINT_LINES: blur across one family of lines can leave it under STROKE,
# and lines are then found in one direction only. Not always: the fainter strokes bring more
# false lines (a threshold of 0.25 for every photo found 112 of 120 training-split renders
# against 115; looking again below RETRY_BELOW finds 116, `benchmarks/HISTORY.md`).
RETRY_BELOW = 0.5
FAINT_LINES = 0.2


class GridNotFoundError(CalibrationError):
    """No board grid of the game could be found on an image."""


@dataclass(frozen=True)
class GridFit:
    """What the finder settled on: grid → image homography, and how sure it is."""

    grid_to_image: np.ndarray  # grid coordinates (file, rank; cells: edge lines) → pixels
    confidence: float


# ---------------------------------------------------------------------- the game's grid
@dataclass(frozen=True)
class GridModel:
    """A game's printed lines in grid units: x along the files, y along the ranks, the first
    line of each at 0; sample points on the lines and beside them."""

    width: int  # last file line's x
    height: int  # last rank line's y
    segments: tuple[tuple[tuple[float, float], tuple[float, float]], ...]
    half_turn_symmetric: bool

    @classmethod
    def for_geometry(cls, geometry: Geometry) -> GridModel:
        segments: list[tuple[tuple[float, float], tuple[float, float]]] = []
        if geometry.placement == "cells":
            width, height = geometry.files, geometry.ranks
            segments += [((x, 0.0), (x, float(height))) for x in range(width + 1)]
            segments += [((0.0, y), (float(width), y)) for y in range(height + 1)]
            for name, points in geometry.regions.items():
                if "zero" in name:  # Cờ Toán's marked cells carry both diagonals
                    for p in points:
                        segments.append(((p.file, p.rank), (p.file + 1, p.rank + 1)))
                        segments.append(((p.file, p.rank + 1), (p.file + 1, p.rank)))
        else:
            width, height = geometry.files - 1, geometry.ranks - 1
            segments = [((a.file, a.rank), (b.file, b.rank)) for a, b in geometry.lines]
        canonical = {_segment_key(s) for s in segments}
        turned = {_segment_key(((width - a[0], height - a[1]), (width - b[0], height - b[1])))
                  for a, b in segments}
        return cls(width, height, tuple(segments), canonical == turned)

    def corners(self) -> np.ndarray:
        """The grid's four corners, first file and rank first, anticlockwise on the sheet."""
        return np.array([[0.0, 0.0], [self.width, 0.0], [self.width, self.height], [0.0, self.height]])

    def samples(self, fractions=(0.3, 0.5, 0.7)) -> Samples:
        """Points on the printed lines between grid points, two points beside each (one on
        either side), and which segment each lies on; in grid units."""
        on, beside, segment = [], [], []
        for index, ((x1, y1), (x2, y2)) in enumerate(self.segments):
            steps = max(1, round(max(abs(x2 - x1), abs(y2 - y1))))
            dx, dy = (x2 - x1) / steps, (y2 - y1) / steps
            length = math.hypot(dx, dy)
            nx, ny = -dy / length, dx / length
            for step in range(steps):
                for f in fractions:
                    x, y = x1 + (step + f) * dx, y1 + (step + f) * dy
                    on.append((x, y))
                    beside.append(((x + BESIDE * nx, y + BESIDE * ny), (x - BESIDE * nx, y - BESIDE * ny)))
                    segment.append(index)
        return Samples(np.array(on), np.array(beside), np.array(segment), len(self.segments))


@dataclass(frozen=True)
class Samples:
    on: np.ndarray  # (M, 2)
    beside: np.ndarray  # (M, 2, 2)
    segment: np.ndarray  # (M,) index of the printed segment
    segments: int

    def subset(self, keep: np.ndarray) -> Samples:
        return Samples(self.on[keep], self.beside[keep], self.segment[keep], self.segments)

    def normals(self) -> np.ndarray:
        """Unit normals (grid units) of the line at each sample."""
        normal = self.beside[:, 0] - self.beside[:, 1]
        return normal / np.linalg.norm(normal, axis=1, keepdims=True)


def _segment_key(segment) -> tuple:
    a, b = (tuple(round(v, 6) for v in p) for p in segment)
    return (a, b) if a <= b else (b, a)


def grid_to_sheet(layout: BoardLayout) -> np.ndarray:
    """The affine map from grid units (x = file line, y = rank line from White's side) to the
    sheet (mm, y down)."""
    p, m = layout.pitch_mm, layout.margin_mm
    _, height_mm = layout.grid_size_mm
    return np.array([[p, 0.0, m], [0.0, -p, m + height_mm], [0.0, 0.0, 1.0]])


# ---------------------------------------------------------------------- evidence
def line_evidence(image: np.ndarray) -> np.ndarray:
    """Thin dark strokes on a lighter ground, 0–1, as float32 (same size as the image).

    A stroke is measured against the ground around it (black-hat over closing), so a line in
    a shadow counts as much as one in the light."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    height, width = gray.shape
    # Wide enough to close over the thickest board line, narrow enough to keep the cells.
    size = max(5, 2 * round(min(height, width) / 160) + 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    ground = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kernel)
    strokes = (ground - gray) / (ground + 16.0)
    scale = float(np.percentile(strokes, 99.0))
    if scale < 0.03:  # a flat image: nothing that looks like a printed line
        return np.zeros_like(strokes)
    return np.clip(strokes / scale, 0.0, 1.0)


def _lines(evidence: np.ndarray, level: float = STROKE) -> np.ndarray:
    """Long straight lines on the evidence: rows of (rho, theta, support in pixels), strongest
    first. Straight runs of stroke pixels (probabilistic Hough) are joined when they lie on
    one line, so a grid line broken by pieces counts whole, while a line that only crosses
    many strokes (a diagonal through a grid) gets nothing."""
    height, width = evidence.shape
    binary = (evidence > level).astype(np.uint8) * 255
    shortest = max(20, round(0.04 * min(height, width)))
    found = cv2.HoughLinesP(binary, 1, math.pi / 360, shortest, minLineLength=shortest, maxLineGap=4)
    if found is None:
        return np.zeros((0, 3))
    segments = found.reshape(-1, 4).astype(np.float64)
    lengths = np.hypot(segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1])
    order = np.argsort(-lengths)
    tolerance = max(3.0, min(height, width) / 200)
    lines: list[list[float]] = []  # rho, theta, support
    members: list[list[int]] = []
    for index in order[:1500]:
        x1, y1, x2, y2 = segments[index]
        theta = math.atan2(x2 - x1, -(y2 - y1)) % math.pi  # the normal's angle
        c, s = math.cos(theta), math.sin(theta)
        rho = (x1 + x2) / 2 * c + (y1 + y2) / 2 * s
        for line, group in zip(lines, members, strict=True):
            lc, ls = math.cos(line[1]), math.sin(line[1])
            if (_angle_gap(line[1], theta) < math.radians(2.0)
                    and abs(x1 * lc + y1 * ls - line[0]) < tolerance and abs(x2 * lc + y2 * ls - line[0]) < tolerance):
                line[2] += lengths[index]
                group.append(index)
                break
        else:
            lines.append([rho, theta, lengths[index]])
            members.append([index])
    # Each line again through all its pieces (least squares, weighted by length): the first
    # piece's angle is only as good as its length.
    for line, group in zip(lines, members, strict=True):
        if len(group) > 1:
            ends = segments[group].reshape(-1, 2)
            weights = np.repeat(lengths[group], 2)
            centre = (ends * weights[:, None]).sum(0) / weights.sum()
            spread = ((ends - centre) * weights[:, None]).T @ (ends - centre)
            _, vectors = np.linalg.eigh(spread)
            normal = vectors[:, 0]
            theta = math.atan2(normal[1], normal[0]) % math.pi
            line[0] = centre[0] * math.cos(theta) + centre[1] * math.sin(theta)
            line[1] = theta
    lines.sort(key=lambda line: -line[2])
    return np.array(lines[:100])


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % math.pi
    return min(d, math.pi - d)


def _families(lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split the lines into two families of roughly one direction each (by votes)."""
    doubled = (2 * lines[:, 1]) % (2 * math.pi)
    bins = 180
    hist = np.zeros(bins)
    np.add.at(hist, (doubled / (2 * math.pi) * bins).astype(int) % bins, lines[:, 2])
    smooth = np.convolve(np.concatenate([hist[-8:], hist, hist[:8]]), np.ones(9), "valid")[:bins]
    first = int(np.argmax(smooth))
    distance = np.minimum(np.abs(np.arange(bins) - first), bins - np.abs(np.arange(bins) - first))
    second = int(np.argmax(np.where(distance >= bins * 50 / 360, smooth, -1)))  # θ ≥ 25° apart
    centres = np.array([first, second]) * 2 * math.pi / bins

    def gap(angle: np.ndarray, centre: float) -> np.ndarray:
        d = np.abs(angle - centre) % (2 * math.pi)
        return np.minimum(d, 2 * math.pi - d)

    to_first, to_second = gap(doubled, centres[0]), gap(doubled, centres[1])
    limit = math.radians(2 * 32)
    a = lines[(to_first <= to_second) & (to_first < limit)]
    b = lines[(to_second < to_first) & (to_second < limit)]
    return a[:LINES_PER_FAMILY], b[:LINES_PER_FAMILY]


def _homogeneous(lines: np.ndarray) -> np.ndarray:
    """(rho, θ) → homogeneous line (cos θ, sin θ, -rho)."""
    return np.stack([np.cos(lines[:, 1]), np.sin(lines[:, 1]), -lines[:, 0]], axis=1)


def _ordered(family: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """The family's homogeneous lines ordered across it (by where they cut a transversal
    through the image centre)."""
    lines = _homogeneous(family)
    mean = np.arctan2(np.sin(2 * family[:, 1]).sum(), np.cos(2 * family[:, 1]).sum()) / 2
    normal = np.array([math.cos(mean), math.sin(mean)])
    # Point centre + s·normal lies on a·x + b·y + c = 0.
    s = -(lines[:, :2] @ centre + lines[:, 2]) / (lines[:, :2] @ normal)
    return lines[np.argsort(s)]


# ---------------------------------------------------------------------- hypotheses
def _outer_pairs(count: int) -> np.ndarray:
    """Index pairs (first, last) of a family's ordered lines with at least one line between."""
    first, last = np.triu_indices(count, k=2 if count > 3 else 1)
    return np.stack([first, last], 1)


def _corner_sets(file_lines: np.ndarray, rank_lines: np.ndarray) -> np.ndarray:
    """Every choice of two outer file lines and two outer rank lines, as the quadrilateral's
    corners (first file ∩ first rank, last file ∩ first rank, last ∩ last, first ∩ last)."""
    crossings = np.cross(file_lines[:, None, :], rank_lines[None, :, :])  # (files, ranks, 3)
    file_pairs, rank_pairs = _outer_pairs(len(file_lines)), _outer_pairs(len(rank_lines))
    if not len(file_pairs) or not len(rank_pairs):
        return np.zeros((0, 4, 2))
    f = np.repeat(file_pairs, len(rank_pairs), axis=0)
    r = np.tile(rank_pairs, (len(file_pairs), 1))
    quads = np.stack([crossings[f[:, 0], r[:, 0]], crossings[f[:, 1], r[:, 0]],
                      crossings[f[:, 1], r[:, 1]], crossings[f[:, 0], r[:, 1]]], axis=1)
    w = quads[..., 2:3]
    ok = np.all(np.abs(w) > 1e-9, axis=(1, 2))
    return quads[ok, :, :2] / w[ok]


def _homographies(model: GridModel, quads: np.ndarray) -> np.ndarray:
    """Batch of grid → image homographies, one per quadrilateral (corners as `_corner_sets`)."""
    src = model.corners()
    n = len(quads)
    a = np.zeros((n, 8, 8))
    b = np.zeros((n, 8))
    for k in range(4):
        x, y = src[k]
        u, v = quads[:, k, 0], quads[:, k, 1]
        a[:, 2 * k, 0:3] = [x, y, 1]
        a[:, 2 * k, 6] = -u * x
        a[:, 2 * k, 7] = -u * y
        a[:, 2 * k + 1, 3:6] = [x, y, 1]
        a[:, 2 * k + 1, 6] = -v * x
        a[:, 2 * k + 1, 7] = -v * y
        b[:, 2 * k], b[:, 2 * k + 1] = u, v
    solvable = np.abs(np.linalg.det(a)) > 1e-12
    h = np.zeros((n, 9))
    h[solvable, :8] = np.linalg.solve(a[solvable], b[solvable][..., None])[..., 0]
    h[:, 8] = 1.0
    h[~solvable] = np.nan
    return h.reshape(n, 3, 3)


def _project(homographies: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(N,3,3) × (M,2) → (N,M,2); points behind the camera come out as NaN."""
    ones = np.ones((len(points), 1))
    projected = np.matmul(homographies, np.hstack([points, ones]).T).transpose(0, 2, 1)
    w = projected[..., 2:3]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(w > 1e-9, projected[..., :2] / w, np.nan)


def _inside(evidence: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Per pixel position, whether it lies on the image (NaN, behind the camera: not)."""
    height, width = evidence.shape
    x, y = pixels[..., 0], pixels[..., 1]
    with np.errstate(invalid="ignore"):
        return np.isfinite(x) & np.isfinite(y) & (x >= 0) & (x <= width - 1) & (y >= 0) & (y <= height - 1)


def _lookup(evidence: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Evidence at pixel positions (nearest); outside the image counts as no evidence."""
    x, y = pixels[..., 0], pixels[..., 1]
    inside = _inside(evidence, pixels)
    xi = np.where(inside, np.nan_to_num(x), 0).round().astype(int)
    yi = np.where(inside, np.nan_to_num(y), 0).round().astype(int)
    return np.where(inside, evidence[yi, xi], 0.0)


def _contrast(evidence: np.ndarray, homographies: np.ndarray, samples: Samples) -> np.ndarray:
    """Per homography: evidence on each printed segment minus evidence beside it (the emptier
    side; samples outside the photo left out), averaged over the segments together with their
    lower quartile (a grid squeezed onto half the board matches some lines perfectly and the
    rest not at all)."""
    n = len(homographies)
    on_pixels = _project(homographies, samples.on)
    beside_pixels = _project(homographies, samples.beside.reshape(-1, 2))
    on = _lookup(evidence, on_pixels)
    beside = _lookup(evidence, beside_pixels).reshape(n, -1, 2).min(-1)
    seen = _inside(evidence, on_pixels) & _inside(evidence, beside_pixels).reshape(n, -1, 2).all(-1)
    membership = np.zeros((len(samples.on), samples.segments))
    membership[np.arange(len(samples.on)), samples.segment] = 1.0
    used = membership.sum(axis=0) > 0
    membership = membership[:, used]
    per_segment = ((on - beside) * seen) @ membership / np.maximum(seen.astype(np.float64) @ membership, 1.0)
    return 0.5 * per_segment.mean(axis=1) + 0.5 * np.quantile(per_segment, 0.25, axis=1)


def _plausible(quads: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """Convex quadrilaterals of a sensible size whose corners are not far outside the image."""
    width, height = image_size
    x, y = quads[..., 0], quads[..., 1]
    near = np.all((x > -0.25 * width) & (x < 1.25 * width) & (y > -0.25 * height) & (y < 1.25 * height), axis=1)
    cross = []
    for k in range(4):
        a, b, c = quads[:, k], quads[:, (k + 1) % 4], quads[:, (k + 2) % 4]
        cross.append((b[:, 0] - a[:, 0]) * (c[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - b[:, 0]))
    cross = np.array(cross)
    convex = np.all(cross > 0, axis=0) | np.all(cross < 0, axis=0)
    area = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
    big = area > 0.04 * width * height
    return near & convex & big


# ---------------------------------------------------------------------- refinement
def _refine(evidence: np.ndarray, strokes: np.ndarray, homography: np.ndarray, samples: Samples,
            rounds: int = 8) -> tuple[np.ndarray, float]:
    """Pull each line sample onto the strongest stroke across it, refit, narrowing each round;
    a round that matches the grid worse than before is dropped (a thick frame beside the
    outer lines can pull them off). Returns the homography and its contrast on `strokes`."""
    smooth = cv2.GaussianBlur(evidence, (0, 0), 1.0)
    best = float(_contrast(strokes, homography[None], samples)[0])
    on, normals = samples.on, samples.normals()
    for reach in np.linspace(0.3, 0.08, rounds):
        offsets = np.linspace(-reach, reach, 25)
        probes = on[:, None, :] + offsets[None, :, None] * normals[:, None, :]  # grid units
        pixels = _project(homography[None], probes.reshape(-1, 2))[0].reshape(len(on), len(offsets), 2)
        values = _lookup(smooth, pixels)
        strongest = values.max(axis=1)
        keep = strongest > 0.3
        if keep.sum() < 12:
            break
        # The middle of the strongest stroke: its pixels above half its peak, weighted.
        weights = np.clip(values[keep] - 0.5 * strongest[keep, None], 0, None)
        weights /= weights.sum(axis=1, keepdims=True)
        target = np.einsum("mk,mkd->md", weights, pixels[keep])
        fitted, inliers = cv2.findHomography(on[keep], target, cv2.RANSAC, 2.5)
        if fitted is None or inliers is None or inliers.sum() < 12:
            break
        fitted = fitted / fitted[2, 2]
        score = float(_contrast(strokes, fitted[None], samples)[0])
        if score > best:
            homography, best = fitted, score
    return homography, best


# ---------------------------------------------------------------------- the finder
def find_grid(image: np.ndarray, layout: BoardLayout, source: str = "the image") -> GridFit:
    """The game's grid on a photo: its grid → image homography and a confidence, or
    `GridNotFoundError` naming `source` and what was missing."""
    name = layout.geometry.name
    if image is None or image.ndim not in (2, 3) or min(image.shape[:2]) < 64:
        raise GridNotFoundError(f"no {name} grid found in {source}: the image is empty or smaller than 64 px")
    # A phone's 12-megapixel photo is searched at webcam size (the lines stay a few pixels
    # wide, the search stays about as fast); the homography is scaled back.
    shrink = min(1.0, WORKING_SIZE / max(image.shape[:2]))
    if shrink < 1.0:
        small = cv2.resize(image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
        fit = find_grid(small, layout, source)
        grow = np.diag([1 / shrink, 1 / shrink, 1.0])
        return GridFit(grow @ fit.grid_to_image, fit.confidence)
    fits: list[GridFit] = []
    for level in (STROKE, FAINT_LINES):
        try:
            fits.append(_search(image, layout, source, level))
        except GridNotFoundError as error:
            missed = error
        if fits and fits[-1].confidence >= RETRY_BELOW:
            break
    if not fits:
        raise missed
    return max(fits, key=lambda fit: fit.confidence)


def _search(image: np.ndarray, layout: BoardLayout, source: str, level: float) -> GridFit:
    """`find_grid` on an image at its working size, from lines whose strokes pass `level`."""
    name = layout.geometry.name
    height, width = image.shape[:2]
    evidence = line_evidence(image)
    lines = _lines(evidence, level)
    if len(lines) < 4:
        raise GridNotFoundError(f"no {name} grid found in {source}: too few straight lines "
                                f"({len(lines)}) to make a board of")
    first, second = _families(lines)
    if len(first) < 2 or len(second) < 2:
        raise GridNotFoundError(f"no {name} grid found in {source}: the lines do not cross in two directions")
    centre = np.array([width / 2, height / 2])
    first, second = _ordered(first, centre), _ordered(second, centre)
    model = GridModel.for_geometry(layout.geometry)
    samples = model.samples()
    # The lines found are good to a few pixels: the first look forgives that much.
    tolerant = cv2.dilate(evidence, np.ones((5, 5), np.uint8))
    coarse = samples.subset(np.arange(1, len(samples.on), 6))  # the middle of every other step
    candidates = []
    for file_lines, rank_lines in ((first, second), (second, first)):
        quads = _corner_sets(file_lines, rank_lines)
        quads = quads[_plausible(quads, (width, height))] if len(quads) else quads
        if not len(quads):
            continue
        # Same turn as the sheet: the grid's corners run the way the sheet's do.
        quads = _with_sheet_handedness(quads)
        homographies = _homographies(model, quads)
        good = np.all(np.isfinite(homographies), axis=(1, 2))
        homographies = homographies[good]
        scores = np.concatenate([
            _contrast(tolerant, homographies[i:i + 4096], coarse)
            for i in range(0, len(homographies), 4096)]) if len(homographies) else np.zeros(0)
        # The four lines found need not be the grid's outer ones: in the start position the
        # first and last ranks hide under a row of pieces. Each of the best outlines is also
        # tried as inner lines of a larger grid.
        best = homographies[np.argsort(-scores)[:40]]
        grown = (best[:, None] @ _inner_outlines(model)[None]).reshape(-1, 3, 3)
        grown_scores = _contrast(tolerant, grown, coarse)
        for index in np.argsort(-scores)[:8]:
            candidates.append((float(scores[index]), homographies[index]))
        for index in np.argsort(-grown_scores)[:8]:
            candidates.append((float(grown_scores[index]), grown[index]))
    if not candidates:
        raise GridNotFoundError(f"no {name} grid found in {source}: no four lines make a plausible board outline")
    candidates.sort(key=lambda item: -item[0])
    best_score, best = -1.0, None
    # Scored on strokes as faint as `STROKE` counted whole and fainter ones in part, not on a
    # threshold: in a blurred or tilted photo one family of lines can fall just below it.
    strokes = np.clip(evidence / STROKE, 0.0, 1.0).astype(np.float32)
    turns = (np.eye(3),) if model.half_turn_symmetric else (np.eye(3), _half_turn(model))
    for _, homography in candidates:
        for turn in turns:  # Commander's lines differ turned half round: each way is its own grid
            refined, score = _refine(evidence, strokes, homography @ turn, samples)
            if score > best_score:
                best_score, best = score, refined
    assert best is not None
    best = _first_rank_nearest_bottom(best, model)
    if best_score < MIN_CONFIDENCE:
        raise GridNotFoundError(f"no {name} grid found in {source}: the best grid matches only "
                                f"{best_score:.2f} of its lines (needs {MIN_CONFIDENCE})")
    return GridFit(best, best_score)


def _inner_outlines(model: GridModel) -> np.ndarray:
    """Maps from the grid to the grid, each taking the outer lines to a pair of lines of each
    family spanning at least half the grid: H @ T is the grid whose lines x0, x1, y0, y1 lie
    where H put the outer ones."""
    maps = []
    for x0 in range(model.width):
        for x1 in range(x0 + max(1, (model.width + 1) // 2), model.width + 1):
            for y0 in range(model.height):
                for y1 in range(y0 + max(1, (model.height + 1) // 2), model.height + 1):
                    sx, sy = model.width / (x1 - x0), model.height / (y1 - y0)
                    maps.append([[sx, 0.0, -x0 * sx], [0.0, sy, -y0 * sy], [0.0, 0.0, 1.0]])
    return np.array(maps)


def _with_sheet_handedness(quads: np.ndarray) -> np.ndarray:
    """Mirror the file order where the quadrilateral runs the other way round than the grid
    does (a photo never shows the board mirrored)."""
    x, y = quads[..., 0], quads[..., 1]
    area = np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)
    # Grid corners (0,0), (w,0), (w,h), (0,h) seen in an image (y down) from above turn
    # clockwise on screen when the first rank is at the bottom: negative shoelace area.
    mirrored = area > 0
    quads = quads.copy()
    quads[mirrored] = quads[mirrored][:, [1, 0, 3, 2]]
    return quads


def _half_turn(model: GridModel) -> np.ndarray:
    return np.array([[-1.0, 0.0, model.width], [0.0, -1.0, model.height], [0.0, 0.0, 1.0]])


def _first_rank_nearest_bottom(homography: np.ndarray, model: GridModel) -> np.ndarray:
    first = _project(homography[None], np.array([[0.0, 0.0], [model.width, 0.0]]))[0]
    last = _project(homography[None], np.array([[0.0, model.height], [model.width, model.height]]))[0]
    if first[:, 1].mean() < last[:, 1].mean():
        return homography @ _half_turn(model)
    return homography


def calibrate_from_grid(layout: BoardLayout, image: np.ndarray, source: str = "the image",
                        **kwargs) -> Calibration:
    """A calibration of the same kind `Calibration.from_corners` makes, from the grid alone
    (method ``"grid"``); its `confidence` attribute says how well the grid matched."""
    fit = find_grid(image, layout, source)
    height, width = image.shape[:2]
    sheet_to_image = fit.grid_to_image @ np.linalg.inv(grid_to_sheet(layout))
    return Calibration(layout, sheet_to_image / sheet_to_image[2, 2], (int(width), int(height)),
                       "grid", confidence=fit.confidence, **kwargs)


def find_board(image: np.ndarray, variant: Variant, source: str = "the image", **kwargs) -> Calibration:
    """`calibrate_from_grid` for a game, with its default printed layout."""
    return calibrate_from_grid(BoardLayout.for_game(variant), image, source, **kwargs)


def half_turned(calibration: Calibration) -> Calibration:
    """The same board seen the other way round: every point maps to its half-turn partner."""
    layout = calibration.layout
    model = GridModel.for_geometry(layout.geometry)
    to_sheet = grid_to_sheet(layout)
    turn = to_sheet @ _half_turn(model) @ np.linalg.inv(to_sheet)
    return calibration.with_homography(calibration.homography @ turn)


# ---------------------------------------------------------------------- snapping given corners
# The given grid is refined again from where the last refinement left it, up to this many
# times: from corners a few pixels out, one refinement can stop short (its first round fits a
# piece's rim as well as the line beside it).
SNAP_PASSES = 3
# A grid found afresh replaces the given one only if every corner lies within this share of a
# spacing of it: it is the same board, not a grid shifted by a line, nor the other turn.
SNAP_REACH = 0.5
# The finder looks afresh only when the refined grid matches less than this (its own level for
# a poor match): a second or two, spent where refining may have stopped short.
SEARCH_BELOW = RETRY_BELOW


def snap_to_grid(calibration: Calibration, image: np.ndarray) -> Calibration:
    """`calibration` fitted to the board's printed lines on `image`: corners clicked a pixel or
    a few off, or a profile's view after the camera shifted a little.

    Three grids are weighed by how well their printed lines lie on the photo's strokes (the
    finder's contrast, not forgiving a pixel): the given one, the given one refined
    (`SNAP_PASSES` times: every line sample pulled onto the strongest stroke across it and the
    homography refitted), and the grid the finder finds afresh if its corners lie within
    `SNAP_REACH` of a spacing of the given ones. The given calibration itself comes back when
    it matches best; otherwise a copy with the new homography, its method, piece height and
    radius kept. Orientation is the given one's, always.
    """
    layout = calibration.layout
    model = GridModel.for_geometry(layout.geometry)
    samples = model.samples()
    look = _Look(image)
    given = look.grid(calibration)
    candidates = [given]
    refined = given
    for _ in range(SNAP_PASSES):
        again = _refine(look.evidence, look.strokes, refined, samples)[0]
        if np.allclose(again, refined):
            break
        refined = again
        candidates.append(refined)
    corners = model.corners()
    was = _project(given[None], corners)[0]
    spacing = float(np.mean(np.linalg.norm(was - np.roll(was, -1, axis=0), axis=1))) / (
        (model.width + model.height) / 2)
    fit = None
    if _contrast(look.strokes, refined[None], samples)[0] < SEARCH_BELOW:
        # Refined, the grid still matches poorly: it may have stopped short (corners further
        # out), or the lines are faint. The finder looks afresh (a second or two).
        try:
            fit = find_grid(look.small, layout)
        except GridNotFoundError:
            pass
    if fit is not None:
        for found in (fit.grid_to_image, fit.grid_to_image @ _half_turn(model)):
            shift = np.linalg.norm(_project(found[None], corners)[0] - was, axis=1)
            if np.all(shift < SNAP_REACH * spacing):
                candidates.append(found / found[2, 2])
    scores = _contrast(look.strokes, np.array(candidates), samples)
    best = int(np.argmax(scores))
    if best == 0:
        return calibration
    return look.placed(calibration, candidates[best])


# ---------------------------------------------------------------------- following a board
# While the calibration's grid matches the frame's strokes at least this share of how well it
# matched when placed, the board has not moved (pieces and light change a little of it).
STILL_MATCHES = 0.6
# A grid found again is taken when it matches at least this share of the placed one's match.
FOUND_MATCHES = 0.75


class GridLocator:
    """Keeps a calibration right on a board without markers while a game runs: a knocked
    board is found again by its printed grid (the markers' `BoardLocator` for the rest).

    Every `update(frame)` scores the calibration's printed lines on the frame's strokes, within
    two pixels (about 10 ms at 960 × 540). While they match at least `STILL_MATCHES` of how
    well they matched on the first frame looked at, nothing else is done. Below that the board
    is looked for again: refined from where it was (a small slide), else searched for afresh
    (`find_grid`, one to four seconds), the turn kept that lies nearest the old one (a knock
    turns a board a few degrees, never half round). A grid that matches at least
    `FOUND_MATCHES` of the old match and moved more than `tolerance_px` is only a candidate: a
    camera shaken by a piece set down hard shows the whole board moved for a moment. It
    replaces the calibration when the next frame looked at still matches the calibration
    poorly, and the candidate well and better (`update` returns True).
    """

    def __init__(self, calibration: Calibration, tolerance_px: float | None = None) -> None:
        self.tolerance_px = calibration.knock_tolerance_px() if tolerance_px is None else tolerance_px
        self.moves = 0
        self._model = GridModel.for_geometry(calibration.layout.geometry)
        self._samples = self._model.samples()
        self.place(calibration)

    def place(self, calibration: Calibration) -> None:
        """Follow from `calibration` (found some other way); its match is taken on the next frame."""
        self.calibration = calibration
        self.placed_match: float | None = None
        self._candidate: Calibration | None = None

    def update(self, frame: np.ndarray) -> bool:
        look = _Look(frame)
        grid = look.grid(self.calibration)
        now = look.match(grid, self._samples)
        if self.placed_match is None:
            self.placed_match = now
            return False
        candidate, self._candidate = self._candidate, None
        if now >= STILL_MATCHES * self.placed_match:
            return False  # where it was, after all (a candidate then was a moment's shake)
        if candidate is not None:
            seen = look.match(look.grid(candidate), self._samples)
            if seen >= FOUND_MATCHES * self.placed_match and seen > now:
                self.calibration, self.placed_match = candidate, seen
                self.moves += 1
                return True
        found = _refine(look.evidence, look.strokes, grid, self._samples)[0]
        if look.match(found, self._samples) < FOUND_MATCHES * self.placed_match:
            try:
                fit = find_grid(look.small, self.calibration.layout)
            except GridNotFoundError:
                return False
            corners = self._model.corners()
            was = _project(grid[None], corners)[0]

            def shift(homography: np.ndarray) -> float:
                return float(np.nanmax(np.linalg.norm(_project(homography[None], corners)[0] - was, axis=1)))

            found = min((fit.grid_to_image, fit.grid_to_image @ _half_turn(self._model)), key=shift)
        score = look.match(found, self._samples)
        if score < FOUND_MATCHES * self.placed_match:
            return False
        old = self.calibration
        fresh = look.placed(old, found, confidence=score)
        if fresh.drift_px(old) > self.tolerance_px:
            self._candidate = fresh
        return False


class _Look:
    """A frame at the finder's working size, its strokes, and how it maps from the frame."""

    def __init__(self, frame: np.ndarray) -> None:
        shrink = min(1.0, WORKING_SIZE / max(frame.shape[:2]))
        self.small = frame if shrink == 1.0 else cv2.resize(frame, None, fx=shrink, fy=shrink,
                                                             interpolation=cv2.INTER_AREA)
        self.to_small = np.diag([shrink, shrink, 1.0])
        self.evidence = line_evidence(self.small)
        self.strokes = np.clip(self.evidence / STROKE, 0.0, 1.0).astype(np.float32)
        # Matched within two pixels: a board that has not moved, or a fit a pixel or two off, still
        # matches as well as when placed (thin lines missed by a pixel would not).
        self.tolerant = cv2.dilate(self.strokes, np.ones((5, 5), np.uint8))

    def grid(self, calibration: Calibration) -> np.ndarray:
        """`calibration`'s grid → image homography at this look's working size."""
        grid = self.to_small @ calibration.homography @ grid_to_sheet(calibration.layout)
        return grid / grid[2, 2]

    def placed(self, calibration: Calibration, grid_to_image: np.ndarray, **changes) -> Calibration:
        """`calibration` placed where `grid_to_image` (at this look's working size) puts the grid."""
        sheet_to_image = np.linalg.inv(self.to_small) @ grid_to_image @ np.linalg.inv(grid_to_sheet(calibration.layout))
        return calibration.with_homography(sheet_to_image, **changes)

    def match(self, grid_to_image: np.ndarray, samples: Samples) -> float:
        """How well a grid's printed lines match the strokes within two pixels (`_contrast`: 1
        every line on ink, nothing beside it)."""
        return float(_contrast(self.tolerant, grid_to_image[None], samples)[0])
