"""Rendered photos of Commander Chess and Cờ Toán boards, and the crop datasets cut from them."""

import random

import numpy as np
import pytest

import games
from games import Point
from models.synth.dataset import build
from models.synth.scene import random_stacks, render_scene
from vision.classes import EMPTY, OCCLUDED, classes


@pytest.mark.parametrize("game", ["commander", "cotoan"])
def test_a_scene_labels_every_point(game):
    scene = render_scene(game, random.Random(3), size=(640, 360), hands=False)
    points = set(games.get(game).geometry.points())
    assert scene.image.shape == (360, 640, 3)
    assert set(scene.labels) == points
    assert set(scene.labels.values()) <= set(classes(game)) - {OCCLUDED}
    assert {p for p, c in scene.labels.items() if c != EMPTY} == set(scene.pieces)


def test_hands_occlude_points():
    occluded = sum(OCCLUDED in render_scene("cotoan", random.Random(seed), size=(640, 360), hands=True).labels.values()
                   for seed in range(4))
    assert occluded >= 2


def test_random_stacks_are_commander_only_and_on_pieces():
    rng = random.Random(1)
    position = {Point(f, r): "red_tank" for f in range(11) for r in range(3)}
    stacks = random_stacks("commander", position, rng)
    assert stacks and set(stacks) <= set(position) and set(stacks.values()) <= {2, 3}
    assert random_stacks("cotoan", {Point(0, 0): "white_1"}, rng) == {}


def _render(game, position, seed, **options):
    # Same seed, same draws: the two photos differ only where the pieces do.
    return render_scene(game, random.Random(seed), position=position, size=(960, 540), hands=False, max_tilt=35,
                        **options)


@pytest.mark.parametrize(("game", "here", "there", "label"), [
    ("cotoan", Point(2, 3), Point(6, 8), "black_7"),
    ("commander", Point(3, 2), Point(8, 9), "blue_navy"),
])
def test_pieces_stand_where_the_calibration_says(game, here, there, label):
    a = _render(game, {here: label}, 5)
    b = _render(game, {there: label}, 5)
    diff = np.abs(a.image.astype(int) - b.image.astype(int)).sum(axis=2)

    def change_at(point):
        x, y = (int(v) for v in a.calibration.piece_center_pixel(point))
        r = max(2, int(a.calibration.piece_radius_px(point) * 0.5))
        return diff[y - r:y + r, x - r:x + r].mean()

    assert change_at(here) > 40 and change_at(there) > 40
    assert change_at(Point(0, 0)) < 5


def test_a_stack_stands_taller_and_shows_its_top():
    point = Point(5, 3)
    single = _render("commander", {point: "red_tank"}, 8)
    stack = _render("commander", {point: "red_tank"}, 8, stacks={point: 3})
    assert stack.stacks == {point: 3} and single.stacks == {}
    assert stack.labels[point] == "red_tank"
    diff = np.abs(single.image.astype(int) - stack.image.astype(int)).sum(axis=2) > 30
    ys, xs = np.nonzero(diff)
    assert len(xs) > 50
    # The change lies along the line from the base to the raised top, within a few radii of the point.
    cx, cy = single.calibration.piece_center_pixel(point)
    radius = single.calibration.piece_radius_px(point)
    assert np.hypot(xs - cx, ys - cy).max() < 6 * radius


def test_build_writes_every_class_folder(tmp_path):
    counts = build("cotoan", tmp_path, scenes=2, seed=4, val_fraction=0.5)
    for name in classes("cotoan"):
        assert (tmp_path / "train" / name).is_dir() and (tmp_path / "val" / name).is_dir()
    written = len(list(tmp_path.glob("*/*/*.png")))
    assert written == sum(counts["train"].values()) + sum(counts["val"].values()) > 5
    assert sum(counts["val"].values()) > 0


def test_discs_are_drawn_as_thick_as_asked():
    """A sturdy wooden set, 1.2 radii thick: the photo's calibration says so, and the disc's top
    face is drawn where that calibration puts it, well away from its foot in a tilted view."""
    horse = {Point(4, 2): "red_horse"}
    thick = _render("xiangqi", horse, 5, thickness=(1.2, 1.2))
    bare = _render("xiangqi", {}, 5, thickness=(1.2, 1.2))
    cal = thick.calibration
    assert cal.piece_height_mm == pytest.approx(1.2 * cal.layout.pitch_mm * cal.piece_radius_ratio)
    top, foot = np.array(cal.piece_center_pixel(Point(4, 2))), np.array(cal.point_pixel(Point(4, 2)))
    assert np.linalg.norm(top - foot) > 0.3 * cal.piece_radius_px()  # the view is tilted enough to tell
    diff = np.abs(thick.image.astype(int) - bare.image.astype(int)).sum(axis=2)
    x, y = (int(v) for v in top)
    r = max(2, int(cal.piece_radius_px() * 0.4))
    assert diff[y - r:y + r, x - r:x + r].mean() > 40
    usual = _render("xiangqi", horse, 5).calibration
    assert 0.25 <= usual.piece_height_mm / (usual.layout.pitch_mm * usual.piece_radius_ratio) <= 0.9
