"""The shipped models' second output (`models.add_embedding_output`) and models without it."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from models.add_embedding_output import add_embedding_output
from models.quantize import float_model_path
from vision.adapt import Adaptation
from vision.detector import EMBEDDING_OUTPUT, ModelNotFoundError, PointClassifier


@pytest.fixture(scope="module")
def bare_model(tmp_path_factory):
    """The Cờ Toán float model as it was exported, before it was quantized: probabilities only."""
    model = onnx.load(str(float_model_path("cotoan")))
    kept = [output for output in model.graph.output if output.name != EMBEDDING_OUTPUT]
    del model.graph.output[:]
    model.graph.output.extend(kept)
    nodes = [node for node in model.graph.node if EMBEDDING_OUTPUT not in node.output]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    path = tmp_path_factory.mktemp("bare") / "cotoan-bare.onnx"
    onnx.save(model, str(path))
    return path


def test_every_shipped_model_has_the_embedding_output():
    for game in ("xiangqi", "commander", "cotoan"):
        assert PointClassifier(game).has_embedding


def test_adding_the_output_keeps_the_probabilities(bare_model, tmp_path):
    bare = PointClassifier("cotoan", bare_model)
    assert not bare.has_embedding
    crops = np.random.default_rng(4).integers(0, 255, (6, bare.size, bare.size, 3), dtype=np.uint8)
    with pytest.raises(ModelNotFoundError, match="no 'embedding' output"):
        bare.probabilities_and_embeddings(crops)
    rebuilt = tmp_path / "cotoan.onnx"
    assert add_embedding_output(bare_model, rebuilt) == 1280
    full = PointClassifier("cotoan", rebuilt)
    probabilities, embeddings = full.probabilities_and_embeddings(crops)
    np.testing.assert_array_equal(probabilities, bare(crops))
    np.testing.assert_array_equal(probabilities, PointClassifier("cotoan", float_model_path("cotoan"))(crops))
    assert embeddings.shape == (6, 1280)
    with pytest.raises(ValueError, match="already has an 'embedding' output"):
        add_embedding_output(rebuilt, tmp_path / "twice.onnx")


def test_a_model_without_features_still_serves_a_template_adaptation(bare_model):
    from calibration import BoardLayout, Calibration
    from games import get
    from vision.detector import Detector

    layout = BoardLayout.for_game(get("cotoan"))
    calibration = Calibration.from_corners(layout, [(100, 600), (700, 600), (700, 40), (100, 40)], (800, 640))
    bare = PointClassifier("cotoan", bare_model)
    classes = bare.classes
    templates_only = Adaptation("cotoan", classes, np.zeros(0), np.ones(0), None, None, None, 20.0, 1.0, "templates")
    frame = np.full((640, 800, 3), 200, np.uint8)
    observation = Detector("cotoan", calibration, classifier=bare, adaptation=templates_only).observe(frame)
    assert observation.probabilities.shape == (99, len(classes))
    np.testing.assert_allclose(observation.probabilities.sum(axis=1), 1.0, atol=1e-6)
    with_head = Adaptation("cotoan", classes, np.zeros(1280), np.ones(1280), None, np.zeros((1280, len(classes))),
                           np.zeros(len(classes)), 20.0, 1.0, "head")
    with pytest.raises(ModelNotFoundError, match="which the adaptation to the user's set reads"):
        Detector("cotoan", calibration, classifier=bare, adaptation=with_head)
