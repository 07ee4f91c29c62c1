"""Make the shipped point classifier an 8-bit one: the same network in about two thirds of the time.

The station reads a frame's 90–132 crops in one batch, and that batch is 85–90 % of a frame's
cost (the rest is cutting the crops). Storing the weights as 8-bit integers (per output channel)
and computing on 8-bit activations lets onnxruntime run the convolutions with integer
instructions; the model also shrinks from 6.2 to 1.9 MB. The classes, the input size, the
temperature and the `embedding` output that adapting to a user's set reads are all kept, and
the head (pooling, last layer, softmax) stays in float, so the probabilities and features come
out as finely as before. What changes is the input: the 8-bit model takes the crops' BGR bytes
as OpenCV cuts them (`take_bytes`), and `vision.detector.PointClassifier` feeds them so.

The weights use 7 of their 8 bits (`reduce_range`). On x86 CPUs without VNNI (AVX2 alone: Intel
before Ice Lake, AMD before Zen 4) onnxruntime multiplies bytes by weights in pairs summed into
16 bits, which overflow with full-range weights (255 × 127 × 2 > 32,767) and saturate: the answers
then depend on the CPU. On such a CPU (an AMD EPYC with AVX2 alone, 2026-12-03) the full-range
models gave the float model's best class on only 99.11 / 98.56 / 97.78 % of held-out crops
(Cờ Tướng / Cờ Tư Lệnh / Cờ Toán) against 99.67 / 99.85 / 100.00 % on a VNNI CPU. With 7-bit
weights no sum can overflow, and every CPU computes the same integers.

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
INPUT_KEY = "input"  # in the 8-bit model's metadata: what it takes
BYTES_INPUT = "BGR bytes (uint8), N x S x S x 3, as OpenCV cuts them; no scaling"
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
    """Write the 8-bit version of the float classifier `source` to `target`, taking BGR bytes."""
    import onnx

    if scenes < 1:
        raise ValueError(f"quantizing needs at least one calibration photo, not {scenes}")
    source, target = Path(source), Path(target)
    if source.resolve() == target.resolve():
        raise ValueError(f"{source} is both the float model and the target: the float model must stay")
    with tempfile.TemporaryDirectory() as scratch:
        float_in = Path(scratch) / "float-in.onnx"
        quantize_float_in(game, source, float_in, scenes, seed)
        quantized = onnx.load(str(float_in))
    take_bytes(quantized)
    float_model = onnx.load(str(source))
    del quantized.metadata_props[:]
    for entry in float_model.metadata_props:
        if entry.key not in (QUANTIZED_KEY, INPUT_KEY):
            quantized.metadata_props.add(key=entry.key, value=entry.value)
    quantized.metadata_props.add(key=QUANTIZED_KEY, value=(
        f"int8 from {source.name}: per-channel int8 weights in 7 bits, uint8 activations (QDQ), ranges at the "
        f"{PERCENTILE:g}th percentile of {scenes} rendered training photos, seed {seed}"))
    quantized.metadata_props.add(key=INPUT_KEY, value=BYTES_INPUT)
    onnx.save(quantized, str(target))


def quantize_float_in(game: str, source: Path, target: Path, scenes: int, seed: int = CALIBRATION_SEED) -> None:
    """The 8-bit model as onnxruntime makes it, still taking the float model's input (RGB in
    [0, 1], channels first), whose 8-bit steps are fixed at 1/255: the bytes a camera gives."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

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
        byte_steps = {input_name: [{"scale": np.array(1 / 255, np.float32), "zero_point": np.array(0, np.uint8)}]}
        quantize_static(str(prepared), str(target), Crops(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
                        reduce_range=True,
                        calibrate_method=CalibrationMethod.Percentile, nodes_to_exclude=head,
                        extra_options={"CalibPercentile": PERCENTILE, "TensorQuantOverrides": byte_steps})


def take_bytes(model) -> None:
    """Make an 8-bit model whose input is quantized in steps of 1/255 take the crops as the
    station cuts them: BGR bytes, N × S × S × 3. Its answers stay the same, bit for bit.

    Quantizing b / 255 in steps of 1/255 gives back b: the input's first step only undid the
    float conversion; and onnxruntime's integer convolutions run channels last, so it turned the
    channels-first batch back before the first one. Now the bytes go straight in: the graph
    turns them channels-first, which onnxruntime's own turn back cancels, and the first
    convolution's weights take the channels in OpenCV's order (blue, green, red) instead of the
    training's (red, green, blue). A frame's crops reach the model with no conversion at all.
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    (image,) = graph.input
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    readers = [node for node in graph.node if image.name in node.input]
    quantize_input = readers[0] if len(readers) == 1 and readers[0].op_type == "QuantizeLinear" else None
    if quantize_input is None or not _in_byte_steps(quantize_input, initializers):
        raise ValueError(f"the model's input {image.name!r} is not quantized to bytes in steps of 1/255 "
                         "(models.quantize.quantize_float_in makes such a model)")
    quantized_image = quantize_input.output[0]
    dequantized = [node.output[0] for node in graph.node if quantized_image in node.input]
    convolutions = [node for node in graph.node if set(dequantized) & set(node.input)]
    if not convolutions or any(node.op_type != "Conv" for node in convolutions):
        raise ValueError("the input does not go straight into convolutions")
    weight_readers = {node.output[0]: node for node in graph.node if node.op_type == "DequantizeLinear"}
    for convolution in convolutions:
        weights = initializers[weight_readers[convolution.input[1]].input[0]]
        weights.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(weights)[:, ::-1].copy(), weights.name))
    position = list(graph.node).index(quantize_input)
    graph.node.remove(quantize_input)
    graph.node.insert(position, helper.make_node("Transpose", [image.name], [quantized_image],
                                                 perm=[0, 3, 1, 2], name="bgr_bytes_to_channels_first"))
    tensor = image.type.tensor_type
    batch, channels, height, width = [(d.dim_param or d.dim_value) for d in tensor.shape.dim]
    tensor.elem_type = TensorProto.UINT8
    for dimension, value in zip(tensor.shape.dim, (batch, height, width, channels), strict=True):
        dimension.Clear()
        if isinstance(value, str):
            dimension.dim_param = value
        else:
            dimension.dim_value = value


def _in_byte_steps(quantize_input, initializers: dict) -> bool:
    from onnx import numpy_helper

    names = quantize_input.input[1:3]
    if len(names) != 2 or not all(name in initializers for name in names):
        return False
    scale, zero_point = (numpy_helper.to_array(initializers[name]) for name in names)
    return zero_point.dtype == np.uint8 and int(zero_point) == 0 and bool(np.isclose(scale, 1 / 255, rtol=1e-6))


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
