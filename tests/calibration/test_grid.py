"""The printed grid alone locates a board (issue #6 (c)): corners, orientation, refusal."""

import random

import cv2
import numpy as np
import pytest

import games
from calibration import BoardLayout, CalibrationError
from calibration.grid import GridNotFoundError, calibrate_from_grid, find_board, half_turned, snap_to_grid
from models.synth.scene import render_scene


def expected_corners(truth) -> np.ndarray:
    """The truth's grid corners, turned half round when its first rank is the upper edge: the
    finder's documented orientation puts the first rank nearer the bottom of the photo."""
    corners = truth.grid_corners_px()
    first_rank_y = corners[[0, 1], 1].mean()
    last_rank_y = corners[[2, 3], 1].mean()
    return corners if first_rank_y >= last_rank_y else corners[[2, 3, 0, 1]]


# Seeded renders (markers or not, tilted up to 45°, turned any way); each list holds one board
# whose first rank lies at the top of the photo, so the half turn is exercised for every game.
CASES = [("xiangqi", 0), ("xiangqi", 2), ("commander", 0), ("commander", 1), ("cotoan", 0), ("cotoan", 1)]


@pytest.mark.parametrize(("game", "seed"), CASES)
def test_grid_corners_match_the_truth_within_a_fraction_of_a_piece(game, seed):
    scene = render_scene(game, random.Random(seed))
    found = find_board(scene.image, games.get(game), source=f"render {seed}")
    radius = scene.calibration.piece_radius_px()
    error = np.linalg.norm(found.grid_corners_px() - expected_corners(scene.calibration), axis=1)
    assert error.max() < 0.25 * radius, (error, radius)
    assert found.method == "grid" and 0.15 <= found.confidence <= 1.0


def test_half_turned_swaps_the_ends_and_keeps_the_rest():
    scene = render_scene("xiangqi", random.Random(0))
    found = find_board(scene.image, games.get("xiangqi"))
    turned = half_turned(found)
    assert np.allclose(turned.grid_corners_px(), found.grid_corners_px()[[2, 3, 0, 1]], atol=1e-6)
    assert turned.confidence == found.confidence and turned.image_size == found.image_size


def test_a_photo_without_a_board_is_refused_by_name():
    rng = np.random.default_rng(3)
    y, x = np.mgrid[0:480, 0:640]
    photo = np.dstack([(x / 640 * 200 + 30), (y / 480 * 150 + 50), np.full_like(x, 120.0)]).astype(np.uint8)
    for _ in range(12):  # some round things on a table, no grid
        centre = (int(rng.integers(40, 600)), int(rng.integers(40, 440)))
        cv2.circle(photo, centre, int(rng.integers(10, 40)), tuple(int(v) for v in rng.integers(0, 255, 3)), -1)
    layout = BoardLayout.for_game(games.get("xiangqi"))
    with pytest.raises(GridNotFoundError, match="no xiangqi grid found in table.jpg: ") as caught:
        calibrate_from_grid(layout, photo, "table.jpg")
    assert isinstance(caught.value, CalibrationError) and isinstance(caught.value, ValueError)
    with pytest.raises(GridNotFoundError, match="no xiangqi grid found in flat.png"):
        calibrate_from_grid(layout, np.full((480, 640, 3), 128, np.uint8), "flat.png")


def test_cli_calibrate_auto_writes_a_grid_profile(tmp_path):
    import subprocess
    import sys

    from calibration.profile import load

    scene = render_scene("cotoan", random.Random(1))
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), scene.image)
    out = tmp_path / "cal.json"

    def banco(*args):
        return subprocess.run([sys.executable, "-m", "banco", "calibrate", "--game", "cotoan", *args],
                              capture_output=True, text=True)

    result = banco("--image", str(photo), "--auto", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "grid confidence" in result.stdout and result.stdout.strip().endswith(f"wrote {out}")
    cal = load(out)
    error = np.linalg.norm(cal.grid_corners_px() - expected_corners(scene.calibration), axis=1)
    assert cal.method == "grid" and error.max() < 0.25 * scene.calibration.piece_radius_px()
    result = banco("--image", str(photo), "--auto", "--corners", "1,1 9,1 9,9 1,9", "--out", str(out))
    assert result.returncode == 2 and "give --corners or --auto, not both" in result.stderr


def test_a_large_photo_is_searched_shrunk_and_answered_at_full_size():
    scene = render_scene("cotoan", random.Random(1))
    large = cv2.resize(scene.image, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
    found = find_board(large, games.get("cotoan"))
    assert found.image_size == (large.shape[1], large.shape[0])
    error = np.linalg.norm(found.grid_corners_px() - 2 * expected_corners(scene.calibration), axis=1)
    assert error.max() < 0.5 * scene.calibration.piece_radius_px()


def _clicked(truth, rng: random.Random, off_px: float):
    """The truth's corners as a user clicks them: each off by `off_px` in a random direction
    (a render's corner may lie outside the photo, so not through `from_corners`' checks)."""
    corners = []
    for x, y in truth.grid_corners_px():
        angle = rng.uniform(0, 2 * np.pi)
        corners.append((x + off_px * np.cos(angle), y + off_px * np.sin(angle)))
    return _through(truth, corners)


def _through(truth, corners):
    """A calibration of the truth's board whose grid corners lie at `corners` (pixels)."""
    from calibration import Calibration

    sheet = np.array([truth.layout.point_mm(p) for p in truth.layout.corner_points()], np.float32)
    homography = cv2.getPerspectiveTransform(sheet, np.array(corners, np.float32)).astype(np.float64)
    return Calibration(truth.layout, homography, truth.image_size, "corners", piece_height_mm=3.0)


def _point_error(calibration, truth) -> float:
    """The largest distance between where the two put a point, in the truth's piece radii."""
    points = truth.all_points()
    placed = np.array([calibration.point_pixel(p) for p in points])
    true = np.array([truth.point_pixel(p) for p in points])
    return float(np.linalg.norm(placed - true, axis=1).max() / truth.piece_radius_px())


@pytest.mark.parametrize(("game", "seed"), CASES)
def test_corners_clicked_a_few_pixels_off_are_snapped_onto_the_printed_grid(game, seed):
    scene = render_scene(game, random.Random(seed))
    clicked = _clicked(scene.calibration, random.Random(seed + 100), off_px=4.0)
    snapped = snap_to_grid(clicked, scene.image)
    before, after = _point_error(clicked, scene.calibration), _point_error(snapped, scene.calibration)
    # Clicked, some point lies a tenth of a radius or more off; snapped, a few hundredths.
    assert before > 0.1 and after < 0.06 and after < before / 3, (before, after)
    # The same board the same way round, and what the user gave is kept.
    assert np.linalg.norm(snapped.grid_corners_px() - scene.calibration.grid_corners_px(), axis=1).max() < 2
    assert (snapped.method, snapped.piece_height_mm, snapped.image_size) == ("corners", 3.0, clicked.image_size)


def test_corners_on_a_photo_without_lines_are_kept_as_given():
    scene = render_scene("xiangqi", random.Random(0))
    clicked = _clicked(scene.calibration, random.Random(1), off_px=4.0)
    assert snap_to_grid(clicked, np.full_like(scene.image, 128)) is clicked


def test_a_grid_a_line_away_is_not_taken_for_the_board_the_corners_give():
    """Corners a whole spacing off (the user clicked the second rank) are not moved onto another
    line: the refinement reaches a fraction of a spacing, the finder's grid lies too far."""
    scene = render_scene("xiangqi", random.Random(2))
    truth = scene.calibration
    clicked = _through(truth, [truth.point_pixel(games.Point(f, r)) for f, r in ((0, 1), (8, 1), (8, 9), (0, 9))])
    assert _point_error(clicked, truth) > 2  # the premise: a whole spacing off
    snapped = snap_to_grid(clicked, scene.image)
    assert np.linalg.norm(snapped.grid_corners_px() - clicked.grid_corners_px(), axis=1).max() \
        < 0.25 * truth.piece_radius_px()


def _start_seen_from_the_second_players_side(game: str, seed: int = 11):
    from calibration.markers import detect_markers
    from vision.classes import EMPTY, appearance

    position = {p: c for p, c in appearance(game, games.get(game).record_board()).items() if c != EMPTY}
    scene = render_scene(game, random.Random(seed), position=position, hands=False, max_tilt=30)
    corners = scene.calibration.grid_corners_px()
    # The premise: no markers to go by, and the first player's rank at the top of the photo.
    assert not detect_markers(scene.image).ids and corners[[0, 1], 1].mean() < corners[[2, 3], 1].mean()
    return scene


def _banco(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "banco", *args], capture_output=True, text=True)


@pytest.mark.parametrize(("game", "home"), [("xiangqi", "the generals"), ("cotoan", "the 0s"),
                                            ("commander", "the headquarters")])
def test_cli_recognize_without_markers_turns_a_board_seen_from_the_second_players_side(tmp_path, game, home):
    """A general never leaves its palace, a 0 its cell, a headquarters its post: read on each
    other's side, they say the grid lies turned."""
    import json

    from vision.classes import EMPTY, appearance

    scene = _start_seen_from_the_second_players_side(game)
    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), scene.image)
    result = _banco("recognize", str(photo), "--game", game, "--json")
    assert result.returncode == 0, result.stderr
    assert f"{home} stand on each other's side as the grid lies: read turned half round" in result.stderr
    read = {games.Point(p["file"], p["rank"]): p["class"] for p in json.loads(result.stdout.splitlines()[-2])["points"]}
    start = {p: c for p, c in appearance(game, games.get(game).record_board()).items() if c != EMPTY}
    # Each piece read on its own side (turned, nearly every one would be the other side's).
    other_side = [p for p, c in start.items() if read[p] != EMPTY and read[p].split("_")[0] != c.split("_")[0]]
    assert len(other_side) <= 0.1 * len(start), other_side


def test_cli_calibrate_turns_a_grid_seen_from_the_second_players_side_by_the_start_photo(tmp_path):
    from calibration.profile import load

    scene = _start_seen_from_the_second_players_side("commander")
    photo, out = tmp_path / "start.png", tmp_path / "cal.json"
    cv2.imwrite(str(photo), scene.image)
    result = _banco("calibrate", "--game", "commander", "--start-position", str(photo), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "the start position reads the right way up with the grid turned half round: turned" in result.stderr
    error = np.linalg.norm(load(out).grid_corners_px() - scene.calibration.grid_corners_px(), axis=1)
    assert error.max() < 0.25 * scene.calibration.piece_radius_px()
    result = _banco("calibrate", "--game", "commander", "--image", str(photo), "--auto", "--out", str(out))
    assert "the headquarters stand on their own side with the grid turned half round: turned" in result.stderr
    error = np.linalg.norm(load(out).grid_corners_px() - scene.calibration.grid_corners_px(), axis=1)
    assert error.max() < 0.25 * scene.calibration.piece_radius_px()


# Held-out renders of `benchmarks/grid.py` the finder missed while a line's match was taken
# against the mean of the evidence either side of it, on strokes past a threshold: a Cờ Tư Lệnh
# board printed with a frame a fifth of a spacing outside its grid, where the samples beside the
# outer lines fall (a grid shifted by one line matched better), a Cờ Toán start position, a
# tilted Cờ Tướng board whose files came out just fainter than the threshold, and a Cờ Tư Lệnh
# board whose files were too faint to be found as lines at all (found now by looking again).
MISSED_BEFORE = [("commander", 70018, False), ("cotoan", 70003, True), ("xiangqi", 70019, False),
                 ("commander", 70009, False)]


@pytest.mark.parametrize(("game", "seed", "start"), MISSED_BEFORE)
def test_boards_framed_close_or_with_faint_lines_are_found(game, seed, start):
    from vision.adapt import start_labels
    from vision.classes import EMPTY

    position = {p: c for p, c in start_labels(game).items() if c != EMPTY} if start else None
    scene = render_scene(game, random.Random(seed), position=position, split="test")
    found = find_board(scene.image, games.get(game), source=f"render {seed}")
    error = np.linalg.norm(found.grid_corners_px() - expected_corners(scene.calibration), axis=1)
    assert error.max() < 0.5 * scene.calibration.piece_radius_px(), error


def test_the_grid_locator_follows_a_knocked_board_and_not_a_moments_shake():
    """A printed Cờ Toán sheet without markers, slid 15 px: one look makes it a candidate, a
    second look that agrees moves the calibration there; a look back where it was drops it."""
    from calibration.grid import GridLocator
    from calibration.printable import to_image

    variant = games.get("cotoan")
    layout = BoardLayout.for_game(variant)
    sheet = to_image(variant, layout, 1.5)
    sheet[(sheet == 0).all(axis=-1)] = 255  # the markers (pure black) cut out: a board from a shop
    image = cv2.copyMakeBorder(sheet, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    calibration = calibrate_from_grid(layout, image)
    locator = GridLocator(calibration)
    assert not locator.update(image)  # the first look: how well the grid matches when placed
    slid = np.full_like(image, 255)
    slid[:, 15:] = image[:, :-15]
    assert not locator.update(slid) and not locator.update(image)  # there and back: a shake
    assert locator.calibration is calibration
    assert not locator.update(slid)
    assert locator.update(slid) and locator.moves == 1
    corners_moved = locator.calibration.grid_corners_px() - calibration.grid_corners_px()
    assert np.allclose(corners_moved, [15, 0], atol=1.5), corners_moved


def test_cli_fits_clicked_corners_to_the_printed_grid_and_says_how_far(tmp_path):
    import re

    from calibration.profile import load

    for seed in range(40):
        scene = render_scene("xiangqi", random.Random(seed), hands=False, max_tilt=30)
        truth = scene.calibration.grid_corners_px()
        if ((truth >= 10) & (truth < [1270, 710])).all():
            break
    photo = tmp_path / "board.png"
    cv2.imwrite(str(photo), scene.image)
    # Each corner clicked 4 px off: one out, one in, one along each edge.
    clicked = truth + [[-4, 0], [0, 4], [4, 0], [0, -4]]
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in clicked)
    said = "fitted to the board's printed lines: the corners given moved up to "
    result = _banco("recognize", str(photo), "--game", "xiangqi", "--corners", corners)
    assert result.returncode == 0, result.stderr
    moved = float(re.search(re.escape(said) + r"([0-9.]+) px", result.stderr).group(1))
    assert 3 <= moved <= 5
    profile = tmp_path / "cal.json"
    result = _banco("calibrate", "--game", "xiangqi", "--image", str(photo), "--corners", corners,
                    "--out", str(profile))
    assert result.returncode == 0 and said in result.stderr, result.stderr
    assert np.linalg.norm(load(profile).grid_corners_px() - truth, axis=1).max() < 1.0
    # The profile fits the photo it was made on: nothing more to fit, nothing said.
    result = _banco("recognize", str(photo), "--game", "xiangqi", "--calibration", str(profile))
    assert result.returncode == 0 and "fitted to the board's printed lines" not in result.stderr, result.stderr
