"""Clicked corners fitted to the printed grid (calibration.grid.snap_to_grid), against the
corners as given and against OpenCV's `cornerSubPix` at each clicked corner.

    .venv/bin/python benchmarks/snap.py [--renders 10] [--games xiangqi,commander,cotoan] [--off 1.5,6]

Held-out renders (`render_scene(..., split="test")`: cloth and paper boards, the test fonts,
tilted up to 45°, turned any way, hands, random positions). Each grid corner is moved by a
Gaussian of `--off` pixels in x and y (1.5: the noise `models.evaluate` gives the station's
calibration; 6: a quick click on a 1280 × 720 photo). Then the start position, its corners
clicked where a user sees them: on the middle of the disc standing there (its top, lifted off
the point in a tilted view; Cờ Tướng's chariots, Cờ Toán's corner pieces), 1.5 px off. The error of a calibration is the
largest distance, over all points of the board, between where it puts a point and where the
render did, in piece radii: a crop is framed to the radius, so a tenth of one is a crop a
tenth off-centre. The named peer is the classic refinement of clicked corners,
`cv2.cornerSubPix` in a window of half a spacing at each of the four, the homography refitted.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where benchmarks/vision.py would
# hide the `vision` package the renderer imports.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import games  # noqa: E402
from calibration import Calibration  # noqa: E402
from calibration.grid import snap_to_grid  # noqa: E402
from models.synth.scene import render_scene  # noqa: E402


def through(truth: Calibration, corners: np.ndarray) -> Calibration:
    """A calibration of the truth's board whose grid corners lie at `corners` (pixels)."""
    sheet = np.array([truth.layout.point_mm(p) for p in truth.layout.corner_points()], np.float32)
    homography = cv2.getPerspectiveTransform(sheet, corners.astype(np.float32)).astype(np.float64)
    return Calibration(truth.layout, homography, truth.image_size, "corners")


def point_error(calibration: Calibration, truth: Calibration) -> float:
    points = truth.all_points()
    placed = np.array([calibration.point_pixel(p) for p in points])
    true = np.array([truth.point_pixel(p) for p in points])
    return float(np.linalg.norm(placed - true, axis=1).max() / truth.piece_radius_px())


def corner_subpix(image: np.ndarray, corners: np.ndarray, spacing_px: float) -> np.ndarray:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    half = max(2, int(spacing_px / 4))
    inside = corners.copy()
    height, width = gray.shape
    mask = (corners[:, 0] > half) & (corners[:, 0] < width - half - 1) & \
        (corners[:, 1] > half) & (corners[:, 1] < height - half - 1)
    if mask.any():
        found = cv2.cornerSubPix(gray, corners[mask].astype(np.float32).reshape(-1, 1, 2), (half, half), (-1, -1),
                                 (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 40, 0.01))
        inside[mask] = found.reshape(-1, 2)
    return inside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=10)
    parser.add_argument("--games", default="xiangqi,commander,cotoan")
    parser.add_argument("--off", default="1.5,6", help="the clicks' Gaussian error, pixels, comma-separated")
    args = parser.parse_args()
    cases = [(f"off {float(v):g} px ", float(v), False) for v in args.off.split(",")] + [("start, on tops", 1.5, True)]
    for label, sigma, start in cases:
        medians: dict[str, list[float]] = {"given": [], "cornerSubPix": [], "snap_to_grid": []}
        for game in args.games.split(","):
            rows, seconds = compare(game, args.renders, sigma, start)
            for name, errors in rows.items():
                medians[name].extend(errors)
                errors = np.array(errors)
                print(f"{label} {game:9s} {name:13s} median {np.median(errors):5.3f} radii, worst "
                      f"{errors.max():5.3f}, within 0.1 radii {int((errors < 0.1).sum()):2d}/{len(errors)}")
            print(f"{label} {game:9s} snap_to_grid: {seconds / args.renders:.2f} s per photo")
        given, peer, snapped = (np.median(medians[name]) for name in ("given", "cornerSubPix", "snap_to_grid"))
        print(f"{label} all games: median point error as given {given:.3f} radii, cornerSubPix {peer:.3f}, "
              f"snap_to_grid {snapped:.3f}: {given / snapped:.1f}× smaller than as given, "
              f"{peer / snapped:.1f}× smaller than cornerSubPix")


def compare(game: str, renders: int, sigma: float, start: bool = False) -> tuple[dict[str, list[float]], float]:
    """Each calibration's point error on `renders` held-out renders, corners `sigma` px off
    (with `start`: the start position, each corner clicked on the disc standing there), and the
    seconds the snap took."""
    position = None
    if start:
        from vision.classes import EMPTY, appearance

        position = {p: c for p, c in appearance(game, games.get(game).board()).items() if c != EMPTY}
    rows: dict[str, list[float]] = {"given": [], "cornerSubPix": [], "snap_to_grid": []}
    seconds = 0.0
    for index in range(renders):
        rng = random.Random((72_000 if start else 71_000) + index)
        scene = render_scene(game, rng, position=position, split="test", hands=False if start else None)
        truth = scene.calibration
        seen = [truth.piece_center_pixel(p) if position and p in position else truth.point_pixel(p)
                for p in truth.layout.corner_points()]
        corners = np.array(seen) + np.array([[rng.gauss(0, sigma), rng.gauss(0, sigma)] for _ in range(4)])
        given = through(truth, corners)
        rows["given"].append(point_error(given, truth))
        spacing = np.linalg.norm(corners[1] - corners[0]) / (truth.layout.geometry.files - 1)
        rows["cornerSubPix"].append(point_error(through(truth, corner_subpix(scene.image, corners, spacing)), truth))
        began = time.perf_counter()
        snapped = snap_to_grid(given, scene.image)
        seconds += time.perf_counter() - began
        rows["snap_to_grid"].append(point_error(snapped, truth))
    return rows, seconds


if __name__ == "__main__":
    main()
