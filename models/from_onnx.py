"""A shipped ONNX classifier turned back into a checkpoint that training can go on from.

Only the ONNX files ship (`models/*-points.onnx`, 8-bit, and the float models they were made
from, `models/*-points.float.onnx`, which are the ones to train on from); the runs' ``best.pt``
stay where they were trained. The exporter folded every batch norm into the convolution before it, so the file holds
one weight and one bias per convolution. Unfolding is not unique: any batch norm whose scale and
shift make the same product serves the model in inference, but training normalises by each
batch's own statistics, so the batch norms here are set to the statistics the training data
actually gives at each convolution's output. Training then starts where the shipped model is,
instead of from a model whose every layer a batch suddenly rescales.

Needs the training environment (torch, ultralytics, onnx); the runtime never imports it.
"""

from __future__ import annotations

import ast
import os
import random
from pathlib import Path

import cv2
import numpy as np

from models.quantize import refuse_8_bit
from vision.detector import _batch

SAMPLE_IMAGES = 1024  # training crops the batch-norm statistics are measured on


def checkpoint_from_onnx(model_path: Path, data: Path, out: Path, yaml: str = "yolo11n-cls.yaml",
                         seed: int = 0) -> Path:
    """Write `out`, an ultralytics checkpoint of `model_path`'s weights, with batch norms set to
    the statistics of crops from `data/train/<class>/`; the model reads as the ONNX file does."""
    refuse_8_bit(model_path)
    import onnx
    import torch
    from onnx import numpy_helper

    os.environ.setdefault("YOLO_OFFLINE", "true")
    from ultralytics import YOLO

    graph = onnx.load(str(model_path))
    weights = {i.name: numpy_helper.to_array(i) for i in graph.graph.initializer}
    meta = {p.key: p.value for p in graph.metadata_props}
    names = ast.literal_eval(meta["names"])
    imgsz = ast.literal_eval(meta.get("imgsz", "[64, 64]"))[0]
    _check_classes(names, data)

    yolo = YOLO(yaml)
    torch_model = yolo.model
    torch_model.model[-1].linear = torch.nn.Linear(torch_model.model[-1].linear.in_features, len(names))
    torch_model.names = names
    torch_model.nc = len(names)
    torch_model.yaml["nc"] = len(names)
    modules = dict(torch_model.named_modules())
    convolutions = {}
    with torch.no_grad():
        for name, array in weights.items():
            if not name.endswith(".weight") or name.endswith("linear.weight"):
                continue
            owner = name[: -len(".conv.weight")]
            block = modules.get(owner)
            if block is None or not hasattr(block, "bn") or tuple(block.conv.weight.shape) != array.shape:
                raise ValueError(f"{model_path.name}: {name} {array.shape} has no place in {yaml}")
            block.conv.weight.copy_(torch.from_numpy(array))
            convolutions[owner] = (block, torch.from_numpy(weights[owner + ".conv.bias"]))
        linear, head = torch_model.model[-1].linear, f"model.{len(torch_model.model) - 1}.linear"
        linear.weight.copy_(torch.from_numpy(weights[head + ".weight"]))
        linear.bias.copy_(torch.from_numpy(weights[head + ".bias"]))
    unfilled = [n for n, m in modules.items() if hasattr(m, "bn") and hasattr(m, "conv") and n not in convolutions]
    if unfilled:
        raise ValueError(f"{model_path.name} lacks the convolutions {unfilled[:5]} of {yaml}")

    # First every batch norm passes its input through and adds the folded bias: the model is then
    # the ONNX file's, and each convolution's output statistics are those the shipped model sees.
    for block, bias in convolutions.values():
        bn = block.bn
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)
        bn.weight.data.fill_(1.0)
        bn.bias.data.copy_(bias)
    sums = {owner: [0.0, 0.0, 0] for owner in convolutions}

    def recorder(owner):
        def hook(_module, _inputs, output):
            flat = output.double().transpose(0, 1).reshape(output.shape[1], -1)
            sums[owner][0] = sums[owner][0] + flat.sum(1)
            sums[owner][1] = sums[owner][1] + (flat * flat).sum(1)
            sums[owner][2] += flat.shape[1]
        return hook

    hooks = [block.conv.register_forward_hook(recorder(owner)) for owner, (block, _) in convolutions.items()]
    torch_model.float().eval()
    batch = _sample(data, imgsz, seed)
    with torch.no_grad():
        for start in range(0, len(batch), 128):
            torch_model(torch.from_numpy(batch[start:start + 128]))
    for hook in hooks:
        hook.remove()
    # Then each is set to the measured mean and spread, with a scale and shift that undo them:
    # the same model in inference, and a batch of like crops in training normalises to it too.
    with torch.no_grad():
        for owner, (block, bias) in convolutions.items():
            total, squares, count = sums[owner]
            mean = total / count
            var = (squares / count - mean * mean).clamp(min=0.0)
            bn = block.bn
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((bias.double() + mean).float())
    yolo.model = torch_model
    out.parent.mkdir(parents=True, exist_ok=True)
    yolo.save(str(out))
    return out


def _check_classes(names: dict, data: Path) -> None:
    folders = sorted(p.name for p in (data / "train").iterdir() if p.is_dir())
    ordered = [names[k] for k in sorted(names)]
    if folders != ordered:
        raise ValueError(f"the dataset's classes {folders} are not the model's {ordered}")


def _sample(data: Path, imgsz: int, seed: int) -> np.ndarray:
    """Up to SAMPLE_IMAGES training crops as the model's batch (`vision.detector`'s conversion)."""
    files = sorted((data / "train").glob("*/*.png")) + sorted((data / "train").glob("*/*.jpg"))
    if not files:
        raise ValueError(f"no training crops under {data / 'train'}")
    random.Random(seed).shuffle(files)
    images = []
    for file in files[:SAMPLE_IMAGES]:
        image = cv2.imread(str(file), cv2.IMREAD_COLOR)
        if image.shape[:2] != (imgsz, imgsz):
            image = cv2.resize(image, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
        images.append(image)
    return _batch(np.stack(images))
