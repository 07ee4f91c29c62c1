"""Real photographed crops framed like the station's: the disc, not the photo around it; and
crops cut off-centre on purpose, as from a knocked board."""

import random

import cv2
import numpy as np

from models.synth.dataset import KNOCK_RADII, disc_of, disturbed, paste_real_crop
from models.synth.scene import render_scene
from vision.crops import CROP_SPAN_RADII


def _photo_of_a_disc(size: tuple[int, int], centre: tuple[int, int], radius: int) -> np.ndarray:
    """A crop of a photographed piece: a light disc with a dark printed ring and a glyph, on a
    light paper board, so the ring is a sharper edge than the rim."""
    height, width = size
    photo = np.zeros((height, width, 3), np.uint8)
    photo[:] = (120, 150, 170)
    cv2.circle(photo, centre, radius, (215, 230, 235), -1, cv2.LINE_AA)
    cv2.circle(photo, centre, int(radius * 0.8), (30, 60, 30), 2, cv2.LINE_AA)
    cv2.line(photo, (centre[0] - radius // 3, centre[1]), (centre[0] + radius // 3, centre[1]), (30, 60, 30), 3)
    return photo


def test_a_loosely_framed_crop_is_cut_to_its_disc():
    # The set's crops run from hugging the disc to showing it at half their width.
    # Its printed ring, the sharper edge, is not taken for the rim. Sizes within a tenth.
    loose = _photo_of_a_disc((52, 56), (29, 25), 15)
    disc = disc_of(loose)
    assert disc.shape[0] == disc.shape[1] and abs(disc.shape[0] - 31) <= 3.1
    tight = _photo_of_a_disc((40, 40), (20, 20), 17)
    assert abs(disc_of(tight).shape[0] - 35) <= 3.5


def test_a_crop_with_no_disc_is_kept_whole():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (40, 44, 3), dtype=np.uint8)
    assert disc_of(noise) is noise


def test_a_loose_and_a_tight_crop_of_one_piece_are_pasted_the_same_size():
    background = np.full((64, 64, 3), (60, 120, 150), np.uint8)
    sizes = []
    for photo in (_photo_of_a_disc((56, 56), (28, 28), 15), _photo_of_a_disc((32, 32), (16, 16), 15)):
        pasted = paste_real_crop(photo, background, random.Random(1))
        light = (pasted.astype(int).sum(axis=2) > 500).sum()
        sizes.append(light)
    assert abs(sizes[0] - sizes[1]) < 0.15 * sizes[1], sizes


def _disc_offset(pasted: np.ndarray) -> float:
    """How far the light disc's middle is from the crop's, in pixels."""
    ys, xs = np.nonzero(pasted.astype(int).sum(axis=2) > 500)
    middle = (pasted.shape[1] - 1) / 2, (pasted.shape[0] - 1) / 2
    return float(np.hypot(xs.mean() - middle[0], ys.mean() - middle[1]))


def test_a_knocked_paste_sets_the_disc_off_centre_by_up_to_the_knock():
    background = np.full((64, 64, 3), (60, 120, 150), np.uint8)
    photo = _photo_of_a_disc((40, 40), (20, 20), 17)
    radius = 64 / CROP_SPAN_RADII
    knocked = [_disc_offset(paste_real_crop(photo, background, random.Random(seed), off_centre_radii=KNOCK_RADII))
               for seed in range(40)]
    centred = [_disc_offset(paste_real_crop(photo, background, random.Random(seed))) for seed in range(40)]
    assert max(centred) < 5  # ±2 px each way, and the turned ring's own unevenness
    # A disc cut by the crop's edge pulls its visible middle back in: hence "up to".
    assert max(knocked) <= KNOCK_RADII * radius * 1.1 + 3
    assert sum(offset > radius / 2 for offset in knocked) >= 5


def test_a_knocked_calibration_moves_the_whole_grid_by_up_to_the_knock():
    scene = render_scene("xiangqi", random.Random(2), hands=False)
    truth = scene.calibration
    radius = truth.piece_radius_px()
    knocked = [disturbed(truth, random.Random(seed), knocked_radii=KNOCK_RADII) for seed in range(30)]
    plain = [disturbed(truth, random.Random(seed)) for seed in range(30)]
    assert max(c.drift_px(truth) for c in plain) < 9  # corner noise only, σ 1.5 px
    assert max(c.drift_px(truth) for c in knocked) <= KNOCK_RADII * radius + 6  # corner noise: σ 1.5 px
    assert sum(c.drift_px(truth) > radius / 2 for c in knocked) >= 5
    # Knocked as a whole: every corner moved alike, give or take the corner noise.
    for calibration in knocked:
        moves = calibration.grid_corners_px() - truth.grid_corners_px()
        assert np.ptp(moves, axis=0).max() < 12
