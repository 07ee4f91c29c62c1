"""How large the pieces are, measured on a photo of the board.

Crops are framed by the pieces' radius (a share of the point spacing). A set whose discs are
much smaller or larger than the usual ones would be cut too loose or too tight, and the
classifier then sees pieces at a size it never learned: on 20 held-out renders with discs of
0.32 of the spacing, read as `banco recognize` reads them, 95.1 % of points were right at the
usual framing and 98.9 % framed by the measured size. So the radius is measured where pieces
stand: each point's neighbourhood is looked at from straight above, the most evident circle
found there, and the median over the points taken. Only a size clearly off the usual changes
the framing (USUAL, `sized_to_pieces`).

>>> import games, numpy as np, cv2
>>> from calibration import BoardLayout, Calibration
>>> layout = BoardLayout.for_game(games.get("xiangqi"))
>>> cal = Calibration.from_corners(layout, [(40, 510), (440, 510), (440, 60), (40, 60)], (480, 600))
>>> photo = np.full((600, 480, 3), 200, np.uint8)
>>> for point in cal.all_points()[:12]:
...     x, y = cal.point_pixel(point)
...     _ = cv2.circle(photo, (round(x), round(y)), 15, (240, 240, 240), -1)
...     _ = cv2.circle(photo, (round(x), round(y)), 15, (40, 40, 40), 2)
>>> round(measure_piece_radius(cal, photo, cal.all_points()[:12]), 1)  # 15 px of a 50 px spacing
0.3
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import cv2
import numpy as np

from calibration.homography import Calibration, usual_thickness_mm
from games import Point

# The top view used for measuring gives the point spacing this many pixels.
PITCH_PX = 64
# Radii looked for, as shares of the spacing: from a small travel set to discs that touch.
SMALLEST, LARGEST = 0.25, 0.58
# A disc's centre may sit this far from its point (pieces are set down roughly, and the top
# of a thick piece leans away from its base in a tilted view).
OFF_CENTRE = 0.35
# Fewer discs than this give no measurement: one or two circles may be a printed mark.
FEWEST_DISCS = 4
# Sizes read as usual: the classifiers learned discs of 0.40–0.47 of the spacing framed as
# 0.45 (`models.synth`), and a measurement is good to about 0.03. A ring printed on the face,
# sometimes the most evident circle, reads a usual set at about 0.38. Only a size outside
# this band changes the framing.
USUAL = (0.37, 0.50)


def strongest_circle(grey: np.ndarray, smallest_px: float, largest_px: float) -> tuple[float, float, float] | None:
    """The most evident circle's (x, y, radius) in a grey image, the radius within the bounds."""
    side = min(grey.shape[:2])
    circles = cv2.HoughCircles(cv2.medianBlur(grey, 3), cv2.HOUGH_GRADIENT, dp=1, minDist=side, param1=100,
                               param2=20, minRadius=int(smallest_px), maxRadius=int(np.ceil(largest_px)))
    if circles is None:
        return None
    x, y, r = (float(v) for v in circles[0][0])
    return x, y, r


def disc_radii(calibration: Calibration, image: np.ndarray, points: Iterable[Point] | None = None) -> np.ndarray:
    """The radius of the most evident circle around each of `points` (every point when not
    given), as shares of the spacing, for the points where one was found."""
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("an image must be a BGR colour image (H × W × 3)")
    layout = calibration.layout
    px_per_mm = PITCH_PX / layout.pitch_mm
    to_view = np.diag([px_per_mm, px_per_mm, 1.0]) @ np.linalg.inv(calibration.homography)
    half = int(round(PITCH_PX * (LARGEST + OFF_CENTRE)))
    radii = []
    for point in calibration.all_points() if points is None else points:
        centre = np.array([[calibration.piece_center_pixel(point)]], np.float64)
        cx, cy = cv2.perspectiveTransform(centre, to_view)[0, 0]
        shift = np.array([[1, 0, half - cx], [0, 1, half - cy], [0, 0, 1]], np.float64)
        window = cv2.warpPerspective(image, shift @ to_view, (2 * half + 1, 2 * half + 1),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        found = strongest_circle(cv2.cvtColor(window, cv2.COLOR_BGR2GRAY), SMALLEST * PITCH_PX, LARGEST * PITCH_PX)
        if found is None:
            continue
        x, y, r = found
        if np.hypot(x - half, y - half) <= OFF_CENTRE * PITCH_PX:
            radii.append(r / PITCH_PX)
    return np.array(radii)


def measure_piece_radius(calibration: Calibration, image: np.ndarray,
                         points: Iterable[Point] | None = None) -> float | None:
    """The pieces' radius as a share of the point spacing: the median of `disc_radii` (give the
    occupied points when they are known), or None when fewer than FEWEST_DISCS discs are found."""
    radii = disc_radii(calibration, image, points)
    return float(np.median(radii)) if len(radii) >= FEWEST_DISCS else None


def sized_to_pieces(calibration: Calibration, image: np.ndarray, points: Iterable[Point] | None = None,
                    height_known: bool = True) -> tuple[Calibration, float | None]:
    """`calibration` framed for the pieces on `image` when they are clearly smaller or larger
    than usual, and the radius it frames them at (else the median measured; None when fewer
    than FEWEST_DISCS discs show). A usual size keeps the usual framing, the one the
    classifiers learned.

    Clearly means three discs in four: a set with a ring printed inside the rim shows some
    discs at the ring's radius and some at the rim's. The framing is then the quartile nearest
    the usual size, the largest size three in four small discs agree on (the smallest, for large
    ones). Unless `height_known`, a reframed calibration takes the usual thickness for its size."""
    radii = disc_radii(calibration, image, points)
    if len(radii) < FEWEST_DISCS:
        return calibration, None
    lower, upper = np.percentile(radii, [25, 75])
    if upper < USUAL[0]:
        framing = float(upper)
    elif lower > USUAL[1]:
        framing = float(lower)
    else:
        return calibration, float(np.median(radii))
    sized = replace(calibration, piece_radius_ratio=framing)
    if not height_known:
        sized.piece_height_mm = usual_thickness_mm(calibration.layout.pitch_mm, framing)
    return sized, framing
