"""`python -m models.evaluate`: what it refuses."""

import subprocess
import sys

from tests.services import REPO


def test_a_knock_out_of_range_is_refused_by_name():
    run = subprocess.run([sys.executable, "-m", "models.evaluate", "--photos", "1", "--knocked", "5"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--knocked is in piece radii, from 0 to 2, not 5.0" in run.stderr
    assert run.stdout == ""


def test_a_point_is_on_the_photos_edge_when_the_edge_cuts_its_disc():
    from types import SimpleNamespace

    import numpy as np

    from games import Point
    from models.evaluate import on_photo_edge

    centres = {Point(0, 0): (50.0, 50.0),     # well inside
               Point(1, 0): (5.0, 50.0),      # inside, its disc cut by the left edge
               Point(2, 0): (-4.0, 50.0),     # outside, half its disc still in the photo
               Point(3, 0): (-15.0, 50.0),    # outside, its disc wholly out
               Point(4, 0): (150.0, 95.0)}    # inside, its disc cut by the bottom edge
    calibration = SimpleNamespace(piece_radius_px=lambda: 10.0, piece_center_pixel=centres.__getitem__)
    scene = SimpleNamespace(image=np.zeros((100, 200, 3), np.uint8), calibration=calibration)
    assert on_photo_edge(scene, list(centres)).tolist() == [False, True, True, False, True]
