"""Accuracy of a shipped point classifier, as the model card reports it.

- Each photo is read through the calibration the station would have: its corners a pixel or two
  off, the pieces taken as thick as usual or as a user measured them (`models.synth.dataset.
  disturbed`), then fitted to the board's printed lines as `banco calibrate` and `recognize`
  fit clicked corners (`calibration.grid.snap_to_grid`; since session 46). With ``--as-given``
  the corners are read as given, as every figure before that session was measured. With
  ``--flat-quarter``, a quarter of the photos is cut as if the pieces were flat, as `banco
  calibrate` took them until session 43: every figure before that session was measured so.
  With ``--cut-at flat|usual|true``, every crop is cut with the pieces taken flat, as thick as
  usual, or at their true thickness (the same photos and corners): what a thickness costs.
- Held-out rendered photos (their own seed, and a font, wood texture and board style that
  training never saw): share of points right, share of boards read exactly, confusion.
- The real photographed Xiangqi validation crops, each cut to its disc and framed like a station
  crop: top-1 (and, beside it, pasted whole as the set framed them).
- Commander Chess: also the share of stacks whose top piece is read right.
- With ``--legal``: positions from random legal games instead of random placements, read two
  ways: each point on its own, and the whole board as the set allows (`vision.position`).
- With ``--knocked R``: every crop cut off-centre, as from a board bumped after calibrating:
  each photo's calibration moved by up to R piece radii, each real crop pasted as far off.
- A point outside its photo is labelled occluded, as one under a hand is: it counts as right
  only where the detector flags it occluded too (no crop shows what stands there).
- Beside that strict count, boards exact with the points **on the photo's edge** (the true centre
  of a piece's top within one piece radius of it, either side: its disc is cut) right if read as
  what stands there or flagged unseen. Half a disc may show enough or not, and a centre a pixel
  inside or outside the frame is beyond any calibration to tell; the strict count stays the one
  the goals are measured by.
- Crops are read as the station reads them: once, and those read less surely than
  ``--reread-below`` (`vision.detector.REREAD_BELOW`) again, turned three ways and magnified,
  the five reads averaged (`PointClassifier.read_again`); ``--reread-below 0`` reads each crop
  once, as the model alone does; ``--thorough`` reads every crop again, as `banco recognize`
  reads one still photo.

Run: ``python -m models.evaluate --game xiangqi --photos 500`` (or ``--game commander``, ``cotoan``).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

import games
from calibration.grid import snap_to_grid
from calibration.homography import SMALL_PIECE_PX, usual_thickness_mm
from games import Point
from models.synth.dataset import disturbed, paste_real_crop
from models.synth.playout import DEFAULT_PLIES, random_game
from models.synth.scene import THICKNESS, render_scene
from vision.classes import EMPTY, OCCLUDED, appearance
from vision.detector import REREAD_BELOW, Detector, PointClassifier

REAL_CROPS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "xiangqi-crops"


def legal_position(game: str, rng: random.Random) -> tuple[dict[Point, str], dict[Point, int]]:
    """The classes on top and the stack heights after a random number of plies of a random
    legal game: the positions a real photo shows."""
    variant = games.get(game)
    moves = random_game(game, rng.randint(0, DEFAULT_PLIES.get(game, 80)), seed=rng.randrange(1 << 30))
    board, notation = variant.board(), variant.notation()
    for text in moves:
        board.push(notation.parse(board, text))
    labels = {p: c for p, c in appearance(game, board).items() if c != EMPTY}
    stacks = {}
    if game == "commander":
        stacks = {p: len(board.piece_at(p)) for p in labels if len(board.piece_at(p)) > 1}
    return labels, stacks


def evaluate_photos(game: str, photos: int, seed: int, model: Path | None = None, progress=None,
                    legal: bool = False, thorough: bool = False, knocked: float = 0.0,
                    reread_below: float = REREAD_BELOW, thickness: tuple[float, float] = THICKNESS,
                    flat_quarter: bool = False, cut_at: str | None = None, snap: bool = True) -> dict:
    rng = random.Random(seed)
    right = total = exact = stacked = stacked_right = 0
    whole_right = whole_exact = 0
    edge_exact = whole_edge_exact = edge_points = 0
    confusion: Counter = Counter()
    by_size: Counter = Counter()  # (size band, read right) → points in the photo
    backgrounds: list[np.ndarray] = []
    classifier = PointClassifier(game, model)
    for number in range(photos):
        position, stacks = legal_position(game, rng) if legal else (None, None)
        scene = render_scene(game, rng, position=position, stacks=stacks, split="test", hands=False,
                             thickness=thickness)
        calibration = disturbed(scene.calibration, rng, knocked_radii=knocked, flat=flat_quarter)
        if snap:
            calibration = snap_to_grid(calibration, scene.image)
        if cut_at is not None:
            calibration = replace(calibration, piece_height_mm=_thickness_cut_at(cut_at, scene.calibration))
        detector = Detector(game, calibration, classifier=classifier, thorough=thorough,
                            reread_below=reread_below)
        observation = detector.observe(scene.image)
        whole = observation.placement() if legal else {}
        board_right = whole_board_right = True
        board_right_but_edge = whole_right_but_edge = True
        on_edge = on_photo_edge(scene.calibration, observation.points)
        for index, point in enumerate(observation.points):
            truth = scene.labels[point]
            either = {truth, OCCLUDED, scene.pieces.get(point, EMPTY)} if on_edge[index] else {truth}
            edge_points += bool(on_edge[index])
            # A point the detector calls occluded is not read: right only where the truth is
            # unseen too (outside the photo; these photos have no hands).
            guess = OCCLUDED if observation.occluded[index] else \
                observation.classes[int(np.argmax(observation.probabilities[index]))]
            confusion[(truth, guess)] += 1
            if truth != OCCLUDED:
                by_size[(size_band(scene.calibration.piece_radius_px(point)), truth == guess)] += 1
            total += 1
            right += truth == guess
            board_right &= truth == guess
            board_right_but_edge &= guess in either
            if legal:
                # A point flagged occluded takes no part in the whole-board reading; it is scored
                # as read on its own, as the line above scores every point.
                read = guess if whole[point] == OCCLUDED else whole[point]
                whole_right += read == truth
                whole_board_right &= read == truth
                whole_right_but_edge &= read in either
            if point in scene.stacks:
                stacked += 1
                stacked_right += truth == guess
        exact += board_right
        whole_exact += whole_board_right
        edge_exact += board_right_but_edge
        whole_edge_exact += whole_right_but_edge
        if len(backgrounds) < 300:
            crops = detector.extractor.extract(scene.image)
            backgrounds.extend(img for p, img in zip(crops.points, crops.images, strict=True)
                               if scene.labels[p] == EMPTY)
        if progress:
            progress(number + 1, photos)
    return {"points": total, "point_accuracy": right / max(total, 1), "boards": photos,
            "board_exact": exact / max(photos, 1), "confusion": confusion, "backgrounds": backgrounds,
            "stacked": stacked, "stacked_accuracy": stacked_right / max(stacked, 1),
            "whole_point_accuracy": whole_right / max(total, 1), "whole_board_exact": whole_exact / max(photos, 1),
            "edge_points": edge_points, "board_exact_but_edge": edge_exact / max(photos, 1),
            "whole_board_exact_but_edge": whole_edge_exact / max(photos, 1), "by_size": by_size}


# Bands of a piece's apparent radius in the photo: below `SMALL_PIECE_PX`, where `banco
# calibrate` warns, a band above it, and the rest.
SIZE_BANDS = (f"under {SMALL_PIECE_PX:g} px", f"{SMALL_PIECE_PX:g}-{SMALL_PIECE_PX + 4:g} px",
              f"{SMALL_PIECE_PX + 4:g} px or more")


def size_band(radius_px: float) -> str:
    return SIZE_BANDS[0] if radius_px < SMALL_PIECE_PX else SIZE_BANDS[1] if radius_px < SMALL_PIECE_PX + 4 \
        else SIZE_BANDS[2]


def size_lines(by_size: Counter) -> list[str]:
    """Points in the photo read right, by the apparent radius of a piece on them."""
    lines = []
    for band in SIZE_BANDS:
        points = by_size[(band, True)] + by_size[(band, False)]
        if points:
            lines.append(f"  {band:>14}: {points:6d} points, right {by_size[(band, True)] / points:8.4%}, "
                         f"misread {by_size[(band, False)]}")
    return lines


def on_photo_edge(calibration, points) -> np.ndarray:
    """Per point, whether the photo's edge cuts the disc of a piece on it: by the true
    `calibration`, the centre of its top within one piece radius of the edge, inside or out."""
    margins, radius = calibration.frame_margins_px(), calibration.piece_radius_px()
    return np.array([abs(margins[p]) < radius for p in points])


def evaluate_real_crops(game: str, folder: Path, backgrounds: list[np.ndarray], seed: int,
                        model: Path | None = None, thorough: bool = False, framed: bool = True,
                        knocked: float = 0.0, reread_below: float = REREAD_BELOW) -> dict:
    """Top-1 on the real crops, each framed by its disc as the station frames by the piece
    radius (`models.synth.dataset.disc_of`), or pasted whole as the set framed it; with
    `knocked`, off-centre by up to that many radii."""
    classifier = PointClassifier(game, model)
    names = classifier.model_classes
    rng = random.Random(seed)
    right = total = 0
    confusion: Counter = Counter()
    for class_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        images = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(class_dir.iterdir())]
        crops = np.array([paste_real_crop(img, rng.choice(backgrounds), rng, framed, off_centre_radii=knocked)
                          for img in images if img is not None])
        probabilities = classifier.read(crops, thorough, reread_below)
        # The occluded class is not an answer for a crop that shows a whole piece.
        if OCCLUDED in names:
            probabilities[:, names.index(OCCLUDED)] = 0
        for row in probabilities:
            guess = names[int(np.argmax(row))]
            confusion[(class_dir.name, guess)] += 1
            right += guess == class_dir.name
            total += 1
    return {"crops": total, "top1": right / max(total, 1), "confusion": confusion}


def confusion_lines(confusion: Counter, limit: int = 15) -> list[str]:
    errors = [(count, truth, guess) for (truth, guess), count in confusion.items() if truth != guess]
    return [f"  {truth:>16} → {guess:<16} {count}" for count, truth, guess in sorted(errors, reverse=True)[:limit]]


def per_class_lines(confusion: Counter) -> list[str]:
    """The whole confusion, one line per true class: how often it was read right, and as what
    otherwise (most frequent first)."""
    truths = sorted({truth for truth, _ in confusion})
    lines = []
    for truth in truths:
        reads = Counter({guess: count for (t, guess), count in confusion.items() if t == truth})
        total = sum(reads.values())
        wrong = ", ".join(f"{guess} {count}" for guess, count in reads.most_common() if guess != truth)
        line = f"  {truth:>16} {total:6d}  right {reads[truth] / total:8.4%}"
        lines.append(line + (f"  read as: {wrong}" if wrong else ""))
    return lines


CUT_AT = ("flat", "usual", "true")


def _thickness_cut_at(cut_at: str, truth) -> float:
    """The pieces' thickness (mm) the crops are cut at: none, the usual guess (as banco's commands
    take it), or the rendered truth (a user's exact `--piece-height`)."""
    if cut_at == "flat":
        return 0.0
    if cut_at == "usual":
        return usual_thickness_mm(truth.layout.pitch_mm)
    return truth.piece_height_mm


def _thickness(text: str) -> tuple[float, float]:
    """`--thickness LO-HI`: the discs' thickness range, in piece radii."""
    try:
        low, high = (float(part) for part in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"give the thickness as LO-HI in piece radii, such as 0.9-1.25, not {text!r}") from None
    if not 0 <= low <= high <= 3:
        raise argparse.ArgumentTypeError(f"the thickness {text!r} must run upwards, from 0 to at most 3 radii")
    return low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="xiangqi")
    parser.add_argument("--photos", type=int, default=500)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--legal", action="store_true", help="positions from random legal games, read two ways")
    parser.add_argument("--thorough", "--quarter-turns", dest="thorough", action="store_true",
                        help="read every crop a second time in five views, as banco recognize does "
                        "(--quarter-turns: the name from when it read four turns, until 2026-12-05)")
    parser.add_argument("--knocked", type=float, default=0.0, metavar="R",
                        help="cut every crop off-centre by up to R piece radii, as from a bumped board")
    parser.add_argument("--reread-below", type=float, default=REREAD_BELOW, metavar="P",
                        help=f"read a crop whose likeliest class is below P again, turned and magnified "
                        f"(default {REREAD_BELOW}, as the station; 0: every crop once)")
    parser.add_argument("--thickness", type=_thickness, default=THICKNESS, metavar="LO-HI",
                        help=f"the discs' thickness, in piece radii (default {THICKNESS[0]:g}-{THICKNESS[1]:g}; "
                        "a sturdy wooden set: 0.9-1.25)")
    parser.add_argument("--flat-quarter", action="store_true",
                        help="cut a quarter of the photos' crops at the board itself, as if the pieces were flat "
                        "(banco calibrate's default until session 43, and how every figure before it was measured)")
    parser.add_argument("--as-given", action="store_true",
                        help="read through the corners as given, not fitted to the board's printed lines "
                        "(how every figure before session 46 was measured)")
    parser.add_argument("--cut-at", choices=CUT_AT, default=None,
                        help="cut every crop with the pieces taken flat, as thick as usual, or at their true "
                        "thickness (default: as the station's calibration would have it)")
    args = parser.parse_args()
    if not 0 <= args.reread_below <= 1:
        parser.error(f"--reread-below is a probability, from 0 to 1, not {args.reread_below}")
    if not 0 <= args.knocked <= 2:
        parser.error(f"--knocked is in piece radii, from 0 to 2, not {args.knocked}")
    result = evaluate_photos(args.game, args.photos, args.seed, args.model, legal=args.legal,
                             thorough=args.thorough, knocked=args.knocked, reread_below=args.reread_below,
                             thickness=args.thickness, flat_quarter=args.flat_quarter, cut_at=args.cut_at)
    kind = "legal positions" if args.legal else "random placements"
    if args.knocked:
        kind += f", every crop off-centre by up to {args.knocked:g} piece radii"
    if args.thickness != THICKNESS:
        kind += f", discs {args.thickness[0]:g}-{args.thickness[1]:g} radii thick"
    if args.flat_quarter:
        kind += ", a quarter cut as if the pieces were flat"
    if args.cut_at:
        kind += f", every crop cut at the {args.cut_at} thickness"
    if args.as_given:
        kind += ", corners as given"
    print(f"held-out rendered photos ({kind}): {result['boards']}, points {result['points']}")
    print(f"  points right: {result['point_accuracy']:.4%}   boards exact: {result['board_exact']:.2%}"
          + ("   (each point on its own)" if args.legal else ""))
    if args.legal:
        print(f"  points right: {result['whole_point_accuracy']:.4%}   boards exact: "
              f"{result['whole_board_exact']:.2%}   (the whole board as the set allows)")
    print(f"  boards exact, the {result['edge_points']} points on the photo's edge right read as what stands "
          f"there or unseen: {result['board_exact_but_edge']:.2%}"
          + (f" (each point on its own), {result['whole_board_exact_but_edge']:.2%} (the whole board)"
             if args.legal else ""))
    if result["stacked"]:
        print(f"  stack tops right: {result['stacked_accuracy']:.2%} of {result['stacked']}")
    print("  most frequent confusions (truth → read):")
    print("\n".join(confusion_lines(result["confusion"])) or "  none")
    print("  per class (truth, points, right, read as):")
    print("\n".join(per_class_lines(result["confusion"])))
    print("  points right by the radius of a piece on them in the photo (the true calibration; points inside it):")
    print("\n".join(size_lines(result["by_size"])))
    if args.game == "xiangqi" and (REAL_CROPS / "valid").is_dir():
        real = evaluate_real_crops(args.game, REAL_CROPS / "valid", result["backgrounds"], args.seed, args.model,
                                   args.thorough, knocked=args.knocked, reread_below=args.reread_below)
        off = f", off-centre by up to {args.knocked:g} radii" if args.knocked else ""
        print(f"real photographed crops (valid), each framed by its disc{off}: {real['crops']}, "
              f"top-1 {real['top1']:.2%}")
        print("\n".join(confusion_lines(real["confusion"])) or "  none")
        whole = evaluate_real_crops(args.game, REAL_CROPS / "valid", result["backgrounds"], args.seed, args.model,
                                    args.thorough, framed=False, reread_below=args.reread_below)
        print(f"  the same pasted whole, as the set framed them (many loosely): top-1 {whole['top1']:.2%}")


if __name__ == "__main__":
    main()
