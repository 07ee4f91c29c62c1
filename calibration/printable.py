"""Printable boards with markers, as SVG or PDF, drawn from each game's `Geometry`.

One list of drawing shapes feeds both writers, so the SVG and the PDF are the same board.
Print at 100 % (no "fit to page"): the markers' size is part of the calibration.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from calibration.layout import BoardLayout
from calibration.markers import marker_bits
from games import Point, Variant

INK = "#222222"
WATER = "#cfe6f5"  # a river, and every water as the synthetic renders draw it
SEA = "#9fc8e6"  # darker than the river, as the Cờ Tư Lệnh seed has it
FORD = "#8a5a2b"  # the fords' brown dashes across the river
FONT_FILES = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)

# ISO sheets (portrait, mm), smallest first; the board is centred on the first that fits.
SHEETS = {"A4": (210.0, 297.0), "A3": (297.0, 420.0), "A2": (420.0, 594.0), "A1": (594.0, 841.0)}


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    colour: str = INK


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str


@dataclass(frozen=True)
class Text:
    x: float
    y: float
    text: str
    size: float


Shape = Line | Rect | Text


def board_shapes(variant: Variant, layout: BoardLayout, terrain: str = "print") -> list[Shape]:
    """Everything printed on the sheet, in board millimetres (origin at the sheet's top-left).

    `terrain` "print" draws Cờ Tư Lệnh's water as its seed does (`_terrain`); "points", as the
    synthetic renders have drawn it since they began (bands over the points that name water),
    so that the renders, the models trained on them and the held-out figures stay as they were.
    """
    g = layout.geometry
    pitch = layout.pitch_mm
    shapes: list[Shape] = []
    shapes.extend(_terrain(layout) if terrain == "print" else _water(layout))
    if layout.cells:
        left, top = layout.margin_mm, layout.margin_mm
        w, h = layout.grid_size_mm
        for f in range(g.files + 1):
            shapes.append(Line(left + f * pitch, top, left + f * pitch, top + h, 0.5))
        for r in range(g.ranks + 1):
            shapes.append(Line(left, top + r * pitch, left + w, top + r * pitch, 0.5))
        for name, points in g.regions.items():
            if "zero" in name:  # Cờ Toán's marked cells carry both diagonals
                for point in points:
                    x, y = layout.point_mm(point)
                    half = pitch / 2
                    shapes.append(Line(x - half, y - half, x + half, y + half, 0.4))
                    shapes.append(Line(x - half, y + half, x + half, y - half, 0.4))
    else:
        for a, b in g.lines:
            (x1, y1), (x2, y2) = layout.point_mm(a), layout.point_mm(b)
            shapes.append(Line(x1, y1, x2, y2, 0.5))
        for point in g.marks:
            shapes.extend(_cross_mark(layout, point))
    # A thick frame just outside the grid, as on printed and wooden boards.
    w, h = layout.grid_size_mm
    pad = 0.12 * pitch if not layout.cells else 0.0
    x0, y0 = layout.margin_mm - pad, layout.margin_mm - pad
    x1, y1 = layout.margin_mm + w + pad, layout.margin_mm + h + pad
    for a, b, c, d in ((x0, y0, x1, y0), (x1, y0, x1, y1), (x1, y1, x0, y1), (x0, y1, x0, y0)):
        shapes.append(Line(a, b, c, d, 1.2))
    shapes.extend(_file_labels(layout))
    for marker in layout.markers():
        shapes.extend(_marker_shapes(marker.id, marker.corners_mm[0], layout.marker_mm))
    ids = [m.id for m in layout.markers()]
    caption = f"banco · {variant.title} · markers {ids[0]}–{ids[-1]} · {pitch:g} mm · print at 100 %"
    shapes.append(Text(layout.margin_mm, layout.sheet_size_mm[1] - 0.25 * pitch, caption, 3.2))
    return shapes


def _terrain(layout: BoardLayout) -> list[Shape]:
    """Cờ Tư Lệnh's water as seed 000 draws it: the sea, darker, over the two columns of squares
    from the edge to the coast, the whole height; the river, lighter, across the board from the
    coast between the two halves; the two fords as brown dashes across it on their files."""
    regions = layout.geometry.regions
    if not regions.get("sea"):
        return []
    files, ranks = layout.geometry.files, layout.geometry.ranks
    sea_from = min(p.file for p in regions["sea"])
    coast = min(p.file for p in regions["coast"])
    near = max(p.rank for p in regions["side:white"])
    far = min(p.rank for p in regions["side:black"])
    (left, top), (right, bottom) = layout.point_mm(Point(sea_from, ranks - 1)), layout.point_mm(Point(coast, 0))
    shapes: list[Shape] = [Rect(left, top, right - left, bottom - top, SEA)]
    (left, top), (right, bottom) = layout.point_mm(Point(coast, far)), layout.point_mm(Point(files - 1, near))
    shapes.append(Rect(left, top, right - left, bottom - top, WATER))
    for file in sorted({p.file for p in regions.get("ford-ends", ())}):
        (x, y0), (_, y1) = layout.point_mm(Point(file, far)), layout.point_mm(Point(file, near))
        dashes = 5
        step = (y1 - y0) / (2 * dashes - 1)
        for side in (-0.1, 0.1):  # a dashed bank either side of the file, as the seed's figure
            for dash in range(dashes):
                shapes.append(Line(x + side * layout.pitch_mm, y0 + 2 * dash * step, x + side * layout.pitch_mm,
                                   y0 + (2 * dash + 1) * step, 1.0, FORD))
    return shapes


def _water(layout: BoardLayout) -> list[Shape]:
    """Seas and rivers, as bands covering the points that name them (the renders' drawing)."""
    shapes: list[Shape] = []
    for name, points in layout.geometry.regions.items():
        if not any(word in name for word in ("sea", "river", "water")) or not points:
            continue
        xs = [layout.point_mm(p)[0] for p in points]
        ys = [layout.point_mm(p)[1] for p in points]
        shapes.append(Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys), WATER))
    return shapes


def _cross_mark(layout: BoardLayout, point: Point) -> list[Shape]:
    """The small corner brackets printed at cannon and soldier points."""
    x, y = layout.point_mm(point)
    gap, arm = 0.07 * layout.pitch_mm, 0.15 * layout.pitch_mm
    shapes: list[Shape] = []
    for dx in (-1, 1):
        if not layout.geometry.contains(Point(point.file + dx, point.rank)):
            continue
        for dy in (-1, 1):
            cx, cy = x + dx * gap, y + dy * gap
            shapes.append(Line(cx, cy, cx + dx * arm, cy, 0.4))
            shapes.append(Line(cx, cy, cx, cy + dy * arm, 0.4))
    return shapes


def _file_labels(layout: BoardLayout) -> list[Shape]:
    g = layout.geometry
    shapes: list[Shape] = []
    size = 0.22 * layout.pitch_mm
    # Points of a cell board are cell centres, half a spacing inside the grid's edge: its labels
    # go as far outside the edge as a line board's do, not into the first cells.
    edge = 0.5 * layout.pitch_mm if layout.cells else 0.0
    # Cờ Tư Lệnh's seed numbers its lines from 0 at the sea-side bottom corner, HA along the
    # bottom and VA up the left, and its default notation writes moves so (`B4,10_5,10`): those
    # go where its figure puts them, the chess-style names (a–k, 1–12) on the other two sides.
    seed = g.name == "commander"
    bottom = [str(f) for f in range(g.files)] if seed else list(g.file_names)
    left = [str(r) for r in range(g.ranks)] if seed else list(g.rank_names)
    for f in range(g.files):
        x, y = layout.point_mm(Point(f, 0))
        shapes.append(Text(x - size / 3 * len(bottom[f]) ** 0.5, y + edge + 0.55 * layout.pitch_mm, bottom[f], size))
        if seed:
            _, top = layout.point_mm(Point(f, g.ranks - 1))
            shapes.append(Text(x - size / 3, top - edge - 0.3 * layout.pitch_mm, g.file_names[f], size))
    for r in range(g.ranks):
        x, y = layout.point_mm(Point(0, r))
        shapes.append(Text(x - edge - 0.6 * layout.pitch_mm, y + size / 3, left[r], size))
        if seed:
            right, _ = layout.point_mm(Point(g.files - 1, r))
            shapes.append(Text(right + edge + 0.3 * layout.pitch_mm, y + size / 3, g.rank_names[r], size))
    return shapes


def _marker_shapes(marker_id: int, top_left: tuple[float, float], size: float) -> list[Shape]:
    bits = marker_bits(marker_id)
    cell = size / bits.shape[0]
    x0, y0 = top_left
    shapes: list[Shape] = [Rect(x0, y0, size, size, "#000000")]
    for row in range(bits.shape[0]):
        for col in range(bits.shape[1]):
            if bits[row, col]:
                shapes.append(Rect(x0 + col * cell, y0 + row * cell, cell, cell, "#ffffff"))
    return shapes


def choose_sheet(layout: BoardLayout) -> tuple[str, float, float]:
    w, h = layout.sheet_size_mm
    for name, (sw, sh) in SHEETS.items():
        if w <= sw and h <= sh:
            return name, sw, sh
        if h <= sw and w <= sh:  # landscape
            return f"{name} landscape", sh, sw
    return "custom", w, h


def to_svg(variant: Variant, layout: BoardLayout) -> str:
    _, sw, sh = choose_sheet(layout)
    w, h = layout.sheet_size_mm
    dx, dy = (sw - w) / 2, (sh - h) / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{sw:g}mm" height="{sh:g}mm" '
           f'viewBox="0 0 {sw:g} {sh:g}">',
           f'<rect width="{sw:g}" height="{sh:g}" fill="#ffffff"/>',
           f'<g transform="translate({dx:.3f} {dy:.3f})" stroke-linecap="square">']
    for shape in board_shapes(variant, layout):
        if isinstance(shape, Line):
            out.append(f'<line x1="{shape.x1:.3f}" y1="{shape.y1:.3f}" x2="{shape.x2:.3f}" '
                       f'y2="{shape.y2:.3f}" stroke="{shape.colour}" stroke-width="{shape.width}"/>')
        elif isinstance(shape, Rect):
            out.append(f'<rect x="{shape.x:.3f}" y="{shape.y:.3f}" width="{shape.w:.3f}" '
                       f'height="{shape.h:.3f}" fill="{shape.fill}"/>')
        else:
            text = shape.text.replace("&", "&amp;").replace("<", "&lt;")
            out.append(f'<text x="{shape.x:.3f}" y="{shape.y:.3f}" font-size="{shape.size:g}" '
                       f'font-family="DejaVu Sans, sans-serif" fill="{INK}">{text}</text>')
    out.append("</g></svg>")
    return "\n".join(out) + "\n"


def to_pdf(variant: Variant, layout: BoardLayout, path: Path) -> None:
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas

    font = _pdf_font()
    _, sw, sh = choose_sheet(layout)
    w, h = layout.sheet_size_mm
    dx, dy = (sw - w) / 2, (sh - h) / 2
    pdf = canvas.Canvas(str(path), pagesize=(sw * mm, sh * mm))
    pdf.setTitle(f"banco {variant.title} board")

    def X(x: float) -> float:
        return (x + dx) * mm

    def Y(y: float) -> float:  # PDF's y axis points up
        return (sh - (y + dy)) * mm

    for shape in board_shapes(variant, layout):
        if isinstance(shape, Line):
            pdf.setStrokeColor(shape.colour)
            pdf.setLineWidth(shape.width * mm)
            pdf.line(X(shape.x1), Y(shape.y1), X(shape.x2), Y(shape.y2))
        elif isinstance(shape, Rect):
            pdf.setFillColor(shape.fill)
            pdf.rect(X(shape.x), Y(shape.y + shape.h), shape.w * mm, shape.h * mm, stroke=0, fill=1)
        else:
            pdf.setFillColor(INK)
            text = shape.text if font != "Helvetica" else _ascii(shape.text)
            pdf.setFont(font, shape.size * mm)
            pdf.drawString(X(shape.x), Y(shape.y), text)
    pdf.showPage()
    pdf.save()


def _pdf_font() -> str:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    for path in FONT_FILES:
        if os.path.exists(path):
            if "DejaVuSans" not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(TTFont("DejaVuSans", path))
            return "DejaVuSans"
    return "Helvetica"  # the base-14 font has no Vietnamese letters: write them without marks


def _ascii(text: str) -> str:
    text = text.replace("đ", "d").replace("Đ", "D")
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def write_board(variant: Variant, out: Path, pitch_mm: float | None = None) -> str:
    """Write the printable board to `out` (.svg or .pdf); returns the sheet's name."""
    layout = BoardLayout.for_game(variant, pitch_mm)
    suffix = out.suffix.lower()
    if suffix == ".svg":
        out.write_text(to_svg(variant, layout), encoding="utf-8")
    elif suffix == ".pdf":
        to_pdf(variant, layout, out)
    else:
        raise ValueError(f"--out {out.name!r}: the board is written as .svg or .pdf")
    return choose_sheet(layout)[0]


def to_image(variant: Variant, layout: BoardLayout, px_per_mm: float = 3.0):
    """The sheet as a BGR image (numpy), for tests and synthetic renders."""
    import cv2
    import numpy as np

    w, h = layout.sheet_size_mm
    image = np.full((round(h * px_per_mm), round(w * px_per_mm), 3), 255, np.uint8)

    def px(value: float) -> int:
        return round(value * px_per_mm)

    for shape in board_shapes(variant, layout):
        if isinstance(shape, Line):
            thickness = max(1, px(shape.width))
            colour = tuple(int(shape.colour[i:i + 2], 16) for i in (5, 3, 1))  # BGR
            cv2.line(image, (px(shape.x1), px(shape.y1)), (px(shape.x2), px(shape.y2)), colour, thickness)
        elif isinstance(shape, Rect):
            colour = tuple(int(shape.fill[i:i + 2], 16) for i in (5, 3, 1))  # BGR
            cv2.rectangle(image, (px(shape.x), px(shape.y)),
                          (px(shape.x + shape.w) - 1, px(shape.y + shape.h) - 1), colour, -1)
    return image
