"""Real photographed crops framed like the station's: the disc, not the photo around it."""

import random

import cv2
import numpy as np

from models.synth.dataset import disc_of, paste_real_crop


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
