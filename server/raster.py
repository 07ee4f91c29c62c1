"""PNG pictures of a position, drawn with Pillow from the same `Layout` as the SVG (`server.render`).

The same board, colours and sizes as the SVG diagram, so a PNG and an SVG of one position
line up pixel for pixel (the PNG's (x, y) is the SVG's user unit times `scale`). Shapes are
drawn at `SUPERSAMPLE` times the size and scaled down, which smooths the circles' edges.

>>> import io, games
>>> from PIL import Image
>>> variant = games.get("xiangqi")
>>> png = diagram_png(variant.geometry, {"pieces": [{"file": 4, "rank": 0, "color": "w", "symbol": "K",
...                                                  "label": "T"}], "last_move": None})
>>> Image.open(io.BytesIO(png)).size
(472, 520)
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from games.base import Geometry
from server.render import INK, MARGIN, SPACING, WATER, Layout

SUPERSAMPLE = 2
MAX_SCALE = 4.0
BOARD = (0xF3, 0xD9, 0xA4, 255)
LINE = (0x5A, 0x3B, 0x1A, 255)
WATER_TINT = (0x8E, 0xC5, 0xE8, 115)  # fill-opacity 0.45
HIGHLIGHT = (0xF1, 0xC4, 0x0F, 140)    # fill-opacity 0.55
FACE = (0xFB, 0xF1, 0xD3, 255)
ARROW = (0xE6, 0x7E, 0x22, 204)
FONT_FILES = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf")
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation",
             "/usr/share/fonts/TTF", "/usr/local/share/fonts")


class RasterError(ValueError):
    """A picture that cannot be drawn as asked."""


def _rgb(hex_colour: str, alpha: int = 255) -> tuple[int, int, int, int]:
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16), alpha


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A bold sans-serif from the system when there is one, else Pillow's own scalable font."""
    for directory in FONT_DIRS:
        for name in FONT_FILES:
            path = Path(directory) / name
            if path.is_file():
                return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


class _Canvas:
    """Drawing in the SVG's user units; everything is multiplied by the pixel factor here."""

    def __init__(self, layout: Layout, factor: float, transparent: bool) -> None:
        self.layout, self.factor = layout, factor
        size = (round(layout.width * factor), round(layout.height * factor))
        self.image = Image.new("RGBA", size, (0, 0, 0, 0) if transparent else BOARD)
        self.draw = ImageDraw.Draw(self.image)

    def px(self, value: float) -> float:
        return value * self.factor

    def xy(self, point: Sequence[int]) -> tuple[float, float]:
        x, y = self.layout.xy(point)
        return x * self.factor, y * self.factor

    def overlay(self, paint) -> None:
        """Paint translucent shapes on a layer of their own, then blend it in (as SVG opacity does)."""
        layer = Image.new("RGBA", self.image.size, (0, 0, 0, 0))
        paint(ImageDraw.Draw(layer))
        self.image.alpha_composite(layer)

    def line(self, a: tuple[float, float], b: tuple[float, float], width: float, fill=LINE) -> None:
        self.draw.line([a, b], fill=fill, width=max(1, round(self.px(width))))

    def circle(self, centre: tuple[float, float], radius: float, *, fill=None, outline=None,
               width: float = 1) -> None:
        x, y = centre
        r = self.px(radius)
        self.draw.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=outline,
                          width=max(1, round(self.px(width))))

    def text(self, centre: tuple[float, float], text: str, size: float, fill) -> None:
        self.draw.text(centre, text, fill=fill, font=_font(max(6, round(self.px(size)))), anchor="mm")


def _board(canvas: _Canvas, labels: bool) -> None:
    layout, g = canvas.layout, canvas.layout.geometry
    water = [point for name, points in g.regions.items() if any(word in name.lower() for word in WATER)
             for point in points]
    if water:
        def tint(draw: ImageDraw.ImageDraw) -> None:
            half = canvas.px(SPACING / 2)
            for point in set(water):
                x, y = canvas.xy(point)
                draw.rectangle([x - half, y - half, x + half, y + half], fill=WATER_TINT)
        canvas.overlay(tint)
    if layout.cells:
        for file in range(g.files + 1):
            x = MARGIN + file * SPACING
            canvas.line((canvas.px(x), canvas.px(MARGIN)), (canvas.px(x), canvas.px(layout.height - MARGIN)), 1)
        for rank in range(g.ranks + 1):
            y = MARGIN + rank * SPACING
            canvas.line((canvas.px(MARGIN), canvas.px(y)), (canvas.px(layout.width - MARGIN), canvas.px(y)), 1)
    for a, b in g.lines:
        canvas.line(canvas.xy(a), canvas.xy(b), 1.5)
    for point in g.marks:
        x, y = canvas.xy(point)
        if layout.cells:
            half = canvas.px(14)
            canvas.draw.rectangle([x - half, y - half, x + half, y + half], outline=LINE,
                                  width=max(1, round(canvas.px(1))))
        else:
            canvas.circle((x, y), 3, fill=LINE)
    if labels:
        for file, name in enumerate(g.file_names):
            x, _ = canvas.xy((file, 0))
            canvas.text((x, canvas.px(layout.height - 10)), str(name), 14, LINE)
        for rank, name in enumerate(g.rank_names):
            _, y = canvas.xy((0, rank))
            canvas.text((canvas.px(MARGIN / 4), y), str(name), 14, LINE)


def _highlight(canvas: _Canvas, squares: Iterable[Sequence[int] | None]) -> None:
    points = [point for point in squares if point is not None]
    if not points:
        return

    def paint(draw: ImageDraw.ImageDraw) -> None:
        half, corner = canvas.px(22), canvas.px(6)
        for point in points:
            x, y = canvas.xy(point)
            draw.rounded_rectangle([x - half, y - half, x + half, y + half], radius=corner, fill=HIGHLIGHT)
    canvas.overlay(paint)


def _pieces(canvas: _Canvas, pieces: Iterable[dict[str, Any]]) -> None:
    for piece in pieces:
        centre = canvas.xy((piece["file"], piece["rank"]))
        ink = _rgb(INK.get(piece["color"], "#333333"))
        canvas.circle(centre, 21.5, fill=ink)  # the 3-unit stroke of the SVG's r=20 circle
        canvas.circle(centre, 18.5, fill=FACE)
        canvas.circle(centre, 15, outline=ink, width=1)
        label = str(piece.get("label") or piece["symbol"])
        canvas.text(centre, label, 17 if len(label) < 3 else 12, ink)


def _arrows(canvas: _Canvas, candidates: Iterable[dict[str, Any]]) -> None:
    drawable = [c for c in candidates if c.get("from") is not None and c.get("to") is not None]
    if not drawable:
        return

    def paint(draw: ImageDraw.ImageDraw) -> None:
        for candidate in drawable:
            (x1, y1), (x2, y2) = canvas.xy(candidate["from"]), canvas.xy(candidate["to"])
            draw.line([(x1, y1), (x2, y2)], fill=ARROW, width=round(canvas.px(6)))
            length = max(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5, 1e-9)
            ux, uy = (x2 - x1) / length, (y2 - y1) / length
            head, wing = canvas.px(14), canvas.px(9)
            base = (x2 - ux * head, y2 - uy * head)
            draw.polygon([(x2, y2), (base[0] - uy * wing, base[1] + ux * wing),
                          (base[0] + uy * wing, base[1] - ux * wing)], fill=ARROW)
    canvas.overlay(paint)


def diagram_png(geometry: Geometry, snapshot: dict[str, Any], *, labels: bool = True, transparent: bool = False,
                scale: float = 1.0) -> bytes:
    """The position of `snapshot` (its `pieces`, `last_move` and `ambiguity`) as PNG bytes.

    `scale` multiplies the SVG diagram's size (1 to `MAX_SCALE`; 0.5 for thumbnails).
    """
    if not 0.25 <= scale <= MAX_SCALE:
        raise RasterError(f"scale must lie between 0.25 and {MAX_SCALE:g}, not {scale:g}")
    layout = Layout(geometry)
    canvas = _Canvas(layout, scale * SUPERSAMPLE, transparent)
    _board(canvas, labels)
    last = snapshot.get("last_move") or {}
    _highlight(canvas, (last.get("from"), last.get("to")))
    _pieces(canvas, snapshot.get("pieces", ()))
    ambiguity = snapshot.get("ambiguity")
    if ambiguity:
        _arrows(canvas, ambiguity.get("candidates", ()))
    size = (round(layout.width * scale), round(layout.height * scale))
    image = canvas.image.resize(size, Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
