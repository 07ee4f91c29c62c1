"""Finding the printed ArUco markers, and keeping the board found while a game runs.

OpenCV ≥ 4.7 has `cv2.aruco.ArucoDetector`; OpenCV 5 has no free `detectMarkers`, so only
the detector object is used here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.homography import Calibration, CalibrationError
from calibration.layout import MARKER_ID_BASE, MARKERS_PER_BOARD, BoardLayout

log = logging.getLogger(__name__)

DICTIONARY = cv2.aruco.DICT_4X4_50


def dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """The marker as a black-and-white image (with no quiet zone), for printing."""
    return cv2.aruco.generateImageMarker(dictionary(), marker_id, pixels)


def marker_bits(marker_id: int) -> np.ndarray:
    """The marker's cells (1 = white), border included: a 6×6 array for a 4×4 dictionary."""
    image = marker_image(marker_id, 6 * 10)
    return (image[5::10, 5::10] > 127).astype(np.uint8)


@dataclass
class MarkerDetection:
    ids: list[int]
    corners_px: list[np.ndarray]  # one 4×2 array per marker, clockwise from its top-left


def detect_markers(image: np.ndarray) -> MarkerDetection:
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary(), parameters)
    corners, ids, _rejected = detector.detectMarkers(gray)
    if ids is None:
        return MarkerDetection([], [])
    return MarkerDetection([int(i) for i in ids.ravel()], [c.reshape(4, 2) for c in corners])


class AnotherGamesBoardError(CalibrationError):
    """The markers in view are those of another game's printed board: its grid is not this game's."""

    def __init__(self, message: str, game: str) -> None:
        super().__init__(message)
        self.game = game


def _board_of(marker_ids: list[int]) -> str | None:
    """The game whose printed board has at least two of `marker_ids`, if one does."""
    for game, base in MARKER_ID_BASE.items():
        if sum(base <= i < base + MARKERS_PER_BOARD for i in marker_ids) >= 2:
            return game
    return None


def calibrate_from_markers(layout: BoardLayout, image: np.ndarray, **kwargs) -> Calibration:
    """Locate the board from its markers. Needs at least two of the eight in view."""
    found = detect_markers(image)
    known = layout.marker_by_id()
    sheet, pixels = [], []
    for marker_id, corners in zip(found.ids, found.corners_px, strict=True):
        marker = known.get(marker_id)
        if marker is None:
            continue
        sheet.extend(marker.corners_mm)
        pixels.extend(corners.tolist())
    if len(sheet) < 8:
        others = sorted(set(found.ids) - set(known))
        board = _board_of(others)
        if board is not None:
            raise AnotherGamesBoardError(
                f"this is a {board} board (its markers {others} are in view), not a {layout.geometry.name} "
                f"one: give --game {board}", board)
        hint = f" (markers {others} belong to another game's board)" if others else ""
        raise CalibrationError(
            f"found {len(sheet) // 4} of the {layout.geometry.name} board's markers, need at least 2{hint}")
    height, width = image.shape[:2]
    return Calibration.from_correspondences(layout, np.array(sheet), np.array(pixels), (width, height),
                                            "markers", **kwargs)


class BoardLocator:
    """Keeps the calibration right while a game runs: a bumped board is found again.

    Every `update(frame)` re-detects the markers; when they agree on a new position that
    moved more than `tolerance_px` (by default `Calibration.knock_tolerance_px`), and the next
    look agrees with it too, the calibration is replaced and `update` returns True. Without
    markers in view (hands, pieces on them) the last good calibration stays. The second look
    keeps a moment's shake, or a fit from a few markers that a hand left in view, from moving
    the board: in a 480 × 270 video, markers about 10 px wide, such fits swung the grid's
    corners by 6–8 px, there and back.
    """

    def __init__(self, calibration: Calibration, tolerance_px: float | None = None) -> None:
        self.calibration = calibration
        self.tolerance_px = calibration.knock_tolerance_px() if tolerance_px is None else tolerance_px
        self.moves = 0
        self.seen = False  # whether the last frame showed enough markers to place the board
        self._candidate: Calibration | None = None  # a new place seen once, awaiting a second look

    def update(self, frame: np.ndarray) -> bool:
        try:
            fresh = calibrate_from_markers(self.calibration.layout, frame,
                                           piece_height_mm=self.calibration.piece_height_mm,
                                           piece_radius_ratio=self.calibration.piece_radius_ratio)
        except CalibrationError:
            self.seen = False
            return False
        self.seen = True
        drift = fresh.drift_px(self.calibration)
        candidate, self._candidate = self._candidate, None
        if drift <= self.tolerance_px:
            return False
        if candidate is None or fresh.drift_px(candidate) > self.tolerance_px:
            self._candidate = fresh
            return False
        log.info("board moved by %.1f px; calibration updated", drift)
        self.calibration = fresh
        self.moves += 1
        return True
