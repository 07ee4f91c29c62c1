"""Give a shipped point classifier a second output: the pooled features its last layer reads.

Adapting to a user's set (`vision.adapt`) compares crops by these features (the
classifier's global-average-pooled, flattened activations, 1280 numbers for YOLO11n-cls);
exposing them as an output costs nothing at run time, since the graph computes them anyway.
The probabilities output stays first and unchanged; this script checks that on random input
before it writes the file.

Run once per float model, before `models.quantize` makes the 8-bit one from it (needs the
`onnx` package of the ``[train]`` extra; `models.train` already does it for every export):
``python -m models.add_embedding_output models/xiangqi-points.float.onnx`` (rewrites it in place).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from vision.detector import EMBEDDING_OUTPUT


def _final_gemm(graph):
    """The classifier's last layer; its input is the pooled, flattened features."""
    gemms = [node for node in graph.node if node.op_type == "Gemm"]
    if not gemms:
        raise ValueError("no Gemm node: not an ultralytics classification export")
    return gemms[-1]


def add_embedding_output(source: Path, target: Path) -> int:
    """Write `source` with an added `embedding` output to `target`; returns the embedding width."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(str(source))
    graph = model.graph
    if any(output.name == EMBEDDING_OUTPUT for output in graph.output):
        raise ValueError(f"{source} already has an {EMBEDDING_OUTPUT!r} output")
    gemm = _final_gemm(graph)
    features = gemm.input[0]
    weight = next(init for init in graph.initializer if init.name == gemm.input[1])
    trans_b = any(a.name == "transB" and a.i for a in gemm.attribute)
    width = int(weight.dims[1] if trans_b else weight.dims[0])
    graph.node.append(onnx.helper.make_node("Identity", [features], [EMBEDDING_OUTPUT], name="embedding_out"))
    graph.output.append(onnx.helper.make_tensor_value_info(EMBEDDING_OUTPUT, onnx.TensorProto.FLOAT,
                                                           ["batch", width]))
    onnx.checker.check_model(model)
    data = model.SerializeToString()

    before = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"])
    after = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    name = before.get_inputs()[0].name
    size = before.get_inputs()[0].shape[2]
    size = size if isinstance(size, int) else 64
    batch = np.random.default_rng(0).random((8, 3, size, size), dtype=np.float32)
    (old,) = before.run(None, {name: batch})
    new, embedding = after.run(None, {name: batch})
    if not np.array_equal(old, new):
        raise RuntimeError(f"probabilities changed by adding the output (max diff {np.abs(old - new).max()})")
    if embedding.shape != (8, width):
        raise RuntimeError(f"embedding has shape {embedding.shape}, expected (8, {width})")
    target.write_bytes(data)
    return width


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models", type=Path, nargs="+")
    args = parser.parse_args()
    for path in args.models:
        width = add_embedding_output(path, path)
        print(f"{path}: added {EMBEDDING_OUTPUT!r} ({width} features); probabilities identical")


if __name__ == "__main__":
    main()
