"""The 8-bit point classifiers (`models.quantize`): what ships, and making one."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import onnx
import pytest

from models.quantize import (
    BYTES_INPUT,
    INPUT_KEY,
    QUANTIZED_KEY,
    agreement,
    float_model_path,
    quantize,
    quantize_float_in,
    take_bytes,
)
from models.synth.scene import render_scene
from vision.crops import CropExtractor
from vision.detector import TEMPERATURE_KEY, PointClassifier, default_model_path

GAMES = ("xiangqi", "commander", "cotoan")


def _metadata(path) -> dict[str, str]:
    return {entry.key: entry.value for entry in onnx.load(str(path)).metadata_props}


def _integer_ops(path) -> int:
    return sum(node.op_type in ("QuantizeLinear", "DequantizeLinear") for node in onnx.load(str(path)).graph.node)


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_model_is_the_8_bit_one_of_its_float_model(game):
    shipped, float_model = default_model_path(game), float_model_path(game)
    assert float_model.is_file(), "the float model stays beside the 8-bit one"
    assert _integer_ops(shipped) > 50 and _integer_ops(float_model) == 0
    assert shipped.stat().st_size < 0.4 * float_model.stat().st_size
    made, kept = _metadata(shipped), _metadata(float_model)
    assert float_model.name in made[QUANTIZED_KEY]
    assert {key: made[key] for key in kept} == kept  # classes, input size, temperature
    assert made[INPUT_KEY] == BYTES_INPUT
    eight_bit, full = PointClassifier(game), PointClassifier(game, float_model)
    assert eight_bit.takes_bytes and not full.takes_bytes
    assert eight_bit.session.get_inputs()[0].shape[3] == 3  # N × S × S × 3, channels last
    assert eight_bit.classes == full.classes and eight_bit.size == full.size
    assert eight_bit.temperature == full.temperature and eight_bit.has_embedding
    assert agreement(game, float_model, shipped, scenes=2) >= 0.985


def _widest_weight(path) -> int:
    model = onnx.load(str(path))
    return max(int(np.abs(onnx.numpy_helper.to_array(t).astype(np.int32)).max())
               for t in model.graph.initializer if t.data_type == onnx.TensorProto.INT8)


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_weights_cannot_overflow_a_cpu_without_vnni(game):
    """A byte times a weight, two summed, must fit in 16 bits (255 × 64 × 2 = 32,640), or CPUs
    with AVX2 alone saturate the sum and read otherwise than the rest."""
    assert _widest_weight(default_model_path(game)) <= 64


@pytest.mark.parametrize("game", GAMES)
def test_the_probabilities_and_features_still_come_out_in_float(game):
    classifier = PointClassifier(game)
    scene = render_scene(game, random.Random(5), split="test", hands=False)
    crops = CropExtractor(scene.calibration, classifier.size).extract(scene.image).images
    probabilities, features = classifier.probabilities_and_embeddings(crops)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    # An 8-bit output would step by about 1/256, its unlikely classes at exactly 0.
    assert (probabilities > 0).all() and ((probabilities > 0) & (probabilities < 1e-3)).any()
    assert len(np.unique(features)) > 256


def test_quantizing_keeps_what_the_station_reads_and_the_answers(tmp_path):
    target = tmp_path / "cotoan-points.onnx"
    quantize("cotoan", float_model_path("cotoan"), target, scenes=2)
    assert _integer_ops(target) > 50
    metadata = _metadata(target)
    assert "2 rendered training photos" in metadata[QUANTIZED_KEY]
    assert metadata[TEMPERATURE_KEY] == _metadata(float_model_path("cotoan"))[TEMPERATURE_KEY]
    assert _widest_weight(target) <= 64
    made = PointClassifier("cotoan", target)
    assert made.has_embedding and made.takes_bytes and made.classes == PointClassifier("cotoan").classes
    # Two photos set coarser ranges than the shipped model's hundred; still nearly every crop
    # reads as the float model reads it.
    assert agreement("cotoan", float_model_path("cotoan"), target, scenes=2) >= 0.97


def test_taking_the_bytes_changes_no_answer(tmp_path):
    float_in, taking_bytes = tmp_path / "float-in.onnx", tmp_path / "bytes.onnx"
    quantize_float_in("cotoan", float_model_path("cotoan"), float_in, scenes=1)
    model = onnx.load(str(float_in))
    take_bytes(model)
    onnx.save(model, str(taking_bytes))
    before, after = PointClassifier("cotoan", float_in), PointClassifier("cotoan", taking_bytes)
    assert not before.takes_bytes and after.takes_bytes
    scene = render_scene("cotoan", random.Random(8), split="test", hands=True)
    crops = CropExtractor(scene.calibration, before.size).extract(scene.image).images
    # Blue and red told apart: a crop whose channels were taken in the wrong order reads otherwise.
    answers = zip(before.probabilities_and_embeddings(crops), after.probabilities_and_embeddings(crops), strict=True)
    for was, now in answers:
        np.testing.assert_array_equal(was, now)
    assert not np.array_equal(after(crops), after(np.ascontiguousarray(crops[..., ::-1])))


def test_only_an_input_in_byte_steps_is_taken_as_bytes():
    with pytest.raises(ValueError, match="not quantized to bytes in steps of 1/255"):
        take_bytes(onnx.load(str(float_model_path("cotoan"))))


def test_the_float_model_is_never_overwritten(tmp_path):
    source = float_model_path("cotoan")
    with pytest.raises(ValueError, match="the float model must stay"):
        quantize("cotoan", source, source, scenes=1)
    with pytest.raises(ValueError, match="at least one calibration photo"):
        quantize("cotoan", source, tmp_path / "x.onnx", scenes=0)


def test_the_command_names_a_missing_float_model(tmp_path):
    missing = tmp_path / "nowhere.float.onnx"
    done = subprocess.run([sys.executable, "-m", "models.quantize", "--game", "cotoan", "--source", str(missing),
                           "--out", str(tmp_path / "out.onnx")], capture_output=True, text=True)
    assert done.returncode == 2
    assert f"no float model at {missing}" in done.stderr
    assert not (tmp_path / "out.onnx").exists()


def test_training_on_from_an_8_bit_model_is_refused_before_anything_is_rendered(tmp_path):
    done = subprocess.run([sys.executable, "-m", "banco.cli", "train", "--game", "cotoan", "--scenes", "1",
                           "--data", str(tmp_path / "data"), "--out", str(tmp_path / "mine.onnx"),
                           "--init", str(default_model_path("cotoan"))], capture_output=True, text=True)
    assert done.returncode == 2
    assert "is an 8-bit model; train on from its float model" in done.stderr
    assert str(float_model_path("cotoan")) in done.stderr
    assert not (tmp_path / "data").exists()


def test_unfolding_an_8_bit_model_into_a_checkpoint_names_its_float_model(tmp_path):
    from models.from_onnx import checkpoint_from_onnx

    with pytest.raises(ValueError, match="xiangqi-points.float.onnx"):
        checkpoint_from_onnx(default_model_path("xiangqi"), tmp_path / "data", tmp_path / "out.pt")
