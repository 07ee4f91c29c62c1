"""From a camera image to the board plane and back.

A `Calibration` holds the homography from the sheet (millimetres, see `layout`) to image
pixels. It is made from four clicked corner points or from the printed ArUco markers, and
it knows the camera pose well enough to correct for the height of thick pieces: pieces are
read at their **top face**, whose centre is the board point lifted by the piece height along the
board's normal, as the pose recovered from the homography sees it (see `project`).

>>> import games, numpy as np
>>> layout = BoardLayout.for_game(games.get("xiangqi"))
>>> cal = Calibration.from_corners(layout, [(100, 600), (500, 600), (500, 100), (100, 100)], (640, 720))
>>> [round(v) for v in cal.point_pixel(games.Point(0, 0))]
[100, 600]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.layout import BoardLayout
from games import Point

# Without a measured thickness, pieces are taken to be half their radius thick.
DEFAULT_HEIGHT_RATIO = 0.5
# Without a measured size, a piece's radius is this share of the point spacing (usual sets).
DEFAULT_RADIUS_RATIO = 0.45
# A piece that appears smaller than this radius shows its glyph a few pixels tall, and the
# shipped models misread such points several times as often as pieces of 24 px or more,
# however steep the view (model card, "Where the errors fall: small pieces", session 42).
SMALL_PIECE_PX = 20.0
# Views steeper than this (degrees off straight down) cost a game's reading several times its
# errors even with large pieces: Cờ Tư Lệnh's stacks and fine symbols, 0.28 % of points misread
# at 24 px or more under 30° against 0.66 % at 30–39° and 1.26 % beyond (same section). Cờ Tướng
# and Cờ Toán lose far less to the angle itself than to the small far pieces it brings.
STEEP_VIEW_DEG = {"commander": 30.0}


def usual_thickness_mm(pitch_mm: float, radius_ratio: float = DEFAULT_RADIUS_RATIO) -> float:
    """The thickness taken for pieces of this radius (a share of the spacing) when none is given."""
    return DEFAULT_HEIGHT_RATIO * pitch_mm * radius_ratio


class CalibrationError(ValueError):
    """Corners, markers or images that do not give a usable board position."""


@dataclass
class Calibration:
    """The board seen by one camera: sheet (mm) → image (px) homography and derived pose."""

    layout: BoardLayout
    homography: np.ndarray
    image_size: tuple[int, int]  # width, height
    method: str = "corners"
    piece_height_mm: float = 0.0
    piece_radius_ratio: float = DEFAULT_RADIUS_RATIO  # piece radius as a fraction of the point spacing
    confidence: float | None = None  # how well an automatically found grid matched (method "grid")
    _pose: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _plane: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)  # see `pose`

    # ------------------------------------------------------------------ making one
    @classmethod
    def from_corners(cls, layout: BoardLayout, corners_px: Sequence[Sequence[float]],
                     image_size: tuple[int, int], **kwargs) -> Calibration:
        """Calibrate from the four corner points of the playing grid, in the order
        first-file/first-rank, last-file/first-rank, last-file/last-rank, first-file/last-rank
        (for Xiangqi a0, i0, i9, a9: White's left corner first, then anticlockwise as White
        sees the board). The order fixes the orientation.
        """
        pixels = _as_points(corners_px, "corners")
        if len(pixels) != 4:
            raise CalibrationError(f"need 4 corner points, got {len(pixels)}")
        width, height = image_size
        for x, y in pixels:
            if not (0 <= x < width and 0 <= y < height):
                raise CalibrationError(f"corner ({x:g}, {y:g}) lies outside the {width}×{height} image")
        if not _is_convex(pixels):
            raise CalibrationError("the four corners do not form a convex quadrilateral: check their order")
        if abs(_signed_area(pixels)) < 400.0:
            raise CalibrationError("the four corners enclose almost no area")
        if _signed_area(pixels) > 0:
            # Seen from its printed side, a board's corners in this order always turn
            # anticlockwise on the photo (y down: a negative area); the other way is a mirror image.
            names = ", ".join(layout.geometry.point_name(p) for p in layout.corner_points())
            raise CalibrationError(
                f"the four corners go clockwise on the photo: give them anticlockwise ({names}), "
                "or, if the photo is mirrored (a front camera), flip it first")
        sheet = np.array([layout.point_mm(p) for p in layout.corner_points()], dtype=np.float64)
        homography = cv2.getPerspectiveTransform(sheet.astype(np.float32), np.array(pixels, dtype=np.float32))
        return cls(layout, homography.astype(np.float64), (int(width), int(height)), "corners", **kwargs)

    @classmethod
    def from_correspondences(cls, layout: BoardLayout, sheet_mm: np.ndarray, pixels: np.ndarray,
                             image_size: tuple[int, int], method: str, **kwargs) -> Calibration:
        if len(sheet_mm) < 4:
            raise CalibrationError(f"need at least 4 reference points, found {len(sheet_mm)}")
        homography, inliers = cv2.findHomography(sheet_mm.astype(np.float64), pixels.astype(np.float64),
                                                 cv2.RANSAC, 4.0)
        if homography is None or inliers is None or int(inliers.sum()) < 4:
            raise CalibrationError("the reference points do not agree on one board position")
        return cls(layout, homography, (int(image_size[0]), int(image_size[1])), method, **kwargs)

    def with_homography(self, homography: np.ndarray, **changes) -> Calibration:
        """The same board and camera (method, piece height and radius, confidence unless
        `changes` say otherwise) placed by another sheet → image `homography`."""
        return replace(self, homography=homography / homography[2, 2], _pose=None, _plane=None, **changes)

    def for_image_size(self, size: tuple[int, int], source: str = "the photo") -> Calibration:
        """This calibration for a photo `size` (width, height) of the same view: itself at its own
        size, scaled where only the resolution differs (the same shape within 1 %), else a
        `CalibrationError` naming `source`: another shape is another view.

        >>> import games
        >>> from calibration.layout import BoardLayout
        >>> cal = Calibration.from_corners(BoardLayout.for_game(games.get("xiangqi")),
        ...                                [(100, 600), (500, 600), (500, 100), (100, 100)], (640, 720))
        >>> [round(v, 2) for v in cal.for_image_size((320, 360)).point_pixel(games.Point(0, 0))]
        [49.75, 299.75]
        """
        width, height = (int(v) for v in size)
        own_width, own_height = self.image_size
        if (width, height) == (own_width, own_height):
            return self
        sx, sy = width / own_width, height / own_height
        if abs(sx / sy - 1) > 0.01:
            raise CalibrationError(
                f"{source} is {width}×{height}, but the calibration is for {own_width}×{own_height}, another "
                "shape of view: calibrate this camera again")
        # Pixel centres stay centres: x' + 0.5 = (x + 0.5) × scale, as cv2.resize places them.
        scale = np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1]], dtype=np.float64)
        return self.with_homography(scale @ self.homography, image_size=(width, height))

    # ------------------------------------------------------------------ mapping
    def sheet_to_pixels(self, sheet_mm: np.ndarray) -> np.ndarray:
        points = np.asarray(sheet_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(points, self.homography).reshape(-1, 2)

    def pixels_to_sheet(self, pixels: np.ndarray) -> np.ndarray:
        points = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(points, np.linalg.inv(self.homography)).reshape(-1, 2)

    def point_pixel(self, point: Point) -> tuple[float, float]:
        """Where the base of a piece on `point` appears in the image."""
        x, y = self.sheet_to_pixels(np.array([self.layout.point_mm(point)]))[0]
        return float(x), float(y)

    def piece_center_pixel(self, point: Point) -> tuple[float, float]:
        """Where the top face of a piece on `point` appears: the base lifted by the piece height."""
        if self.piece_height_mm <= 0:
            return self.point_pixel(point)
        x, y = self.layout.point_mm(point)
        px = self.project(np.array([[x, y, self.piece_height_mm]]))[0]
        return float(px[0]), float(px[1])

    def all_points(self) -> list[Point]:
        return list(self.layout.geometry.points())

    def piece_radius_px(self, point: Point | None = None) -> float:
        """The apparent radius of a piece, from the local scale of the homography."""
        g = self.layout.geometry
        point = point or Point(g.files // 2, g.ranks // 2)
        x, y = self.layout.point_mm(point)
        r = self.layout.pitch_mm * self.piece_radius_ratio
        ring = np.array([[x + r, y], [x - r, y], [x, y + r], [x, y - r]])
        px = self.sheet_to_pixels(ring)
        return float((np.linalg.norm(px[0] - px[1]) + np.linalg.norm(px[2] - px[3])) / 4)

    def frame_margins_px(self) -> dict[Point, float]:
        """Per point, how far inside the image the centre of a piece's top lies: pixels to the
        nearest edge, negative outside."""
        width, height = self.image_size
        margins = {}
        for point in self.all_points():
            x, y = self.piece_center_pixel(point)
            margins[point] = min(x, y, width - 1 - x, height - 1 - y)
        return margins

    def unframed_points(self) -> tuple[list[Point], list[Point]]:
        """The points this camera does not wholly show: those whose piece centre lies outside the
        image, and those whose piece's disc its edge cuts (the centre inside, nearer an edge than
        the piece's radius). The station reads the first as unseen and the second less surely."""
        margins = self.frame_margins_px()
        # Outside as the station has it (`outside_frame`): the crop of such a point is never read.
        unseen = outside_frame([self.piece_center_pixel(p) for p in margins], self.image_size[::-1])
        outside = [p for p, out in zip(margins, unseen, strict=True) if out]
        cut = [p for p, out in zip(margins, unseen, strict=True)
               if not out and margins[p] < self.piece_radius_px(p)]
        return outside, cut

    def framing_warning(self) -> str:
        """One sentence naming the points this camera does not wholly show and what to do; empty
        when it shows them all."""
        outside, cut = self.unframed_points()
        if not outside and not cut:
            return ""

        parts = []
        if outside:
            parts.append(f"{len(outside)} point(s) lie outside the photo, never read: {self._named(outside)}")
        if cut:
            parts.append(f"the photo's edge cuts the pieces on {len(cut)} point(s), read less surely: "
                         f"{self._named(cut)}")
        return ("; ".join(parts) + ". Move the camera back or turn it until the whole board shows with a "
                "piece's width to spare.")

    def small_piece_points(self, below_px: float = SMALL_PIECE_PX) -> list[Point]:
        """The points inside the photo where a piece appears smaller than `below_px` in radius
        (the far side of a steep view, or a board far off in a coarse frame), in board order."""
        return [p for p, radius in self._inside_radii().items() if radius < below_px]

    def size_warning(self) -> str:
        """One sentence naming the points whose pieces this camera sees too small to read surely
        (`small_piece_points`) and what to do; empty when it sees every piece large enough."""
        radii = self._inside_radii()
        small = [p for p, radius in radii.items() if radius < SMALL_PIECE_PX]
        if not small:
            return ""
        under = f"under {SMALL_PIECE_PX:g} px in radius, the smallest {min(radii[p] for p in small):.0f} px"
        if len(small) == len(radii):
            where, named = f"every piece appears {under}, and is", ""
        else:
            where, named = f"the pieces on {len(small)} point(s) appear {under}, and are", f": {self._named(small)}"
        return (f"{where} misread several times as often{named}. Bring the camera nearer or more nearly above "
                "the board, or capture at a higher resolution.")

    def steep_warning(self) -> str:
        """One sentence when this camera looks at the board more steeply than its game is read
        surely at (`STEEP_VIEW_DEG`), and what to do; empty otherwise."""
        limit = STEEP_VIEW_DEG.get(self.layout.geometry.name)
        angle = self.viewing_angle_deg()
        if limit is None or angle < limit:
            return ""
        return (f"the camera looks at the board {angle:.0f}° off straight down: beyond {limit:g}° this game's "
                "pieces are misread several times as often. Raise the camera more nearly above the board.")

    def view_warnings(self) -> list[str]:
        """The size and steep-view warnings that apply to this camera (each one sentence)."""
        return [warning for warning in (self.size_warning(), self.steep_warning()) if warning]

    def camera_warnings(self) -> list[str]:
        """Every warning banco's commands give of this camera, the framing warning first: what
        it cannot read surely, each one sentence naming what to do."""
        return [warning for warning in (self.framing_warning(), *self.view_warnings()) if warning]

    def _inside_radii(self) -> dict[Point, float]:
        """Per point inside the photo, in board order, the radius a piece on it appears at."""
        outside = set(self.unframed_points()[0])
        return {p: self.piece_radius_px(p) for p in self.all_points() if p not in outside}

    def _named(self, points: list[Point]) -> str:
        shown = ", ".join(self.layout.geometry.point_name(p) for p in points[:12])
        return shown + (f" and {len(points) - 12} more" if len(points) > 12 else "")

    def grid_corners_px(self) -> np.ndarray:
        return self.sheet_to_pixels(np.array([self.layout.point_mm(p) for p in self.layout.corner_points()]))

    def warp(self, image: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray:
        """The board seen from straight above: the whole sheet at `px_per_mm`."""
        w, h = self.layout.sheet_size_mm
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        to_top_view = scale @ np.linalg.inv(self.homography)
        return cv2.warpPerspective(image, to_top_view, (round(w * px_per_mm), round(h * px_per_mm)))

    def knock_tolerance_px(self) -> float:
        """How far the grid may seem to move before a locator takes the board for moved: a third
        of a piece's radius, at least 3 px (a camera on a table wobbles by a pixel or two, which
        the crops absorb, while a knocked board moves more)."""
        return max(3.0, self.piece_radius_px() / 3)

    def drift_px(self, other: Calibration) -> float:
        """How far the grid corners moved between two calibrations, in pixels (largest corner)."""
        return float(np.max(np.linalg.norm(self.grid_corners_px() - other.grid_corners_px(), axis=1)))

    # ------------------------------------------------------------------ pose
    def focal_length_px(self) -> float:
        """The focal length implied by the homography (square pixels, centred principal point).

        A camera looking straight down does not reveal it; then a typical webcam/phone field of
        view (about 60° across the longer side) is assumed.
        """
        width, height = self.image_size
        shift = np.array([[1, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]], dtype=np.float64)
        h = shift @ self.homography
        h = h / np.linalg.norm(h[:, 0])
        estimates = []
        denom = h[2, 0] * h[2, 1]
        if abs(denom) > 1e-12:
            f2 = -(h[0, 0] * h[0, 1] + h[1, 0] * h[1, 1]) / denom
            if f2 > 0:
                estimates.append(f2)
        denom = h[2, 1] ** 2 - h[2, 0] ** 2
        if abs(denom) > 1e-12:
            f2 = (h[0, 0] ** 2 + h[1, 0] ** 2 - h[0, 1] ** 2 - h[1, 1] ** 2) / denom
            if f2 > 0:
                estimates.append(f2)
        longest = max(width, height)
        default = longest / (2 * math.tan(math.radians(30)))
        plausible = [math.sqrt(f2) for f2 in estimates if 0.3 * longest <= math.sqrt(f2) <= 6 * longest]
        return float(np.median(plausible)) if plausible else default

    def pose(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Camera matrix K, rotation R and translation t with image ~ K (R X + t) for sheet X (mm).

        R is squared up from the sheet axes the homography and the focal length imply; where the
        focal length is only a guess those axes are not quite square, so `project` keeps the board
        plane exactly the homography's and uses the pose only for the direction of "up".
        """
        if self._pose is None:
            width, height = self.image_size
            f = self.focal_length_px()
            k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], dtype=np.float64)
            b = np.linalg.inv(k) @ self.homography
            # The sheet's axes are unit vectors: one scale for both, their geometric mean.
            scale = 1.0 / math.sqrt(np.linalg.norm(b[:, 0]) * np.linalg.norm(b[:, 1]))
            if b[2, 2] * scale < 0:  # the board lies in front of the camera
                scale = -scale
            r1, r2, t = b[:, 0] * scale, b[:, 1] * scale, b[:, 2] * scale
            r1 = r1 / np.linalg.norm(r1)
            r2 = r2 - r1 * np.dot(r1, r2)
            r2 /= np.linalg.norm(r2)
            rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
            self._pose = (k, rotation, t)
            self._plane = (k @ b * scale, k @ rotation[:, 2])
        return self._pose

    def project(self, sheet_xyz: np.ndarray) -> np.ndarray:
        """Project sheet points with a height (mm above the board) into the image.

        At height 0 this is the homography itself, whatever the focal length; a height moves the
        point along the board's normal, towards the camera.
        """
        k, rotation, t = self.pose()
        on_board, up = self._plane
        points = np.asarray(sheet_xyz, dtype=np.float64).reshape(-1, 3)
        camera = -rotation.T @ t
        # "Above the board" is the camera's side of the sheet plane.
        heights = points[:, 2] * math.copysign(1.0, camera[2])
        px = (on_board @ np.column_stack([points[:, :2], np.ones(len(points))]).T).T + heights[:, None] * up
        return px[:, :2] / px[:, 2:3]

    def viewing_angle_deg(self) -> float:
        """The angle between the camera's axis and the board's normal (0 = straight above)."""
        _, rotation, _ = self.pose()
        return float(math.degrees(math.acos(min(1.0, abs(rotation[2, 2])))))


def outside_frame(pixels: np.ndarray, frame_shape: tuple[int, ...]) -> np.ndarray:
    """Per (x, y) pixel, whether it lies outside a frame of `frame_shape` (height, width, ...)."""
    height, width = frame_shape[:2]
    x, y = np.asarray(pixels, float).reshape(-1, 2).T
    return (x < 0) | (y < 0) | (x >= width) | (y >= height)


def _as_points(values: Sequence[Sequence[float]], what: str) -> list[tuple[float, float]]:
    points = []
    for value in values:
        try:
            x, y = (float(v) for v in value)
        except (TypeError, ValueError):
            raise CalibrationError(f"{what}: {value!r} is not an x,y pair") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise CalibrationError(f"{what}: {value!r} is not a finite x,y pair")
        points.append((x, y))
    return points


def _signed_area(points: Sequence[tuple[float, float]]) -> float:
    area = 0.0
    for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1], strict=True):
        area += x1 * y2 - x2 * y1
    return area / 2


def _is_convex(points: Sequence[tuple[float, float]]) -> bool:
    signs = []
    n = len(points)
    for i in range(n):
        (x1, y1), (x2, y2), (x3, y3) = points[i], points[(i + 1) % n], points[(i + 2) % n]
        cross = (x2 - x1) * (y3 - y2) - (y2 - y1) * (x3 - x2)
        signs.append(cross > 0)
    return all(signs) or not any(signs)


def parse_corners(text: str) -> list[tuple[float, float]]:
    """Read ``"x,y x,y x,y x,y"`` as typed on a command line."""
    pairs = text.replace(";", " ").split()
    if len(pairs) != 4:
        raise CalibrationError(f"--corners needs 4 x,y pairs, got {len(pairs)}: {text!r}")
    points = []
    for pair in pairs:
        parts = pair.split(",")
        if len(parts) != 2:
            raise CalibrationError(f"corner {pair!r} is not x,y")
        try:
            points.append((float(parts[0]), float(parts[1])))
        except ValueError:
            raise CalibrationError(f"corner {pair!r} is not two numbers") from None
    return points
