"""The pieces' size measured on a photo, kept in the profile, and framing every crop."""

import json
import random
import subprocess
import sys

import cv2
import numpy as np
import pytest

import games
from calibration import BoardLayout, Calibration, CalibrationError
from calibration.homography import DEFAULT_RADIUS_RATIO
from calibration.piece_size import measure_piece_radius, sized_to_pieces
from calibration.profile import from_dict, load, save, to_dict
from models.synth.dataset import disturbed
from models.synth.scene import render_scene
from vision.adapt import start_labels
from vision.classes import EMPTY
from vision.detector import Detector


def _start_scene(seed: int, radius_ratio: float, game: str = "xiangqi", position=None):
    """A rendered photo of the start position (or `position`) whose grid corners are all in view."""
    if position is None:
        position = {point: label for point, label in start_labels(game).items() if label != EMPTY}
    for attempt in range(seed, seed + 50):
        scene = render_scene(game, random.Random(attempt), position=position, hands=False, max_tilt=30,
                             split="test", radius_ratio=radius_ratio)
        corners = scene.calibration.grid_corners_px()
        if ((corners >= 0) & (corners < scene.image.shape[1::-1])).all():
            return scene
    raise AssertionError("no rendered photo showed the whole grid")


@pytest.mark.parametrize("game,truth", [("xiangqi", 0.32), ("xiangqi", 0.52), ("cotoan", 0.36), ("commander", 0.42)])
def test_the_radius_is_measured_where_pieces_stand(game, truth):
    scene = _start_scene(4, truth, game)
    calibration = disturbed(scene.calibration, random.Random(4))
    occupied = [point for point, label in scene.labels.items() if label != EMPTY]
    assert measure_piece_radius(calibration, scene.image, occupied) == pytest.approx(truth, abs=0.03)
    # Not told where the pieces are, the empty points find no disc and do not sway the answer.
    assert measure_piece_radius(calibration, scene.image) == pytest.approx(truth, abs=0.03)


def test_an_empty_board_gives_no_measurement_and_keeps_the_calibration():
    scene = render_scene("xiangqi", random.Random(2), position={}, hands=False, max_tilt=30)
    calibration = disturbed(scene.calibration, random.Random(2))
    assert measure_piece_radius(calibration, scene.image) is None
    sized, measured = sized_to_pieces(calibration, scene.image)
    assert measured is None and sized is calibration


def test_a_thickness_not_given_is_guessed_for_the_measured_size():
    scene = _start_scene(6, 0.34)
    calibration = disturbed(scene.calibration, random.Random(6))
    calibration.piece_height_mm = 7.0
    kept, measured = sized_to_pieces(calibration, scene.image, height_known=True)
    guessed, _ = sized_to_pieces(calibration, scene.image, height_known=False)
    assert kept.piece_radius_ratio == measured and kept.piece_height_mm == 7.0
    assert guessed.piece_height_mm == pytest.approx(0.5 * calibration.layout.pitch_mm * measured)
    assert calibration.piece_radius_ratio == DEFAULT_RADIUS_RATIO  # the given one is not changed


def test_small_pieces_framed_by_their_measured_size_are_read_better():
    # Discs of 0.32 of the spacing cut at the usual framing show the classifier pieces smaller
    # than any it learned; framed by their measured size, they look as it knows them.
    right = {"usual": 0, "measured": 0}
    for seed in (11, 12, 13):
        scene = _start_scene(seed, 0.32)
        calibration = disturbed(scene.calibration, random.Random(seed))
        sized, _ = sized_to_pieces(calibration, scene.image)
        for name, cal in (("usual", calibration), ("measured", sized)):
            observation = Detector("xiangqi", cal).observe(scene.image)
            reads = np.argmax(observation.probabilities, axis=1)
            right[name] += sum(observation.classes[k] == scene.labels[point]
                               for point, k in zip(observation.points, reads, strict=True))
    assert right["measured"] >= right["usual"] + 6, right


def test_a_usual_size_keeps_the_usual_framing():
    # The classifiers learned usual sets at the usual framing; a measurement is only good to a
    # few hundredths, and a ring printed inside the rim may be what it found.
    scene = _start_scene(9, 0.43)
    calibration = disturbed(scene.calibration, random.Random(9))
    sized, measured = sized_to_pieces(calibration, scene.image)
    assert measured == pytest.approx(0.43, abs=0.03)
    assert sized is calibration and sized.piece_radius_ratio == DEFAULT_RADIUS_RATIO


def _discs_with_rings(ringed: int):
    """20 usual discs (0.44 of a 50 px spacing) on a light board, the first `ringed` of them with
    a dark ring printed inside the rim, a sharper edge than the rim itself."""
    layout = BoardLayout.for_game(games.get("xiangqi"))
    calibration = Calibration.from_corners(layout, [(40, 510), (440, 510), (440, 60), (40, 60)], (480, 600))
    photo = np.full((600, 480, 3), (175, 195, 210), np.uint8)
    for k, point in enumerate(calibration.all_points()[:20]):
        x, y = (round(v) for v in calibration.point_pixel(point))
        cv2.circle(photo, (x, y), 22, (215, 228, 235), -1, cv2.LINE_AA)
        if k < ringed:
            cv2.circle(photo, (x, y), 15, (30, 30, 160), 3, cv2.LINE_AA)
    return calibration, photo


def test_a_usual_set_whose_rings_show_on_half_its_discs_keeps_the_usual_framing():
    calibration, photo = _discs_with_rings(11)
    assert measure_piece_radius(calibration, photo) < 0.37  # the median is a ring's
    sized, _ = sized_to_pieces(calibration, photo)
    assert sized is calibration
    # Had three discs in four shown only their ring, the set would be read as small.
    calibration, photo = _discs_with_rings(16)
    sized, framing = sized_to_pieces(calibration, photo)
    assert sized is not calibration and sized.piece_radius_ratio == framing < 0.37


def test_a_measured_radius_is_kept_in_the_profile_and_an_assumed_one_is_not(tmp_path):
    scene = _start_scene(3, 0.33)
    calibration, measured = sized_to_pieces(disturbed(scene.calibration, random.Random(3)), scene.image)
    path = tmp_path / "cal.json"
    data = save(calibration, path, radius_measured=True)
    assert data["piece_radius_measured"] is True
    assert load(path).piece_radius_ratio == pytest.approx(measured, abs=0.005)
    # A profile that only assumed the size (an empty board, or the truth of a rendered video)
    # reads back the usual size, as every profile did before sizes were measured.
    assumed = to_dict(calibration)
    assert assumed["piece_radius_measured"] is False
    assert from_dict(assumed).piece_radius_ratio == DEFAULT_RADIUS_RATIO
    del assumed["piece_radius_measured"]
    assert from_dict(assumed).piece_radius_ratio == DEFAULT_RADIUS_RATIO


@pytest.mark.parametrize("radius_mm", [0.5, 60.0, "big"])
def test_a_measured_radius_out_of_reason_is_refused_by_name(radius_mm):
    scene = _start_scene(3, 0.4)
    data = json.loads(json.dumps(to_dict(scene.calibration, radius_measured=True)))
    data["piece_radius_mm"] = radius_mm
    with pytest.raises(CalibrationError, match="piece_radius_mm"):
        from_dict(data)
    assert issubclass(CalibrationError, ValueError)


def _corners(calibration) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in calibration.grid_corners_px())


def _banco(*args):
    return subprocess.run([sys.executable, "-m", "banco", *args], capture_output=True, text=True)


def _calibrate_on(scene, folder):
    """`banco calibrate` on the scene's photo from its grid corners: the result, the photo, the profile."""
    photo, out = folder / "photo.png", folder / "cal.json"
    cv2.imwrite(str(photo), scene.image)
    result = _banco("calibrate", "--game", "xiangqi", "--image", str(photo), "--corners",
                    _corners(scene.calibration), "--out", str(out))
    assert result.returncode == 0, result.stderr
    return result, photo, out


def test_cli_calibrate_measures_the_start_position_and_recognize_the_photo(tmp_path):
    scene = _start_scene(8, 0.34)
    result, photo, out = _calibrate_on(scene, tmp_path)
    assert "of the point spacing, crops framed to it" in result.stdout
    profile = json.loads(out.read_text())
    assert profile["piece_radius_measured"] is True
    assert profile["piece_radius_mm"] / profile["layout"]["pitch_mm"] == pytest.approx(0.34, abs=0.03)
    result = _banco("recognize", str(photo), "--game", "xiangqi", "--corners", _corners(scene.calibration))
    assert result.returncode == 0, result.stderr
    assert "pieces measured: radius 0.3" in result.stderr and "crops framed to it" in result.stderr


def test_cli_calibrate_on_an_empty_board_says_it_kept_the_usual_size(tmp_path):
    result, _, out = _calibrate_on(_start_scene(5, 0.45, position={}), tmp_path)
    assert "the usual size" in result.stdout
    assert json.loads(out.read_text())["piece_radius_measured"] is False


def test_a_board_found_again_by_its_markers_keeps_the_pieces_size():
    from calibration.markers import BoardLocator, calibrate_from_markers
    from tests.calibration.test_calibration import camera_view

    layout = BoardLayout.for_game(games.get("xiangqi"))
    _, _, image = camera_view(layout, yaw_deg=0, tilt_deg=30)
    locator = BoardLocator(calibrate_from_markers(layout, image, piece_height_mm=4.0, piece_radius_ratio=0.33))
    knocked = np.roll(image, 12, axis=1)
    assert not locator.update(knocked) and locator.update(knocked)  # a new place is taken on a second look
    assert locator.calibration.piece_radius_ratio == 0.33 and locator.calibration.piece_height_mm == 4.0


def _filmed_start(ratio: float) -> list:
    """Two frames (with their times) of a rendered start position whose board has markers."""
    from models.synth.stage import Stage

    stage = Stage("xiangqi", random.Random(21), radius_ratio=ratio)
    stage.set_position({point: label for point, label in start_labels("xiangqi").items() if label != EMPTY})
    return [(stage.frame(index), index / stage.fps) for index in range(2)]


def test_record_frames_a_small_set_found_by_its_markers_to_its_size():
    from banco.record import locate_board

    small, _ = locate_board("xiangqi", iter(_filmed_start(0.32)), None)
    assert small.piece_radius_ratio == pytest.approx(0.32, abs=0.03)
    assert small.piece_height_mm == pytest.approx(0.5 * small.layout.pitch_mm * small.piece_radius_ratio)
    usual, _ = locate_board("xiangqi", iter(_filmed_start(0.43)), None)
    assert usual.piece_radius_ratio == DEFAULT_RADIUS_RATIO


def test_watch_frames_a_small_set_found_by_its_markers_to_its_size(tmp_path):
    from banco.watch import _calibration

    frames = _filmed_start(0.32)
    video = tmp_path / "start.mp4"
    height, width = frames[0][0].shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 10, (width, height))
    for frame, _ in frames:
        writer.write(frame)
    writer.release()
    calibration = _calibration(games.get("xiangqi"), None, str(video))
    assert calibration.piece_radius_ratio == pytest.approx(0.32, abs=0.03)
    # and takes them as thick as usual for that size, as record and calibrate do
    ratio = calibration.piece_radius_ratio
    assert calibration.piece_height_mm == pytest.approx(0.5 * calibration.layout.pitch_mm * ratio)
