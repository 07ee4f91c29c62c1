"""Round pieces drawn from scratch: wood, plastic and printed discs with real glyphs.

Each call draws one piece seen from straight above, as an RGBA sprite, with a random
material, rim, glyph style, ink colour and rotation, for all three games: Xiangqi glyphs,
Cờ Tư Lệnh designs (the rulebook's drawings, their symbols on plain discs, or printed
letters) and Cờ Toán's numbered discs. Fonts come from Debian packages (fonts-arphic-ukai
and fonts-cwtex-kai for the brush "kai" style, fonts-arphic-uming and fonts-cwtex-ming for the
"ming" style, fonts-cwtex-heib, -yen and -fs and fonts-wqy-microhei for plainer faces,
fonts-wqy-zenhei for the held-out sans, fonts-dejavu-core/-extra and fonts-liberation for Latin
letters and digits); none is downloaded.

>>> sprite = render_piece("blue_tank", 48, random.Random(1))
>>> sprite.size, sprite.mode
((48, 48), 'RGBA')
"""

from __future__ import annotations

import colorsys
import functools
import math
import os
import random
from pathlib import Path

import cv2
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

# Training sees the two traditional styles (kai brush, ming) in Arphic's faces and cwTeX's, with
# cwTeX's bold hei, round yen and fangsong and WenQuanYi's Micro Hei for sets printed in plainer
# faces; the held-out test set is drawn with a font (WenQuanYi Zen Hei) and a wood texture that
# training never sees. cwTeX's Big5 faces lack the simplified forms and 俥: a glyph a face lacks
# is drawn in another face that has it.
FONT_FILES = {
    "train": (("/usr/share/fonts/truetype/arphic/ukai.ttc", (0, 1, 2, 3)),
              ("/usr/share/fonts/truetype/arphic/uming.ttc", (0, 1, 2, 3)),
              ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", (0,)),
              ("/usr/share/fonts/truetype/cwtex/cwheib.ttf", (0,)),
              ("/usr/share/fonts/truetype/cwtex/cwyen.ttf", (0,)),
              ("/usr/share/fonts/truetype/cwtex/cwkai.ttf", (0,)),
              ("/usr/share/fonts/truetype/cwtex/cwming.ttf", (0,)),
              ("/usr/share/fonts/truetype/cwtex/cwfs.ttf", (0,))),
    "test": (("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", (0, 1)),),
}
# The Debian packages of the faces above, for messages and the install step.
FONT_PACKAGES = ("fonts-arphic-ukai", "fonts-arphic-uming", "fonts-wqy-microhei", "fonts-cwtex-heib",
                 "fonts-cwtex-yen", "fonts-cwtex-kai", "fonts-cwtex-ming", "fonts-cwtex-fs", "fonts-wqy-zenhei")


def available_fonts(split: str = "train") -> list[tuple[str, int]]:
    fonts = [(path, index) for path, indices in FONT_FILES[split] if os.path.exists(path) for index in indices]
    if not fonts:
        raise RuntimeError(f"no CJK font found: install the Debian packages {', '.join(FONT_PACKAGES)}")
    return fonts


@functools.cache
def has_glyph(path: str, index: int, char: str) -> bool:
    """Whether the face draws `char` itself, not its box for a missing glyph."""
    font = _font(path, index, 48)
    return not np.array_equal(np.array(glyph_mask(char, font, 64)), np.array(glyph_mask("\U0010FFFD", font, 64)))


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
    """One piece of class `label` as an RGBA sprite `diameter` px wide, seen from straight above.

    `label` is a piece class of any game (`vision.classes`): ``red_horse`` (Xiangqi),
    ``blue_tank`` (Cờ Tư Lệnh), ``black_7`` (Cờ Toán). ``split="test"`` draws only with the
    fonts, textures and colours held out from training.
    """
    if split not in FONT_FILES:
        raise ValueError(f"split must be 'train' or 'test', not {split!r}")
    if glyphs is not None or label in XIANGQI_GLYPHS:
        return _xiangqi_piece(label, diameter, rng, glyphs or XIANGQI_GLYPHS, split)
    side, _, kind = label.partition("_")
    if side in ("red", "blue") and kind in COMMANDER_SYMBOLS:
        return _commander_piece(side, kind, diameter, rng, split)
    if side in ("white", "black") and len(kind) == 1 and kind.isdigit():
        return _cotoan_piece(side, kind, diameter, rng, split)
    raise ValueError(f"no renderer for piece class {label!r}")


def _xiangqi_piece(label: str, diameter: int, rng: random.Random, glyphs: dict[str, str], split: str) -> Image.Image:
    side = label.split("_", 1)[0]
    scale = 3  # draw large, then shrink: smooth edges like a photo
    size = diameter * scale
    material, base = disc_colour(rng)
    image = _face(material, base, size, rng, split)
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
    if not has_glyph(path, index, char):
        faces = [face for face in available_fonts(split) if has_glyph(*face, char)]
        if not faces:
            packages = ", ".join(FONT_PACKAGES)
            raise RuntimeError(f"no installed font draws {char}: install the Debian packages {packages}")
        path, index = rng.choice(faces)
    font = _font(path, index, int(size * rng.uniform(0.48, 0.66)))
    glyph = glyph_mask(char, font, size, stroke=int(size * rng.uniform(0.0, 0.02)))
    if split == "train":
        glyph = _restyled(glyph, rng)
    glyph = glyph.rotate(_lying_angle(rng), resample=Image.BICUBIC, center=(centre, centre))
    _ink(image, glyph, ink, rng)
    return _finish(image, diameter, rng)


def glyph_mask(char: str, font: ImageFont.FreeTypeFont, size: int, stroke: int = 0) -> Image.Image:
    """One character drawn white on black, centred in a `size` px square."""
    glyph = Image.new("L", (size, size), 0)
    ImageDraw.Draw(glyph).text((size / 2, size / 2), char, font=font, fill=255, anchor="mm",
                               stroke_width=stroke, stroke_fill=255)
    return glyph


def _restyled(glyph: Image.Image, rng: random.Random) -> Image.Image:
    """The training fonts' strokes in faces no font file here has, for sets drawn in other styles.

    Two fonts cannot teach every face a set is printed or engraved in. Sans ("hei") faces and
    engraved sets draw every stroke at one even width: a glyph thinned to its skeleton and redrawn
    with a round pen is such a face. Other fonts are bolder, lighter, narrower or slanted. Only the
    training split is restyled, so the held-out font stays unseen.
    """
    mask = np.array(glyph)
    size = mask.shape[0]
    style = rng.random()
    if style < 0.35:
        mask = redrawn_with_pen(mask, max(3, round(size * rng.uniform(0.025, 0.05))))
    elif style < 0.5:
        thin = max(2, round(size * rng.uniform(0.008, 0.015)))
        mask = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (thin, thin)))
    if rng.random() < 0.5:
        centre = size / 2
        narrow, tall, slant = rng.uniform(0.8, 1.15), rng.uniform(0.88, 1.12), rng.uniform(-0.15, 0.15)
        shape = np.array([[narrow, slant], [0.0, tall]])
        shift = np.array([centre, centre]) - shape @ np.array([centre, centre])
        mask = cv2.warpAffine(mask, np.column_stack([shape, shift]), (size, size), flags=cv2.INTER_LINEAR)
    return Image.fromarray(mask, "L")


def redrawn_with_pen(mask: np.ndarray, pen: int) -> np.ndarray:
    """A glyph mask's strokes redrawn at one width: its skeleton traced with a round pen `pen` px
    wide, the corners the pen leaves smoothed."""
    drawn = cv2.dilate(_skeleton(mask), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (pen, pen)))
    return np.where(cv2.GaussianBlur(drawn, (0, 0), pen / 4) > 100, 255, 0).astype(np.uint8)


def _skeleton(mask: np.ndarray) -> np.ndarray:
    """The morphological skeleton of a glyph mask (Lantuéjoul): the points left, at some depth of
    erosion, that an opening at that depth removes."""
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    body = (mask > 127).astype(np.uint8)
    skeleton = np.zeros_like(body)
    while body.any():
        eroded = cv2.erode(body, cross)
        skeleton |= body & (1 - cv2.dilate(eroded, cross))
        body = eroded
    return skeleton * 255


def _face(material: str, base: tuple[int, int, int], size: int, rng: random.Random, split: str) -> Image.Image:
    """The disc's bare top face: wood grain (knotted wood for the test split) or a plain noisy colour."""
    if material == "wood":
        face = (_wood_texture if split == "train" else _knotty_texture)(size, base, rng)
    else:
        noise = np.random.default_rng(rng.getrandbits(32)).normal(0, 2.5, (size, size, 1))
        face = np.clip(np.array(base, np.float32)[None, None, :] + noise, 0, 255)
    return Image.fromarray(face.astype(np.uint8), "RGB").convert("RGBA")


def _lying_angle(rng: random.Random) -> float:
    """Pieces face one player or the other, a little askew, or lie any way round."""
    return rng.choice([rng.uniform(-25, 25), 180 + rng.uniform(-25, 25), rng.uniform(0, 360)])


def _ink(image: Image.Image, mask: Image.Image, ink: tuple[int, int, int], rng: random.Random) -> None:
    if rng.random() < 0.3:  # engraved: a dark edge inside the strokes
        edge = mask.filter(ImageFilter.FIND_EDGES)
        image.paste(tuple(int(c * 0.4) for c in ink), mask=edge)
    image.paste(ink, mask=mask)


def _finish(image: Image.Image, diameter: int, rng: random.Random) -> Image.Image:
    """Light across the face, the disc cut out with a soft darker edge, shrunk to `diameter`."""
    size = image.size[0]
    centre = size / 2
    light = _light_map(size, rng)
    arr = np.array(image.convert("RGBA")).astype(np.float32)
    arr[..., :3] *= light[..., None]
    y, x = np.mgrid[0:size, 0:size]
    dist = np.hypot(x - centre + 0.5, y - centre + 0.5) / (size / 2)
    arr[..., :3] *= np.clip(1.0 - np.clip(dist - 0.9, 0, 1) * 3, 0.6, 1)[..., None]
    arr[..., 3] = np.clip((1.0 - dist) * size / 2, 0, 1) * 255
    sprite = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGBA")
    return sprite.resize((diameter, diameter), Image.LANCZOS)


# ---------------------------------------------------------------- Cờ Tư Lệnh (Commander Chess)

ICONS = Path(__file__).resolve().parent / "commander-icons"  # see its README.md for the source
# The letters of the Vietnamese secretary notation (games.commander.pieces), which plain
# printed sets also carry; the commander is a star.
COMMANDER_SYMBOLS = {
    "navy": "H", "air_force": "K", "tank": "T", "engineer": "C", "headquarters": "S", "commander": "*",
    "infantry": "B", "militia": "D", "artillery": "P", "anti_aircraft": "X", "missile": "L",
}
# Latin fonts of Debian's fonts-dejavu-* and fonts-liberation; the test split's are never trained on.
LATIN_FONTS = {
    "train": ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
              "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
              "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
              "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf",
              "/usr/share/fonts/truetype/liberation/LiberationMono-Bold.ttf"),
    "test": ("/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
             "/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed.ttf",
             "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
             "/usr/share/fonts/truetype/liberation/LiberationSans-BoldItalic.ttf"),
}


def latin_fonts(split: str = "train") -> list[str]:
    fonts = [path for path in LATIN_FONTS[split] if os.path.exists(path)]
    if not fonts:
        raise RuntimeError("no Latin font found: install fonts-dejavu-core, fonts-dejavu-extra or fonts-liberation")
    return fonts


@functools.lru_cache(maxsize=32)
def _icon(side: str, kind: str, variant: str = "") -> tuple[np.ndarray, np.ndarray]:
    """A rulebook design cut to its disc (RGB, square) and its white symbol's mask (0–1)."""
    path = ICONS / f"{side}_{kind}{variant}.png"
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(f"missing Commander Chess design {path}")
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    ys, xs = np.nonzero((hsv[..., 1] > 40) | (hsv[..., 2] < 200))  # the disc on its white page
    cx, cy = (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2
    radius = max(xs.max() - xs.min(), ys.max() - ys.min()) / 2
    side_px = int(round(2 * radius))
    shift = np.array([[1, 0, radius - cx], [0, 1, radius - cy]], np.float64)
    disc = cv2.warpAffine(image, shift, (side_px, side_px), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    disc_hsv = cv2.cvtColor(disc, cv2.COLOR_BGR2HSV)
    y, x = np.mgrid[0:side_px, 0:side_px]
    inside = np.hypot(x - radius + 0.5, y - radius + 0.5) < 0.71 * radius  # the field within the gold ring
    symbol = ((disc_hsv[..., 1] < 90) & (disc_hsv[..., 2] > 170) & inside).astype(np.float32)
    return cv2.cvtColor(disc, cv2.COLOR_BGR2RGB), symbol


def _design_variant(kind: str, rng: random.Random) -> str:
    return rng.choice(["", "_alt"]) if kind == "engineer" else ""


def side_colour(side: str, rng: random.Random, dark: bool = False) -> tuple[int, int, int]:
    """Red or blue as printed sets use them: the rulebook's flag red and sky blue, and darker inks."""
    value = rng.uniform(0.35, 0.65) if dark else rng.uniform(0.7, 1.0)
    if side == "red":
        return _hsv(rng.uniform(-0.03, 0.03), rng.uniform(0.7, 1.0), value)
    return _hsv(rng.uniform(0.53, 0.66), rng.uniform(0.55, 1.0), value)


def _commander_piece(side: str, kind: str, diameter: int, rng: random.Random, split: str) -> Image.Image:
    size = diameter * 3
    style = rng.choices(["design", "symbol", "letter"], weights=[3, 3, 2])[0]
    if style == "design":
        disc, _ = _icon(side, kind, _design_variant(kind, rng))
        # A printed sticker on a disc: sometimes a rim of bare wood or plastic shows around it.
        sticker = rng.choice([1.0, 1.0, rng.uniform(0.82, 0.97)])
        image = _face(*disc_colour(rng), size, rng, split)
        inner = max(4, int(round(size * sticker)))
        art = Image.fromarray(disc).resize((inner, inner), Image.BICUBIC)
        art = _recolour(art, rng)
        mask = Image.new("L", (inner, inner), 0)
        ImageDraw.Draw(mask).ellipse([0, 0, inner - 1, inner - 1], fill=255)
        offset = (size - inner) // 2
        art = art.rotate(_lying_angle(rng), resample=Image.BICUBIC)
        image.paste(art, (offset, offset), mask)
        return _finish(image, diameter, rng)
    # Plain printed discs: a coloured disc with a light symbol, or a light disc with a coloured one.
    inverse = rng.random() < 0.4
    if inverse:
        material, base = disc_colour(rng)
        ink = side_colour(side, rng, dark=rng.random() < 0.5)
    else:
        material, base = "plastic", side_colour(side, rng)
        ink = _hsv(rng.uniform(0.1, 0.16), rng.uniform(0.0, 0.2), rng.uniform(0.88, 1.0))
    image = _face(material, base, size, rng, split)
    draw = ImageDraw.Draw(image)
    centre = size / 2
    rim = ink if rng.random() < 0.7 else tuple(int(c * 0.6) for c in base)
    for _ in range(rng.choice([0, 1, 1, 2])):
        r = size * rng.uniform(0.38, 0.47)
        draw.ellipse([centre - r, centre - r, centre + r, centre + r], outline=rim,
                     width=max(1, int(size * rng.uniform(0.01, 0.035))))
    mark = Image.new("L", (size, size), 0)
    if style == "symbol":
        _, symbol = _icon(side, kind, _design_variant(kind, rng))
        scale = rng.uniform(0.95, 1.25)
        span = int(round(size * scale))
        pasted = cv2.resize(symbol, (span, span), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.3:  # a bolder or finer print of the same drawing
            k = max(1, span // 60)
            pasted = (cv2.dilate if rng.random() < 0.5 else cv2.erode)(pasted, np.ones((k, k), np.uint8))
        layer = np.zeros((size, size), np.float32)
        o = (size - span) // 2
        src = pasted[max(0, -o):max(0, -o) + min(size, span), max(0, -o):max(0, -o) + min(size, span)]
        layer[max(0, o):max(0, o) + src.shape[0], max(0, o):max(0, o) + src.shape[1]] = src
        mark = Image.fromarray((np.clip(layer, 0, 1) * 255).astype(np.uint8), "L")
    else:
        mdraw = ImageDraw.Draw(mark)
        if kind == "commander":
            _star(mdraw, centre, centre, size * rng.uniform(0.28, 0.36))
        else:
            font = _font(rng.choice(latin_fonts(split)), 0, int(size * rng.uniform(0.45, 0.62)))
            mdraw.text((centre, centre), COMMANDER_SYMBOLS[kind], font=font, fill=255, anchor="mm")
    mark = mark.rotate(_lying_angle(rng), resample=Image.BICUBIC, center=(centre, centre))
    _ink(image, mark, ink, rng)
    return _finish(image, diameter, rng)


def _recolour(art: Image.Image, rng: random.Random) -> Image.Image:
    """Print and photo drift: the same design a little lighter, duller or warmer."""
    arr = np.array(art.convert("RGB")).astype(np.float32)
    arr = arr * rng.uniform(0.8, 1.1) + rng.uniform(-15, 15)
    grey = arr.mean(axis=2, keepdims=True)
    arr = grey + (arr - grey) * rng.uniform(0.7, 1.15)
    arr *= np.array([rng.uniform(0.92, 1.08), 1.0, rng.uniform(0.92, 1.08)])
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB").convert("RGBA")


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, radius: float) -> None:
    points = []
    for i in range(10):
        r = radius if i % 2 == 0 else radius * 0.4
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    draw.polygon(points, fill=255)


# ---------------------------------------------------------------- Cờ Toán

def cotoan_colours(side: str, rng: random.Random) -> tuple[str, tuple[int, int, int], tuple[int, int, int]]:
    """(material, disc, digit) colours. The disc tells the side, as on real sets: White's are
    light (white, ivory, pale wood) or red, Black's dark (black, navy, dark green, brown) or blue."""
    if side == "white":
        if rng.random() < 0.7:
            material, base = rng.choice([("plastic", _hsv(0.0, rng.uniform(0, 0.06), rng.uniform(0.88, 1.0))),
                                         ("ivory", _hsv(rng.uniform(0.1, 0.16), rng.uniform(0.05, 0.25),
                                                        rng.uniform(0.85, 0.98))),
                                         ("wood", _hsv(rng.uniform(0.07, 0.12), rng.uniform(0.2, 0.4),
                                                       rng.uniform(0.8, 0.95)))])
            ink = rng.choice([_hsv(0, 0, rng.uniform(0.0, 0.2)), _hsv(rng.uniform(-0.02, 0.02), 0.9, 0.7),
                              _hsv(0.62, 0.8, rng.uniform(0.3, 0.5))])
            return material, base, ink
        return "plastic", side_colour("red", rng), _hsv(0.12, rng.uniform(0, 0.2), rng.uniform(0.9, 1.0))
    if rng.random() < 0.7:
        base = rng.choice([_hsv(0, 0, rng.uniform(0.05, 0.2)), _hsv(0.63, 0.7, rng.uniform(0.2, 0.35)),
                           _hsv(0.38, 0.7, rng.uniform(0.15, 0.3)), _hsv(0.07, 0.7, rng.uniform(0.15, 0.3))])
        ink = rng.choice([_hsv(0, 0, rng.uniform(0.85, 1.0)), _hsv(0.13, rng.uniform(0.4, 0.8), 0.9)])
        return "plastic", base, ink
    return "plastic", side_colour("blue", rng), _hsv(0.12, rng.uniform(0, 0.2), rng.uniform(0.9, 1.0))


def _cotoan_piece(side: str, digit: str, diameter: int, rng: random.Random, split: str) -> Image.Image:
    size = diameter * 3
    material, base, ink = cotoan_colours(side, rng)
    image = _face(material, base, size, rng, split)
    draw = ImageDraw.Draw(image)
    centre = size / 2
    for _ in range(rng.choice([0, 1, 1, 2])):
        r = size * rng.uniform(0.38, 0.47)
        draw.ellipse([centre - r, centre - r, centre + r, centre + r], outline=ink,
                     width=max(1, int(size * rng.uniform(0.01, 0.03))))
    fonts = latin_fonts(split)
    if split == "train":  # the brush font's digits too
        fonts = fonts + [path for path, _ in FONT_FILES["train"][:1] if os.path.exists(path)]
    mark = digit_mask(digit, size, rng.choice(fonts), rng)
    mark = mark.rotate(_lying_angle(rng), resample=Image.BICUBIC, center=(centre, centre))
    _ink(image, mark, ink, rng)
    return _finish(image, diameter, rng)


def _light_map(size: int, rng: random.Random) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    angle = rng.uniform(0, math.tau)
    ramp = x * math.cos(angle) + y * math.sin(angle)
    light = 1.0 + rng.uniform(0.0, 0.25) * ramp
    if rng.random() < 0.3:  # a glossy highlight
        hx, hy = rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)
        light += rng.uniform(0.1, 0.35) * np.exp(-((x - hx) ** 2 + (y - hy) ** 2) / 0.01)
    return light


def digit_mask(digit: str, size: int, font_path: str, rng: random.Random) -> Image.Image:
    """A Cờ Toán digit, upright and centred, as a mask `size` px square; 6 and 9 underlined,
    as real sets do so that they cannot be read upside down."""
    centre = size / 2
    font = _font(font_path, 0, int(size * rng.uniform(0.5, 0.72)))
    mark = Image.new("L", (size, size), 0)
    draw = ImageDraw.Draw(mark)
    stroke = int(size * rng.uniform(0.0, 0.015))
    draw.text((centre, centre), digit, font=font, fill=255, anchor="mm", stroke_width=stroke, stroke_fill=255)
    if digit in "69":
        box = draw.textbbox((centre, centre), digit, font=font, anchor="mm", stroke_width=stroke)
        gap = size * rng.uniform(0.02, 0.05)
        thick = max(2, int(size * rng.uniform(0.025, 0.045)))
        draw.rectangle([box[0], box[3] + gap, box[2], box[3] + gap + thick], fill=255)
    return mark
