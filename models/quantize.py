"""Make the shipped point classifier an 8-bit one: the same network in about three quarters of the time.

The station reads a frame's 90–132 crops in one batch, and that batch is 85–90 % of a frame's
cost (the rest is cutting the crops). Storing the weights as 8-bit integers (per output channel)
and computing on 8-bit activations lets onnxruntime run the convolutions with integer
instructions; the model also shrinks from 6.2 to 1.9 MB. Nothing else changes: the classes, the
input size, the temperature and the `embedding` output that adapting to a user's set reads are
all kept, and the head (pooling, last layer, softmax) stays in float, so the probabilities and
features come out as finely as before (`vision.detector.PointClassifier` reads the file as before).

Each activation's 8-bit range is fixed once, from the crops of rendered photos of the *training*
split (never the held-out one `models.evaluate` scores), a third of them with hands over the
board so that the occluded class's activations are covered too. The range is the 99.999th
percentile of each activation's magnitude, not its maximum: one outlying crop would otherwise
stretch the range and coarsen every other crop's reading (in a scratch run on 100 held-out Cờ
Tướng photos the maximum lost 5 of the float model's 41 boards read exactly; `MODEL_CARD.md`).

The float model stays beside it as ``models/<game>-points.float.onnx``: training on from a
shipped model (`models.from_onnx`) and quantizing again both start from it.

``python -m models.quantize --game xiangqi`` (needs the `onnx` package, in the ``[train]`` and
``[dev]`` extras; torch is not needed).
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

import numpy as np

from models.synth.scene import render_scene
from vision.crops import CropExtractor
from vision.detector import PointClassifier, _batch, default_model_path

QUANTIZED_KEY = "quantized"  # in the 8-bit model's metadata: how it was made
CALIBRATION_SEED = 31  # a training-split seed of its own
PERCENTILE = 99.999
# The head stays in float. In 8 bits the probabilities would come out in steps of about 1/256,
# the unlikely classes as exactly 0; the tracker adds log-probabilities, and a temperature only
# softens what is there. Adapting to a user's set compares the pooled features. The head is a
# pooling and one small layer: it costs nothing to keep.
FLOAT_HEAD = ("GlobalAveragePool", "Flatten", "Gemm", "Softmax")


def float_model_beside(path: Path) -> Path:
    """Where the float model an 8-bit `<name>.onnx` is made from lies: `<name>.float.onnx`."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".onnx") + ".float.onnx")


def float_model_path(game: str) -> Path:
    return float_model_beside(default_model_path(game))


def refuse_8_bit(path: Path) -> None:
    """Raise `ValueError` unless `path` is a float model that training can go on from."""
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own kinds for a file it cannot read
        raise ValueError(f"{path} is not an ONNX model onnxruntime can read ({error})") from error
    if QUANTIZED_KEY in session.get_modelmeta().custom_metadata_map:
        raise ValueError(f"{path} is an 8-bit model; train on from its float model, {float_model_beside(path)}")


def calibration_batches(classifier: PointClassifier, scenes: int, seed: int = CALIBRATION_SEED) -> list[np.ndarray]:
    """One batch of crops per rendered training-split photo, as the station cuts them."""
    game = classifier.game
    rng = random.Random(seed)
    batches = []
    for number in range(scenes):
        scene = render_scene(game, rng, split="train", hands=number % 3 == 0)
        crops = CropExtractor(scene.calibration, classifier.size).extract(scene.image).images
        batches.append(_batch(crops))
    return batches


def quantize(game: str, source: Path, target: Path, scenes: int = 100, seed: int = CALIBRATION_SEED) -> None:
    """Write the 8-bit version of the float classifier `source` to `target`."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if scenes < 1:
        raise ValueError(f"quantizing needs at least one calibration photo, not {scenes}")
    source, target = Path(source), Path(target)
    if source.resolve() == target.resolve():
        raise ValueError(f"{source} is both the float model and the target: the float model must stay")
    classifier = PointClassifier(game, source)
    batches = calibration_batches(classifier, scenes, seed)
    input_name = classifier.input_name

    class Crops(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(batches)

        def get_next(self):
            batch = next(self.left, None)
            return None if batch is None else {input_name: batch}

    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / "prepared.onnx"
        # Folds and shape-annotates the graph first, as onnxruntime recommends before static
        # quantization; the symbolic pass would need sympy and the shapes here are all fixed
        # but the batch.
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        head = [node.name for node in onnx.load(str(prepared)).graph.node if node.op_type in FLOAT_HEAD]
        quantize_static(str(prepared), str(target), Crops(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
                        calibrate_method=CalibrationMethod.Percentile, nodes_to_exclude=head,
                        extra_options={"CalibPercentile": PERCENTILE})
    float_model, quantized = onnx.load(str(source)), onnx.load(str(target))
    del quantized.metadata_props[:]
    for entry in float_model.metadata_props:
        if entry.key != QUANTIZED_KEY:
            quantized.metadata_props.add(key=entry.key, value=entry.value)
    quantized.metadata_props.add(key=QUANTIZED_KEY, value=(
        f"int8 from {source.name}: per-channel int8 weights, uint8 activations (QDQ), ranges at the "
        f"{PERCENTILE:g}th percentile of {scenes} rendered training photos, seed {seed}"))
    onnx.save(quantized, str(target))


def agreement(game: str, float_model: Path, quantized: Path, scenes: int = 10, seed: int = 20261203) -> float:
    """Share of crops of held-out rendered photos on which both models give the same best class."""
    first, second = PointClassifier(game, float_model), PointClassifier(game, quantized)
    rng = random.Random(seed)
    same = total = 0
    for _ in range(scenes):
        scene = render_scene(game, rng, split="test", hands=False)
        crops = CropExtractor(scene.calibration, first.size).extract(scene.image).images
        same += int(np.sum(first(crops).argmax(axis=1) == second(crops).argmax(axis=1)))
        total += len(crops)
    return same / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--source", type=Path, help="the float model (default: models/<game>-points.float.onnx)")
    parser.add_argument("--out", type=Path, help="default: models/<game>-points.onnx, the one the station reads")
    parser.add_argument("--scenes", type=int, default=100, help="rendered training photos that set the ranges")
    parser.add_argument("--seed", type=int, default=CALIBRATION_SEED)
    args = parser.parse_args()
    source = args.source or float_model_path(args.game)
    target = args.out or default_model_path(args.game)
    if not source.is_file():
        parser.error(f"no float model at {source}")
    if args.scenes < 1:
        parser.error(f"--scenes must be at least 1, not {args.scenes}")
    quantize(args.game, source, target, args.scenes, args.seed)
    same = agreement(args.game, source, target)
    print(f"{target}: {target.stat().st_size / 1e6:.1f} MB (float {source.stat().st_size / 1e6:.1f} MB); "
          f"same best class as the float model on {same:.2%} of held-out rendered crops")


if __name__ == "__main__":
    main()
