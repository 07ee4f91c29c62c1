"""Finding a board by its printed grid (calibration.grid), against the largest quadrilateral.

    .venv/bin/python benchmarks/grid.py [--renders 10] [--games xiangqi,commander,cotoan] [--start]

Held-out renders (`render_scene(..., split="test")`: cloth and paper boards, the test fonts,
with and without markers, tilted up to 45°, turned any way, hands and pieces on the board;
`--start`: every game's full start position, the photo a user takes to calibrate).
A board counts as found when every grid corner lies within half a piece radius of the truth,
either way round (the half turn is a documented convention, measured on its own line).
The named baseline is the classic document-scanner move: the largest convex four-sided
contour of an adaptive-threshold image, its corners taken as the grid's (first rank nearest
the bottom, as the finder does).
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
from calibration.grid import GridNotFoundError, find_board  # noqa: E402
from models.synth.scene import render_scene  # noqa: E402


def largest_quadrilateral(image: np.ndarray) -> np.ndarray | None:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    binary = cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, 31, 7)
    contours, _ = cv2.findContours(binary, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    best, best_area = None, 0.0
    for contour in contours:
        hull = cv2.convexHull(contour)
        polygon = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        area = cv2.contourArea(polygon)
        if len(polygon) == 4 and area > best_area:
            best, best_area = polygon.reshape(4, 2).astype(np.float64), area
    if best is None:
        return None
    # Corners anticlockwise on screen from the lowest-left one, like the finder's a0, i0, i9, a9.
    centre = best.mean(axis=0)
    angles = np.arctan2(best[:, 1] - centre[1], best[:, 0] - centre[0])
    best = best[np.argsort(-angles)]
    start = int(np.argmax(best[:, 1] - best[:, 0] * 1e-3))
    return np.roll(best, -start, axis=0)


def corner_error(found: np.ndarray, truth: np.ndarray) -> tuple[float, bool]:
    """Largest corner error (px), either way round, and whether the found way is the truth's."""
    straight = float(np.linalg.norm(found - truth, axis=1).max())
    turned = float(np.linalg.norm(found - truth[[2, 3, 0, 1]], axis=1).max())
    return min(straight, turned), straight <= turned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--renders", type=int, default=10)
    parser.add_argument("--games", default="xiangqi,commander,cotoan")
    parser.add_argument("--start", action="store_true", help="the start position on every board")
    args = parser.parse_args()
    totals = {"grid": 0, "baseline": 0}
    count = 0
    for game in args.games.split(","):
        variant = games.get(game)
        start = None
        if args.start:
            from vision.classes import EMPTY, appearance

            start = {p: c for p, c in appearance(game, variant.board()).items() if c != EMPTY}
        rows = {"grid": [], "baseline": []}
        upright, seconds, failures = 0, 0.0, []
        for index in range(args.renders):
            seed = 70_000 + index
            scene = render_scene(game, random.Random(seed), position=start, split="test")
            truth = scene.calibration.grid_corners_px()
            radius = scene.calibration.piece_radius_px()
            began = time.perf_counter()
            try:
                cal = find_board(scene.image, variant)
                error, same_way = corner_error(cal.grid_corners_px(), truth)
                upright += same_way
            except GridNotFoundError:
                error = float("inf")
            seconds += time.perf_counter() - began
            rows["grid"].append(error / radius)
            if error / radius >= 0.5:
                failures.append(seed)
            quad = largest_quadrilateral(scene.image)
            rows["baseline"].append(corner_error(quad, truth)[0] / radius if quad is not None else float("inf"))
        for name, errors in rows.items():
            errors = np.array(errors)
            found = int((errors < 0.5).sum())
            totals[name] += found
            median = np.median(errors[np.isfinite(errors)]) if np.isfinite(errors).any() else float("nan")
            label = "calibration.grid" if name == "grid" else "largest quadrilateral"
            print(f"{game:9s} {label:22s} found {found:3d}/{len(errors)}  median corner error {median:6.2f} radii")
        print(f"{game:9s} grid: {seconds / args.renders:.2f} s per photo; found the right way round "
              f"{upright}/{args.renders} (first rank nearest the bottom); missed seeds {failures}")
        count += args.renders
    ratio = totals["grid"] / max(totals["baseline"], 1)
    print(f"all games: calibration.grid found {totals['grid']}/{count}, largest quadrilateral "
          f"{totals['baseline']}/{count}: {ratio:.1f}× as many boards")


if __name__ == "__main__":
    main()
