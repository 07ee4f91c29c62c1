"""Where the board lies on a video or a camera when no profile is given.

Its printed markers first, on the first seconds of frames (a hand may hide some at first).
A board without them, a paper or wooden board from a shop or a video filmed elsewhere, is then
found by its printed grid (`calibration.grid`). A grid does not say which side is whose; the
game starts from its start position, so the grid is taken the way round under which the
classifier reads that position likelier, Red's (White's) pieces on the first rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from calibration import BoardLayout, Calibration, CalibrationError
from calibration.homography import usual_thickness_mm

# How much of the video's start may be searched for the board's markers.
MARKER_SEARCH_S = 5.0
NO_MARKER_S = 1.0  # not one marker seen for this long: the grid is tried at once
SAMPLE_EVERY = 5  # of the frames searched, those kept to look for the grid on


def find_board(variant, frames: Iterable[tuple[np.ndarray, float]], model: Path | None = None,
               keep: list | None = None, height_known: bool = False) -> Calibration:
    """The board on the first `MARKER_SEARCH_S` seconds of `frames`: by its markers, else by its
    grid (at once when no marker at all shows for `NO_MARKER_S`), fitted to the printed lines
    (`calibration.grid.snap_to_grid`) and framed for the pieces' size (`calibration.piece_size`).
    Frames read are appended to `keep` when given (a recorder must not lose them). Raises
    `CalibrationError` naming why neither way found it."""
    from calibration.grid import snap_to_grid
    from calibration.markers import AnotherGamesBoardError, calibrate_from_markers, detect_markers
    from calibration.piece_size import sized_to_pieces

    layout = BoardLayout.for_game(variant)
    thickness = usual_thickness_mm(layout.pitch_mm)
    searched: list[np.ndarray] = []
    marker_error = "no frame"
    any_marker, tried_early = False, False
    for index, (frame, stamp, elapsed) in enumerate(_first_seconds(frames)):
        if keep is not None:
            keep.append((frame, stamp))
        if index % SAMPLE_EVERY == 0:
            searched.append(frame)  # a sample for the grid: seconds of whole frames would be too much
        last = frame
        try:
            found = calibrate_from_markers(layout, frame, piece_height_mm=thickness)
        except AnotherGamesBoardError:
            raise  # this game's grid would be found laid over another game's board
        except CalibrationError as error:
            marker_error = str(error)
            any_marker = any_marker or bool(detect_markers(frame).ids)
        else:
            # The markers place the sheet; its printed lines place the grid finer (a sheet
            # not lying quite flat, a marker's corner a pixel out).
            return sized_to_pieces(snap_to_grid(found, frame), frame, height_known=height_known)[0]
        if not any_marker and not tried_early and elapsed >= NO_MARKER_S:
            # Not one marker in a second: most likely a board without them. Its grid now, rather
            # than seconds of frames held in memory (a hand hiding it all: the search goes on).
            tried_early = True
            (grid, _), _ = _best_grid(layout, [frame], thickness)
            if grid is not None:
                return _grid_board(variant, grid, frame, model, height_known)
    if not searched:
        raise CalibrationError("no frame to find the board on")
    # The first, middle and last frames searched (each once).
    tries = list({id(f): f for f in (searched[0], searched[len(searched) // 2], last)}.values())
    (best, frame), grid_error = _best_grid(layout, tries, thickness)
    if best is None:
        raise CalibrationError(f"{marker_error}; {grid_error}")
    return _grid_board(variant, best, frame, model, height_known)


def fitted_to_lines(calibration: Calibration, frame: np.ndarray, given: str) -> tuple[Calibration, str | None]:
    """`calibration` fitted to the board's printed lines on `frame` (`calibration.grid.
    snap_to_grid`), and a line for the user saying how far that moved `given` (its corners, in
    words), or None if under half a pixel. A grid found on the photo is fitted to its lines
    already."""
    from calibration.grid import snap_to_grid

    if calibration.method == "grid":
        return calibration, None
    snapped = snap_to_grid(calibration, frame)
    moved = snapped.drift_px(calibration)
    if moved < 0.5:
        return snapped, None
    return snapped, f"fitted to the board's printed lines: {given} moved up to {moved:.1f} px"


def _best_grid(layout: BoardLayout, frames: list[np.ndarray], thickness: float):
    """((calibration, frame) of the most confident grid found on `frames`, or (None, None)), and
    the last reason a grid was not found."""
    best, grid_error = (None, None), ""
    for frame in frames:
        try:
            found = _grid(layout, frame, thickness)
        except CalibrationError as error:
            grid_error = str(error)
            continue
        if best[0] is None or found.confidence > best[0].confidence:
            best = (found, frame)
    return best, grid_error


def _grid_board(variant, found: Calibration, frame: np.ndarray, model: Path | None, height_known: bool):
    from calibration.piece_size import sized_to_pieces

    found = sized_to_pieces(found, frame, height_known=height_known)[0]
    return start_side_down(variant, found, frame, model)


def _first_seconds(frames: Iterable[tuple[np.ndarray, float]]) -> Iterator[tuple[np.ndarray, float, float]]:
    """(frame, stamp, seconds since the first frame) for the first `MARKER_SEARCH_S` seconds,
    counted from the first frame's stamp (a camera's stamps are its monotonic clock, a file's
    start near 0)."""
    first = None
    for frame, stamp in frames:
        first = stamp if first is None else first
        yield frame, stamp, stamp - first
        if stamp - first > MARKER_SEARCH_S:
            return


def _grid(layout: BoardLayout, frame: np.ndarray, thickness: float) -> Calibration:
    from calibration.grid import calibrate_from_grid

    return calibrate_from_grid(layout, frame, "the video", piece_height_mm=thickness)


def start_side_down(variant, calibration: Calibration, frame: np.ndarray, model: Path | None = None) -> Calibration:
    """`calibration`, or the same grid turned half round, whichever reads the game's start
    position on `frame` likelier: a grid found on a photo taken from the second player's side
    has that side's pieces on the first rank."""
    from calibration.grid import half_turned

    turned = half_turned(calibration)
    if _start_likelihood(variant, turned, frame, model) > _start_likelihood(variant, calibration, frame, model):
        return turned
    return calibration


def _start_likelihood(variant, calibration: Calibration, frame: np.ndarray, model: Path | None) -> float:
    from vision.classes import appearance
    from vision.detector import Detector

    observation = Detector(variant.name, calibration, model).observe(frame)
    expected = appearance(variant.name, variant.record_board())
    rows = [observation.classes.index(expected[point]) for point in observation.points]
    chosen = observation.probabilities[np.arange(len(rows)), rows]
    return float(np.log(np.clip(chosen, 1e-6, 1.0)).sum())


# Pieces that never leave their own side's points: a general its palace (a region), a 0 its
# cell and a headquarters its post (None: where the start position puts them). On a grid,
# which does not say which side is whose, they tell.
HOMES = {
    "xiangqi": (("red_general", "palace:white"), ("black_general", "palace:black")),
    "cotoan": (("white_0", None), ("black_0", None)),
    "commander": (("red_headquarters", None), ("blue_headquarters", None)),
}
HOME_PIECES = {"xiangqi": "the generals", "cotoan": "the 0s", "commander": "the headquarters"}


def _home_points(variant, piece_class: str, region: str | None) -> set:
    if region is not None:
        return set(variant.geometry.regions[region])
    from vision.classes import appearance

    return {point for point, seen in appearance(variant.name, variant.record_board()).items() if seen == piece_class}


def home_score(variant, observation) -> float:
    """How strongly a reading puts each side's never-moving pieces (`HOMES`) on its own points
    rather than on the other side's: about +1 a piece the right way up, -1 turned."""
    (first, first_home), (second, second_home) = HOMES[variant.name]
    a, b = observation.classes.index(first), observation.classes.index(second)
    mine, theirs = _home_points(variant, first, first_home), _home_points(variant, second, second_home)
    score = 0.0
    for index, point in enumerate(observation.points):
        row = observation.probabilities[index]
        if point in mine:
            score += row[a] - row[b]
        elif point in theirs:
            score += row[b] - row[a]
    return score


def home_side_down(variant, calibration: Calibration, frame: np.ndarray, observation, **detector_options):
    """(calibration, observation, turned): as given, or the board turned half round when the
    pieces that never leave home read on each other's side as the grid lies."""
    from calibration.grid import half_turned
    from vision.detector import Detector

    score = home_score(variant, observation)
    if score >= 0.5:
        return calibration, observation, False
    turned_calibration = half_turned(calibration)
    turned = Detector(variant.name, turned_calibration, **detector_options).observe(frame)
    if home_score(variant, turned) > score + 0.5:
        return turned_calibration, turned, True
    return calibration, observation, False
