"""`banco train` hands its data recipe to the dataset builder and refuses a share out of range.

The training itself needs torch (the [train] extra); tests/models/test_train_smoke.py runs it.
Here the builder, the trainer and the quantizer are replaced by recorders, so only the command's
own wiring is tested (tests/models/test_quantize.py quantizes for real)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import models.quantize
import models.synth.dataset
import models.train
from banco.cli import app

runner = CliRunner()


@pytest.fixture
def recorded(monkeypatch):
    calls = {}

    def build(game, out, scenes, seed, real=None, **options):
        calls["build"] = {"game": game, "out": out, "scenes": scenes, "seed": seed, "real": real, **options}

    def train_classifier(data, target, **options):
        calls["train"] = {"data": data, "target": target, **options}

    def quantize(game, source, target):
        calls["quantize"] = {"game": game, "source": source, "target": target}

    monkeypatch.setattr(models.synth.dataset, "build", build)
    monkeypatch.setattr(models.train, "train_classifier", train_classifier)
    monkeypatch.setattr(models.quantize, "quantize", quantize)
    return calls


def test_the_shipped_recipe_is_the_default(recorded, tmp_path):
    result = runner.invoke(app, ["train", "--game", "xiangqi", "--scenes", "2", "--data", str(tmp_path / "ds"),
                                 "--out", str(tmp_path / "m.onnx")])
    assert result.exit_code == 0, result.output
    build = recorded["build"]
    assert (build["game"], build["scenes"], build["knocked"], build["real_copies"]) == ("xiangqi", 2, 0.35, 3)
    # The float model is trained, then made 8-bit at the path the station is given.
    assert recorded["train"]["target"] == tmp_path / "m.float.onnx"
    assert recorded["quantize"] == {"game": "xiangqi", "source": tmp_path / "m.float.onnx",
                                    "target": tmp_path / "m.onnx"}
    assert result.output.strip().splitlines()[-1].startswith(f"wrote {tmp_path / 'm.onnx'} (8-bit")


def test_knocked_and_real_copies_reach_the_dataset(recorded, tmp_path):
    result = runner.invoke(app, ["train", "--game", "commander", "--scenes", "3", "--knocked", "0.6", "--real-copies",
                                 "1", "--data", str(tmp_path / "ds"), "--out", str(tmp_path / "m.onnx")])
    assert result.exit_code == 0, result.output
    build = recorded["build"]
    assert (build["game"], build["knocked"], build["real_copies"], build["real"]) == ("commander", 0.6, 1, None)


def test_training_on_from_a_model_lowers_the_learning_rate(recorded, tmp_path):
    shipped = tmp_path / "shipped.float.onnx"
    shipped.write_bytes(models.quantize.float_model_path("cotoan").read_bytes())
    result = runner.invoke(app, ["train", "--game", "cotoan", "--init", str(shipped), "--data", str(tmp_path / "ds"),
                                 "--out", str(tmp_path / "m.onnx")])
    assert result.exit_code == 0, result.output
    assert recorded["train"]["init"] == shipped
    assert recorded["train"]["lr0"] < models.train.SETTINGS["lr0"] and recorded["train"]["warmup_epochs"] == 0
    fresh = runner.invoke(app, ["train", "--data", str(tmp_path / "ds"), "--out", str(tmp_path / "m.onnx")])
    assert fresh.exit_code == 0 and "init" not in recorded["train"]


def test_a_missing_model_to_train_on_from_is_named(recorded, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a short path: the error panel wraps a long one mid-name
    result = runner.invoke(app, ["train", "--init", "nope.onnx", "--data", "ds"])
    assert result.exit_code == 2
    assert "nope.onnx" in result.output and "build" not in recorded


def test_a_file_that_is_no_model_to_train_on_from_is_named(recorded, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.onnx").write_text("not a model")
    result = runner.invoke(app, ["train", "--init", "notes.onnx", "--data", "ds"])
    assert result.exit_code == 2
    assert "notes.onnx is not an ONNX model" in result.output and "build" not in recorded


@pytest.mark.parametrize("share", ["1.5", "-0.1"])
def test_a_share_out_of_range_is_named(recorded, tmp_path, share):
    result = runner.invoke(app, ["train", "--knocked", share, "--data", str(tmp_path / "ds")])
    assert result.exit_code == 2
    assert "--knocked" in result.output
    assert "build" not in recorded


def test_the_builder_refuses_a_share_out_of_range(tmp_path):
    with pytest.raises(ValueError, match="knocked"):
        models.synth.dataset.build("cotoan", tmp_path, scenes=1, seed=0, knocked=2.0)
