"""Point crops: one small top-down image per board point, the classifier's input.

The whole board is warped once to a top view in which a piece's radius is a fixed number
of pixels; each crop is then a slice around the point. Thick pieces are read at their top
face: the slice is centred where the top face's centre lands in that top view (see
`calibration.Calibration.piece_center_pixel`), so the side of the disc stays at the crop's
edge whatever the camera angle.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration import Calibration
from games import Point

CROP_SIZE = 64
# A crop spans this many piece radii across: the disc plus a ring of board around it.
CROP_SPAN_RADII = 2.6


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
        for point in self.points:
            px = np.array([calibration.piece_center_pixel(point)])
            (cx, cy), = cv2.perspectiveTransform(px.reshape(-1, 1, 2), to_view).reshape(-1, 2)
            centres.append((cx, cy))
        half = size / 2
        # A point whose piece top would fall off the padded view is read as near as possible.
        w, h = self._view_size
        self._origins = [(min(max(int(round(cx - half)), -size), w),
                          min(max(int(round(cy - half)), -size), h)) for cx, cy in centres]

    def top_view(self, frame: np.ndarray) -> np.ndarray:
        pad = self.size  # room for crops of points near the sheet's edge
        shift = np.array([[1, 0, pad], [0, 1, pad], [0, 0, 1]], dtype=np.float64)
        w, h = self._view_size
        return cv2.warpPerspective(frame, shift @ self._to_view, (w + 2 * pad, h + 2 * pad),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def extract_some(self, frame: np.ndarray, indices: list[int]) -> np.ndarray:
        """The crops of the points at `indices` (of `self.points`) only, each warped on its own:
        the same pixels as `extract` gives them, cheaper when few points are wanted."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("a frame must be a BGR colour image (H × W × 3)")
        size = self.size
        crops = np.empty((len(indices), size, size, 3), dtype=np.uint8)
        for k, index in enumerate(indices):
            x, y = self._origins[index]
            shift = np.array([[1, 0, -x], [0, 1, -y], [0, 0, 1]], dtype=np.float64)
            crops[k] = cv2.warpPerspective(frame, shift @ self._to_view, (size, size), flags=cv2.INTER_LINEAR,
                                           borderMode=cv2.BORDER_REPLICATE)
        return crops

    def extract(self, frame: np.ndarray) -> CropSet:
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("a frame must be a BGR colour image (H × W × 3)")
        view = self.top_view(frame)
        pad, size = self.size, self.size
        crops = np.empty((len(self.points), size, size, 3), dtype=np.uint8)
        for index, (x, y) in enumerate(self._origins):
            crops[index] = view[y + pad:y + pad + size, x + pad:x + pad + size]
        return CropSet(self.points, crops)
