"""`python -m models.evaluate`: what it refuses, and the calibration it reads through."""

import subprocess
import sys

import numpy as np

from tests.services import REPO


def test_a_knock_out_of_range_is_refused_by_name():
    run = subprocess.run([sys.executable, "-m", "models.evaluate", "--photos", "1", "--knocked", "5"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--knocked is in piece radii, from 0 to 2, not 5.0" in run.stderr
    assert run.stdout == ""


def test_a_thickness_that_is_not_a_range_is_refused_by_name():
    for given, expected in (("thick", "give the thickness as LO-HI in piece radii, such as 0.9-1.25, not 'thick'"),
                            ("1.2-0.9", "the thickness '1.2-0.9' must run upwards, from 0 to at most 3 radii")):
        run = subprocess.run([sys.executable, "-m", "models.evaluate", "--photos", "1", "--thickness", given],
                             cwd=REPO, capture_output=True, text=True, timeout=60)
        assert run.returncode == 2
        assert expected in run.stderr
        assert run.stdout == ""


def test_a_point_is_on_the_photos_edge_when_the_edge_cuts_its_disc():
    from dataclasses import replace

    import numpy as np

    import games
    from calibration import BoardLayout, Calibration
    from games import Point
    from models.evaluate import on_photo_edge

    layout = BoardLayout.for_game(games.get("xiangqi"))
    whole = Calibration.from_corners(layout, [(100, 550), (500, 550), (500, 100), (100, 100)], (1000, 1000))
    # The same view in a photo 300 px wide whose left edge lies 105 px to the right: files 50 px
    # apart, file a at x = -5, b at 45, c at 95, g at 295 (4 px from the right edge), h at 345.
    shift = np.array([[1, 0, -105], [0, 1, 0], [0, 0, 1]], float)
    cal = replace(whole, image_size=(300, 1000), homography=shift @ whole.homography)
    radius = cal.piece_radius_px()
    assert 10 < radius < 40  # as the expectations below need
    points = [Point(0, 4), Point(1, 4), Point(2, 4), Point(6, 4), Point(7, 4)]
    assert on_photo_edge(cal, points).tolist() == [True, False, False, True, False]


def test_points_are_counted_by_the_radius_their_pieces_appear_at():
    from collections import Counter

    from models.evaluate import SIZE_BANDS, evaluate_photos, size_band, size_lines

    assert [size_band(r) for r in (12.0, 19.99, 20.0, 23.9, 24.0, 60.0)] == \
        [SIZE_BANDS[0], SIZE_BANDS[0], SIZE_BANDS[1], SIZE_BANDS[1], SIZE_BANDS[2], SIZE_BANDS[2]]
    lines = size_lines(Counter({(SIZE_BANDS[0], True): 3, (SIZE_BANDS[0], False): 1, (SIZE_BANDS[2], True): 10}))
    assert lines == ["     under 20 px:      4 points, right 75.0000%, misread 1",
                     "   24 px or more:     10 points, right 100.0000%, misread 0"]
    result = evaluate_photos("xiangqi", 2, seed=5)
    outside = sum(count for (truth, _), count in result["confusion"].items() if truth == "occluded")
    assert sum(result["by_size"].values()) == result["points"] - outside
    misread_inside = sum(count for (truth, guess), count in result["confusion"].items()
                         if truth != guess and truth != "occluded")
    assert sum(count for (_, right), count in result["by_size"].items() if not right) == misread_inside


def test_the_stations_calibration_takes_the_usual_thickness_where_a_flat_one_was_drawn():
    """`disturbed(flat=False)`, the station's reading since session 43: the draws that took the
    pieces flat take the usual thickness instead; every other draw, and what follows them, is
    the same, so a seed still renders the same photos."""
    import random

    import games
    from calibration import BoardLayout, Calibration
    from calibration.homography import usual_thickness_mm
    from models.synth.dataset import disturbed

    layout = BoardLayout.for_game(games.get("xiangqi"))
    truth = Calibration.from_corners(layout, [(100, 650), (600, 650), (560, 100), (140, 100)], (700, 700),
                                     piece_height_mm=11.0)
    guess = usual_thickness_mm(layout.pitch_mm, truth.piece_radius_ratio)
    flat_drawn = 0
    for seed in range(40):
        before, now = random.Random(seed), random.Random(seed)
        old, new = disturbed(truth, before), disturbed(truth, now, flat=False)
        assert np.array_equal(old.homography, new.homography)
        assert new.piece_height_mm > 0
        if old.piece_height_mm == 0:
            flat_drawn += 1
            assert new.piece_height_mm == guess
        else:
            assert new.piece_height_mm == old.piece_height_mm
        assert before.random() == now.random()
    assert 5 <= flat_drawn <= 15  # about a quarter


def test_crops_can_be_cut_flat_as_thick_as_usual_or_at_the_true_thickness():
    import games
    from calibration import BoardLayout, Calibration
    from calibration.homography import usual_thickness_mm
    from models.evaluate import _thickness_cut_at

    layout = BoardLayout.for_game(games.get("commander"))
    truth = Calibration.from_corners(layout, [(100, 650), (600, 650), (560, 100), (140, 100)], (700, 700),
                                     piece_height_mm=13.0)
    assert _thickness_cut_at("flat", truth) == 0.0
    assert _thickness_cut_at("usual", truth) == usual_thickness_mm(layout.pitch_mm) != 13.0
    assert _thickness_cut_at("true", truth) == 13.0
