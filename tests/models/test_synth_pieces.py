"""Piece sprites for all three games: every class renders, sides look different, splits hold out."""

import colorsys
import random

import numpy as np
import pytest

from models.synth import pieces
from models.synth.pieces import LATIN_FONTS, digit_mask, render_piece
from vision.classes import piece_classes


def _check_sprite(sprite, diameter):
    arr = np.array(sprite)
    assert sprite.mode == "RGBA" and sprite.size == (diameter, diameter)
    assert arr[0, 0, 3] == 0 and arr[-1, -1, 3] == 0  # round: the corners are clear
    assert arr[diameter // 2, diameter // 2, 3] == 255


@pytest.mark.parametrize("game", ["xiangqi", "commander", "cotoan"])
@pytest.mark.parametrize("split", ["train", "test"])
def test_every_class_renders_a_round_sprite(game, split):
    rng = random.Random(7)
    for label in piece_classes(game):
        _check_sprite(render_piece(label, 40, rng, split=split), 40)


def test_same_seed_same_sprite():
    a = np.array(render_piece("red_navy", 48, random.Random(5)))
    b = np.array(render_piece("red_navy", 48, random.Random(5)))
    c = np.array(render_piece("red_navy", 48, random.Random(6)))
    assert (a == b).all() and not (a == c).all()


def test_kinds_of_one_side_look_different():
    """The same seed draws the same style and colours: only the symbol differs."""
    a = np.array(render_piece("blue_tank", 64, random.Random(11))).astype(int)
    b = np.array(render_piece("blue_navy", 64, random.Random(11))).astype(int)
    assert np.abs(a - b)[..., :3].mean() > 3


def _mean_hue_votes(label, count=40):
    """How many sprites are mostly red, mostly blue (saturated pixels only)."""
    rng = random.Random(3)
    red = blue = 0
    for _ in range(count):
        arr = np.array(render_piece(label, 32, rng))[..., :3].reshape(-1, 3) / 255.0
        hsv = np.array([colorsys.rgb_to_hsv(*px) for px in arr[::7]])
        vivid = hsv[(hsv[:, 1] > 0.45) & (hsv[:, 2] > 0.25)]
        reds = ((vivid[:, 0] < 0.06) | (vivid[:, 0] > 0.94)).sum()
        blues = ((vivid[:, 0] > 0.5) & (vivid[:, 0] < 0.7)).sum()
        red += reds > blues
        blue += blues > reds
    return red, blue


def test_commander_sides_are_red_and_blue():
    red, blue = _mean_hue_votes("red_infantry")
    assert red >= 35 and blue == 0
    red, blue = _mean_hue_votes("blue_infantry")
    assert blue >= 35 and red == 0


def test_cotoan_sides_differ_by_disc():
    """White's discs are light or red, Black's dark or blue: the face around the digit tells the side."""
    y, x = np.mgrid[0:40, 0:40]
    radius = np.hypot(x - 19.5, y - 19.5) / 20
    annulus = (radius > 0.55) & (radius < 0.85)

    def faces(label):
        rng = random.Random(4)
        return np.array([np.median(np.array(render_piece(label, 40, rng))[..., :3][annulus], axis=0)
                         for _ in range(40)])

    white, black = faces("white_5"), faces("black_5")
    red_disc = white[:, 0] > white[:, 2] + 60
    blue_disc = black[:, 2] > black[:, 0] + 60
    assert 0 < red_disc.sum() < 40 and 0 < blue_disc.sum() < 40
    assert white[~red_disc].mean(axis=1).min() > black[~blue_disc].mean(axis=1).max() + 60
    assert not (white[:, 2] > white[:, 0] + 60).any()  # no blue disc on White's side


@pytest.mark.parametrize("digit", list("0123456789"))
def test_six_and_nine_are_underlined(digit):
    """Same seed, same font size: an underlined digit reaches lower than an 8 on the same baseline."""
    font = LATIN_FONTS["train"][0]

    def bottom(d):
        mask = np.array(digit_mask(d, 120, font, random.Random(1)))
        return np.nonzero(mask.max(axis=1))[0].max()

    assert (bottom(digit) > bottom("8") + 3) == (digit in "69")


def test_the_test_split_draws_only_held_out_fonts(monkeypatch):
    used = []
    real_font = pieces._font

    def spy(path, index, size):
        used.append(path)
        return real_font(path, index, size)

    monkeypatch.setattr(pieces, "_font", spy)
    rng = random.Random(2)
    for label in piece_classes("cotoan") + piece_classes("commander") + piece_classes("xiangqi"):
        for _ in range(3):
            render_piece(label, 32, rng, split="test")
    train_fonts = set(LATIN_FONTS["train"]) | {path for path, _ in pieces.FONT_FILES["train"]}
    assert used and not set(used) & train_fonts


def test_a_face_without_a_glyph_is_never_asked_to_draw_it(monkeypatch):
    cwtex_kai = ("/usr/share/fonts/truetype/cwtex/cwkai.ttf", 0)
    # cwTeX's Big5 faces have the traditional 車 but not the simplified 车.
    assert pieces.has_glyph(*cwtex_kai, "車") and not pieces.has_glyph(*cwtex_kai, "车")
    glyphs = set("".join(pieces.XIANGQI_GLYPHS.values()))
    for face in pieces.available_fonts("train"):  # asked (and remembered) before the spy looks
        for char in glyphs:
            pieces.has_glyph(*face, char)
    drawn = []
    real_mask = pieces.glyph_mask

    def spy(char, font, size, stroke=0):
        drawn.append((font.path, font.index, char))
        return real_mask(char, font, size, stroke)

    monkeypatch.setattr(pieces, "glyph_mask", spy)
    rng = random.Random(3)
    for label in pieces.XIANGQI_GLYPHS:
        for _ in range(40):
            render_piece(label, 24, rng)
    assert {(path, index) for path, index, _ in drawn} == set(pieces.available_fonts("train"))
    assert {char for *_, char in drawn} == glyphs
    assert all(pieces.has_glyph(*face) for face in drawn)
    assert cwtex_kai + ("車",) in drawn and cwtex_kai + ("车",) not in drawn


@pytest.mark.parametrize("label", ["red_king", "green_5", "white_10", "blue_horse", ""])
def test_unknown_labels_are_value_errors(label):
    with pytest.raises(ValueError, match="no renderer"):
        render_piece(label, 32, random.Random(0))


def test_unknown_split_is_a_value_error():
    with pytest.raises(ValueError, match="split"):
        render_piece("white_1", 32, random.Random(0), split="val")


def test_a_glyph_redrawn_with_a_pen_has_strokes_of_one_width():
    import cv2

    ming = np.array(pieces.glyph_mask("砲", pieces._font(pieces.FONT_FILES["train"][1][0], 0, 180), 300))
    redrawn = pieces.redrawn_with_pen(ming, 12)

    def widths(mask):  # twice the distance to the edge, along the strokes' middle lines
        depth = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
        return 2 * depth[pieces._skeleton(mask) > 0]

    def spread(mask):
        return np.percentile(widths(mask), 90) / np.percentile(widths(mask), 10)

    # The ming face's strokes go from thin horizontals to thick verticals; the pen draws them evenly.
    assert spread(ming) > 1.6 and spread(redrawn) < 1.4
    assert 12 <= np.median(widths(redrawn)) <= 17
    # The same character: every point of the font's skeleton is inked by the pen.
    assert (redrawn[pieces._skeleton(ming) > 0] > 0).mean() > 0.99


def test_only_training_glyphs_are_restyled(monkeypatch):
    calls = []
    real_restyled = pieces._restyled
    monkeypatch.setattr(pieces, "_restyled", lambda glyph, rng: calls.append(1) or real_restyled(glyph, rng))
    rng = random.Random(4)
    for label in piece_classes("xiangqi"):
        render_piece(label, 32, rng, split="test")
    assert not calls
    for label in piece_classes("xiangqi"):
        render_piece(label, 32, rng, split="train")
    assert len(calls) == len(piece_classes("xiangqi"))
