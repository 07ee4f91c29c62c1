"""The set of a rendered game: board, pieces, camera, light and hands, drawn frame after frame.

Everything that does not change from frame to frame is drawn once: the printed sheet (with
its ArUco markers, so a recorder finds the board without a calibration file), one sprite per
physical piece, and the board with every piece standing on it (redrawn only when a piece
lands or leaves). A frame is then the board layer plus the piece in the hand, warped by the
camera (with a little shake), a hand and arm drawn over it, light that drifts, and sensor
noise. The layer is kept in *canvas* pixels: the sheet plus a strip of table around it, so
a piece carried off the sheet stays visible until the hand leaves the picture.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

import games
from calibration import BoardLayout, Calibration
from games import Point
from models.synth.pieces import render_piece
from models.synth.scene import _board_style, _draw_sheet, random_camera

PX_PER_MM = 2.0
TABLE_MM = 140.0  # table drawn around the sheet on the canvas
SIDE_STEPS = 6
SHAKE_PAD = 6  # px: the most the camera wanders


@dataclass
class Disc:
    """One physical piece: its class, its look (sprite) and where on its point it stands."""

    label: str
    colour: np.ndarray  # h×w×3 float32 BGR of the top face
    alpha: np.ndarray  # h×w×1 float32 in 0..1
    side: tuple[int, int, int]  # BGR of the disc's edge
    offset_mm: tuple[float, float] = (0.0, 0.0)
    discs: int = 1  # a Commander Chess stack: this disc on top of discs - 1 others


@dataclass
class Carried:
    """A disc in the air (or sliding): its centre on the sheet (mm) and its base height (mm)."""

    disc: Disc
    x: float
    y: float
    z: float


@dataclass
class HandPose:
    """Fingertips at sheet (x, y) mm, `z` mm above the board; the arm comes from `side`
    (+1: the bottom edge of the sheet, White's side; -1: the top edge)."""

    x: float
    y: float
    z: float
    side: int
    player: int  # 0 White, 1 Black: whose skin and sleeve


@dataclass
class Light:
    """Slowly drifting exposure and white balance, a light gradient, passing shadows."""

    rng: random.Random
    size: tuple[int, int]
    fps: float
    balance: np.ndarray = field(init=False)
    shadows: list[tuple[float, float, tuple[float, float], tuple[float, float], float, float]] = field(init=False)

    def __post_init__(self) -> None:
        rng = self.rng
        self.balance = np.array([rng.uniform(0.82, 1.15), rng.uniform(0.9, 1.08), rng.uniform(0.82, 1.2)])
        self.exposure = rng.uniform(0.75, 1.15)
        self.waves = [(rng.uniform(0.03, 0.12), rng.uniform(25, 120), rng.uniform(0, math.tau)),
                      (rng.uniform(0.0, 0.05), rng.uniform(6, 20), rng.uniform(0, math.tau))]
        self.ramp_strength = rng.uniform(0.0, 0.4)
        self.ramp_angle = rng.uniform(0, math.tau)
        self.ramp_turn = rng.uniform(-0.01, 0.01)  # radians per second
        self.shadows = []
        self.low = (64, 36)
        ys, xs = np.mgrid[0:self.low[1], 0:self.low[0]].astype(np.float32)
        self._x = xs / (self.low[0] - 1) - 0.5
        self._y = ys / (self.low[1] - 1) - 0.5
        self._next_shadow = rng.uniform(5, 40)

    def gain(self, seconds: float, auto: float = 1.0) -> np.ndarray:
        """The per-pixel gain of this moment, ×128, as a full-size uint8 BGR image; `auto` is
        the camera's own exposure correction."""
        level = auto * self.exposure * (1 + sum(a * math.sin(math.tau * seconds / period + phase)
                                                for a, period, phase in self.waves))
        angle = self.ramp_angle + self.ramp_turn * seconds
        ramp = 1 + self.ramp_strength * (self._x * math.cos(angle) + self._y * math.sin(angle))
        if seconds >= self._next_shadow:
            rng = self.rng
            start = (rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6))
            velocity = (rng.uniform(-0.08, 0.08), rng.uniform(-0.08, 0.08))
            self.shadows.append((seconds, rng.uniform(3, 9), start, velocity, rng.uniform(0.15, 0.4),
                                 rng.uniform(0.15, 0.4)))
            self._next_shadow = seconds + rng.uniform(10, 60)
        shade = np.ones_like(self._x)
        alive = []
        for begin, length, (sx, sy), (vx, vy), depth, radius in self.shadows:
            age = seconds - begin
            if age > length:
                continue
            alive.append((begin, length, (sx, sy), (vx, vy), depth, radius))
            fade = min(1.0, age / 1.0, (length - age) / 1.0)
            cx, cy = sx + vx * age, sy + vy * age
            shade *= 1 - depth * fade * np.exp(-((self._x - cx) ** 2 + (self._y - cy) ** 2) / (2 * radius ** 2))
        self.shadows = alive
        low = (ramp * shade * level)[..., None] * self.balance[None, None, :]
        low = np.clip(low * 128, 0, 255).astype(np.uint8)
        return cv2.resize(low, self.size, interpolation=cv2.INTER_LINEAR)


class Stage:
    """One board, one set of pieces, one camera: renders frames of a game in progress."""

    def __init__(self, game: str, rng: random.Random, size: tuple[int, int] = (1280, 720), fps: float = 15.0,
                 split: str = "test", sprite: Callable[..., object] = render_piece,
                 radius_ratio: float | None = None, markers: bool = True) -> None:
        self.game = game
        self.rng = rng
        self.size = (int(size[0]), int(size[1]))
        self.fps = fps
        self.variant = games.get(game)
        self.layout = BoardLayout.for_game(self.variant)
        self.homography = self._camera(rng)
        # The pieces' radius as a share of the spacing: a usual set's unless given.
        self.radius_ratio = rng.uniform(0.4, 0.46) if radius_ratio is None else radius_ratio
        self.radius_mm = self.layout.pitch_mm * self.radius_ratio
        self.height_mm = self.radius_mm * rng.uniform(0.3, 0.8)
        self.calibration = Calibration(self.layout, self.homography, self.size, "synthetic",
                                       piece_height_mm=self.height_mm, piece_radius_ratio=self.radius_ratio)
        style = _board_style(rng, split)
        style["markers"] = markers  # a recorder finds the board by its markers, else by its grid
        sheet = _draw_sheet(self.variant, self.layout, style, PX_PER_MM, rng)
        table = np.array([rng.uniform(40, 170) for _ in range(3)], np.float32)
        border = round(TABLE_MM * PX_PER_MM)
        noise = np.random.default_rng(rng.getrandbits(32)).normal(0, 6, (sheet.shape[0] + 2 * border,
                                                                         sheet.shape[1] + 2 * border, 1))
        canvas = np.clip(table[None, None, :] + noise, 0, 255).astype(np.uint8)
        canvas[border:border + sheet.shape[0], border:border + sheet.shape[1]] = sheet
        self.table_colour = tuple(float(v) for v in table)
        self.empty_canvas = canvas
        self.blur = rng.uniform(0.0, 0.9)
        # canvas px = (sheet mm + table) * px/mm
        self.canvas_from_sheet = np.array([[PX_PER_MM, 0, border], [0, PX_PER_MM, border], [0, 0, 1]])
        self.image_from_canvas = self.homography @ np.linalg.inv(self.canvas_from_sheet)
        self.split = split
        self.sprite = sprite
        self.set_seed = rng.getrandbits(32)
        self.side_shade = rng.uniform(0.45, 0.75)
        self.diameter_px = max(8, round(2 * self.radius_mm * PX_PER_MM))
        self._sprite_cache: dict[str, tuple[np.ndarray, np.ndarray, tuple[int, int, int]]] = {}
        self.pieces: dict[Point, Disc] = {}
        self.aside: list[tuple[Disc, float, float]] = []  # captured discs on the table, off the sheet
        self._layer: np.ndarray | None = None
        self._work: np.ndarray | None = None
        self._warped_layer: np.ndarray | None = None
        self._gain: np.ndarray | None = None
        self.light = Light(random.Random(rng.getrandbits(32)), self.size, fps)
        self.shake_sigma = rng.uniform(0.05, 0.25)  # px per frame: a tripod on a table
        self._shake = np.zeros(2)
        self._bump = 0.0
        self.players = [self._player(rng) for _ in range(2)]
        noise_rng = np.random.default_rng(rng.getrandbits(32))
        self.noise_level = rng.uniform(2, 6)
        pad = 32
        bank_shape = (3, self.size[1] + pad, self.size[0] + pad, 3)
        self._noise_up = np.clip(np.abs(noise_rng.normal(0, self.noise_level, bank_shape)), 0, 255).astype(np.uint8)
        self._noise_down = np.clip(np.abs(noise_rng.normal(0, self.noise_level, bank_shape)), 0, 255).astype(np.uint8)
        self._frame_rng = random.Random(rng.getrandbits(32))
        self.auto_exposure = rng.choice([0.0, rng.uniform(-0.1, 0.1)])
        self._auto = 1.0

    # ------------------------------------------------------------------ set-up
    def _camera(self, rng: random.Random) -> np.ndarray:
        """A camera that sees the whole playing grid and at least half the markers: zoomed in or
        out from `random_camera`'s view until it does, the board filling much of the picture."""
        layout = self.layout
        w_mm, h_mm = layout.sheet_size_mm
        sheet = np.array([[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], np.float64)
        pitch = layout.pitch_mm
        grid = np.array([layout.point_mm(p) for p in layout.corner_points()])
        centre_mm = grid.mean(axis=0)
        grid = centre_mm + (grid - centre_mm) * (1 + 1.2 * pitch / np.abs(grid - centre_mm).max())
        markers = [np.array(m.corners_mm) for m in layout.markers()]
        width, height = self.size
        centre = np.array([width / 2, height / 2])
        margin = 0.02 * min(width, height)

        def project(h: np.ndarray, points: np.ndarray) -> np.ndarray | None:
            px = h @ np.column_stack([points, np.ones(len(points))]).T
            return None if np.any(px[2] <= 0) else (px[:2] / px[2]).T

        def inside(px: np.ndarray) -> bool:
            return bool(np.all(px >= margin) and np.all(px[:, 0] <= width - margin)
                        and np.all(px[:, 1] <= height - margin))

        for _ in range(100):
            k, rotation, t = random_camera(layout, rng, self.size, max_tilt=35.0)
            base = k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
            px = project(base, sheet)
            if px is None:
                continue
            whole = 1.0 / float((np.abs(px - centre) / (centre - margin)).max())  # the whole sheet just fits
            zoom = whole * rng.uniform(0.92, 1.25)
            while zoom > whole * 0.9:
                homography = np.array([[zoom, 0, (1 - zoom) * centre[0]], [0, zoom, (1 - zoom) * centre[1]],
                                       [0, 0, 1]]) @ base
                seen_markers = sum(inside(project(homography, m)) for m in markers)
                if inside(project(homography, grid)) and seen_markers >= len(markers) // 2:
                    return homography / homography[2, 2]
                zoom *= 0.97
        raise RuntimeError("no camera found that sees the whole board")

    @staticmethod
    def _player(rng: random.Random) -> dict:
        skin = np.array([rng.uniform(90, 170), rng.uniform(120, 190), rng.uniform(170, 240)])
        sleeve = np.array([rng.uniform(0, 255) for _ in range(3)])
        return {"skin": tuple(float(v) for v in skin), "dark": tuple(float(v) * 0.7 for v in skin),
                "light": tuple(min(255.0, float(v) * 1.08 + 6) for v in skin),
                "sleeve": tuple(float(v) for v in sleeve), "width_mm": rng.uniform(75, 100),
                "bare": rng.random() < 0.3}

    def new_disc(self, label: str, discs: int = 1) -> Disc:
        """A piece of the set: same material for all, its glyph turned as it happens to lie."""
        if label not in self._sprite_cache:
            # One seed for the whole set: every piece shares its material and ink family.
            image = self.sprite(label, self.diameter_px, random.Random(self.set_seed), split=self.split)
            rgba = np.array(image).astype(np.float32)
            colour = rgba[..., 2::-1].copy()
            alpha = rgba[..., 3:4] / 255.0
            mean = (colour * alpha).sum(axis=(0, 1)) / max(float(alpha.sum()), 1.0)
            side = tuple(int(c * self.side_shade) for c in mean)
            self._sprite_cache[label] = (colour, alpha, side)
        colour, alpha, side = self._sprite_cache[label]
        d = colour.shape[0]
        turn = cv2.getRotationMatrix2D((d / 2 - 0.5, d / 2 - 0.5), self.rng.uniform(0, 360), 1.0)
        colour = cv2.warpAffine(colour, turn, (d, d), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return Disc(label, colour, alpha, side, self.jitter(), discs)

    def jitter(self) -> tuple[float, float]:
        """Pieces stand near, not exactly on, their point."""
        pitch = self.layout.pitch_mm
        return (self.rng.gauss(0, 0.05) * pitch, self.rng.gauss(0, 0.05) * pitch)

    # ------------------------------------------------------------------ the board
    def set_position(self, labels: dict[Point, str], sizes: dict[Point, int] | None = None) -> None:
        self.pieces = {point: self.new_disc(label, (sizes or {}).get(point, 1)) for point, label in labels.items()}
        self.changed()

    def changed(self) -> None:
        self._layer = None
        self._warped_layer = None

    def aside_spot(self, side: int) -> tuple[float, float] | None:
        """Where a player sets the next captured disc on the table, beside the sheet on his side;
        None when his row there is full."""
        w_mm, h_mm = self.layout.sheet_size_mm
        step = 2.3 * self.radius_mm
        row_y = (h_mm + 0.6 * TABLE_MM) if side > 0 else -0.6 * TABLE_MM
        taken = sum(1 for _, _, y in self.aside if abs(y - row_y) < 1.0)
        x = 0.1 * w_mm + taken * step
        if x > 0.9 * w_mm:
            return None
        return x, row_y

    def labels(self) -> dict[Point, str]:
        return {point: disc.label for point, disc in self.pieces.items()}

    def base_mm(self, point: Point, disc: Disc | None = None) -> tuple[float, float]:
        x, y = self.layout.point_mm(point)
        if disc is not None:
            x, y = x + disc.offset_mm[0], y + disc.offset_mm[1]
        return x, y

    def _layer_image(self) -> np.ndarray:
        if self._layer is None:
            layer = self.empty_canvas.copy()
            # Far pieces first, so nearer discs overlap them as a camera sees it.
            placed = [(disc, *self.base_mm(point, disc)) for point, disc in self.pieces.items()]
            placed += self.aside
            for disc, x, y in sorted(placed, key=lambda item: -self._depth((item[1], item[2]))):
                self._stamp(layer, disc, x, y, 0.0)
            if self.blur > 0.3:
                layer = cv2.GaussianBlur(layer, (0, 0), self.blur)
            self._layer = layer
            self._work = layer.copy()
        return self._layer

    def _depth(self, xy: tuple[float, float]) -> float:
        k, rotation, t = self.calibration.pose()
        return float((rotation @ np.array([xy[0], xy[1], 0.0]) + t)[2])

    def _sheet_of(self, xyz: np.ndarray) -> np.ndarray:
        """Where points in the air appear, mapped back onto the board plane (mm)."""
        return self.calibration.pixels_to_sheet(self.calibration.project(xyz))

    def _stamp(self, canvas: np.ndarray, disc: Disc, x: float, y: float, z: float) -> tuple[int, int, int, int]:
        """Draw a thick disc whose base centre is (x, y) mm at height z; returns the touched box."""
        steps = SIDE_STEPS * disc.discs
        heights = z + self.height_mm * disc.discs * np.linspace(0, 1, steps + 1)
        xyz = np.column_stack([np.full_like(heights, x), np.full_like(heights, y), heights])
        centres = self._sheet_of(xyz)
        scale = 1.0
        if z > 1.0:  # nearer to the camera: bigger
            top = centres[-1]
            rim = self._sheet_of(np.array([[x + self.radius_mm, y, heights[-1]]]))[0]
            scale = max(0.5, min(2.0, float(np.linalg.norm(rim - top)) / self.radius_mm))
        radius_px = self.radius_mm * PX_PER_MM * scale
        to_canvas = self.canvas_from_sheet
        px = centres * to_canvas[0, 0] + to_canvas[:2, 2]
        h, w = canvas.shape[:2]
        for i, (cx, cy) in enumerate(px[:-1]):
            shade = 0.8 + 0.2 * (i % SIDE_STEPS) / SIDE_STEPS  # darker low on each disc: seams
            colour = tuple(c * shade for c in disc.side)
            cv2.circle(canvas, (round(cx * 4), round(cy * 4)), round(radius_px * 0.985 * 4), colour, -1,
                       cv2.LINE_AA, shift=2)
        colour, alpha = disc.colour, disc.alpha
        if scale != 1.0:
            d = max(4, round(colour.shape[0] * scale))
            colour = cv2.resize(colour, (d, d), interpolation=cv2.INTER_LINEAR)
            alpha = cv2.resize(alpha, (d, d), interpolation=cv2.INTER_LINEAR)[..., None]
        d = colour.shape[0]
        x0, y0 = round(px[-1][0] - d / 2), round(px[-1][1] - d / 2)
        bx0, by0, bx1, by1 = max(x0, 0), max(y0, 0), min(x0 + d, w), min(y0 + d, h)
        if bx1 > bx0 and by1 > by0:
            region = canvas[by0:by1, bx0:bx1]
            a = alpha[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0]
            c = colour[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0]
            region[:] = (region * (1 - a) + c * a).astype(np.uint8)
        lo = px.min(axis=0) - radius_px - 2
        hi = px.max(axis=0) + radius_px + 2
        return (max(int(lo[0]), 0), max(int(lo[1]), 0), min(int(hi[0]) + 1, w), min(int(hi[1]) + 1, h))

    def _shadow(self, canvas: np.ndarray, x: float, y: float, z: float) -> tuple[int, int, int, int]:
        """The soft shadow a lifted disc throws on the board below it."""
        to_canvas = self.canvas_from_sheet
        cx, cy = x * to_canvas[0, 0] + to_canvas[0, 2], y * to_canvas[1, 1] + to_canvas[1, 2]
        r = self.radius_mm * PX_PER_MM * (1 + z / 150)
        h, w = canvas.shape[:2]
        x0, y0 = max(int(cx - 1.5 * r), 0), max(int(cy - 1.5 * r), 0)
        x1, y1 = min(int(cx + 1.5 * r) + 1, w), min(int(cy + 1.5 * r) + 1, h)
        if x1 <= x0 or y1 <= y0:
            return (0, 0, 0, 0)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        depth = 0.45 / (1 + z / 60)
        fall = 1 - depth * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (0.7 * r) ** 2))
        region = canvas[y0:y1, x0:x1]
        region[:] = (region * fall[..., None]).astype(np.uint8)
        return (x0, y0, x1, y1)

    # ------------------------------------------------------------------ a frame
    def _warped(self) -> np.ndarray:
        """The board layer seen by the camera, with a border of SHAKE_PAD px for the shake."""
        if self._warped_layer is None:
            pad = SHAKE_PAD
            shift = np.array([[1, 0, pad], [0, 1, pad], [0, 0, 1]], np.float64)
            w, h = self.size
            self._warped_layer = cv2.warpPerspective(self._layer_image(), shift @ self.image_from_canvas,
                                                     (w + 2 * pad, h + 2 * pad), flags=cv2.INTER_LINEAR,
                                                     borderMode=cv2.BORDER_CONSTANT, borderValue=self.table_colour)
        return self._warped_layer

    def frame(self, index: int, hand: HandPose | None = None, carried: list[Carried] = ()) -> np.ndarray:
        """Frame `index` (its time is index / fps): the board, what the hand holds, the hand, light, noise."""
        warped = self._warped()
        dx, dy = self._shake_offset()
        w, h = self.size
        pad = SHAKE_PAD
        image = warped[pad - dy:pad - dy + h, pad - dx:pad - dx + w].copy()
        if carried:
            self._draw_carried(image, carried, dx, dy)
        if hand is not None:
            self.draw_hand(image, hand, (dx, dy))
        # Auto-exposure: a hand or a sleeve in view makes the camera re-expose, with a lag.
        target = 1.0 + (self.auto_exposure if hand is not None and self.hand_visible(hand) else 0.0)
        lag = 1 - math.exp(-1.0 / (0.6 * self.fps))
        previous = self._auto
        self._auto += (target - self._auto) * lag
        if self._gain is None or index % 3 == 0 or abs(self._auto - previous) > 0.003:
            self._gain = self.light.gain(index / self.fps, self._auto)
        image = cv2.multiply(image, self._gain, scale=1 / 128)
        rng = self._frame_rng
        k, nx, ny = rng.randrange(3), rng.randrange(32), rng.randrange(32)
        image = cv2.add(image, self._noise_up[k, ny:ny + h, nx:nx + w])
        k, nx, ny = rng.randrange(3), rng.randrange(32), rng.randrange(32)
        return cv2.subtract(image, self._noise_down[k, ny:ny + h, nx:nx + w])

    def _draw_carried(self, image: np.ndarray, carried: list[Carried], dx: int, dy: int) -> None:
        """Draw the held discs on the canvas and warp only the patch they touch into the image."""
        layer = self._layer_image()
        work = self._work
        touched = []
        for item in carried:
            if item.z > 0.5:
                touched.append(self._shadow(work, item.x, item.y, item.z))
        for item in carried:
            touched.append(self._stamp(work, item.disc, item.x, item.y, item.z))
        boxes = [b for b in touched if b[2] > b[0] and b[3] > b[1]]
        if boxes:
            x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
            x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
            corners = np.array([[[x0, y0]], [[x1, y0]], [[x1, y1]], [[x0, y1]]], np.float64)
            shift = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)
            to_image = shift @ self.image_from_canvas
            px = cv2.perspectiveTransform(corners, to_image).reshape(-1, 2)
            w, h = self.size
            ix0, iy0 = max(int(px[:, 0].min()) - 1, 0), max(int(px[:, 1].min()) - 1, 0)
            ix1, iy1 = min(int(px[:, 0].max()) + 2, w), min(int(px[:, 1].max()) + 2, h)
            if ix1 > ix0 and iy1 > iy0:
                roi = np.array([[1, 0, -ix0], [0, 1, -iy0], [0, 0, 1]], np.float64) @ to_image
                patch = cv2.warpPerspective(work, roi, (ix1 - ix0, iy1 - iy0), flags=cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_CONSTANT, borderValue=self.table_colour)
                image[iy0:iy1, ix0:ix1] = patch
        for x0, y0, x1, y1 in boxes:  # undo the drawing on the work canvas
            work[y0:y1, x0:x1] = layer[y0:y1, x0:x1]

    def move_board(self, dx_mm: float, dy_mm: float, angle_deg: float) -> None:
        """Someone knocked the board: it slides by (dx, dy) mm and turns about its centre, the
        camera staying where it was. The calibration made before no longer fits."""
        w_mm, h_mm = self.layout.sheet_size_mm
        a = math.radians(angle_deg)
        cos, sin = math.cos(a), math.sin(a)
        to_centre = np.array([[1, 0, -w_mm / 2], [0, 1, -h_mm / 2], [0, 0, 1]], np.float64)
        turn = np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]], np.float64)
        back = np.array([[1, 0, w_mm / 2 + dx_mm], [0, 1, h_mm / 2 + dy_mm], [0, 0, 1]], np.float64)
        homography = self.homography @ back @ turn @ to_centre
        self.homography = homography / homography[2, 2]
        self.calibration = Calibration(self.layout, self.homography, self.size, "synthetic",
                                       piece_height_mm=self.height_mm, piece_radius_ratio=self.radius_ratio)
        self.image_from_canvas = self.homography @ np.linalg.inv(self.canvas_from_sheet)
        self.changed()
        self.bump(1.0)

    def bump(self, strength: float = 1.0) -> None:
        """Someone touched the table: the camera shakes a little more for a moment."""
        self._bump = max(self._bump, strength)

    def _shake_offset(self) -> tuple[int, int]:
        """A smooth wander of the mount, in whole pixels, drifting back to rest."""
        rng = self._frame_rng
        sigma = self.shake_sigma * (1 + 8 * self._bump)
        self._bump *= 0.75
        self._shake = 0.93 * self._shake + np.array([rng.gauss(0, sigma), rng.gauss(0, sigma)])
        self._shake = np.clip(self._shake, -SHAKE_PAD, SHAKE_PAD)
        return int(round(self._shake[0])), int(round(self._shake[1]))

    # ------------------------------------------------------------------ hands
    def hand_points(self, hand: HandPose) -> dict[str, np.ndarray]:
        """The hand's key points in the image: tip, palm, wrist, and a far point on the arm."""
        width = self.players[hand.player]["width_mm"]
        back = hand.side
        xyz = np.array([[hand.x, hand.y, hand.z],
                        [hand.x, hand.y + back * width * 0.7, hand.z + 15],
                        [hand.x, hand.y + back * width * 1.5, hand.z + 35],
                        [hand.x + 0.15 * (hand.x - self.layout.sheet_size_mm[0] / 2),
                         hand.y + back * width * 4.5, hand.z + 150]])
        px = self.calibration.project(xyz)
        scale = self.calibration.piece_radius_px() / self.radius_mm
        return {"tip": px[0], "palm": px[1], "wrist": px[2], "far": px[3], "scale": np.array([scale * width])}

    def hand_visible(self, hand: HandPose | None) -> bool:
        if hand is None:
            return False
        points = self.hand_points(hand)
        reach = float(points["scale"][0]) * 0.6
        w, h = self.size
        for a, b in (("tip", "palm"), ("palm", "wrist")):
            for f in np.linspace(0, 1, 8):
                x, y = points[a] + (points[b] - points[a]) * f
                if -reach < x < w + reach and -reach < y < h + reach:
                    return True
        return False

    def draw_hand(self, image: np.ndarray, hand: HandPose, shake: tuple[int, int] = (0, 0)) -> None:
        p = {k: v + np.array(shake) if k != "scale" else v for k, v in self.hand_points(hand).items()}
        player = self.players[hand.player]
        size = float(p["scale"][0])
        tip, palm, wrist, far = p["tip"], p["palm"], p["wrist"], p["far"]
        direction = far - wrist
        length = float(np.linalg.norm(direction))
        if length < 1e-6:
            return
        far = wrist + direction / length * max(length, 3 * max(self.size))
        shadow_shift = np.array([0.25, 0.35]) * size * min(1.0, hand.z / 80 + 0.2)

        def shapes(canvas: np.ndarray, offset: np.ndarray, skin, dark, sleeve, light=None) -> None:
            def pt(v):
                return (round(float(v[0] + offset[0]) * 4), round(float(v[1] + offset[1]) * 4))
            aa = cv2.LINE_AA
            arm_width = max(2, round(size * 0.75))
            cv2.line(canvas, pt(wrist), pt(far), sleeve if not player["bare"] else skin, arm_width, aa, shift=2)
            if not player["bare"] and light is not None:  # the cuff
                cuff = wrist + (far - wrist) / max(float(np.linalg.norm(far - wrist)), 1.0) * size * 0.25
                cv2.line(canvas, pt(wrist), pt(cuff), tuple(c * 0.7 for c in sleeve), arm_width, aa, shift=2)
            cv2.line(canvas, pt(wrist), pt(palm), skin, max(2, round(size * 0.5)), aa, shift=2)
            heading = math.degrees(math.atan2(tip[1] - palm[1], tip[0] - palm[0]))
            across = np.array([-(tip[1] - palm[1]), tip[0] - palm[0]])
            across = across / (float(np.linalg.norm(across)) or 1.0)
            finger = max(2, round(size * 0.12))
            fingers = [(palm + across * spread * size * 0.45, tip + across * spread * size * 0.22)
                       for spread in (-0.55, -0.2, 0.15, 0.45)]
            for base, end in fingers:  # outlines first: neighbouring fingers stay apart
                cv2.line(canvas, pt(base), pt(end), dark, finger + 2, aa, shift=2)
            for base, end in fingers:
                cv2.line(canvas, pt(base), pt(end), skin, finger, aa, shift=2)
            thumb = palm - across * size * 0.55 + (tip - palm) * 0.35
            cv2.line(canvas, pt(palm - across * size * 0.2), pt(thumb), dark, round(finger * 1.3) + 2, aa, shift=2)
            cv2.line(canvas, pt(palm - across * size * 0.2), pt(thumb), skin, round(finger * 1.3), aa, shift=2)
            axes = (max(1, round(size * 0.38 * 4)), max(1, round(size * 0.3 * 4)))
            cv2.ellipse(canvas, pt(palm), axes, heading, 0, 360, skin, -1, aa, shift=2)
            if light is not None:  # the back of the hand catches the light; knuckles
                glow = (max(1, axes[0] // 2), max(1, axes[1] // 2))
                cv2.ellipse(canvas, pt(palm - across * size * 0.08), glow, heading, 0, 360, light, -1, aa, shift=2)
                cv2.ellipse(canvas, pt(palm), axes, heading, -50, 50, dark, max(1, finger // 3), aa, shift=2)

        box = self._hand_box(np.array([tip, palm, wrist]), far, size * 1.5)
        if box is not None:
            x0, y0, x1, y1 = box
            region = image[y0:y1, x0:x1]
            dark = np.zeros_like(region)
            shapes_offset = shadow_shift - np.array([x0, y0])
            shapes(dark, shapes_offset, (255, 255, 255), (255, 255, 255), (255, 255, 255))
            dark = cv2.blur(dark, (9, 9))
            region[:] = cv2.subtract(region, cv2.multiply(dark, (0.35, 0.35, 0.35, 0)))
        shapes(image, np.zeros(2), player["skin"], player["dark"], player["sleeve"], player["light"])

    def _hand_box(self, near: np.ndarray, far: np.ndarray, pad: float) -> tuple[int, int, int, int] | None:
        w, h = self.size
        clipped = cv2.clipLine((0, 0, w, h), tuple(int(v) for v in near[-1]), tuple(int(v) for v in far))
        points = [*near]
        if clipped[0]:
            points += [np.array(clipped[1], float), np.array(clipped[2], float)]
        pts = np.array(points)
        x0, y0 = np.maximum(pts.min(axis=0) - pad, 0).astype(int)
        x1, y1 = np.minimum(pts.max(axis=0) + pad, [w, h]).astype(int)
        if x1 <= x0 or y1 <= y0:
            return None
        return int(x0), int(y0), int(x1), int(y1)
