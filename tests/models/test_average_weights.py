"""Averaging the weights of two float models of one network (`models.average_weights`)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from models.average_weights import MismatchedModelsError, average_weights
from models.quantize import float_model_path
from vision.detector import PointClassifier


def _scaled_copy(path, out, factor: float) -> None:
    """The shipped Cờ Toán float model with its classifier head's weights scaled."""
    model = onnx.load(str(path))
    head = max((t for t in model.graph.initializer if numpy_helper.to_array(t).ndim == 2),
               key=lambda t: numpy_helper.to_array(t).size)
    head.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(head) * np.float32(factor), head.name))
    onnx.save(model, str(out))


def _weights(path) -> dict[str, np.ndarray]:
    return {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}


def test_the_mean_of_two_models_is_weight_by_weight_and_keeps_the_first_models_metadata(tmp_path):
    shipped = float_model_path("cotoan")
    tripled = tmp_path / "tripled.onnx"
    _scaled_copy(shipped, tripled, 3.0)
    out = tmp_path / "mean.onnx"
    assert average_weights([shipped, tripled], out) > 50
    original, scaled, mean = _weights(shipped), _weights(tripled), _weights(out)
    changed = [name for name in original if not np.array_equal(original[name], scaled[name])]
    assert len(changed) == 1  # the head only
    assert np.allclose(mean[changed[0]], 2 * original[changed[0]], rtol=1e-6)
    assert all(np.array_equal(mean[name], original[name]) for name in original if name not in changed)
    assert onnx.load(str(out)).metadata_props == onnx.load(str(shipped)).metadata_props
    # Shares weigh the models: 3 parts of the first to 1 of the second.
    average_weights([shipped, tripled], out, shares=[3, 1])
    assert np.allclose(_weights(out)[changed[0]], 1.5 * original[changed[0]], rtol=1e-6)


def test_the_station_reads_the_mean_as_it_reads_either_model(tmp_path):
    shipped = float_model_path("cotoan")
    out = tmp_path / "mean.onnx"
    average_weights([shipped, shipped], out)
    crops = np.random.default_rng(3).integers(0, 256, (4, 64, 64, 3), dtype=np.uint8)
    assert np.allclose(PointClassifier("cotoan", out)(crops), PointClassifier("cotoan", shipped)(crops), atol=1e-6)


def test_models_of_different_networks_are_refused_by_name(tmp_path):
    other = tmp_path / "commander.onnx"
    other.write_bytes(float_model_path("commander").read_bytes())
    with pytest.raises(MismatchedModelsError, match="commander.onnx"):
        average_weights([float_model_path("cotoan"), other], tmp_path / "mean.onnx")
    # A weight the first model lacks is refused too, not left out of the mean.
    extra = onnx.load(str(float_model_path("cotoan")))
    extra.graph.initializer.append(numpy_helper.from_array(np.zeros(3, np.float32), "spare"))
    onnx.save(extra, str(tmp_path / "extra.onnx"))
    with pytest.raises(MismatchedModelsError, match="spare"):
        average_weights([float_model_path("cotoan"), tmp_path / "extra.onnx"], tmp_path / "mean.onnx")
    with pytest.raises(ValueError, match="two models"):
        average_weights([float_model_path("cotoan")], tmp_path / "mean.onnx")
