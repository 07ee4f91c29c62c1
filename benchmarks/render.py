"""How fast game videos render, against rendering single photos with `render_scene`.

    .venv/bin/python benchmarks/render.py [--game xiangqi] [--plies 12] [--photos 8] [--size 1280x720]

The peer is `models.synth.scene.render_scene`, the photo renderer the classifier trains on:
a video frame must cost far less than a photo, or a 160-ply game (about 10 000 frames)
would take hours. Everything runs on one core (OpenCV told to use one thread) and is timed
as CPU time of this process, so the shared, noisy machine matters less; the ratios are what
count. Three numbers for the videos:

* frames alone: `Stage.frame` with a hand moving over the board (no encoding);
* the mp4v encoder alone on such frames (what no renderer can beat);
* whole games: `render_game` as tests use it, choreography and mp4 encoding included (the
  encoder runs on a second thread; its CPU time is counted);
* the same in wall-clock time.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, where benchmarks/vision.py would
# hide the `vision` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

import argparse  # noqa: E402
import random  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import cv2  # noqa: E402

from models.synth.playout import random_game  # noqa: E402
from models.synth.scene import render_scene  # noqa: E402
from models.synth.stage import HandPose, Stage  # noqa: E402
from models.synth.video import render_game  # noqa: E402


def photos_per_second(game: str, photos: int, size: tuple[int, int]) -> float:
    rng = random.Random(1000)
    render_scene(game, rng, size=size, split="test")  # fonts and icons loaded once
    start = time.process_time()
    for _ in range(photos):
        render_scene(game, rng, size=size, split="test")
    return photos / (time.process_time() - start)


def frames_per_second(game: str, frames: int, size: tuple[int, int]) -> float:
    import games
    from vision.classes import EMPTY, appearance

    stage = Stage(game, random.Random(1001), size, 15.0, "test")
    board = games.get(game).board()
    stage.set_position({p: c for p, c in appearance(game, board).items() if c != EMPTY})
    w, h = stage.layout.sheet_size_mm
    stage.frame(0)
    start = time.process_time()
    for index in range(frames):
        f = index / frames
        hand = HandPose(w * f, h * (0.3 + 0.4 * f), 40.0, 1, 0) if index % 3 else None
        stage.frame(index, hand)
    return frames / (time.process_time() - start)


def encoded_per_second(game: str, frames: int, size: tuple[int, int]) -> float:
    """The mp4v encoder alone, on rendered frames: the floor under `render_game`'s cost."""
    import games
    from vision.classes import EMPTY, appearance

    stage = Stage(game, random.Random(1002), size, 15.0, "test")
    stage.set_position({p: c for p, c in appearance(game, games.get(game).board()).items() if c != EMPTY})
    images = [stage.frame(i) for i in range(16)]
    with tempfile.TemporaryDirectory() as folder:
        writer = cv2.VideoWriter(str(Path(folder) / "x.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 15.0, size)
        start = time.process_time()
        for index in range(frames):
            writer.write(images[index % len(images)])
        writer.release()
        return frames / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="xiangqi")
    parser.add_argument("--plies", type=int, default=12)
    parser.add_argument("--photos", type=int, default=8)
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--size", default="1280x720")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    cv2.setNumThreads(1)

    photos = photos_per_second(args.game, args.photos, size)
    frames = frames_per_second(args.game, args.frames, size)
    encoded = encoded_per_second(args.game, args.frames // 2, size)
    moves = random_game(args.game, args.plies, seed=1000)
    with tempfile.TemporaryDirectory() as folder:
        cpu, wall = time.process_time(), time.perf_counter()
        rendered = render_game(args.game, moves, Path(folder), seed=1000, fps=15, size=size)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        written = rendered.truth_data["frames"]
        codec = rendered.truth_data["codec"]
    game_cpu, game_wall = written / cpu, written / wall
    print(f"{args.game}, {size[0]}×{size[1]}, one OpenCV thread, CPU time unless said")
    print(f"  peer render_scene:           {photos:8.1f} photos/s")
    print(f"  Stage.frame (no encoding):   {frames:8.1f} frames/s   {frames / photos:6.1f}× the peer")
    print(f"  mp4v encoder alone:          {encoded:8.1f} frames/s   {encoded / photos:6.1f}× the peer")
    print(f"  render_game ({codec}, CPU):    {game_cpu:8.1f} frames/s   {game_cpu / photos:6.1f}× the peer "
          f"({written} frames, {args.plies} plies)")
    print(f"  render_game (wall clock):    {game_wall:8.1f} frames/s   {game_wall / photos:6.1f}× the peer")


if __name__ == "__main__":
    main()
