"""Following a board through a game: by its markers where it has them, else by its printed grid.

A knocked board slides and turns under a still camera; read through the old calibration, every
crop after the knock is cut off its point. `BoardFollower` is what a tracker is given as its
`locator`: each `update(frame)` (the tracker calls it on a still board, before it reads a
move) places the board by its markers when the frame shows them (`markers.BoardLocator`),
else checks the printed grid and finds it again when it moved (`grid.GridLocator`). A new place
either way is fitted to the board's printed lines (`grid.snap_to_grid`), as a first
calibration is.

>>> import games
>>> from calibration import BoardLayout, Calibration
>>> layout = BoardLayout.for_game(games.get("xiangqi"))
>>> follower = BoardFollower(Calibration.from_corners(layout, [(40, 510), (440, 510), (440, 60), (40, 60)], (480, 600)))
>>> follower.moves, follower.calibration.method
(0, 'corners')
"""

from __future__ import annotations

import numpy as np

from calibration.grid import GridLocator, snap_to_grid
from calibration.homography import Calibration
from calibration.markers import BoardLocator


class BoardFollower:
    """The calibration of a board in play, kept right by its markers, else by its grid."""

    def __init__(self, calibration: Calibration, tolerance_px: float | None = None) -> None:
        self.calibration = calibration
        self.markers = BoardLocator(calibration, tolerance_px)
        self.grid = GridLocator(calibration, tolerance_px)
        self.moves = 0
        self.found_by = "markers"  # how the last move was found: "markers" or "grid"

    def update(self, frame: np.ndarray) -> bool:
        """Whether the board moved; `calibration` is then where it is now."""
        if self.markers.update(frame):
            self.found_by = "markers"
            # Where the markers put the sheet, fitted to its printed lines (as on the first view).
            self.calibration = snap_to_grid(self.markers.calibration, frame)
            self.grid.place(self.calibration)
        elif self.markers.seen or not self.grid.update(frame):
            return False  # the markers say it stayed, or (none in view) its lines do
        else:
            # Found again by one refinement or a search afresh: fitted as closely as a start.
            self.calibration = self.markers.calibration = snap_to_grid(self.grid.calibration, frame)
            self.grid.place(self.calibration)
            self.found_by = "grid"
        self.moves += 1
        return True
