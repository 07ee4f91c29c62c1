"""Calibration profiles: one JSON file per camera and board, written by `banco calibrate`.

The file holds what a station needs to read the board again without the user: the game,
the printed layout, the homography (sheet millimetres → image pixels), the camera, the
piece size and the colour statistics of the empty board.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

import games
from calibration.homography import DEFAULT_RADIUS_RATIO, Calibration, CalibrationError
from calibration.layout import BoardLayout
from calibration.piece_size import LARGEST, SMALLEST

VERSION = 1


def colour_statistics(calibration: Calibration, image: np.ndarray) -> dict[str, Any]:
    """Mean and spread (Lab) of the board surface between points, where no piece stands."""
    import cv2

    layout = calibration.layout
    g = layout.geometry
    samples = []
    half = layout.pitch_mm / 2
    for point in g.points():
        if point.file + 1 >= g.files or point.rank + 1 >= g.ranks:
            continue
        x, y = layout.point_mm(point)
        samples.append((x + half, y - half))  # the middle of a square of the grid
    pixels = calibration.sheet_to_pixels(np.array(samples))
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB) if image.ndim == 3 else None
    values = []
    height, width = image.shape[:2]
    for x, y in pixels:
        xi, yi = int(round(x)), int(round(y))
        if 0 <= xi < width and 0 <= yi < height and lab is not None:
            values.append(lab[yi, xi].astype(float))
    if not values:
        return {}
    stack = np.array(values)
    return {"space": "Lab", "board_mean": stack.mean(axis=0).round(2).tolist(),
            "board_std": stack.std(axis=0).round(2).tolist(), "samples": len(values)}


def to_dict(calibration: Calibration, *, camera: str = "", colour: dict | None = None,
            radius_measured: bool = False) -> dict[str, Any]:
    """The profile of `calibration`. `radius_measured` says the pieces' radius was measured on a
    photo (`calibration.piece_size`); only then is it read back, otherwise the usual size is."""
    layout = calibration.layout
    g = layout.geometry
    return {
        "version": VERSION,
        "game": g.name,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "method": calibration.method,
        "camera": {"source": camera, "width": calibration.image_size[0], "height": calibration.image_size[1],
                   "focal_px": round(calibration.focal_length_px(), 2)},
        "layout": {"pitch_mm": layout.pitch_mm},
        "grid": {"files": g.files, "ranks": g.ranks, "placement": g.placement},
        "homography": [[float(v) for v in row] for row in calibration.homography],
        "piece_radius_px": round(calibration.piece_radius_px(), 2),
        "piece_radius_mm": round(layout.pitch_mm * calibration.piece_radius_ratio, 2),
        "piece_radius_measured": radius_measured,
        "piece_height_mm": calibration.piece_height_mm,
        "viewing_angle_deg": round(calibration.viewing_angle_deg(), 1),
        "colour": colour or {},
    }


def save(calibration: Calibration, path: Path, *, camera: str = "", image: np.ndarray | None = None,
         radius_measured: bool = False) -> dict:
    colour = colour_statistics(calibration, image) if image is not None else {}
    data = to_dict(calibration, camera=camera, colour=colour, radius_measured=radius_measured)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return data


def load(path: Path) -> Calibration:
    """Read a profile; a damaged or foreign file gives a `CalibrationError` naming the problem."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"calibration file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise CalibrationError(f"calibration file {str(path)!r} is a folder: give the profile's file, "
                               "such as calibration.json") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CalibrationError(f"calibration file {str(path)!r} is not JSON: {error}") from None
    except OSError as error:
        raise CalibrationError(f"calibration file {str(path)!r} cannot be read: {error.strerror}") from None
    return from_dict(data, source=str(path))


def from_dict(data: Any, source: str = "profile") -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: a calibration profile is a JSON object")
    if data.get("version") != VERSION:
        raise CalibrationError(f"{source}: profile version {data.get('version')!r}, expected {VERSION}")
    if "game" not in data:
        raise CalibrationError(f"{source}: missing field 'game'")
    try:
        variant = games.get(str(data["game"]))
    except ValueError as error:  # an unknown game: its own message names the known ones
        raise CalibrationError(f"{source}: {error}") from None
    try:
        layout = BoardLayout.for_game(variant, float(data["layout"]["pitch_mm"]))
        homography = np.array(data["homography"], dtype=np.float64)
        camera = data["camera"]
        size = (int(camera["width"]), int(camera["height"]))
        height_mm = float(data.get("piece_height_mm", 0.0))
        method = str(data.get("method", "corners"))
    except (KeyError, TypeError, ValueError) as error:
        raise CalibrationError(f"{source}: missing or bad field {error}") from None
    if not 0 <= height_mm <= layout.pitch_mm:  # NaN too
        raise CalibrationError(f"{source}: piece_height_mm is a thickness from 0 to the point spacing "
                               f"({layout.pitch_mm:g} mm), not {height_mm:g}")
    if min(size) <= 0:
        raise CalibrationError(f"{source}: the camera's width and height are pixel counts above 0, not "
                               f"{size[0]}×{size[1]}")
    if homography.shape != (3, 3) or not np.all(np.isfinite(homography)) or abs(np.linalg.det(homography)) < 1e-12:
        raise CalibrationError(f"{source}: the homography is not an invertible 3×3 matrix")
    radius_ratio = _radius_ratio(data, layout, source)
    return Calibration(layout, homography, size, method, piece_height_mm=height_mm, piece_radius_ratio=radius_ratio)


def _radius_ratio(data: dict, layout: BoardLayout, source: str) -> float:
    """The pieces' radius as a share of the spacing: the profile's if it was measured."""
    if data.get("piece_radius_measured", False) is not True:
        return DEFAULT_RADIUS_RATIO
    radius_mm = data.get("piece_radius_mm")
    try:
        ratio = float(radius_mm) / layout.pitch_mm
    except (TypeError, ValueError):
        ratio = float("nan")
    if not SMALLEST <= ratio <= LARGEST:
        raise CalibrationError(f"{source}: piece_radius_mm {radius_mm!r} is not between {SMALLEST} and {LARGEST} "
                               f"of the {layout.pitch_mm:g} mm point spacing")
    return ratio
