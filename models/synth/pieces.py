"""Round pieces drawn from scratch: wood, plastic and printed discs with real glyphs.

Each call draws one piece seen from straight above, as an RGBA sprite, with a random
material, rim, glyph style, ink colour and rotation. Fonts come from Debian packages
(fonts-arphic-ukai for the brush "kai" style, fonts-arphic-uming for the "ming" style,
fonts-wqy-zenhei for a plain sans); none is downloaded.
"""

from __future__ import annotations

import colorsys
import functools
import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

# Traditional and simplified forms, both as sets print them.
XIANGQI_GLYPHS = {
    "red_general": "帥帅", "black_general": "將将",
    "red_advisor": "仕士", "black_advisor": "士仕",
    "red_elephant": "相", "black_elephant": "象",
    "red_horse": "傌馬马", "black_horse": "馬马",
    "red_chariot": "俥車车", "black_chariot": "車车",
    "red_cannon": "炮砲", "black_cannon": "砲炮包",
    "red_soldier": "兵", "black_soldier": "卒",
}

# Training sees the two traditional styles (kai brush, ming); the held-out test set is drawn
# with a font and a wood texture that training never sees.
FONT_FILES = {
    "train": (("/usr/share/fonts/truetype/arphic/ukai.ttc", (0, 1, 2, 3)),
              ("/usr/share/fonts/truetype/arphic/uming.ttc", (0, 1, 2, 3))),
    "test": (("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", (0, 1)),),
}


def available_fonts(split: str = "train") -> list[tuple[str, int]]:
    fonts = [(path, index) for path, indices in FONT_FILES[split] if os.path.exists(path) for index in indices]
    if not fonts:
        raise RuntimeError("no CJK font found: install fonts-arphic-ukai, fonts-arphic-uming or fonts-wqy-zenhei")
    return fonts


@functools.lru_cache(maxsize=64)
def _font(path: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size=size, index=index)


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0), 1), min(max(v, 0), 1))
    return int(r * 255), int(g * 255), int(b * 255)


def disc_colour(rng: random.Random) -> tuple[str, tuple[int, int, int]]:
    material = rng.choices(["wood", "ivory", "plastic", "printed"], weights=[4, 3, 2, 1])[0]
    if material == "wood":
        return material, _hsv(rng.uniform(0.05, 0.11), rng.uniform(0.3, 0.65), rng.uniform(0.55, 0.92))
    if material == "ivory":
        return material, _hsv(rng.uniform(0.1, 0.16), rng.uniform(0.05, 0.25), rng.uniform(0.82, 0.98))
    if material == "plastic":
        return material, _hsv(rng.uniform(0.0, 1.0), rng.uniform(0.0, 0.15), rng.uniform(0.85, 1.0))
    return material, _hsv(rng.uniform(0.1, 0.18), rng.uniform(0.0, 0.3), rng.uniform(0.8, 1.0))


def ink_colour(side: str, rng: random.Random) -> tuple[int, int, int]:
    """Red for White; black, green or blue for Black (the sets the law names)."""
    if side == "red":
        return _hsv(rng.uniform(-0.03, 0.03), rng.uniform(0.65, 1.0), rng.uniform(0.5, 0.95))
    family = rng.choices(["black", "green", "blue"], weights=[4, 4, 1])[0]
    if family == "black":
        return _hsv(rng.random(), rng.uniform(0, 0.3), rng.uniform(0.02, 0.25))
    if family == "green":
        return _hsv(rng.uniform(0.27, 0.45), rng.uniform(0.5, 1.0), rng.uniform(0.2, 0.6))
    return _hsv(rng.uniform(0.55, 0.65), rng.uniform(0.5, 1.0), rng.uniform(0.25, 0.6))


def _knotty_texture(size: int, base: tuple[int, int, int], rng: random.Random) -> np.ndarray:
    """Held-out wood: blotchy, knotted, with no straight grain."""
    noise = np.random.default_rng(rng.getrandbits(32)).normal(0, 1, (size, size)).astype(np.float32)
    import cv2

    blotches = cv2.GaussianBlur(noise, (0, 0), size * rng.uniform(0.03, 0.1))
    blotches /= max(float(np.abs(blotches).max()), 1e-6)
    shade = 1 + 0.15 * blotches + 0.03 * noise
    return np.clip(np.array(base, np.float32)[None, None, :] * shade[..., None], 0, 255)


def _wood_texture(size: int, base: tuple[int, int, int], rng: random.Random) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    angle = rng.uniform(0, math.pi)
    u = x * math.cos(angle) + y * math.sin(angle)
    v = -x * math.sin(angle) + y * math.cos(angle)
    freq = rng.uniform(0.15, 0.5) * 8 / size
    grain = np.sin(u * freq * math.tau + 3 * np.sin(v * 2.0 / size * math.tau + rng.uniform(0, 6)))
    noise = np.random.default_rng(rng.getrandbits(32)).normal(0, 1, (size, size)).astype(np.float32)
    shade = 1 + 0.08 * grain + 0.03 * noise
    return np.clip(np.array(base, np.float32)[None, None, :] * shade[..., None], 0, 255)


def render_piece(label: str, diameter: int, rng: random.Random, glyphs: dict[str, str] | None = None,
                 split: str = "train") -> Image.Image:
    """One piece of class `label` (e.g. ``red_horse``) as an RGBA sprite `diameter` px wide."""
    glyphs = glyphs or XIANGQI_GLYPHS
    side = label.split("_", 1)[0]
    scale = 3  # draw large, then shrink: smooth edges like a photo
    size = diameter * scale
    material, base = disc_colour(rng)
    if material == "wood":
        face = (_wood_texture if split == "train" else _knotty_texture)(size, base, rng)
    else:
        noise = np.random.default_rng(rng.getrandbits(32)).normal(0, 2.5, (size, size, 1))
        face = np.clip(np.array(base, np.float32)[None, None, :] + noise, 0, 255)
    image = Image.fromarray(face.astype(np.uint8), "RGB").convert("RGBA")
    draw = ImageDraw.Draw(image)
    ink = ink_colour(side, rng)
    centre = size / 2
    # Rims: engraved rings in the ink's colour or a darker shade of the disc.
    rim_colour = ink if rng.random() < 0.6 else tuple(int(c * 0.55) for c in base)
    for _ in range(rng.choice([0, 1, 1, 2])):
        r = size * rng.uniform(0.36, 0.46)
        width = max(1, int(size * rng.uniform(0.01, 0.03)))
        draw.ellipse([centre - r, centre - r, centre + r, centre + r], outline=rim_colour, width=width)
    # The glyph, rotated as the piece happens to lie.
    path, index = rng.choice(available_fonts(split))
    char = rng.choice(glyphs[label])
    font = _font(path, index, int(size * rng.uniform(0.48, 0.66)))
    glyph = Image.new("L", (size, size), 0)
    gdraw = ImageDraw.Draw(glyph)
    stroke = int(size * rng.uniform(0.0, 0.02))
    gdraw.text((centre, centre), char, font=font, fill=255, anchor="mm", stroke_width=stroke, stroke_fill=255)
    angle = rng.choice([rng.uniform(-25, 25), 180 + rng.uniform(-25, 25), rng.uniform(0, 360)])
    glyph = glyph.rotate(angle, resample=Image.BICUBIC, center=(centre, centre))
    if rng.random() < 0.3:  # engraved: a dark edge inside the strokes
        edge = glyph.filter(ImageFilter.FIND_EDGES)
        image.paste(tuple(int(c * 0.4) for c in ink), mask=edge)
    image.paste(ink, mask=glyph)
    # Light from one side across the face.
    light = _light_map(size, rng)
    arr = np.array(image).astype(np.float32)
    arr[..., :3] *= light[..., None]
    # Cut the disc out with a soft, slightly darker edge.
    y, x = np.mgrid[0:size, 0:size]
    dist = np.hypot(x - centre + 0.5, y - centre + 0.5) / (size / 2)
    arr[..., :3] *= np.clip(1.0 - np.clip(dist - 0.9, 0, 1) * 3, 0.6, 1)[..., None]
    arr[..., 3] = np.clip((1.0 - dist) * size / 2, 0, 1) * 255
    sprite = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGBA")
    return sprite.resize((diameter, diameter), Image.LANCZOS)


def _light_map(size: int, rng: random.Random) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    angle = rng.uniform(0, math.tau)
    ramp = x * math.cos(angle) + y * math.sin(angle)
    light = 1.0 + rng.uniform(0.0, 0.25) * ramp
    if rng.random() < 0.3:  # a glossy highlight
        hx, hy = rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)
        light += rng.uniform(0.1, 0.35) * np.exp(-((x - hx) ** 2 + (y - hy) ** 2) / 0.01)
    return light
