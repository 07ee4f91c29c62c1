"""Point crops and observations, on rendered photos (no model needed)."""

import dataclasses
import random

import cv2
import numpy as np
import pytest

import games
from games import Point
from models.synth.dataset import scene_crops
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
    assert np.array_equal(some, whole[wanted])
    assert extractor.extract_some(scene.image, []).shape == (0, CROP_SIZE, CROP_SIZE, 3)


def test_the_crops_are_squares_of_the_warped_top_view(scene):
    """Cut the slow way: the whole sheet warped to the top view, then sliced at each point."""
    extractor = CropExtractor(scene.calibration)
    size = extractor.size
    width, height = extractor._view_size
    shift = np.array([[1, 0, size], [0, 1, size], [0, 0, 1]], dtype=np.float64)
    view = cv2.warpPerspective(scene.image, shift @ extractor._to_view, (width + 2 * size, height + 2 * size),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    sliced = np.stack([view[y + size:y + 2 * size, x + size:x + 2 * size] for x, y in extractor._origins])
    difference = np.abs(extractor.extract(scene.image).images.astype(int) - sliced)
    # The two round the sampling positions to OpenCV's 1/32 pixel from float32 and from float64.
    assert difference.max() <= 3 and difference.mean() < 0.1


def test_a_piece_fills_the_middle_of_its_crop_and_an_empty_point_does_not(scene):
    crops = CropExtractor(scene.calibration).extract(scene.image)
    middles = crops.images[:, 24:40, 24:40].astype(float)
    occupied = np.array([p in scene.pieces for p in crops.points])
    # A bare point looks like the other bare points (lines crossing on the board); a disc over it
    # does not. Measured against bare board, not as busyness: faint glyphs on small pieces can be
    # less busy than the lines of a high-contrast board (1.3 × for some rendered sets).
    bare = np.median(middles[~occupied], axis=0)
    unlike_bare = np.abs(middles - bare).mean(axis=(1, 2, 3))
    assert np.median(unlike_bare[occupied]) > 1.5 * np.median(unlike_bare[~occupied])


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


def test_a_photo_much_finer_than_the_crops_is_shrunk_by_area_before_they_are_cut(scene):
    """A checkerboard of single pixels averages to flat grey; sampled straight from so fine a
    photo (three photo pixels to a crop pixel, as a phone's) it would alias into blotches."""
    fine = 3
    width, height = scene.calibration.image_size
    calibration = dataclasses.replace(scene.calibration, image_size=(fine * width, fine * height), _pose=None,
                                      homography=np.diag([fine, fine, 1.0]) @ scene.calibration.homography)
    checks = np.indices((fine * height, fine * width)).sum(axis=0) % 2 * 120 + 68  # 68 and 188: mean 128
    photo = np.repeat(checks[..., None], 3, axis=2).astype(np.uint8)
    extractor = CropExtractor(calibration)
    crops = extractor.extract(photo).images
    assert abs(crops.mean() - 128) < 2 and crops.std() < 3
    assert np.array_equal(extractor.extract_some(photo, [0, 40]), crops[[0, 40]])


def test_points_outside_the_photo_are_labelled_occluded():
    seen_outside = 0
    for seed in range(40):
        scene = render_scene("xiangqi", random.Random(seed), hands=False)
        width, height = scene.image.shape[1], scene.image.shape[0]
        for point, label in scene.labels.items():
            x, y = scene.calibration.piece_center_pixel(point)
            outside = not (0 <= x < width and 0 <= y < height)
            seen_outside += outside
            assert (label == OCCLUDED) == outside
    assert seen_outside  # some of these renders do not frame the whole board


def test_training_crops_leave_out_points_outside_the_photo():
    """The station flags such points by geometry; their crops (the frame's edge smeared) must
    not teach the model that an edge cutting through a crop means occluded."""
    left_out = 0
    for seed in range(40):
        pairs = scene_crops("xiangqi", random.Random(seed), empty_keep=1.0, hands=False)
        assert OCCLUDED not in {label for _, label in pairs}  # no hand: nothing else is unseen
        left_out += 90 - len(pairs)
    assert left_out  # some of these renders do not frame the whole board


def test_training_crops_keep_every_empty_point_the_photos_edge_cuts():
    """A share of empty points is dropped, but never one whose disc the photo's edge cuts: its
    crop, part board and part smeared edge, is rare, and without it the model reads such crops
    as a hand."""
    kept_at_edge = 0
    for seed in range(40):
        scene = render_scene("cotoan", random.Random(seed), hands=False)
        margins, radius = scene.calibration.frame_margins_px(), scene.calibration.piece_radius_px()
        cut_empty = [p for p, m in margins.items() if 0 <= m < radius and scene.labels[p] == EMPTY]
        pairs = scene_crops("cotoan", random.Random(seed), empty_keep=0.0, hands=False)
        empties = sum(label == EMPTY for _, label in pairs)
        # The crops' own calibration may leave out a cut point near the edge, never add one.
        assert empties <= len(cut_empty)
        kept_at_edge += empties
    assert kept_at_edge  # some of these renders cut the board
