"""Where every point of a game's board lies on the printed sheet, in millimetres.

The board plane has x to the right and y downwards as a printed page is read, White at the
bottom. A point (file, rank) of an intersection game sits on a line crossing; a point of a
cell game sits at the centre of its cell. ArUco markers stand outside the playing area at
known places, so a camera can find the board and its orientation without help.

>>> import games
>>> layout = BoardLayout.for_game(games.get("xiangqi"))
>>> layout.point_mm(games.Point(0, 0))
(76.0, 436.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from games import Geometry, Point, Variant

# Default spacing between points: Vietnamese club sets have Xiangqi discs of 30–36 mm on a
# 38–42 mm grid; Commander Chess sets are a little smaller, Cờ Toán's cells a little larger.
DEFAULT_PITCH_MM = {"xiangqi": 40.0, "commander": 34.0, "cotoan": 36.0}
# Each game gets its own block of marker ids, so a frame tells which board it shows.
MARKER_ID_BASE = {"xiangqi": 0, "commander": 8, "cotoan": 16}
MARKERS_PER_BOARD = 8


@dataclass(frozen=True)
class Marker:
    """An ArUco marker: its id and its four corners on the sheet (mm), clockwise from top-left."""

    id: int
    corners_mm: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class BoardLayout:
    """The printed geometry of one game's board."""

    geometry: Geometry
    pitch_mm: float
    margin_mm: float
    marker_mm: float
    marker_id_base: int

    @classmethod
    def for_game(cls, variant: Variant, pitch_mm: float | None = None) -> BoardLayout:
        pitch = DEFAULT_PITCH_MM.get(variant.name, 40.0) if pitch_mm is None else pitch_mm
        if not 10.0 <= pitch <= 100.0:  # NaN too
            raise ValueError(f"point spacing {pitch} mm is outside 10–100 mm")
        # The margin holds the markers, a quiet zone around them, and half a piece overhang.
        return cls(
            geometry=variant.geometry,
            pitch_mm=pitch,
            margin_mm=round(pitch * 1.9, 3),
            marker_mm=round(pitch * 0.7, 3),
            marker_id_base=MARKER_ID_BASE.get(variant.name, 24),
        )

    @property
    def cells(self) -> bool:
        return self.geometry.placement == "cells"

    @property
    def grid_size_mm(self) -> tuple[float, float]:
        """Width and height of the playing grid: lines for intersections, cell edges for cells."""
        g = self.geometry
        if self.cells:
            return g.files * self.pitch_mm, g.ranks * self.pitch_mm
        return (g.files - 1) * self.pitch_mm, (g.ranks - 1) * self.pitch_mm

    @property
    def sheet_size_mm(self) -> tuple[float, float]:
        w, h = self.grid_size_mm
        return w + 2 * self.margin_mm, h + 2 * self.margin_mm

    def point_mm(self, point: Point) -> tuple[float, float]:
        """The sheet position of a point: a line crossing, or a cell centre."""
        g = self.geometry
        offset = 0.5 if self.cells else 0.0
        x = self.margin_mm + (point.file + offset) * self.pitch_mm
        y = self.margin_mm + (g.ranks - 1 - point.rank + offset) * self.pitch_mm
        return x, y

    def corner_points(self) -> tuple[Point, Point, Point, Point]:
        """The four points a user clicks, in order: a1-like, last file, far corner, last rank."""
        g = self.geometry
        return (Point(0, 0), Point(g.files - 1, 0), Point(g.files - 1, g.ranks - 1), Point(0, g.ranks - 1))

    def markers(self) -> tuple[Marker, ...]:
        """Eight markers around the grid: four corners and four edge middles, ids clockwise."""
        w, h = self.grid_size_mm
        left, top = self.margin_mm, self.margin_mm
        gap = (self.margin_mm - self.marker_mm) / 2  # centre the marker in the margin
        size = self.marker_mm
        xs = (gap, left + w / 2 - size / 2, left + w + gap)
        ys = (gap, top + h / 2 - size / 2, top + h + gap)
        places = [(xs[0], ys[0]), (xs[1], ys[0]), (xs[2], ys[0]), (xs[2], ys[1]),
                  (xs[2], ys[2]), (xs[1], ys[2]), (xs[0], ys[2]), (xs[0], ys[1])]
        markers = []
        for index, (x, y) in enumerate(places):
            corners = ((x, y), (x + size, y), (x + size, y + size), (x, y + size))
            markers.append(Marker(self.marker_id_base + index, corners))
        return tuple(markers)

    def marker_by_id(self) -> dict[int, Marker]:
        return {marker.id: marker for marker in self.markers()}
