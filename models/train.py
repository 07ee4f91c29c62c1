"""Training the point classifiers with ultralytics, offline, and exporting them to ONNX.

Needs the `[train]` extra (ultralytics, torch); the runtime never imports this module's
dependencies. Class names are ASCII, plots are off (ultralytics would fetch a font for
them), and `YOLO_OFFLINE` is set before ultralytics is imported so nothing is downloaded.

Why classify point crops instead of detecting pieces on the whole frame: the calibration
already says where every point is, so a crop classifier answers the only question asked
(what stands on this point?) with a 64 px input per point, one batch per frame, and the
board's geometry does the localisation; see MODEL_CARD.md for the measured comparison.
"""

from __future__ import annotations

import os
from pathlib import Path

MODEL_YAML = "yolo11n-cls.yaml"
SETTINGS = {"optimizer": "AdamW", "lr0": 0.002, "warmup_epochs": 1.0, "cos_lr": True}
# Training on from a model: a quarter of the first rate, no warm-up (the third Cờ Tướng model).
FINE_TUNING = {"lr0": 0.0005, "warmup_epochs": 0.0}
# The network halves its input five times. ultralytics trains any other size at the next multiple
# of this, yet labels the exported model with the size asked for, at which the station then cuts
# its crops: a Cờ Tướng model asked for at 48 px trained at 64 and read half of its own validation
# crops right at 48 (2026-12-03).
STRIDE = 32


def check_imgsz(imgsz: int) -> int:
    if imgsz < STRIDE or imgsz % STRIDE:
        raise ValueError(f"input size {imgsz} px: the point classifier's must be a multiple of {STRIDE} "
                         f"(the network's stride), such as {STRIDE} or {2 * STRIDE}")
    return imgsz


def train_classifier(data: Path, out: Path, epochs: int = 10, imgsz: int = 64, batch: int = 128,
                     workers: int = 2, seed: int = 0, fraction: float = 1.0, name: str = "points",
                     hours: float | None = None, init: Path | None = None, device: str = "cpu",
                     **overrides) -> Path:
    """Train on `data/{train,val}/<class>/` and write `out` (an .onnx file): from scratch, or, given
    `init` (an earlier run's ``best.pt``, or a shipped ``.onnx`` model: `models.from_onnx`), on
    from those weights.

    `hours` bounds the training's wall time (ultralytics then fits the epochs to it). `device` is
    ultralytics' own: "cpu", or a CUDA device such as "0" (in full precision there too: ultralytics
    would fetch a model to check mixed precision first)."""
    check_imgsz(imgsz)
    os.environ.setdefault("YOLO_OFFLINE", "true")
    os.environ.setdefault("YOLO_VERBOSE", "false")
    from ultralytics import YOLO
    from ultralytics.utils import torch_utils

    # ultralytics trains on cpu_count - 1 threads, leaving a core to the data loader, yet on the
    # CPU it loads data in the training thread itself (workers=0): on two cores, half idled.
    torch_utils.NUM_THREADS = len(os.sched_getaffinity(0))
    run_dir = out.resolve().parent / f".runs-{name}"  # absolute: ultralytics puts relative ones under runs/
    if init and Path(init).suffix == ".onnx":
        from models.from_onnx import checkpoint_from_onnx

        init = checkpoint_from_onnx(Path(init), Path(data), run_dir / "from-onnx.pt", yaml=MODEL_YAML, seed=seed)
    model = YOLO(str(init) if init else MODEL_YAML)
    settings = SETTINGS | overrides
    if hours:
        settings["time"] = hours
    # ultralytics' classification trainer resets every layer unless `pretrained`, even those of
    # weights it was given.
    model.train(data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers, device=device,
                pretrained=bool(init), amp=False, plots=False, seed=seed, deterministic=True, fraction=fraction,
                project=str(run_dir), name="train", exist_ok=True, verbose=False,
                # Each data-loader worker would keep its own copy of the crops it has read.
                cache="ram" if device == "cpu" else False,
                # Mirrored glyphs and swapped hues are other pieces, not augmentations.
                fliplr=0.0, flipud=0.0, hsv_h=0.0, hsv_s=0.3, hsv_v=0.3, auto_augment=None, erasing=0.1,
                degrees=180.0, translate=0.06, scale=0.15, **settings)
    best = run_dir / "train" / "weights" / "best.pt"
    trained = YOLO(str(best))
    exported = Path(trained.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False, opset=17))
    out.parent.mkdir(parents=True, exist_ok=True)
    # Shipped ready for adapting to a user's set, which compares the pooled features.
    from models.add_embedding_output import add_embedding_output

    add_embedding_output(exported, out)
    return out


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Train a point classifier on a crop dataset and export it to ONNX.")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--hours", type=float, default=None, help="wall-time bound; overrides --epochs")
    parser.add_argument("--imgsz", type=int, default=64, help="input size; the station cuts crops at the model's size")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--name", default="points")
    parser.add_argument("--init", type=Path, default=None,
                        help="an earlier run's best.pt, or a float .onnx model "
                        "(models/<game>-points.float.onnx), to train on from")
    parser.add_argument("--lr0", type=float, default=SETTINGS["lr0"], help="initial learning rate")
    parser.add_argument("--warmup-epochs", type=float, default=SETTINGS["warmup_epochs"])
    parser.add_argument("--device", default="cpu", help='"cpu", or a CUDA device such as "0"')
    args = parser.parse_args()
    try:  # train_classifier checks the input size before anything else
        out = train_classifier(args.data, args.out, epochs=args.epochs, imgsz=args.imgsz, batch=args.batch,
                               workers=args.workers, seed=args.seed, name=args.name, hours=args.hours,
                               init=args.init, lr0=args.lr0, warmup_epochs=args.warmup_epochs, device=args.device)
    except ValueError as error:  # the input size, or ultralytics' own, such as a CUDA device this machine lacks
        parser.error(str(error).strip().splitlines()[0])
    print(out)


if __name__ == "__main__":
    main()
