"""Point-crop datasets in the folder layout ultralytics' classifier reads:
``<out>/{train,val}/<class>/<n>.png``.

Crops come from rendered scenes through the station's own `vision.crops` path, with the
calibration disturbed the way real ones are (a few pixels of corner error, an unknown piece
height), and from the real photographed Xiangqi crops of the shared data set, pasted onto
rendered board backgrounds so they are framed like the station's crops.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from calibration import Calibration
from calibration.homography import outside_frame, usual_thickness_mm
from calibration.piece_size import strongest_circle
from models.synth.scene import THICKNESS, render_scene
from vision.classes import EMPTY, classes
from vision.crops import CROP_SIZE, CROP_SPAN_RADII, CropExtractor

# How far, in piece radii, a knocked board or a sloppily placed piece may sit off its crop's centre in
# training data: past half a radius, where a station without markers reads a bumped board's pieces.
KNOCK_RADII = 0.75


def _knock(rng: random.Random, radii: float, radius_px: float) -> tuple[float, float]:
    """A shift of up to `radii` radii of `radius_px`, in any direction."""
    length = rng.uniform(0, radii) * radius_px
    angle = rng.uniform(0, 2 * np.pi)
    return length * np.cos(angle), length * np.sin(angle)


def _knock_radii(rng: random.Random, share: float) -> float:
    """KNOCK_RADII for a `share` of the calls, else 0 (no draw at all when `share` is 0)."""
    return KNOCK_RADII if share and rng.random() < share else 0.0


def disturbed(truth: Calibration, rng: random.Random, corner_sigma_px: float = 1.5,
              knocked_radii: float = 0.0, flat: bool = True) -> Calibration:
    """The calibration a user or the marker finder would have made: slightly off, and, with
    `knocked_radii`, all of it moved by up to that many piece radii, as when the board was bumped
    after calibrating and nothing followed it.

    The pieces' thickness is the usual guess, or a rough measure of the truth (a user's
    `--piece-height`), or, with `flat`, none at all, as `banco calibrate` took it until session 43
    (training keeps those crops: a set taken for flat still reads). Either way the same draws
    are made, so a seed renders the same photos."""
    corners = truth.grid_corners_px()
    noisy = [(x + rng.gauss(0, corner_sigma_px), y + rng.gauss(0, corner_sigma_px)) for x, y in corners]
    if knocked_radii:
        dx, dy = _knock(rng, knocked_radii, truth.piece_radius_px())
        noisy = [(x + dx, y + dy) for x, y in noisy]
    layout = truth.layout
    sheet = np.array([layout.point_mm(p) for p in layout.corner_points()], np.float32)
    homography = cv2.getPerspectiveTransform(sheet, np.array(noisy, np.float32)).astype(np.float64)
    # The station knows the height only roughly: none given, the default guess, or measured.
    guess = usual_thickness_mm(layout.pitch_mm, truth.piece_radius_ratio)
    height = rng.choice([0.0 if flat else guess, guess, guess, truth.piece_height_mm * rng.uniform(0.7, 1.2)])
    return Calibration(layout, homography, truth.image_size, "disturbed", piece_height_mm=height)


def scene_crops(game: str, rng: random.Random, empty_keep: float = 0.3, knocked: float = 0.0, **scene_options):
    """(crop, class) pairs of one rendered scene; most empty points are dropped. A `knocked`
    share of scenes is cut from a calibration moved by up to KNOCK_RADII.

    A point outside the photo, by the true calibration or by the one the crops are cut with,
    gives no crop: the station flags such points by geometry (`CropExtractor.outside`), and a
    crop of the frame's edge smeared outwards taught as occluded teaches the model to call
    occluded every crop the edge merely cuts through, on points the photo does show.

    Every empty point whose disc the photo's edge cuts is kept: its crop is part board, part
    the edge smeared outwards, and the few per thousand crops a share of empty points leaves
    taught the sixth Cờ Toán model to read such crops as a hand, occluded (7 of the 73 points
    it misread on the issue's 500 held-out photos, session 36)."""
    scene = render_scene(game, rng, **scene_options)
    radii = _knock_radii(rng, knocked)
    extractor = CropExtractor(disturbed(scene.calibration, rng, knocked_radii=radii))
    crops = extractor.extract(scene.image)
    truth = [scene.calibration.piece_center_pixel(p) for p in crops.points]
    unframed = extractor.outside(scene.image) | outside_frame(truth, scene.image.shape)
    margins, radius = scene.calibration.frame_margins_px(), scene.calibration.piece_radius_px()
    pairs = []
    for point, image, out_of_frame in zip(crops.points, crops.images, unframed, strict=True):
        label = scene.labels[point]
        if out_of_frame:
            continue
        # The draw is made for every empty point, kept or not, so a seed renders what it did.
        if label == EMPTY and rng.random() > empty_keep and margins[point] >= radius:
            continue
        pairs.append((image, label))
    return pairs


# A ring printed on a piece's face lies at 0.7–0.9 of its radius: the rim is up to 1.4 times as far out.
RING_TO_RIM = 1.4


def disc_rim(grey: np.ndarray) -> tuple[float, float, float] | None:
    """A piece's rim in a grey crop of one piece, as (x, y, radius).

    The most evident circle is often the ring printed inside the rim (dark ink on a light
    face); a circle around it, on about the same centre and at most RING_TO_RIM times as
    large, is then the rim."""
    side = min(grey.shape[:2])
    found = strongest_circle(grey, side * 0.25, side * 0.55)
    if found is None:
        return None
    x, y, r = found
    outer = strongest_circle(grey, r * 1.1, r * RING_TO_RIM)
    if outer is not None and np.hypot(outer[0] - x, outer[1] - y) <= 0.12 * r:
        return outer
    return found


def disc_of(crop: np.ndarray) -> np.ndarray:
    """The square around the piece's disc in a photographed crop, or the crop itself if no disc
    is found.

    The shared set's crops are framed unevenly: some hug the disc, others show it at half their
    width with the screen or board around it. The station frames every crop by the calibrated
    piece radius, so the disc fills the same share of each; a loose crop pasted whole would give
    a piece far smaller than any the station cuts.
    """
    height, width = crop.shape[:2]
    side = min(height, width)
    found = disc_rim(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY))
    if found is None:
        return crop
    x, y, r = found
    if abs(x - width / 2) > side / 4 or abs(y - height / 2) > side / 4:
        return crop
    x0, y0, x1, y1 = (int(round(v)) for v in (x - r, y - r, x + r, y + r))
    pad = max(0, -x0, -y0, x1 - width, y1 - height)
    if pad:
        crop = cv2.copyMakeBorder(crop, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    return crop[y0 + pad:y1 + pad, x0 + pad:x1 + pad]


def paste_real_crop(crop: np.ndarray, background: np.ndarray, rng: random.Random, framed: bool = True,
                    off_centre_radii: float = 0.0) -> np.ndarray:
    """Frame a real photo of a piece like a station crop: its disc centred on a board background
    (the whole photo, as the set framed it, unless `framed`), or, with `off_centre_radii`, moved
    off the centre by up to that many of its radii (partly out of the crop, if so far)."""
    if framed:
        crop = disc_of(crop)
    size = background.shape[0]
    diameter = int(round(2 * size / CROP_SPAN_RADII * rng.uniform(0.9, 1.08)))
    piece = cv2.resize(crop, (diameter, diameter), interpolation=cv2.INTER_AREA)
    turn = cv2.getRotationMatrix2D((diameter / 2, diameter / 2), rng.uniform(0, 360), 1.0)
    piece = cv2.warpAffine(piece, turn, (diameter, diameter), borderMode=cv2.BORDER_REFLECT)
    mask = np.zeros((diameter, diameter), np.float32)
    cv2.circle(mask, (diameter // 2, diameter // 2), diameter // 2, 1.0, -1, cv2.LINE_AA)
    x0 = (size - diameter) // 2 + rng.randint(-2, 2)
    y0 = (size - diameter) // 2 + rng.randint(-2, 2)
    if off_centre_radii:
        dx, dy = _knock(rng, off_centre_radii, diameter / 2)
        x0 += int(round(dx))
        y0 += int(round(dy))
    else:
        x0, y0 = max(0, min(x0, size - diameter)), max(0, min(y0, size - diameter))
    # The piece is laid on a canvas with a piece's width of margin all round, so that it may
    # stand partly outside the crop.
    out = cv2.copyMakeBorder(background, diameter, diameter, diameter, diameter, cv2.BORDER_REFLECT).astype(np.float32)
    region = out[diameter + y0:diameter + y0 + diameter, diameter + x0:diameter + x0 + diameter]
    region[:] = region * (1 - mask[..., None]) + piece.astype(np.float32) * mask[..., None]
    out = out[diameter:diameter + size, diameter:diameter + size]
    return np.clip(out, 0, 255).astype(np.uint8)


def real_crop_pairs(folder: Path, backgrounds: list[np.ndarray], rng: random.Random, per_file: int = 1,
                    knocked: float = 0.0):
    """Each real crop pasted `per_file` times; a `knocked` share of them off-centre by up to KNOCK_RADII."""
    pairs = []
    for class_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        for path in sorted(class_dir.iterdir()):
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                continue
            for _ in range(per_file):
                radii = _knock_radii(rng, knocked)
                pasted = paste_real_crop(image, rng.choice(backgrounds), rng, off_centre_radii=radii)
                pairs.append((pasted, class_dir.name))
    return pairs


def write_pairs(pairs, folder: Path, start: int = 0) -> Counter:
    counts: Counter = Counter()
    for index, (image, label) in enumerate(pairs, start):
        target = folder / label
        target.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(target / f"{index:07d}.png"), image)
        counts[label] += 1
    return counts


# Share of empty points kept per scene: most points are empty, and a few per scene suffice.
# Xiangqi keeps the first model's share; the sparser Commander and Cờ Toán boards keep fewer.
EMPTY_KEEP = {"xiangqi": 0.3, "commander": 0.15, "cotoan": 0.15}


def build(game: str, out: Path, scenes: int, seed: int, real: Path | None = None,
          val_fraction: float = 0.1, progress=None, empty_keep: float | None = None,
          real_copies: int = 1, knocked: float = 0.0, thickest: float = THICKNESS[1]) -> dict[str, Counter]:
    """Render `scenes` scenes (and the real crops, if given) into `out/train` and `out/val`.

    Every game with recognition classes (`vision.classes`) can be built; whole scenes go to
    one side of the split, so no photo feeds both training and validation. Each real crop is
    pasted `real_copies` times, each time turned and framed anew. A `knocked` share of the scenes
    and of the pasted crops is cut off-centre (`KNOCK_RADII`), so that a model learns pieces
    away from the middle of their crop: a bumped board, a piece set down beside its point.
    Discs are up to `thickest` radii thick (`models.synth.scene.THICKNESS`).
    """
    if not 0.0 <= knocked <= 1.0:
        raise ValueError(f"knocked is a share of the scenes, from 0 to 1, not {knocked}")
    rng = random.Random(seed)
    keep = EMPTY_KEEP.get(game, 0.3) if empty_keep is None else empty_keep
    for name in classes(game):
        (out / "train" / name).mkdir(parents=True, exist_ok=True)
        (out / "val" / name).mkdir(parents=True, exist_ok=True)
    counts = {"train": Counter(), "val": Counter()}
    backgrounds: list[np.ndarray] = []
    index = 0
    for number in range(scenes):
        pairs = scene_crops(game, rng, empty_keep=keep, knocked=knocked, thickness=(THICKNESS[0], thickest))
        backgrounds.extend(image for image, label in pairs if label == EMPTY)
        backgrounds = backgrounds[-500:]
        split = "val" if number % int(1 / val_fraction) == 0 else "train"
        counts[split] += write_pairs(pairs, out / split, index)
        index += len(pairs)
        if progress:
            progress(number + 1, scenes)
    if real is not None and backgrounds and (real / "train").is_dir():
        # Only the real training crops: the real validation crops stay unseen for evaluation.
        pairs = real_crop_pairs(real / "train", backgrounds, rng, per_file=real_copies, knocked=knocked)
        counts["train"] += write_pairs(pairs, out / "train", index)
    return counts


def crop_size() -> int:
    return CROP_SIZE


def main() -> None:
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Render a point-crop dataset for one game.")
    parser.add_argument("--game", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenes", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--real", type=Path, default=None, help="real crops folder with train/<class>/ (Xiangqi)")
    parser.add_argument("--real-copies", type=int, default=1, help="times each real crop is pasted, turned anew")
    parser.add_argument("--knocked", type=float, default=0.0,
                        help=f"share of scenes and real crops cut off-centre, by up to {KNOCK_RADII} piece radii")
    parser.add_argument("--thickest", type=float, default=THICKNESS[1],
                        help=f"the thickest discs, in radii (from {THICKNESS[0]}; default {THICKNESS[1]})")
    args = parser.parse_args()
    started = time.time()

    def report(done: int, total: int) -> None:
        if done % 50 == 0 or done == total:
            print(f"{done}/{total} scenes, {time.time() - started:.0f} s", flush=True)

    if not 0.0 <= args.knocked <= 1.0:
        parser.error(f"--knocked is a share of the scenes, from 0 to 1, not {args.knocked}")
    if not THICKNESS[0] < args.thickest <= 3.0:
        parser.error(f"--thickest is in piece radii, above {THICKNESS[0]} and at most 3, not {args.thickest}")
    counts = build(args.game, args.out, args.scenes, args.seed, args.real, progress=report,
                   real_copies=args.real_copies, knocked=args.knocked, thickest=args.thickest)
    for split, counter in counts.items():
        print(split, sum(counter.values()), dict(sorted(counter.items())))


if __name__ == "__main__":
    main()
