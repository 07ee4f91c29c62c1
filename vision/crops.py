"""Point crops: one small top-down image per board point, the classifier's input.

Each crop is a square around its point of a top view of the board in which a piece's radius
is a fixed number of pixels; only the crops' pixels of that view are ever computed. Thick
pieces are read at their top face: the square is centred where the top face's centre lands
in that top view (see `calibration.Calibration.piece_center_pixel`), so the side of the disc
stays at the crop's edge whatever the camera angle.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration import Calibration
from calibration.homography import outside_frame
from games import Point

CROP_SIZE = 64
# A crop spans this many piece radii across: the disc plus a ring of board around it.
CROP_SPAN_RADII = 2.6
# A crop pixel may span several pixels of a fine photo (a phone's 12 megapixels): sampled
# straight from it, thin strokes alias. Past this many photo pixels per crop pixel (median over
# the crops) the photo is first shrunk by area to about one. Held-out renders at 4032 × 3024
# (scratch, 2026-12-03), wrong points read straight → shrunk: Cờ Tướng 43 → 37 of 4,500, Cờ Toán
# 11 → 8 of 2,970, Cờ Tư Lệnh 52 → 55 of 3,960; webcam frames (1280 × 720) are not shrunk.
SHRINK_ABOVE = 2.0


@dataclass(frozen=True)
class CropSet:
    points: list[Point]
    images: np.ndarray  # N × CROP_SIZE × CROP_SIZE × 3, BGR uint8


class CropExtractor:
    """Cuts the crops of every point of one calibrated board from camera frames."""

    def __init__(self, calibration: Calibration, size: int = CROP_SIZE, span_radii: float = CROP_SPAN_RADII) -> None:
        self.calibration = calibration
        self.size = size
        layout = calibration.layout
        radius_mm = layout.pitch_mm * calibration.piece_radius_ratio
        self.px_per_mm = size / (span_radii * radius_mm)
        self.points = list(layout.geometry.points())
        w_mm, h_mm = layout.sheet_size_mm
        self._view_size = (round(w_mm * self.px_per_mm), round(h_mm * self.px_per_mm))
        to_view = np.diag([self.px_per_mm, self.px_per_mm, 1.0]) @ np.linalg.inv(calibration.homography)
        self._to_view = to_view
        centres = []
        self.centre_pixels = np.array([calibration.piece_center_pixel(point) for point in self.points])
        for px in self.centre_pixels:
            (cx, cy), = cv2.perspectiveTransform(px.reshape(-1, 1, 2), to_view).reshape(-1, 2)
            centres.append((cx, cy))
        half = size / 2
        # A point whose piece top would fall more than a crop off the sheet is read as near as possible.
        w, h = self._view_size
        self._origins = [(min(max(int(round(cx - half)), -size), w),
                          min(max(int(round(cy - half)), -size), h)) for cx, cy in centres]
        self._crop_maps: tuple | None = None  # (frame size, shrunk size or None, xy, fraction)

    def _sampling(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The frame as sampled (shrunk first when it is much finer than the crops), and for
        every pixel of every crop (the crops stacked one above the next) where it falls in that
        frame, in OpenCV's fixed-point form. One `cv2.remap` then cuts all crops at once: the
        pixels a warp of the whole top view would give, at a third of the cost, since only the
        crops' pixels are computed."""
        height, width = frame.shape[:2]
        if self._crop_maps is None or self._crop_maps[0] != (width, height):
            size = self.size
            square = np.stack(np.meshgrid(np.arange(size), np.arange(size)), axis=-1)  # (x, y) of each pixel
            view = square[None] + np.array(self._origins, dtype=np.float64)[:, None, None]
            seen = cv2.perspectiveTransform(view.reshape(-1, 1, 2), np.linalg.inv(self._to_view))
            seen = seen.reshape(len(self._origins) * size, size, 2)
            step = float(np.median(np.linalg.norm(np.diff(seen, axis=1), axis=-1)))
            shrunk = None
            if step > SHRINK_ABOVE:
                shrunk = (max(1, round(width / step)), max(1, round(height / step)))
                # Pixel centres, as cv2.resize places them: x' + 0.5 = (x + 0.5) × ratio.
                seen = (seen + 0.5) * (np.array(shrunk) / (width, height)) - 0.5
            seen = seen.astype(np.float32)
            self._crop_maps = ((width, height), shrunk, *cv2.convertMaps(seen[..., 0], seen[..., 1], cv2.CV_16SC2))
        _, shrunk, xy, fraction = self._crop_maps
        if shrunk is not None:
            frame = cv2.resize(frame, shrunk, interpolation=cv2.INTER_AREA)
        return frame, xy, fraction

    def extract_some(self, frame: np.ndarray, indices: list[int]) -> np.ndarray:
        """The crops of the points at `indices` (of `self.points`) only: the same pixels as
        `extract` gives them, cheaper when few points are wanted."""
        _check_frame(frame)
        size = self.size
        if not len(indices):
            return np.empty((0, size, size, 3), dtype=np.uint8)
        sampled, xy, fraction = self._sampling(frame)
        rows = (np.asarray(indices)[:, None] * size + np.arange(size)).ravel()
        crops = cv2.remap(sampled, xy[rows], fraction[rows], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return crops.reshape(len(indices), size, size, 3)

    def outside(self, frame: np.ndarray) -> np.ndarray:
        """Per point, whether the centre of a piece's top on it lies outside `frame`: its crop is
        the frame's edge smeared outwards, nothing of the point."""
        return outside_frame(self.centre_pixels, frame.shape)

    def extract(self, frame: np.ndarray) -> CropSet:
        _check_frame(frame)
        sampled, xy, fraction = self._sampling(frame)
        crops = cv2.remap(sampled, xy, fraction, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return CropSet(self.points, crops.reshape(len(self.points), self.size, self.size, 3))


def _check_frame(frame: np.ndarray) -> None:
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError("a frame must be a BGR colour image (H × W × 3)")
