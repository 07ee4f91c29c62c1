"""Point crops and observations, on rendered photos (no model needed)."""

import random

import numpy as np
import pytest

import games
from games import Point
from models.synth.scene import render_scene
from vision.classes import EMPTY, OCCLUDED, class_of_letter, classes, fen_letter
from vision.crops import CROP_SIZE, CropExtractor
from vision.detector import Observation


@pytest.fixture(scope="module")
def scene():
    start = games.get("xiangqi").board()
    position = {p: class_of_letter("xiangqi", piece.symbol()) for p, piece in start.piece_map().items()}
    return render_scene("xiangqi", random.Random(11), position=position, hands=False, max_tilt=35)


def test_every_point_gets_one_crop_of_fixed_size(scene):
    crops = CropExtractor(scene.calibration).extract(scene.image)
    assert len(crops.points) == 90 and crops.images.shape == (90, CROP_SIZE, CROP_SIZE, 3)


def test_some_crops_alone_are_the_same_pixels_as_from_the_whole_board(scene):
    extractor = CropExtractor(scene.calibration)
    whole = extractor.extract(scene.image).images
    wanted = [0, 8, 40, 81, 89]  # corners of the sheet and the middle
    some = extractor.extract_some(scene.image, wanted)
    assert some.shape == (len(wanted), CROP_SIZE, CROP_SIZE, 3)
    assert np.abs(some.astype(int) - whole[wanted].astype(int)).max() <= 1  # rounding of the warp only


def test_a_piece_fills_the_middle_of_its_crop_and_an_empty_point_does_not(scene):
    crops = CropExtractor(scene.calibration).extract(scene.image)

    def centre_spread(image):
        middle = image[24:40, 24:40].astype(float)
        return middle.std()

    occupied = [centre_spread(img) for p, img in zip(crops.points, crops.images, strict=True) if p in scene.pieces]
    empty = [centre_spread(img) for p, img in zip(crops.points, crops.images, strict=True) if p not in scene.pieces]
    # Glyph strokes in the middle of a piece make its centre busier than bare board.
    assert np.median(occupied) > 1.5 * np.median(empty)


def test_labels_match_the_position_and_hands_mark_points_occluded():
    rng = random.Random(3)
    scene = render_scene("xiangqi", rng, hands=True)
    assert set(scene.labels.values()) <= set(classes("xiangqi"))
    assert OCCLUDED in scene.labels.values()
    for point, label in scene.labels.items():
        if label not in (OCCLUDED, EMPTY):
            assert scene.pieces[point] == label


def test_observation_reads_a_fen_from_probabilities():
    names = tuple(c for c in classes("xiangqi") if c != OCCLUDED)
    board = games.get("xiangqi").board()
    points = list(games.get("xiangqi").geometry.points())
    probabilities = np.full((90, len(names)), 0.01)
    for index, point in enumerate(points):
        piece = board.piece_at(point)
        name = class_of_letter("xiangqi", piece.symbol()) if piece else EMPTY
        probabilities[index, names.index(name)] = 1.0
    occluded = np.zeros(90, bool)
    observation = Observation("xiangqi", names, points, probabilities, occluded)
    assert observation.board_fen(9, 10) == board.board_fen()
    occluded[points.index(Point(4, 0))] = True
    assert observation.board_fen(9, 10).endswith("RNBA1ABNR")
    assert fen_letter("xiangqi", "black_horse") == "n"
