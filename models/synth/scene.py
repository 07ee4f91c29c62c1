"""Whole rendered photos of a board with pieces: the training and test data of recognition.

A scene is a board style, a position, a camera, light and hands. `render_scene` returns the
photo, the true calibration (sheet → image) and the true class of every point, so crops
and labels come out of the same code path the station uses (`vision.crops`). Boards are
drawn from `calibration.printable`'s shapes for every game: Xiangqi's river and palaces,
Cờ Tư Lệnh's sea and river (also as the rulebook paints them), Cờ Toán's cells. A Commander
Chess stack stands taller, one disc on another, and shows only its top piece.
"""

from __future__ import annotations

import colorsys
import math
import random
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image

import games
from calibration import BoardLayout, Calibration
from calibration.homography import outside_frame
from calibration.printable import WATER, Line, Rect, board_shapes
from games import Point
from models.synth.pieces import render_piece
from vision.classes import EMPTY, OCCLUDED, piece_classes


@dataclass
class Scene:
    image: np.ndarray  # BGR
    calibration: Calibration  # the truth: sheet mm → image px, with the pieces' height
    labels: dict[Point, str]  # class per point; OCCLUDED where a hand hides it or it lies outside the photo
    pieces: dict[Point, str]  # what stands on the board, hands or not (a stack's top piece)
    stacks: dict[Point, int] = field(default_factory=dict)  # discs per point where more than one


def random_camera(layout: BoardLayout, rng: random.Random, size=(1280, 720), max_tilt=45.0):
    """A pinhole camera somewhere above the board, looking at it: returns (K, R, t)."""
    w_mm, h_mm = layout.sheet_size_mm
    centre = np.array([w_mm / 2 + rng.uniform(-0.05, 0.05) * w_mm, h_mm / 2 + rng.uniform(-0.05, 0.05) * h_mm, 0.0])
    tilt = math.radians(rng.uniform(0, max_tilt))
    yaw = math.radians(rng.choice([0, 0, 180, 90, 270]) + rng.uniform(-25, 25))
    focal = rng.uniform(0.7, 1.3) * size[0]
    # Far enough that the whole sheet fits, near enough that the grid fills much of the frame.
    fill = rng.uniform(0.95, 1.3)
    distance = focal * max(w_mm, h_mm) / (min(size) * fill)
    position = centre + distance * np.array([math.sin(yaw) * math.sin(tilt), math.cos(yaw) * math.sin(tilt),
                                             -math.cos(tilt)])
    forward = centre - position
    forward /= np.linalg.norm(forward)
    # Up in the picture points away from the camera, across the board.
    up_hint = -np.array([math.sin(yaw), math.cos(yaw), 0.0])
    right = np.cross(forward, up_hint)
    if np.linalg.norm(right) < 1e-6:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    roll = math.radians(rng.uniform(-8, 8))
    rotation = np.vstack([right, down, forward])
    c, s_ = math.cos(roll), math.sin(roll)
    rotation = np.array([[c, -s_, 0], [s_, c, 0], [0, 0, 1]]) @ rotation
    t = -rotation @ position
    k = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1]])
    return k, rotation, t


def _board_style(rng: random.Random, split: str = "train", game: str = "xiangqi") -> dict:
    style = rng.choice(["paper", "paper", "wood", "vinyl"]) if split == "train" else rng.choice(["cloth", "paper"])
    if style == "cloth":  # held out: a cloth board with thick dark-blue or brown lines
        background = (rng.uniform(0.6, 0.8), rng.uniform(0.55, 0.75), rng.uniform(0.5, 0.7))
        ink = rng.choice([(0.1, 0.1, 0.4), (0.3, 0.15, 0.05)])
    elif style == "wood":
        background = (rng.uniform(0.55, 0.8), rng.uniform(0.42, 0.6), rng.uniform(0.22, 0.38))
        ink = (0.1, 0.06, 0.03)
    elif style == "vinyl":
        background = rng.choice([(0.85, 0.8, 0.55), (0.75, 0.85, 0.7), (0.9, 0.85, 0.75)])
        ink = rng.choice([(0.1, 0.1, 0.1), (0.5, 0.1, 0.1), (0.1, 0.3, 0.1)])
    else:
        background = (rng.uniform(0.88, 1.0), rng.uniform(0.86, 0.98), rng.uniform(0.8, 0.95))
        ink = rng.choice([(0.1, 0.1, 0.1), (0.45, 0.1, 0.1), (0.1, 0.1, 0.35)])
    style = {"name": style, "background": background, "ink": ink, "markers": rng.random() < 0.6,
             "line": rng.uniform(0.4, 1.2), "water": tuple(int(WATER[i:i + 2], 16) / 255 for i in (1, 3, 5)),
             "rulebook_water": False}
    if game == "commander":  # seas and rivers: pale to deep blues, printed or painted
        style["water"] = colorsys.hsv_to_rgb(rng.uniform(0.52, 0.6), rng.uniform(0.12, 0.55), rng.uniform(0.75, 1.0))
        style["rulebook_water"] = rng.random() < 0.5
    return style


def _draw_sheet(variant, layout: BoardLayout, style: dict, px_per_mm: float, rng: random.Random) -> np.ndarray:
    w_mm, h_mm = layout.sheet_size_mm
    height, width = round(h_mm * px_per_mm), round(w_mm * px_per_mm)
    bgr = np.array(style["background"][::-1]) * 255
    noise = np.random.default_rng(rng.getrandbits(32)).normal(0, 4, (height, width, 1))
    sheet = np.clip(bgr[None, None, :] + noise, 0, 255).astype(np.uint8)
    ink = tuple(int(c * 255) for c in style["ink"][::-1])
    water = tuple(int(c * 255) for c in style["water"][::-1])
    if variant.name == "commander" and style["rulebook_water"]:
        _rulebook_water(sheet, layout, water, px_per_mm)
    for shape in board_shapes(variant, layout, terrain="points"):
        if isinstance(shape, Line):
            thickness = max(1, round(shape.width * style["line"] * px_per_mm))
            cv2.line(sheet, (round(shape.x1 * px_per_mm), round(shape.y1 * px_per_mm)),
                     (round(shape.x2 * px_per_mm), round(shape.y2 * px_per_mm)), ink, thickness, cv2.LINE_AA)
        elif isinstance(shape, Rect) and (style["markers"] or shape.fill not in ("#000000", "#ffffff")):
            colour = water if shape.fill == WATER else tuple(int(shape.fill[i:i + 2], 16) for i in (5, 3, 1))
            cv2.rectangle(sheet, (round(shape.x * px_per_mm), round(shape.y * px_per_mm)),
                          (round((shape.x + shape.w) * px_per_mm) - 1, round((shape.y + shape.h) * px_per_mm) - 1),
                          colour, -1)
    return sheet


def _rulebook_water(sheet: np.ndarray, layout: BoardLayout, colour, px_per_mm: float) -> None:
    """The rulebook's Commander board: the sea from HA 0 to the coast (HA 2) and the river
    across the whole board between VA 5 and 6."""
    def px(point: Point) -> tuple[int, int]:
        x, y = layout.point_mm(point)
        return round(x * px_per_mm), round(y * px_per_mm)

    files, ranks = layout.geometry.files, layout.geometry.ranks
    cv2.rectangle(sheet, px(Point(0, ranks - 1)), px(Point(2, 0)), colour, -1)
    cv2.rectangle(sheet, px(Point(0, 6)), px(Point(files - 1, 5)), colour, -1)


# A full set: pieces at the start of each game.
SET_SIZE = {"xiangqi": 32, "commander": 38, "cotoan": 20}


def random_position(game: str, points: list[Point], rng: random.Random) -> dict[Point, str]:
    """Pieces on random points: sometimes a full set, often a thinned middle game. Where a full
    set covers under a third of the board, sometimes a crowded one too (more crops per render;
    a crop sees only the edges of its neighbours)."""
    labels = piece_classes(game)
    full = SET_SIZE.get(game, 32)
    counts = [rng.randint(2, full * 3 // 8), rng.randint(full * 3 // 8, full), full]
    if full * 3 < len(points):
        counts.append(rng.randint(full, min(len(points), full * 2)))
    chosen = rng.sample(points, min(rng.choice(counts), len(points)))
    return {point: rng.choice(labels) for point in chosen}


def random_stacks(game: str, position: dict[Point, str], rng: random.Random) -> dict[Point, int]:
    """Commander Chess carriers with their loads: two or three discs on one point."""
    if game != "commander":
        return {}
    return {point: rng.choice([2, 2, 2, 3]) for point in position if rng.random() < 0.18}


# Discs' thickness, in radii. Printed and plastic discs are thin; wooden Xiangqi discs are thick,
# and a sturdy wooden set's reach a radius and more (38 mm across and 16 thick is 0.84; 45 and 22
# is 0.98). The held-out photos keep the range the models were trained on until session 43.
THICKNESS = (0.25, 0.9)


def render_scene(game: str, rng: random.Random, position: dict[Point, str] | None = None,
                 size=(1280, 720), hands: bool | None = None, max_tilt: float = 45.0,
                 px_per_mm: float = 2.0, split: str = "train", stacks: dict[Point, int] | None = None,
                 radius_ratio: float | None = None, thickness: tuple[float, float] = THICKNESS) -> Scene:
    """Render one photo. ``split="test"`` draws with the held-out font and textures.

    `position` maps points to the class seen on top; `stacks` gives the number of discs at the
    points that hold more than one (random Commander stacks when neither is given). The discs'
    thickness is drawn from `thickness`, in radii.
    """
    variant = games.get(game)
    layout = BoardLayout.for_game(variant)
    points = list(layout.geometry.points())
    if position is None:
        position = random_position(game, points, rng)
        stacks = random_stacks(game, position, rng) if stacks is None else stacks
    stacks = {p: n for p, n in (stacks or {}).items() if n > 1 and p in position}
    k, rotation, t = random_camera(layout, rng, size, max_tilt)
    homography = k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
    homography /= homography[2, 2]
    radius_ratio = rng.uniform(0.4, 0.47) if radius_ratio is None else radius_ratio
    radius_mm = layout.pitch_mm * radius_ratio
    height_mm = radius_mm * rng.uniform(*thickness)
    truth = Calibration(layout, homography, size, "synthetic", piece_height_mm=height_mm,
                        piece_radius_ratio=radius_ratio)

    style = _board_style(rng, split, game)
    sheet = _draw_sheet(variant, layout, style, px_per_mm, rng)
    sheet_rgba = Image.fromarray(cv2.cvtColor(sheet, cv2.COLOR_BGR2RGBA))
    diameter = max(8, round(2 * radius_mm * px_per_mm))
    side_shade = rng.uniform(0.45, 0.75)
    for point, label in sorted(position.items(), key=lambda item: -item[0].rank):
        x, y = layout.point_mm(point)
        # Pieces stand near, not exactly on, their point.
        x += rng.gauss(0, 0.06) * layout.pitch_mm
        y += rng.gauss(0, 0.06) * layout.pitch_mm
        discs = stacks.get(point, 1)
        top_px = truth.project(np.array([[x, y, height_mm * discs]]))[0]
        top_mm = truth.pixels_to_sheet(np.array([top_px]))[0]
        sprite = render_piece(label, diameter, rng, split=split)
        alpha = np.array(sprite)[..., 3]
        side = np.array(sprite).copy()
        side_colour = side[..., :3].astype(float).mean(axis=(0, 1)) * side_shade
        side[..., 3] = alpha
        # The discs' side: the sprite's silhouette swept from the base up to the top face, darker,
        # with a darker seam where one disc of a stack sits on the next.
        steps = 6 * discs
        for i in range(steps):
            f = i / steps
            seam = discs > 1 and i % 6 == 0 and i > 0
            side[..., :3] = (side_colour * (0.6 if seam else 1.0)).astype(np.uint8)
            cx = (x + (top_mm[0] - x) * f) * px_per_mm
            cy = (y + (top_mm[1] - y) * f) * px_per_mm
            sheet_rgba.alpha_composite(Image.fromarray(side), (round(cx - diameter / 2), round(cy - diameter / 2)))
        sheet_rgba.alpha_composite(sprite, (round(top_mm[0] * px_per_mm - diameter / 2),
                                            round(top_mm[1] * px_per_mm - diameter / 2)))
    sheet = cv2.cvtColor(np.array(sheet_rgba), cv2.COLOR_RGBA2BGR)

    from_sheet_px = np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0])
    table = np.array([rng.uniform(40, 200) for _ in range(3)])
    image = cv2.warpPerspective(sheet, homography @ from_sheet_px, size, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(float(v) for v in table))
    labels = dict.fromkeys(points, EMPTY) | dict(position)
    if hands if hands is not None else rng.random() < 0.35:
        mask = _draw_hand(image, rng)
        radius_px = truth.piece_radius_px()
        for point in points:
            cx, cy = truth.piece_center_pixel(point)
            x0, x1 = int(max(cx - radius_px, 0)), int(min(cx + radius_px, size[0]))
            y0, y1 = int(max(cy - radius_px, 0)), int(min(cy + radius_px, size[1]))
            if x1 > x0 and y1 > y0 and mask[y0:y1, x0:x1].mean() > 0.3:
                labels[point] = OCCLUDED
    unframed = outside_frame([truth.piece_center_pixel(p) for p in points], (size[1], size[0]))
    for point, out_of_frame in zip(points, unframed, strict=True):
        if out_of_frame:  # the camera does not frame it: no crop can show what stands there
            labels[point] = OCCLUDED
    image = _photometric(image, rng)
    return Scene(image, truth, labels, dict(position), stacks)


def _draw_hand(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """A hand and arm reaching in from an edge: a palm, fingers and a sleeve."""
    h, w = image.shape[:2]
    arm = np.zeros((h, w), np.uint8)
    hand = np.zeros((h, w), np.uint8)
    palm = np.array([rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h])
    edge = rng.choice([(palm[0], h + 50), (palm[0], -50), (-50, palm[1]), (w + 50, palm[1])])
    direction = palm - np.array(edge)
    direction /= np.linalg.norm(direction)
    size = rng.uniform(0.06, 0.12) * w
    wrist = palm - direction * size * 0.8
    cv2.line(arm, tuple(int(v) for v in edge), tuple(int(v) for v in wrist), 1, int(size * 1.1))
    heading = math.atan2(direction[1], direction[0])
    cv2.ellipse(hand, tuple(int(v) for v in palm), (int(size * 0.6), int(size * 0.5)),
                math.degrees(heading), 0, 360, 1, -1)
    cv2.line(hand, tuple(int(v) for v in wrist), tuple(int(v) for v in palm), 1, int(size * 0.8))
    for spread in np.linspace(-0.7, 0.7, 4) + rng.uniform(-0.1, 0.1):
        angle = heading + spread * 0.6
        tip = palm + size * rng.uniform(0.9, 1.3) * np.array([math.cos(angle), math.sin(angle)])
        cv2.line(hand, tuple(int(v) for v in palm), tuple(int(v) for v in tip), 1, max(2, int(size * 0.18)))
    skin = np.array([rng.uniform(90, 170), rng.uniform(120, 190), rng.uniform(170, 240)])
    sleeve = np.array([rng.uniform(0, 255) for _ in range(3)])
    image[arm > 0] = sleeve.astype(np.uint8)
    shade = cv2.GaussianBlur(hand.astype(np.float32), (0, 0), size * 0.15)
    image[hand > 0] = np.clip(skin * (0.75 + 0.25 * shade[hand > 0][:, None]), 0, 255).astype(np.uint8)
    mask = np.maximum(arm, hand)
    return mask.astype(np.float32)


def _photometric(image: np.ndarray, rng: random.Random) -> np.ndarray:
    h, w = image.shape[:2]
    out = image.astype(np.float32)
    # White balance and exposure: tungsten, shade, daylight, dim rooms.
    out *= np.array([rng.uniform(0.75, 1.15), rng.uniform(0.85, 1.1), rng.uniform(0.8, 1.25)])
    out = out * rng.uniform(0.6, 1.25) + rng.uniform(-20, 20)
    # Uneven light and a soft shadow.
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, math.tau)
    ramp = ((x / w - 0.5) * math.cos(angle) + (y / h - 0.5) * math.sin(angle))
    out *= (1 + rng.uniform(0, 0.5) * ramp)[..., None]
    if rng.random() < 0.4:
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.1, 0.4) * w
        shadow = np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
        out *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]
    if rng.random() < 0.3:  # glare
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.03, 0.15) * w
        out += (rng.uniform(60, 160) * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r)))[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        sigma = rng.uniform(0.3, 1.6)
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if rng.random() < 0.2:  # motion blur
        length = rng.randint(3, 9)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1 / length
        rot = cv2.getRotationMatrix2D((length / 2, length / 2), rng.uniform(0, 180), 1)
        out = cv2.filter2D(out, -1, cv2.warpAffine(kernel, rot, (length, length)))
    noise = np.random.default_rng(rng.getrandbits(32)).normal(0, rng.uniform(1, 7), out.shape)
    out = np.clip(out + noise, 0, 255).astype(np.uint8)
    quality = rng.randint(35, 95)
    ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else out
