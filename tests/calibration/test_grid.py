"""The printed grid alone locates a board (issue #6 (c)): corners, orientation, refusal."""

import random

import cv2
import numpy as np
import pytest

import games
from calibration import BoardLayout, CalibrationError
from calibration.grid import GridNotFoundError, calibrate_from_grid, find_board, half_turned
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


def test_cli_recognize_without_markers_turns_a_board_seen_from_blacks_side(tmp_path):
    import subprocess
    import sys

    from calibration.markers import detect_markers
    from vision.classes import EMPTY, appearance

    board = games.get("xiangqi").board()
    position = {p: c for p, c in appearance("xiangqi", board).items() if c != EMPTY}
    scene = render_scene("xiangqi", random.Random(11), position=position, hands=False, max_tilt=30)
    corners = scene.calibration.grid_corners_px()
    # The premise: no markers to go by, and Red's rank at the top of the photo.
    assert not detect_markers(scene.image).ids and corners[[0, 1], 1].mean() < corners[[2, 3], 1].mean()
    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), scene.image)
    result = subprocess.run([sys.executable, "-m", "banco", "recognize", str(photo), "--game", "xiangqi"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "read turned half round" in result.stderr
    rows = result.stdout.strip().splitlines()[-1].split()[0].split("/")  # rank 9 first
    # Red (upper case) on Red's half, Black on Black's: the half-turned start has it the other way.
    red_half, black_half = "".join(rows[5:]), "".join(rows[:5])
    assert sum(map(str.isupper, red_half)) > 3 * sum(map(str.islower, red_half)), rows
    assert sum(map(str.islower, black_half)) > 3 * sum(map(str.isupper, black_half)), rows
