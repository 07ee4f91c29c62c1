"""Adapting the classifier to the user's set from photos of the start position (vision.adapt)."""

from __future__ import annotations

import io
import random
import subprocess
import sys

import cv2
import numpy as np
import pytest

import games
from games import Point
from models.synth.playout import random_game
from models.synth.stage import Stage
from models.synth.video import seen, stack_sizes
from vision.adapt import (
    FACE_CROP_SIZE,
    PROFILE_KEY,
    Adaptation,
    AdaptationError,
    NotStartPositionError,
    adapt_to_start,
    collect,
    fit,
    load_for_profile,
    save_with_profile,
    start_labels,
)
from vision.classes import EMPTY, SIDES, appearance
from vision.crops import CropExtractor
from vision.detector import Detector, PointClassifier

GAME = "cotoan"  # the fewest points: the quickest to adapt
SIZE = (640, 360)
# A set whose two first start photos the shipped Cờ Toán model reads better than an adaptation
# fitted on the other photo does, both as the tests hand them over with the render's own
# calibration and through `banco calibrate --corners`, which frames them from the corners alone.
# A better model reads more sets perfectly, level with its adaptation, so each new model may need
# a new seed: scan seeds for one that holds both ways (a scratch loop over `adapt_to_start` as
# the test below calls it, and over the CLI). With the eighth model (session 39) seed 1 holds:
# 91.9 % against 90.4 % of 198 points as the test calls it, 92.4 % against 91.4 % through the CLI
# (of seeds 1–60 only 1, 27 and 31 held both ways). The seeds before it and why each was left:
# this file's git history, and the later Cờ Toán models' adaptation paragraphs in the model card.
MODEL_KEPT_SEED = 1
# A set the digit-blind model below reads well but for its blind digits, which the adaptation
# then reads: through `banco calibrate --corners` 93.9 % → 99.0 % of 198 points, with the 8-bit
# model and with the float model it was made from alike. Seed 7 served until the 8-bit models:
# the weak model read only 72.7 % (float) and 76.3 % (8-bit) of its points through the CLI,
# and the adaptation 72.7 % and 75.8 %: a tie at best, no fair premise for "the adaptation helps".
ADAPTATION_HELPS_SEED = 11


class SetOfPieces:
    """One rendered user's set: a board, a camera and pieces drawn alike, photographed at will."""

    def __init__(self, game: str, seed: int) -> None:
        self.game = game
        self.stage = Stage(game, random.Random(seed), size=SIZE, split="test")
        self.calibration = self.stage.calibration
        self.frames = 0

    def photo(self, labels: dict[Point, str], sizes: dict[Point, int] | None = None) -> np.ndarray:
        self.stage.set_position({p: c for p, c in labels.items() if c != EMPTY}, sizes)
        self.frames += 150
        return self.stage.frame(self.frames)

    def start(self) -> np.ndarray:
        board = games.get(self.game).board()
        return self.photo(seen(self.game, board), stack_sizes(self.game, board))


@pytest.fixture(scope="module")
def classifier() -> PointClassifier:
    return PointClassifier(GAME)


class _DigitBlindClassifier(PointClassifier):
    """The shipped model, but reading a 2, 4 or 7 mostly as its side's 1 (as the first Cờ Toán
    model did): a weak model of the kind the adaptation exists for."""

    BLURRED = ("2", "4", "7")

    def _blind(self, raw: np.ndarray) -> np.ndarray:
        raw = raw.copy()
        names = list(self.model_classes)
        for side in ("white", "black"):
            one = names.index(f"{side}_1")
            for digit in self.BLURRED:
                k = names.index(f"{side}_{digit}")
                raw[:, one] += 0.8 * raw[:, k]
                raw[:, k] *= 0.2
        return raw

    def __call__(self, crops: np.ndarray) -> np.ndarray:
        return self._blind(super().__call__(crops))

    def probabilities_and_embeddings(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raw, embeddings = super().probabilities_and_embeddings(crops)
        return self._blind(raw), embeddings


@pytest.fixture(scope="module")
def weak_classifier() -> PointClassifier:
    return _DigitBlindClassifier(GAME)


@pytest.fixture(scope="module")
def user_set() -> SetOfPieces:
    return SetOfPieces(GAME, seed=ADAPTATION_HELPS_SEED)


@pytest.fixture(scope="module")
def adapted(weak_classifier, user_set):
    return adapt_to_start(weak_classifier, [(user_set.start(), user_set.calibration)])


def test_start_position_labels_every_point_and_every_class():
    for game in ("xiangqi", "commander", "cotoan"):
        labels = start_labels(game)
        assert len(labels) == len(list(games.get(game).geometry.points()))
        classifier_classes = PointClassifier(game).classes
        assert set(labels.values()) == set(classifier_classes)  # every class the detector answers with


def test_shipped_models_give_features_and_the_same_probabilities(classifier):
    crops = np.random.default_rng(1).integers(0, 255, (4, classifier.size, classifier.size, 3), dtype=np.uint8)
    probabilities, embeddings = classifier.probabilities_and_embeddings(crops)
    assert embeddings.shape == (4, 1280)
    np.testing.assert_array_equal(probabilities, classifier(crops))


def test_adaptation_reads_a_later_photo_of_the_set_at_least_as_well(weak_classifier, user_set, adapted):
    classifier = weak_classifier
    assert adapted.held_out_points > 0 and adapted.helps
    assert adapted.adaptation.classes == tuple(c for c in classifier.classes if c in set(start_labels(GAME).values()))
    board = games.get(GAME).board()
    for move in random_game(GAME, 20, seed=3):
        board.push(games.get(GAME).parse_move(board, move))
    truth = appearance(GAME, board)
    frame = user_set.photo(truth)
    plain = Detector(GAME, user_set.calibration, classifier=classifier).observe(frame)
    tuned = Detector(GAME, user_set.calibration, classifier=classifier, adaptation=adapted.adaptation).observe(frame)

    def right(observation) -> int:
        return sum(observation.best(p)[0] == truth[p] for p in observation.points)

    # The weak model misreads this set's 2s, 4s and 7s; the adaptation must read strictly more.
    assert right(tuned) > right(plain)
    np.testing.assert_allclose(tuned.probabilities.sum(axis=1), 1.0, atol=1e-6)


def test_glyph_templates_match_a_frames_crops_in_parts_as_in_one_pass(user_set, adapted):
    templates = adapted.adaptation.templates
    faces = templates.extractor(user_set.calibration).extract(user_set.start()).images
    in_parts = templates.scores(faces)
    assert in_parts.shape == (len(faces), len(templates.labels))
    np.testing.assert_array_equal(in_parts, templates._scores(faces))
    assert templates.scores(faces[:0]).shape == (0, len(templates.labels))


def test_adaptation_file_round_trip_and_profile(tmp_path, adapted, classifier):
    from calibration.profile import save

    profile = tmp_path / "board.json"
    save(SetOfPieces(GAME, seed=ADAPTATION_HELPS_SEED).calibration, profile)
    assert load_for_profile(profile) is None  # a profile that names none
    path = save_with_profile(adapted.adaptation, profile)
    assert path.is_file() and path.parent == tmp_path
    assert f'"{PROFILE_KEY}": "{path.name}"' in profile.read_text(encoding="utf-8")
    loaded = load_for_profile(profile)
    rng = np.random.default_rng(0)
    probabilities = rng.dirichlet(np.ones(len(classifier.classes)), 5)
    embeddings = rng.random((5, 1280))
    crops = np.random.default_rng(1).integers(0, 255, (5, FACE_CROP_SIZE, FACE_CROP_SIZE, 3), dtype=np.uint8)
    np.testing.assert_allclose(loaded.apply(probabilities, embeddings, classifier.classes, crops),
                               adapted.adaptation.apply(probabilities, embeddings, classifier.classes, crops),
                               atol=1e-5)
    buffer = io.BytesIO()
    adapted.adaptation.save(buffer)
    buffer.seek(0)
    assert Adaptation.load(buffer).classes == adapted.adaptation.classes


def test_classes_the_start_never_showed_keep_the_models_probability(classifier, user_set):
    samples = collect(classifier, [(user_set.start(), user_set.calibration)], copies=1)
    seven = classifier.classes.index("white_7")
    narrowed = fit(GAME, classifier.classes, samples, samples.labels != seven, "both+templates")
    assert "white_7" not in narrowed.classes and "white_7" not in narrowed.templates.labels
    rows = samples.original
    probabilities = np.random.default_rng(2).dirichlet(np.ones(len(classifier.classes)), rows.sum())
    out = narrowed.apply(probabilities, samples.embeddings[rows], classifier.classes, samples.face_crops(rows))
    np.testing.assert_allclose(out[:, seven], probabilities[:, seven])
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    assert not np.allclose(out, probabilities)


def test_a_photo_that_is_not_the_start_position_is_refused(classifier, user_set):
    empty = user_set.photo({})
    with pytest.raises(NotStartPositionError, match="does not look like the cotoan start position"):
        adapt_to_start(classifier, [(empty, user_set.calibration)])
    # Each side set up where the other should be (Cờ Toán's start looks the same turned round,
    # so this is what a calibration from the wrong side of the table gives).
    first, second = SIDES[GAME]
    swapped = {}
    for point, label in start_labels(GAME).items():
        if label != EMPTY:
            side, kind = label.split("_", 1)
            swapped[point] = f"{second if side == first else first}_{kind}"
    with pytest.raises(NotStartPositionError, match="sides look swapped"):
        adapt_to_start(classifier, [(user_set.photo(swapped), user_set.calibration)])
    # The start with a few pieces already taken (a photo from the middle of a game): its labels
    # would teach the set's templates empty board, though most points still agree with the start.
    taken = dict(start_labels(GAME))
    for point in [p for p, label in taken.items() if label != EMPTY][::3]:
        taken[point] = EMPTY
    with pytest.raises(NotStartPositionError, match="read as empty .* are all the pieces set up"):
        adapt_to_start(classifier, [(user_set.photo(taken), user_set.calibration)])
    with pytest.raises(AdaptationError, match="at least one photo"):
        adapt_to_start(classifier, [])
    xiangqi_view = SetOfPieces("xiangqi", seed=1)
    with pytest.raises(AdaptationError, match="calibrated for xiangqi"):
        adapt_to_start(classifier, [(xiangqi_view.start(), xiangqi_view.calibration)])


def test_bad_adaptation_files_say_what_is_wrong(tmp_path):
    with pytest.raises(AdaptationError, match="does not exist"):
        Adaptation.load(tmp_path / "none.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(AdaptationError, match=r"is not an adaptation file \(damaged, or another kind of file\)"):
        Adaptation.load(junk)


def test_two_start_photos_hold_out_a_whole_photo(weak_classifier, user_set):
    photos = [(user_set.start(), user_set.calibration), (user_set.start(), user_set.calibration)]
    report = adapt_to_start(weak_classifier, photos)
    assert "each start photo" in report.held_out
    assert report.held_out_points == 2 * 99
    assert report.adapted_accuracy > report.model_accuracy and report.helps
    pieces = sum(label != EMPTY for label in start_labels(GAME).values())
    assert report.held_out_pieces == 2 * pieces and report.to_json()["held_out_pieces"] == 2 * pieces
    assert "none of those points holds a piece" not in report.summary()


def test_one_start_photo_says_when_its_held_out_points_hold_no_piece(adapted):
    """One Cờ Toán start photo: every digit shows once a side, so only empty points are held
    out, where the templates change nothing. The tie that follows is no evidence, and the line
    says so instead of passing for a measure of the pieces."""
    assert adapted.held_out_points > 0 and adapted.held_out_pieces == 0
    assert adapted.to_json()["held_out_pieces"] == 0
    assert ("none of those points holds a piece, so they cannot tell whether the adaptation reads the pieces "
            "better: give a second start photo") in adapted.summary()


def test_one_xiangqi_start_photo_holds_out_pieces():
    """Cờ Tướng shows most kinds twice a side, so half of those pieces are held out and read."""
    view = SetOfPieces("xiangqi", seed=1)
    report = adapt_to_start(PointClassifier("xiangqi"), [(view.start(), view.calibration)])
    assert report.held_out_pieces >= 10
    assert "none of those points holds a piece" not in report.summary()


def test_an_adaptation_that_reads_the_held_out_photo_worse_is_not_used(classifier):
    """The shipped Cờ Toán model reads this set's two first start photos better than an
    adaptation fitted on the other photo does: the report says so (calibrate then writes no
    file). A set of its own, so the photos do not depend on the order the tests run in."""
    fresh = SetOfPieces(GAME, seed=MODEL_KEPT_SEED)
    photos = [(fresh.start(), fresh.calibration), (fresh.start(), fresh.calibration)]
    report = adapt_to_start(classifier, photos)
    assert report.adapted_accuracy < report.model_accuracy
    assert not report.helps and report.to_json()["used"] is False
    assert "the model is kept" in report.summary()
    # A station uses its start adaptation all the same (one photo is a noisy judge): its note
    # and the event's report say what was done.
    assert "but is used all the same" in report.summary(used=True)
    assert report.to_json(used=True)["used"] is True


def test_cli_calibrate_with_start_position_writes_and_uses_the_adaptation(tmp_path, user_set, monkeypatch):
    from typer.testing import CliRunner

    import vision.detector
    from banco.cli import app

    fresh = SetOfPieces(GAME, seed=ADAPTATION_HELPS_SEED)  # its own photos, whatever order the tests run in
    photo, second = tmp_path / "start.png", tmp_path / "start2.png"
    cv2.imwrite(str(photo), fresh.start())
    cv2.imwrite(str(second), fresh.start())
    corners = " ".join(f"{x:.2f},{y:.2f}" for x, y in user_set.calibration.grid_corners_px())
    out = tmp_path / "board.json"

    def banco(*args):
        return subprocess.run([sys.executable, "-m", "banco", *args], capture_output=True, text=True)

    # A model the adaptation helps: the adaptation is written beside the profile and used.
    monkeypatch.setattr(vision.detector, "PointClassifier", _DigitBlindClassifier)
    result = CliRunner().invoke(app, ["calibrate", "--game", GAME, "--start-position", str(photo), "--start-position",
                                      str(second), "--corners", corners, "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == f"wrote {out}"
    assert any(line.startswith("adapted to this set in") and "→ adapted" in line for line in lines)
    assert load_for_profile(out) is not None
    result = banco("recognize", str(photo), "--game", GAME, "--calibration", str(out))
    assert result.returncode == 0, result.stderr
    # The shipped model reads another set's two photos better than the adaptation would: no
    # file, the model kept.
    monkeypatch.undo()
    strong = SetOfPieces(GAME, seed=MODEL_KEPT_SEED)
    photo, second = tmp_path / "strong.png", tmp_path / "strong2.png"
    cv2.imwrite(str(photo), strong.start())
    cv2.imwrite(str(second), strong.start())
    strong_corners = " ".join(f"{x:.2f},{y:.2f}" for x, y in strong.calibration.grid_corners_px())
    kept = tmp_path / "kept.json"
    result = banco("calibrate", "--game", GAME, "--start-position", str(photo), "--start-position", str(second),
                   "--corners", strong_corners, "--out", str(kept))
    assert result.returncode == 0, result.stderr
    assert "the model is kept" in result.stdout and load_for_profile(kept) is None
    assert not (tmp_path / "kept.adapt.npz").exists()
    # A photo that is not the start position: one line naming the problem, no profile written.
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), user_set.photo({}))
    result = banco("calibrate", "--game", GAME, "--start-position", str(empty), "--corners", corners,
                   "--out", str(tmp_path / "other.json"))
    assert result.returncode == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"banco: {empty} does not look like the cotoan start position")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "other.json").exists()


def test_points_outside_a_start_photo_are_left_out(classifier, user_set):
    """A phone photo that cuts off a corner of the board: the points it does not show (their
    crops the frame's edge smeared outwards) neither teach the adaptation nor count in its
    measure, and the report says how many were left out."""
    cut = np.ascontiguousarray(user_set.start()[:, :400])
    outside = CropExtractor(user_set.calibration, classifier.size).outside(cut)
    assert 0 < outside.sum() < len(outside) // 2
    samples = collect(classifier, [(cut, user_set.calibration)], copies=1)
    assert sorted(set(samples.point.tolist())) == np.flatnonzero(~outside).tolist()
    report = adapt_to_start(classifier, [(cut, user_set.calibration)])
    assert report.unframed_points == outside.sum() and report.to_json()["unframed_points"] == outside.sum()
    assert report.held_out_points < (~outside).sum()
    assert f"{outside.sum()} point(s) outside the photo(s) left out" in report.summary()
    with pytest.raises(AdaptationError, match="photo 1 shows none of the board"):
        collect(classifier, [(np.ascontiguousarray(cut[:, :5]), user_set.calibration)])
