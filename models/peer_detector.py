"""The full-frame detector that benchmarks/vision.py times against the point classifiers.

The peer is the usual way to read pieces off a photo: ultralytics YOLO11n *detect* (boxes and
classes over the whole frame, nc = the game's piece classes) at 640 px. banco has no trained
full-frame detector, and a speed comparison does not need one: what a frame costs depends on
the architecture and the input size, not on the weights. So this exports the architecture with
its untrained (seeded, initial) weights. Such a model reads nothing, and is never shipped: it
is written into the cache (BANCO_CACHE_DIR, else the user's cache folder), ``detectors/``.

Needs the `[train]` extra (ultralytics, torch): ``make detector-onnx``, or
``.venv-train/bin/python -m models.peer_detector [--game xiangqi]``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from models.synth.video import cache_dir
from vision.classes import CLASSES, piece_classes

PEER_IMGSZ = 640
PEER_ARCHITECTURE = "yolo11n.yaml"


def peer_detector_path(game: str, imgsz: int = PEER_IMGSZ) -> Path:
    """Where the untrained peer detector of `game` is (or would be) exported."""
    piece_classes(game)  # a clear ValueError for an unknown game
    return cache_dir().parent / "detectors" / f"{game}-yolo11n-detect-{imgsz}-untrained.onnx"


def export_peer_detector(game: str, out: Path | None = None, imgsz: int = PEER_IMGSZ, seed: int = 0) -> Path:
    """Build YOLO11n-detect with one class per piece of `game`, untrained, and export it to ONNX."""
    os.environ.setdefault("YOLO_OFFLINE", "true")
    os.environ.setdefault("YOLO_VERBOSE", "false")
    import torch
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    names = piece_classes(game)
    out = Path(out) if out else peer_detector_path(game, imgsz)
    torch.manual_seed(seed)
    wrapper = YOLO(PEER_ARCHITECTURE)
    # The YAML says nc=80 (COCO); the peer has the game's piece classes, as a trained one would.
    wrapper.model = DetectionModel(PEER_ARCHITECTURE, nc=len(names), verbose=False)
    wrapper.model.names = dict(enumerate(names))
    with tempfile.TemporaryDirectory() as scratch:
        weights = Path(scratch) / f"{game}-peer.pt"
        wrapper.save(weights)
        exported = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, dynamic=False, simplify=False,
                                                  opset=17, device="cpu"))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(exported, out)
    return out


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(CLASSES), action="append",
                        help="a game to export (repeatable; default: all three)")
    parser.add_argument("--force", action="store_true", help="export again even if the file exists")
    args = parser.parse_args()
    for game in args.game or sorted(CLASSES):
        path = peer_detector_path(game)
        if path.is_file() and not args.force:
            print(f"{game}: {path} (already there)")
            continue
        print(f"{game}: {export_peer_detector(game)}")


if __name__ == "__main__":
    main()
