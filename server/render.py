"""SVG pictures of any game's position, drawn from its `Geometry`: no board is hard-coded here.

Intersection games (Xiangqi, Commander Chess) put pieces on line crossings; cell games
(Cờ Toán) put them in squares. Regions whose names speak of water (sea, river) are tinted.
Pieces are discs in the Vietnamese style: a cream face, red for White (Trắng), blue for Black
(Đen), carrying the Vietnamese letter of the piece.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from games.base import Geometry, Point

SPACING = 48
MARGIN = 44
INK = {"w": "#c0392b", "b": "#1f4e99"}
WATER = ("sea", "river", "water", "song", "bien")


class Layout:
    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.cells = geometry.placement == "cells"
        self.width = 2 * MARGIN + (geometry.files - (0 if self.cells else 1)) * SPACING
        self.height = 2 * MARGIN + (geometry.ranks - (0 if self.cells else 1)) * SPACING

    def xy(self, point: Sequence[int]) -> tuple[float, float]:
        file, rank = point[0], point[1]
        offset = SPACING / 2 if self.cells else 0
        x = MARGIN + file * SPACING + offset
        y = MARGIN + (self.geometry.ranks - 1 - rank) * SPACING + offset
        return x, y


def _board(layout: Layout, labels: bool) -> list[str]:
    g = layout.geometry
    parts = []
    for name, points in g.regions.items():
        if any(word in name.lower() for word in WATER):
            for point in points:
                x, y = layout.xy(point)
                half = SPACING / 2
                parts.append(f'<rect class="region {escape(name)}" x="{x - half}" y="{y - half}" width="{SPACING}" '
                             f'height="{SPACING}" fill="#8ec5e8" fill-opacity="0.45"/>')
    if layout.cells:
        for file in range(g.files + 1):
            x = MARGIN + file * SPACING
            parts.append(f'<line x1="{x}" y1="{MARGIN}" x2="{x}" y2="{layout.height - MARGIN}" stroke="#5a3b1a"/>')
        for rank in range(g.ranks + 1):
            y = MARGIN + rank * SPACING
            parts.append(f'<line x1="{MARGIN}" y1="{y}" x2="{layout.width - MARGIN}" y2="{y}" stroke="#5a3b1a"/>')
    for a, b in g.lines:
        (x1, y1), (x2, y2) = layout.xy(a), layout.xy(b)
        parts.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#5a3b1a" stroke-width="1.5"/>')
    for point in g.marks:
        x, y = layout.xy(point)
        if layout.cells:
            parts.append(f'<rect class="mark" x="{x - 14}" y="{y - 14}" width="28" height="28" fill="none" '
                         f'stroke="#5a3b1a"/>')
        else:
            parts.append(f'<circle class="mark" cx="{x}" cy="{y}" r="3" fill="#5a3b1a"/>')
    if labels:
        for file, name in enumerate(g.file_names):
            x, _ = layout.xy((file, 0))
            parts.append(f'<text class="label" x="{x}" y="{layout.height - 5}" font-size="14" '
                         f'text-anchor="middle" fill="#5a3b1a">{escape(name)}</text>')
        for rank, name in enumerate(g.rank_names):
            _, y = layout.xy((0, rank))
            parts.append(f'<text class="label" x="{MARGIN / 4}" y="{y + 5}" font-size="14" '
                         f'text-anchor="middle" fill="#5a3b1a">{escape(name)}</text>')
    return parts


def _highlight(layout: Layout, squares: Iterable[Sequence[int] | None]) -> list[str]:
    parts = []
    for point in squares:
        if point is None:
            continue
        x, y = layout.xy(point)
        parts.append(f'<rect class="last-move" x="{x - 22}" y="{y - 22}" width="44" height="44" rx="6" '
                     f'fill="#f1c40f" fill-opacity="0.55"/>')
    return parts


def _pieces(layout: Layout, pieces: Iterable[dict[str, Any]]) -> list[str]:
    parts = []
    for piece in pieces:
        x, y = layout.xy((piece["file"], piece["rank"]))
        ink = INK.get(piece["color"], "#333")
        label = escape(str(piece.get("label") or piece["symbol"]))
        parts.append(
            f'<g class="piece" data-point="{piece["file"]},{piece["rank"]}" data-color="{escape(piece["color"])}">'
            f'<circle cx="{x}" cy="{y}" r="20" fill="#fbf1d3" stroke="{ink}" stroke-width="3"/>'
            f'<circle cx="{x}" cy="{y}" r="15" fill="none" stroke="{ink}" stroke-width="1"/>'
            f'<text x="{x}" y="{y + 6}" font-size="17" font-weight="bold" text-anchor="middle" '
            f'font-family="sans-serif" fill="{ink}">{label}</text></g>')
    return parts


def _arrows(layout: Layout, candidates: Iterable[dict[str, Any]]) -> list[str]:
    parts = ['<defs><marker id="head" markerWidth="6" markerHeight="6" refX="3" refY="3" orient="auto">'
             '<path d="M0,0 L6,3 L0,6 z" fill="#e67e22"/></marker></defs>']
    for candidate in candidates:
        if candidate.get("from") is None or candidate.get("to") is None:
            continue
        (x1, y1), (x2, y2) = layout.xy(candidate["from"]), layout.xy(candidate["to"])
        parts.append(f'<line class="candidate" data-move="{escape(candidate["text"])}" x1="{x1}" y1="{y1}" '
                     f'x2="{x2}" y2="{y2}" stroke="#e67e22" stroke-width="6" stroke-opacity="0.8" '
                     f'marker-end="url(#head)"/>')
    return parts


def diagram(geometry: Geometry, snapshot: dict[str, Any], *, labels: bool = True, transparent: bool = False) -> str:
    """The position of `snapshot` as a standalone SVG document.

    >>> import games
    >>> variant = games.get("xiangqi")
    >>> svg = diagram(variant.geometry, {"pieces": [{"file": 4, "rank": 0, "color": "w", "symbol": "K",
    ...                                               "label": "T"}], "last_move": None})
    >>> svg.startswith("<svg") and 'class="piece"' in svg
    True
    """
    layout = Layout(geometry)
    # Transparent: no paper behind the lines, for an overlay on a video.
    parts = [] if transparent else [f'<rect x="0" y="0" width="{layout.width}" height="{layout.height}" '
                                    'fill="#f3d9a4"/>']
    parts += _board(layout, labels)
    last = snapshot.get("last_move") or {}
    parts += _highlight(layout, (last.get("from"), last.get("to")))
    parts += _pieces(layout, snapshot.get("pieces", ()))
    ambiguity = snapshot.get("ambiguity")
    if ambiguity:
        parts += _arrows(layout, ambiguity.get("candidates", ()))
    body = "".join(parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="banco-board" viewBox="0 0 {layout.width} '
            f'{layout.height}" width="{layout.width}" height="{layout.height}">{body}</svg>')


def point_of(geometry: Geometry, x: float, y: float) -> Point | None:
    """The board point nearest to a click at (x, y) in the diagram's own coordinates."""
    layout = Layout(geometry)
    best, distance = None, SPACING / 2
    for point in geometry.points():
        px, py = layout.xy(point)
        d = ((px - x) ** 2 + (py - y) ** 2) ** 0.5
        if d < distance:
            best, distance = point, d
    return best
