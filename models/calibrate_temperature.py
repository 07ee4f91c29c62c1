"""Write a softening temperature into a point classifier's metadata.

A classifier trained to convergence gives its wrong answers with near certainty. The tracker
(`vision.inference`) adds per-point log-likelihoods and commits when one explanation beats the
next by a margin in nats, so one confidently misread point can carry a wrong move. Dividing
the log-probabilities by a temperature T softens every answer alike and leaves each point's
best class unchanged.

``python -m models.calibrate_temperature models/commander-points.float.onnx --temperature 2.5``
(needs the `onnx` package of the ``[train]`` extra; rewrites the file in place), then
``python -m models.quantize --game commander``, which copies T into the 8-bit model the station
reads. The card (`MODEL_CARD.md`) says how each shipped model's T was chosen.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.detector import TEMPERATURE_KEY


def set_temperature(path: Path, temperature: float) -> None:
    import onnx

    if not temperature > 0:
        raise ValueError(f"a temperature must be positive, not {temperature}")
    model = onnx.load(str(path))
    kept = [entry for entry in model.metadata_props if entry.key != TEMPERATURE_KEY]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    entry = model.metadata_props.add()
    entry.key, entry.value = TEMPERATURE_KEY, f"{temperature:g}"
    onnx.save(model, str(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model", type=Path)
    parser.add_argument("--temperature", type=float, required=True)
    args = parser.parse_args()
    set_temperature(args.model, args.temperature)
    print(f"{args.model}: temperature {args.temperature:g}")


if __name__ == "__main__":
    main()
