"""Average the weights of point classifiers trained from one model: one network, one graph.

Two fine-tuning runs from the same start land near each other, and the network whose weights
are their mean often reads better than either (Wortsman et al., "Model soups: averaging weights
of multiple fine-tuned models improves accuracy without increasing inference time", ICML 2022).
Each game's shipped model is such a mean (`MODEL_CARD.md` names the runs behind each):

``python -m models.average_weights models/cotoan-points.float.onnx run/cotoan.float.onnx
--out models/cotoan-points.float.onnx`` (needs the `onnx` package of the ``[train]`` extra), then
``python -m models.quantize --game cotoan``. The first model's graph and metadata (classes, size,
temperature) are kept; every floating-point weight becomes the (weighted) mean.
"""

from __future__ import annotations

import argparse
from pathlib import Path


class MismatchedModelsError(ValueError):
    """The models are not one network: their weights differ in name, shape or type."""


def average_weights(paths: list[Path], out: Path, shares: list[float] | None = None) -> int:
    """Write to `out` the first model with every floating-point weight replaced by the mean of
    that weight over all `paths` (each counted by its share, equal if none are given); the
    number of weights averaged."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    if len(paths) < 2:
        raise ValueError("averaging needs two models or more")
    shares = [1.0] * len(paths) if shares is None else shares
    if len(shares) != len(paths) or min(shares) < 0 or sum(shares) <= 0:
        raise ValueError(f"one share per model, none negative, not all zero: {shares}")
    weights = np.array(shares, dtype=np.float64) / sum(shares)
    models = [onnx.load(str(path)) for path in paths]
    others = [{tensor.name: tensor for tensor in model.graph.initializer} for model in models[1:]]
    names = {tensor.name for tensor in models[0].graph.initializer}
    for path, named in zip(paths[1:], others, strict=True):
        if set(named) != names:
            odd = sorted(names ^ set(named))
            raise MismatchedModelsError(f"{path} and {paths[0]} differ in the weights {', '.join(odd[:3])}"
                                        f"{' …' if len(odd) > 3 else ''}: not one network")
    averaged = 0
    for tensor in models[0].graph.initializer:
        first = numpy_helper.to_array(tensor)
        arrays = [first]
        for path, named in zip(paths[1:], others, strict=True):
            array = numpy_helper.to_array(named[tensor.name])
            if array.shape != first.shape or array.dtype != first.dtype:
                raise MismatchedModelsError(f"weight {tensor.name!r} is {array.dtype} {array.shape} in {path} "
                                            f"but {first.dtype} {first.shape} in {paths[0]}")
            arrays.append(array)
        if first.dtype.kind != "f":
            continue  # shapes and indices: the same in every model, nothing to average
        mean = sum(w * a.astype(np.float64) for w, a in zip(weights, arrays, strict=True))
        tensor.CopyFrom(numpy_helper.from_array(mean.astype(first.dtype), tensor.name))
        averaged += 1
    onnx.save(models[0], str(out))
    return averaged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", type=Path, nargs="+", help="float ONNX models of one network")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--shares", type=float, nargs="+", default=None,
                        help="each model's share of the mean (default: equal)")
    args = parser.parse_args()
    missing = [str(path) for path in args.models if not path.is_file()]
    if missing:
        parser.error(f"no such model: {', '.join(missing)}")
    try:
        count = average_weights(args.models, args.out, args.shares)
    except ValueError as error:
        parser.error(str(error))
    print(f"{args.out}: {count} weights averaged over {len(args.models)} models")


if __name__ == "__main__":
    main()
