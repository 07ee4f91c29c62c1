"""Training smoke test: models/train.py trains one epoch on a tiny rendered crop set, exports
ONNX, and the station's `PointClassifier` loads and runs what came out.

Training needs torch and ultralytics, which the test venv never gets (the runtime never imports
torch), so the training runs in the training environment (`make train-env`, `.venv-train`) as a
subprocess; `make test` builds that environment and names it in BANCO_TRAIN_PYTHON. Elsewhere a
missing environment is a skip that says so (tests/services.py).
"""

from __future__ import annotations

import csv
import math
import os
import random
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

import games
from calibration.layout import BoardLayout
from models.synth.scene import render_scene
from tests.services import REPO, train_python
from vision.classes import EMPTY, OCCLUDED, classes, piece_classes
from vision.crops import CropExtractor
from vision.detector import Detector, PointClassifier

GAME = "xiangqi"  # the fewest classes of the three: 14 pieces and empty
IMGSZ = 32
COPIES = 3  # of each piece on a rendered board
SEED = 5


def rendered_crops(seed: int) -> tuple[list[tuple[np.ndarray, str]], object]:
    """(crop, class) for every point of one rendered board holding COPIES of every piece, but
    those the photo does not frame (labelled occluded; no hand is drawn)."""
    rng = random.Random(seed)
    points = list(BoardLayout.for_game(games.get(GAME)).geometry.points())
    rng.shuffle(points)
    position = {point: name for point, name in zip(points, [p for p in piece_classes(GAME) for _ in range(COPIES)],
                                                    strict=False)}
    scene = render_scene(GAME, rng, position=position, hands=False, max_tilt=20.0)
    crops = CropExtractor(scene.calibration, IMGSZ).extract(scene.image)
    return [(image, scene.labels[point]) for point, image in zip(crops.points, crops.images, strict=True)
            if scene.labels[point] != OCCLUDED], scene


def write_split(pairs: list[tuple[np.ndarray, str]], folder: Path, per_class: int) -> dict[str, int]:
    written: dict[str, int] = {}
    for image, label in pairs:
        if written.get(label, 0) >= per_class:
            continue
        (folder / label).mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / label / f"{written.get(label, 0)}.png"), image)
        written[label] = written.get(label, 0) + 1
    return written


def train_once(root: Path, model: Path, name: str, *options: str, **env: str) -> subprocess.CompletedProcess:
    """`python -m models.train` for one epoch on `root/data`, in the training environment."""
    env = dict(os.environ, YOLO_OFFLINE="true", YOLO_CONFIG_DIR=str(root / "ultralytics-settings"),
               PYTHONPATH=str(REPO), **env)
    return subprocess.run([train_python(), "-m", "models.train", "--data", str(root / "data"), "--out", str(model),
                           "--epochs", "1", "--imgsz", str(IMGSZ), "--batch", "16", "--workers", "0",
                           "--name", name, *options],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def run_training(root: Path, model: Path, name: str, *options: str) -> None:
    run = train_once(root, model, name, *options)
    assert run.returncode == 0, f"training failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    train_python()  # skips, saying why, where there is no training environment
    root = tmp_path_factory.mktemp("train-smoke")
    train_pairs, _ = rendered_crops(SEED)
    val_pairs, val_scene = rendered_crops(SEED + 1)
    expected = {name for name in classes(GAME) if name != OCCLUDED}
    assert set(write_split(train_pairs, root / "data" / "train", COPIES)) == expected
    assert set(write_split(val_pairs, root / "data" / "val", 1)) == expected
    model = root / "points.onnx"
    run_training(root, model, "smoke")
    return model, val_pairs, val_scene


def test_one_epoch_was_trained_with_a_finite_loss(trained):
    model, _, _ = trained
    with (model.parent / ".runs-smoke" / "train" / "results.csv").open(newline="") as handle:
        epochs = [{key.strip(): value for key, value in row.items()} for row in csv.DictReader(handle)]
    assert [int(row["epoch"]) for row in epochs] == [1]
    assert math.isfinite(float(epochs[0]["train/loss"])) and float(epochs[0]["train/loss"]) > 0


def test_the_exported_model_has_the_games_classes_and_the_trained_size(trained):
    model, _, _ = trained
    classifier = PointClassifier(GAME, model)
    assert classifier.size == IMGSZ
    assert sorted(classifier.model_classes) == sorted(name for name in classes(GAME) if name != OCCLUDED)
    assert classifier.classes == tuple(name for name in classes(GAME) if name != OCCLUDED)
    assert classifier.occluded_index is None  # no occluded crops were in the tiny set
    assert classifier.has_embedding  # ready for adapting to a user's set (vision.adapt)


def test_raw_outputs_are_one_probability_row_per_crop(trained):
    model, val_pairs, _ = trained
    classifier = PointClassifier(GAME, model)
    crops = np.stack([image for image, _ in val_pairs])
    raw = classifier(crops)
    assert raw.shape == (len(val_pairs), len(classifier.model_classes))
    assert raw.dtype == np.float32
    assert np.all(raw >= 0)
    np.testing.assert_allclose(raw.sum(axis=1), 1.0, atol=1e-4)


def test_the_station_reads_a_frame_with_it(trained):
    model, _, scene = trained
    observation = Detector(GAME, scene.calibration, model_path=model).observe(scene.image)
    assert observation.probabilities.shape == (90, len(classes(GAME)) - 1)
    assert observation.classes[0] == EMPTY
    # A model without an occluded class: only the points the photo does not frame are occluded.
    assert list(observation.occluded) == [scene.labels[point] == OCCLUDED for point in observation.points]
    np.testing.assert_allclose(observation.probabilities.sum(axis=1), 1.0, atol=1e-5)


def _first_convolution(model: Path) -> np.ndarray:
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model)).graph
    weights = {tensor.name: tensor for tensor in graph.initializer}
    first = next(node for node in graph.node if node.op_type == "Conv")
    return numpy_helper.to_array(weights[first.input[1]]).ravel()


def test_training_on_from_an_earlier_run_starts_from_its_weights(trained):
    # Another seed would draw other random weights: only --init can keep the earlier ones.
    model, _, _ = trained
    root = model.parent
    on = root / "points-on.onnx"
    run_training(root, on, "smoke-on", "--seed", "1", "--lr0", "1e-9", "--warmup-epochs", "0",
                 "--init", str(root / ".runs-smoke" / "train" / "weights" / "best.pt"))
    before, after = _first_convolution(model), _first_convolution(on)
    assert before.shape == after.shape
    assert np.corrcoef(before, after)[0, 1] > 0.95


def test_training_on_from_a_shipped_onnx_model_starts_where_it_reads(trained):
    # Only the ONNX files ship. Unfolded with batch norms left at their identity, the first batch
    # would renormalise every layer and the model would read little of what it read before.
    model, val_pairs, _ = trained
    root = model.parent
    on = root / "points-from-onnx.onnx"
    run_training(root, on, "smoke-onnx", "--seed", "1", "--lr0", "1e-9", "--warmup-epochs", "0", "--init", str(model))
    crops = np.stack([image for image, _ in val_pairs])
    before, after = PointClassifier(GAME, model)(crops), PointClassifier(GAME, on)(crops)
    assert np.mean(before.argmax(axis=1) == after.argmax(axis=1)) >= 0.95
    assert np.abs(before - after).max() < 0.1


def test_an_input_size_the_network_cannot_take_is_refused_before_training(tmp_path):
    """ultralytics would train at 64 px a model asked for at 48 and label it 48; the station would
    then cut crops it never learned. The check needs no training environment."""
    import sys

    from models.train import check_imgsz, train_classifier

    assert check_imgsz(64) == 64
    with pytest.raises(ValueError, match="input size 48 px"):
        train_classifier(tmp_path / "data", tmp_path / "points.onnx", imgsz=48)
    run = subprocess.run([sys.executable, "-m", "models.train", "--data", str(tmp_path / "data"),
                          "--out", str(tmp_path / "points.onnx"), "--imgsz", "48"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].endswith(
        "input size 48 px: the point classifier's must be a multiple of 32 (the network's stride), such as 32 or 64")
    assert not (tmp_path / "points.onnx").exists()


def test_a_cuda_device_the_machine_lacks_is_refused_in_one_line(tmp_path):
    """`--device` reaches ultralytics: a GPU asked for where none is seen fails before training,
    saying so on its last line, and writes no model."""
    write_split(rendered_crops(SEED)[0], tmp_path / "data" / "train", 1)
    run = train_once(tmp_path, tmp_path / "points.onnx", "no-gpu", "--device", "0", CUDA_VISIBLE_DEVICES="")
    assert run.returncode == 2, run.stderr[-2000:]
    assert run.stderr.strip().splitlines()[-1].startswith("train.py: error: Invalid CUDA 'device=0' requested")
    assert not (tmp_path / "points.onnx").exists()
