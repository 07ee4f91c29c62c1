"""Rendered videos of whole games, with their ground truth: the tracker's test and benchmark data.

`render_game` plays a move list with the game's engine and films it on a rendered board:
hands reach in from the mover's side, lift, carry (sometimes hovering over another point)
and put down pieces (sometimes nudging a neighbour off-centre), remove captured pieces
(before or after the capturing piece lands; out of the picture or onto the table beside the
sheet), then leave; the light drifts, shadows pass, the camera re-exposes when a hand comes
in and shakes a little when a piece lands. Beside the video a truth JSON says what
happened and when. Commander Chess stacks show their top disc on a taller pile; a capture
in place removes only the target; an aircraft shot down leaves the board; a referee's
put-back crossing (``$``) goes across and back. Cờ Toán's capture by calculation puts the
attacker on the target's cell.

Truth JSON (the contract in the session's contracts; extra keys are additions):

- ``game``, ``start_fen``, ``fps``, ``size`` [w, h], ``calibration`` (a `calibration.profile`
  dict of the true, unshaken camera; its ``created`` is fixed so renders are reproducible).
- ``moves``: one entry per ply, ``ply`` counted from 1, ``move`` in the game's default
  notation, ``frame_start`` (first frame with the mover's hand in view) and ``frame_done``
  (first frame after the hand has left; the position is final), and (an addition) ``fen``,
  the position after the ply. Plies made while the camera was cut have both frames set to
  the first frame after the cut, and ``"cut": true``.
- ``illegal``: for each injected illegal move, ``after_ply`` (it is made after that many plies),
  ``frame_start``, ``frame_done`` (hand gone, the wrong move stands), ``frame_restored``
  (hand gone again, the piece is back), ``from`` and ``to`` as point names.
- ``unseen``: ``plies`` [k, k+1] made while the camera was cut, ``frames`` [first_cut,
  last_cut] counted in the uncut render (those frames are not in the file), and
  ``resume_frame``, the file frame where the picture comes back.
- ``cut_frames``: how many frames were left out. Every other frame index counts frames as
  written in the file.
- additions: ``seed``, ``split``, ``codec``, ``frames`` (written), ``final_fen``, ``referee``
  (Commander Chess referee mode, needed by ``$`` turns), ``repaired_plies`` (plies after
  which the stage had to be corrected to match the engine: a choreography bug, empty in
  every test), ``version``.

Seeds: a video's randomness comes from ``random.Random(f"banco-video:{seed}")``, a stream no
training run draws from (training seeds feed ``random.Random(int)``). By convention the
tests use seeds 0–999 and the benchmarks and acceptance suites 1000–9999; ``split="test"``
draws only the held-out board styles, piece wood and font.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import queue
import random
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2

import games
from calibration import profile
from games import Color, Point
from models.synth.stage import Carried, Disc, HandPose, Stage
from vision.classes import EMPTY, appearance

VERSION = 1
FIXED_CREATED = "2000-01-01T00:00:00+00:00"


@dataclass
class RenderedGame:
    video: Path
    truth: Path
    truth_data: dict


class RenderError(ValueError):
    """Arguments that cannot make a video (a move the engine refuses, a bad ply number...)."""


# ---------------------------------------------------------------------------- appearance
def seen(game: str, board) -> dict[Point, str]:
    """What stands where, as the camera sees it: the occupied points' classes."""
    return {point: label for point, label in appearance(game, board).items() if label != EMPTY}


def stack_sizes(game: str, board) -> dict[Point, int]:
    """How many discs stand on each point holding more than one (Commander Chess stacks)."""
    if game != "commander":
        return {}
    out = {}
    for point in games.get(game).geometry.points():
        stack = board.piece_at(point)
        if stack and len(stack) > 1:
            out[point] = len(stack)
    return out


# ---------------------------------------------------------------------------- the plan of a ply
@dataclass
class Plan:
    """What the hand has to do so the board goes from one appearance to the next."""

    carries: list[tuple[Point, Point]] = field(default_factory=list)  # the disc moves, top label kept
    removals: list[Point] = field(default_factory=list)  # discs taken off the board
    vanishes: list[tuple[Point, Point]] = field(default_factory=list)  # carried onto a stack, hidden there
    reveals: dict[Point, str] = field(default_factory=dict)  # shows once the point's disc is lifted
    unstacks: list[tuple[Point, Point, str]] = field(default_factory=list)  # a passenger taken from under
    there_and_back: tuple[Point, Point] | None = None  # nothing changes: across and put back


def plan_ply(before: dict[Point, str], after: dict[Point, str], hint: tuple[Point, Point] | None,
             sizes_before: dict[Point, int] | None = None, sizes_after: dict[Point, int] | None = None) -> Plan:
    """Pair what disappeared with what appeared: same label, the move's own points first, then nearest.

    A label that appears with nothing to pair it came from under a stack that lost a disc
    (`sizes_*`: discs per point where more than one stands, Commander Chess)."""
    removed = {p: label for p, label in before.items() if after.get(p) != label}
    added = {p: label for p, label in after.items() if before.get(p) != label}
    plan = Plan()
    if not removed and not added:
        if hint is not None and hint[0] in before and hint[0] != hint[1]:
            plan.there_and_back = hint
        return plan
    if hint is not None and removed.get(hint[0]) is not None and removed.get(hint[0]) == added.get(hint[1]):
        plan.carries.append((hint[0], hint[1]))
        del removed[hint[0]], added[hint[1]]
    for target, label in sorted(added.items()):
        sources = [p for p, lab in removed.items() if lab == label]
        if not sources:
            continue
        source = min(sources, key=lambda p: (p.file - target.file) ** 2 + (p.rank - target.rank) ** 2)
        plan.carries.append((source, target))
        del removed[source], added[target]
    plan.carries = _in_order(plan.carries)
    lifted = {source for source, _ in plan.carries}
    for point in list(removed):
        if hint is not None and point == hint[0] and hint[1] != point and hint[1] in after:
            plan.vanishes.append((point, hint[1]))
            lifted.add(point)
        else:
            plan.removals.append(point)
    sizes_before, sizes_after = sizes_before or {}, sizes_after or {}
    shrunk = [p for p in before if p in after and sizes_before.get(p, 1) > sizes_after.get(p, 1)]
    for point, label in added.items():
        if shrunk and point not in lifted:
            source = min(shrunk, key=lambda p: (p.file - point.file) ** 2 + (p.rank - point.rank) ** 2)
            plan.unstacks.append((source, point, label))
            continue
        plan.reveals[point] = label  # a passenger seen once its carrier leaves, or a piece changing
    return plan


def _in_order(carries: list[tuple[Point, Point]]) -> list[tuple[Point, Point]]:
    """A disc leaves a point before another lands on it."""
    ordered = list(carries)
    for _ in range(len(ordered) ** 2):
        for i, (_, target) in enumerate(ordered):
            later = next((j for j in range(i + 1, len(ordered)) if ordered[j][0] == target), None)
            if later is not None:
                ordered.insert(i, ordered.pop(later))
                break
        else:
            return ordered
    return ordered


# ---------------------------------------------------------------------------- the director
class _Director:
    """Moves the hands through a ply and writes the frames, keeping the truth's frame numbers."""

    def __init__(self, stage: Stage, writer, rng: random.Random, fps: float,
                 progress: Callable[[int, int], None] | None = None, expected: int = 0) -> None:
        self.stage = stage
        self.writer = writer
        self.rng = rng
        self.fps = fps
        self.raw = 0  # frames rendered or skipped, in the uncut numbering
        self.written = 0
        self.cutting = False
        self.first_visible: int | None = None
        self.last_visible: int | None = None
        self.hand: HandPose | None = None
        self.carried: list[Carried] = []
        self.sizes: dict[Point, int] | None = None  # stack sizes once this ply is done; None: keep
        self.progress = progress
        self.expected = expected
        layout = stage.layout
        self.sheet_w, self.sheet_h = layout.sheet_size_mm
        self.pitch = layout.pitch_mm

    # -- frames
    def emit(self) -> None:
        visible = self.stage.hand_visible(self.hand)
        if not self.cutting:
            if visible:
                if self.first_visible is None:
                    self.first_visible = self.written
                self.last_visible = self.written
            self.writer.write(self.stage.frame(self.raw, self.hand, self.carried))
            self.written += 1
        self.raw += 1
        if self.progress is not None and self.raw % 25 == 0:
            self.progress(self.raw, max(self.expected, self.raw))

    def still(self, seconds: float) -> None:
        self.hand = None
        for _ in range(max(1, round(seconds * self.fps))):
            self.emit()

    def begin(self) -> None:
        self.first_visible = self.last_visible = None

    def span(self) -> tuple[int, int]:
        """(first frame with the hand, first frame after it left) of what happened since `begin`."""
        if self.first_visible is None or self.last_visible is None:
            return self.written, self.written
        return self.first_visible, self.last_visible + 1

    # -- hand motion
    def offboard(self, x: float, side: int, player: int) -> HandPose:
        """A pose with the whole hand out of the picture, on the player's side of the table."""
        edge = self.sheet_h if side > 0 else 0.0
        for step in range(1, 80):
            pose = HandPose(x, edge + side * 60.0 * step, 120.0, side, player)
            if not self.stage.hand_visible(pose):
                return pose
        return pose

    def travel(self, target: HandPose, seconds: float, lift: float = 0.0) -> None:
        """Move the hand (and what it holds) to `target`, easing in and out, arcing by `lift` mm."""
        start = self.hand
        frames = max(1, round(seconds * self.fps))
        for i in range(1, frames + 1):
            f = i / frames
            e = f * f * (3 - 2 * f)
            if start is None:
                pose = target
            else:
                pose = HandPose(start.x + (target.x - start.x) * e, start.y + (target.y - start.y) * e,
                                start.z + (target.z - start.z) * e + lift * math.sin(math.pi * f),
                                target.side, target.player)
            self.hand = pose
            self._follow()
            self.emit()

    def hold(self, seconds: float) -> None:
        for _ in range(max(1, round(seconds * self.fps))):
            self.emit()

    def _follow(self) -> None:
        """Held discs hang under the fingertips."""
        hand = self.hand
        for index, item in enumerate(self.carried):
            item.x = hand.x + 0.3 * self.pitch * index
            item.y = hand.y + hand.side * 0.25 * self.stage.radius_mm + 0.3 * self.pitch * index
            item.z = max(0.0, hand.z - self.tall(item.disc))

    def at(self, point: Point, z: float, side: int, player: int, disc: Disc | None = None) -> HandPose:
        x, y = self.stage.base_mm(point, disc)
        return HandPose(x, y - side * 0.25 * self.stage.radius_mm, z, side, player)

    def u(self, low: float, high: float) -> float:
        return self.rng.uniform(low, high)

    # -- handling discs
    def enter(self, point: Point, side: int, player: int) -> None:
        x, _ = self.stage.base_mm(point)
        if self.hand is None:
            self.hand = self.offboard(x + self.rng.gauss(0, 80), side, player)

    def tall(self, disc: Disc | None) -> float:
        """The height of a disc, or of the stack it tops."""
        return self.stage.height_mm * (disc.discs if disc is not None else 1)

    def pick(self, point: Point, side: int, player: int, reveal: str | None = None,
             uncover: Disc | None = None) -> Disc:
        """Lift the disc on `point`; what was under it (a new disc of `reveal`, or `uncover`) shows."""
        stage = self.stage
        disc = stage.pieces[point]
        tall = self.tall(disc)
        self.travel(self.at(point, tall + self.u(25, 60), side, player, disc), self.u(0.45, 0.9))
        self.travel(self.at(point, tall + 2, side, player, disc), self.u(0.12, 0.3))
        self.hold(self.u(0.04, 0.15))
        del stage.pieces[point]
        if reveal is not None:
            stage.pieces[point] = stage.new_disc(reveal, self.sizes.get(point, 1) if self.sizes is not None else 1)
        elif uncover is not None:
            stage.pieces[point] = uncover
        stage.changed()
        x, y = stage.base_mm(point, disc)
        self.carried.append(Carried(disc, x, y, 0.0))
        self._follow()
        self.travel(self.at(point, tall + self.u(20, 55), side, player, disc), self.u(0.12, 0.3))
        return disc

    def hover(self, side: int, player: int, near: Point) -> None:
        """Hesitate over another point before deciding."""
        g = self.stage.layout.geometry
        options = [p for p in g.points() if 0 < abs(p.file - near.file) + abs(p.rank - near.rank) <= 3]
        if not options:
            return
        over = self.rng.choice(options)
        self.travel(self.at(over, self.stage.height_mm + self.u(25, 50), side, player), self.u(0.3, 0.7), lift=10)
        self.hold(self.u(0.3, 0.9))

    def put(self, point: Point, side: int, player: int, swap_out: bool = False, nudge: bool = True,
            keep: bool = False) -> None:
        """Carry the held disc to `point` and set it down; with `swap_out`, take the one there
        (or, with `keep`, leave it under the new one, out of sight)."""
        stage = self.stage
        disc = self.carried[-1].disc
        disc.offset_mm = stage.jitter()
        tall = self.tall(disc)
        here = self.at(point, tall + self.u(20, 50), side, player, disc)
        start = self.hand
        distance = math.hypot(here.x - start.x, here.y - start.y) / self.pitch if start else 1.0
        self.travel(here, self.u(0.25, 0.5) + 0.08 * distance, lift=self.u(0, 25))
        self.travel(self.at(point, tall + 1, side, player, disc), self.u(0.12, 0.3))
        if self.sizes is not None:
            disc.discs = self.sizes.get(point, 1)
        captured = None
        if swap_out and point in stage.pieces:
            captured = stage.pieces.pop(point)
        self.carried.pop()
        stage.pieces[point] = disc
        stage.changed()
        stage.bump(self.u(0.2, 1.0))
        if nudge and self.rng.random() < 0.25:
            self._nudge(point)
        self.hold(self.u(0.04, 0.12))
        if captured is not None and not keep:
            self.carried.append(Carried(captured, 0, 0, 0))
        self.travel(self.at(point, self.tall(disc) + self.u(25, 60), side, player, disc), self.u(0.1, 0.25))
        self._follow()

    def unstack(self, point: Point, label: str, side: int, player: int) -> None:
        """Slide a disc of `label` out from under the stack on `point`, which keeps its top."""
        stage = self.stage
        top = stage.pieces[point]
        self.travel(self.at(point, self.tall(top) + self.u(20, 50), side, player, top), self.u(0.45, 0.9))
        self.travel(self.at(point, stage.height_mm + 1, side, player, top), self.u(0.12, 0.3))
        self.hold(self.u(0.1, 0.25))
        top.discs = max(1, top.discs - 1)
        stage.changed()
        disc = stage.new_disc(label)
        x, y = stage.base_mm(point, top)
        self.carried.append(Carried(disc, x, y, 0.0))
        self._follow()
        self.travel(self.at(point, stage.height_mm + self.u(20, 50), side, player, top), self.u(0.12, 0.3))

    def tuck(self, point: Point, side: int, player: int) -> None:
        """Slide the held disc under the stack on `point`: it is carried, out of sight."""
        stage = self.stage
        top = stage.pieces.get(point)
        self.travel(self.at(point, self.tall(top) + self.u(20, 50), side, player, top), self.u(0.3, 0.6))
        self.travel(self.at(point, self.tall(top) + 1, side, player, top), self.u(0.12, 0.3))
        self.carried.pop()
        if top is not None and self.sizes is not None:
            top.discs = self.sizes.get(point, top.discs)
            stage.changed()
        stage.bump(self.u(0.2, 1.0))
        self.hold(self.u(0.1, 0.3))

    def _nudge(self, point: Point) -> None:
        """The landing disc touches a neighbour, which slides a little but stays on its point."""
        stage = self.stage
        neighbours = [p for p in stage.pieces if p != point and abs(p.file - point.file) <= 1
                      and abs(p.rank - point.rank) <= 1]
        if not neighbours:
            return
        other = stage.pieces[self.rng.choice(neighbours)]
        angle = self.rng.uniform(0, math.tau)
        push = self.rng.uniform(0.05, 0.1) * self.pitch
        dx = other.offset_mm[0] + push * math.cos(angle)
        dy = other.offset_mm[1] + push * math.sin(angle)
        limit = 0.18 * self.pitch
        scale = min(1.0, limit / max(math.hypot(dx, dy), 1e-9))
        other.offset_mm = (dx * scale, dy * scale)

    def drop_off(self, side: int, player: int) -> None:
        """Take what the hand holds off the board: onto the table beside the sheet (in view,
        off the grid) or away out of the picture."""
        stage = self.stage
        spot = stage.aside_spot(side) if self.rng.random() < 0.5 else None
        if spot is not None and len(self.carried) == 1:
            x, y = spot
            disc = self.carried[0].disc
            self.travel(HandPose(x, y - side * 0.25 * stage.radius_mm, stage.height_mm + self.u(20, 40), side, player),
                        self.u(0.3, 0.6))
            self.travel(HandPose(x, y - side * 0.25 * stage.radius_mm, stage.height_mm + 1, side, player),
                        self.u(0.1, 0.2))
            self.carried.clear()
            disc.offset_mm = (0.0, 0.0)
            disc.discs = 1
            stage.aside.append((disc, x + self.rng.gauss(0, 2), y + self.rng.gauss(0, 2)))
            stage.changed()
            self.hold(self.u(0.04, 0.1))
        self.leave(side, player)
        self.carried.clear()

    def leave(self, side: int, player: int) -> None:
        x = self.hand.x if self.hand is not None else self.sheet_w / 2
        self.travel(self.offboard(x + self.rng.gauss(0, 60), side, player), self.u(0.45, 0.9))
        self.hand = None


# ---------------------------------------------------------------------------- rendering a game
def _side(board) -> int:
    return +1 if board.turn is Color.WHITE else -1


def _choreograph(director: _Director, plan: Plan, side: int, player: int, rng: random.Random) -> None:
    """Carry out a plan with one hand, in one of the orders real players use."""
    stage = director.stage
    first = (plan.carries[0][0] if plan.carries else plan.vanishes[0][0] if plan.vanishes
             else plan.removals[0] if plan.removals else plan.unstacks[0][0] if plan.unstacks
             else plan.there_and_back[0] if plan.there_and_back else None)
    if first is None:
        return
    director.enter(first, side, player)
    if plan.there_and_back is not None:  # referee mode: across the water and put back
        origin, target = plan.there_and_back
        under = stage.pieces.get(target)  # an own piece it would have stacked on, had it been legal
        director.pick(origin, side, player)
        director.put(target, side, player, nudge=False)
        director.hold(rng.uniform(0.2, 0.6))
        director.pick(target, side, player, uncover=under)
        director.put(origin, side, player, nudge=False)
        director.leave(side, player)
        return
    removals = list(plan.removals)
    swaps: dict[Point, bool] = {}  # carry targets whose piece leaves as the carried one lands: buried?
    for source, target in plan.carries:
        if target in removals:
            # A piece joining its own side's piece goes on top of it (a stack), hiding it.
            bury = stage.pieces[target].label.split("_")[0] == stage.pieces[source].label.split("_")[0]
            if bury or rng.random() < 0.5:
                removals.remove(target)
                swaps[target] = bury
    for point in removals:  # captured pieces off the board first
        director.pick(point, side, player, reveal=plan.reveals.pop(point, None))
        director.drop_off(side, player)
    for source, target in plan.carries:
        if director.hand is None:
            director.enter(source, side, player)
        director.pick(source, side, player, reveal=plan.reveals.pop(source, None))
        if rng.random() < 0.3:
            director.hover(side, player, target)
        director.put(target, side, player, swap_out=target in swaps, keep=swaps.get(target, False))
        if target in swaps and not swaps[target]:
            director.drop_off(side, player)
    for source, target in plan.vanishes:
        if director.hand is None:
            director.enter(source, side, player)
        director.pick(source, side, player, reveal=plan.reveals.pop(source, None))
        director.tuck(target, side, player)
    for source, target, label in plan.unstacks:  # a passenger leaves from under its carrier
        if director.hand is None:
            director.enter(source, side, player)
        director.unstack(source, label, side, player)
        director.put(target, side, player)
    for point, label in plan.reveals.items():  # a piece that changes its look in place
        if director.hand is None:
            director.enter(point, side, player)
        director.travel(director.at(point, stage.height_mm + 5, side, player), rng.uniform(0.4, 0.8))
        stage.pieces[point] = stage.new_disc(label, (director.sizes or {}).get(point, 1))
        stage.changed()
    if director.hand is not None:
        director.leave(side, player)


def _expected_frames(plies: int, fps: float) -> int:
    return int(plies * 4.2 * fps) + int(2 * fps)


def _illegal_move(game: str, board, labels: dict[Point, str], rng: random.Random) -> tuple[Point, Point]:
    """A move of the side to move that no legal move explains: a piece put on a wrong point."""
    variant = games.get(game)
    legal_results = []
    for move in board.legal_moves:
        board.push(move)
        legal_results.append(seen(game, board))
        board.pop()
    own = [p for p in labels if _owner(game, board, p) is board.turn]
    empty = [p for p in variant.geometry.points() if p not in labels]
    rng.shuffle(own)
    for reach in (1, 2, 3, 9):
        for origin in own:
            targets = [p for p in empty if max(abs(p.file - origin.file), abs(p.rank - origin.rank)) <= reach]
            rng.shuffle(targets)
            for target in targets:
                result = dict(labels)
                result[target] = result.pop(origin)
                if result not in legal_results:
                    return origin, target
    raise RenderError("no illegal move found to inject")


def _owner(game: str, board, point: Point):
    piece = board.piece_at(point)
    if piece is None:
        return None
    if not hasattr(piece, "color"):  # a Commander stack: its carrier's colour
        piece = piece[0]
    return piece.color


def check_schedule(plies: int, unseen: Sequence[int], illegal_after: Sequence[int]) -> tuple[list[int], list[int]]:
    """The sorted unseen firsts and illegal-move plies, or a `RenderError` naming the conflict."""
    unseen_set = sorted(set(int(k) for k in unseen))
    for k in unseen_set:
        if not 1 <= k < plies:
            raise RenderError(f"unseen ply {k} needs plies {k} and {k + 1} among the {plies} played")
    cut_plies = {k for first in unseen_set for k in (first, first + 1)}
    if len(cut_plies) != 2 * len(unseen_set):
        raise RenderError(f"unseen pairs overlap: {unseen_set}")
    illegal_set = sorted(set(int(k) for k in illegal_after))
    for k in illegal_set:
        if not 0 <= k <= plies:
            raise RenderError(f"illegal_after {k} is outside 0–{plies}")
        if k in unseen_set:
            raise RenderError(f"illegal_after {k} falls inside an unseen pair")
    return unseen_set, illegal_set


def _new_board(variant, fen: str | None, referee: bool):
    """A board at `fen`; in referee mode (Commander Chess §6.5) when the moves need it."""
    if referee:
        return variant.board_class(fen or variant.starting_fen, referee=True)
    return variant.board(fen) if fen is not None else variant.board()


def render_game(game: str, moves: Sequence[str], out_dir: Path, *, seed: int, start_fen: str | None = None,
                fps: float = 15, size=(1280, 720), split: str = "test", illegal_after: Sequence[int] = (),
                unseen: Sequence[int] = (), progress: Callable[[int, int], None] | None = None,
                board_moved_after: Sequence[int] = (), radius_ratio: float | None = None,
                markers: bool = True) -> RenderedGame:
    """Film `moves` played from `start_fen` (the game's start by default) into `out_dir`.

    Plies count from 1: ``illegal_after=[k]`` makes a wrong move after ply k (0: before the
    first) and puts it back; ``unseen=[k]`` cuts plies k and k+1 out of the picture;
    ``board_moved_after=[k]`` has someone knock the board after ply k: it slides 10–18 mm and
    turns 1.5–4° under the still camera (the truth's ``calibration`` is the one at the start,
    ``board_moved`` says when and where to). `radius_ratio` sizes the pieces (a share of the
    point spacing; a usual set's at random when not given). ``markers=False`` prints the board
    without its ArUco markers, as a board from a shop.
    """
    variant = games.get(game)
    if not 5 <= fps <= 60:
        raise RenderError(f"fps {fps} is outside 5–60")
    width, height = (int(v) for v in size)
    if width % 2 or height % 2 or min(width, height) < 120:
        # MPEG-4 codecs drop an odd last row or column: the truth's size would be wrong.
        raise RenderError(f"video size {width}×{height}: width and height must be even and at least 120")
    referee = game == "commander" and any("$" in str(text) for text in moves)
    board = _new_board(variant, start_fen, referee)
    start_fen = board.fen()
    parsed = []
    replay = board.copy()
    for number, text in enumerate(moves, 1):
        try:
            move = variant.parse_move(replay, str(text))
        except ValueError as error:
            raise RenderError(f"ply {number} {text!r}: {error}") from None
        parsed.append((move, variant.notation().format(replay, move)))
        replay.push(move)
    plies = len(parsed)
    unseen_set, illegal_set = check_schedule(plies, unseen, illegal_after)

    rng = random.Random(f"banco-video:{seed}")
    stage = Stage(game, random.Random(rng.getrandbits(64)), size, fps, split, radius_ratio=radius_ratio,
                  markers=markers)
    stage.set_position(seen(game, board), stack_sizes(game, board))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{game}-{seed}"
    video, codec = _open_writer(out_dir, stem, fps, stage.size)
    writer = video[1]
    director = _Director(stage, writer, random.Random(rng.getrandbits(64)), fps, progress,
                         _expected_frames(plies + 2 * len(illegal_set), fps))
    choreo_rng = random.Random(rng.getrandbits(64))
    players = {Color.WHITE: 0, Color.BLACK: 1}
    truth_moves: list[dict] = []
    truth_illegal: list[dict] = []
    truth_unseen: list[dict] = []
    pending_cut: list[dict] = []
    repairs: list[int] = []  # plies after which the hands had left the board wrong (a renderer bug)
    geometry = variant.geometry
    first_calibration = stage.calibration
    moved_after = sorted(set(int(k) for k in board_moved_after))
    if any(not 1 <= k <= plies for k in moved_after):
        raise RenderError(f"board_moved_after {moved_after}: plies run from 1 to {plies}")
    truth_moved: list[dict] = []
    bump_rng = random.Random(f"banco-video-bump:{seed}")  # its own stream: other renders stay the same
    try:
        director.still(choreo_rng.uniform(1.0, 2.0))
        for ply in range(0, plies + 1):
            if ply in illegal_set:
                labels = seen(game, board)
                origin, target = _illegal_move(game, board, labels, choreo_rng)
                side, player = _side(board), players[board.turn]
                director.begin()
                director.enter(origin, side, player)
                director.pick(origin, side, player)
                director.put(target, side, player, nudge=False)
                director.leave(side, player)
                start, done = director.span()
                director.still(choreo_rng.uniform(2.0, 4.0))
                director.begin()
                director.enter(target, side, player)
                director.pick(target, side, player)
                director.put(origin, side, player, nudge=False)
                director.leave(side, player)
                _, restored = director.span()
                director.still(choreo_rng.uniform(0.5, 1.2))
                truth_illegal.append({"after_ply": ply, "frame_start": start, "frame_done": done,
                                      "frame_restored": restored, "from": geometry.point_name(origin),
                                      "to": geometry.point_name(target)})
            if ply == plies:
                break
            number = ply + 1
            move, text = parsed[ply]
            if number in unseen_set:
                director.cutting = True
                first_cut = director.raw
            before, sizes_before = seen(game, board), stack_sizes(game, board)
            side, player = _side(board), players[board.turn]
            board.push(move)
            after = seen(game, board)
            hint = (move.from_point, move.to_point)
            director.begin()
            director.sizes = stack_sizes(game, board)
            plan = plan_ply(before, after, hint, sizes_before, director.sizes)
            _choreograph(director, plan, side, player, choreo_rng)
            if _settle(stage, after, director.sizes):
                repairs.append(number)
            director.sizes = None
            start, done = director.span()
            entry = {"ply": number, "move": text, "frame_start": start, "frame_done": done, "fen": board.fen()}
            truth_moves.append(entry)
            if director.cutting:
                entry["cut"] = True
                pending_cut.append(entry)
                if number - 1 in unseen_set:
                    director.cutting = False
                    for cut in pending_cut:
                        cut["frame_start"] = cut["frame_done"] = director.written
                    truth_unseen.append({"plies": [number - 1, number], "frames": [first_cut, director.raw - 1],
                                         "resume_frame": director.written})
                    pending_cut = []
            director.still(choreo_rng.uniform(0.4, 1.6))
            if number in moved_after:
                distance, heading = bump_rng.uniform(10, 18), bump_rng.uniform(0, 2 * math.pi)
                angle = bump_rng.choice([-1, 1]) * bump_rng.uniform(1.5, 4)
                frame = director.written
                stage.move_board(distance * math.cos(heading), distance * math.sin(heading), angle)
                director.still(bump_rng.uniform(1.0, 1.6))
                moved = profile.to_dict(stage.calibration, camera=f"synthetic:{seed}")
                moved["created"] = FIXED_CREATED
                truth_moved.append({"after_ply": number, "frame": frame, "shift_mm": round(distance, 2),
                                    "angle_deg": round(angle, 2), "calibration": moved})
    finally:
        writer.release()
    cut_frames = director.raw - director.written
    calibration = profile.to_dict(first_calibration, camera=f"synthetic:{seed}")
    calibration["created"] = FIXED_CREATED
    truth = {
        "version": VERSION, "game": game, "start_fen": start_fen, "fps": fps, "size": list(stage.size),
        "calibration": calibration, "moves": truth_moves, "illegal": truth_illegal, "unseen": truth_unseen,
        "cut_frames": cut_frames, "frames": director.written, "seed": seed, "split": split, "codec": codec,
        "final_fen": board.fen(), "referee": referee, "repaired_plies": repairs,
    }
    if truth_moved:
        truth["board_moved"] = truth_moved
    truth_path = out_dir / f"{stem}.json"
    truth_path.write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return RenderedGame(video[0], truth_path, truth)


def _settle(stage: Stage, after: dict[Point, str], sizes: dict[Point, int]) -> bool:
    """Make the stage agree with the engine (a piece hidden in a stack, a changed top, stack sizes)."""
    changed = False
    for point in [p for p in stage.pieces if p not in after]:
        del stage.pieces[point]
        changed = True
    for point, label in after.items():
        if point not in stage.pieces or stage.pieces[point].label != label:
            stage.pieces[point] = stage.new_disc(label)
            changed = True
        disc = stage.pieces[point]
        if disc.discs != sizes.get(point, 1):
            disc.discs = sizes.get(point, 1)
            changed = True
    if changed:
        stage.changed()
    return changed


class _BackgroundWriter:
    """Encodes on a second thread (OpenCV lets go of the GIL) while the next frames are drawn."""

    def __init__(self, writer) -> None:
        self.writer = writer
        self.queue: queue.Queue = queue.Queue(maxsize=16)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="video-writer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            frame = self.queue.get()
            if frame is None:
                return
            try:
                self.writer.write(frame)
            except BaseException as error:  # reported on the caller's thread
                self.error = error

    def write(self, frame) -> None:
        if self.error is not None:
            raise self.error
        self.queue.put(frame)

    def release(self) -> None:
        self.queue.put(None)
        self.thread.join()
        self.writer.release()
        if self.error is not None:
            raise self.error


def _open_writer(out_dir: Path, stem: str, fps: float, size: tuple[int, int]):
    """mp4 (MPEG-4 part 2, 'mp4v'); Motion JPEG in .avi where this OpenCV cannot write it."""
    for codec, suffix in (("mp4v", ".mp4"), ("MJPG", ".avi")):
        path = out_dir / f"{stem}{suffix}"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codec), float(fps), size)
        if writer.isOpened():
            return (path, _BackgroundWriter(writer)), codec
        writer.release()
        path.unlink(missing_ok=True)
    raise RenderError("OpenCV can write neither mp4v nor MJPG video here")


# ---------------------------------------------------------------------------- the cache
def cache_dir() -> Path:
    """BANCO_CACHE_DIR, else the user's cache folder (platformdirs), then ``videos``."""
    root = os.environ.get("BANCO_CACHE_DIR")
    if root:
        return Path(root) / "videos"
    import platformdirs

    return Path(platformdirs.user_cache_dir("banco")) / "videos"


def cache_key(game: str, moves: Sequence[str], **options) -> str:
    blob = json.dumps({"version": VERSION, "game": game, "moves": list(moves),
                       **{k: list(v) if isinstance(v, (tuple, list)) else v for k, v in sorted(options.items())}},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def cached_game(game: str, moves: Sequence[str], *, seed: int, start_fen: str | None = None, fps: float = 15,
                size=(1280, 720), split: str = "test", illegal_after: Sequence[int] = (), unseen: Sequence[int] = (),
                progress: Callable[[int, int], None] | None = None,
                board_moved_after: Sequence[int] = (), radius_ratio: float | None = None,
                markers: bool = True) -> RenderedGame:
    """`render_game` into the cache, rendered only the first time these arguments are seen."""
    # Named in the key only when not the default, so the videos cached before stay valid.
    extra = {"board_moved_after": tuple(board_moved_after)} if board_moved_after else {}
    if radius_ratio is not None:
        extra["radius_ratio"] = radius_ratio
    if not markers:
        extra["markers"] = False
    key = cache_key(game, moves, seed=seed, start_fen=start_fen, fps=fps, size=tuple(size), split=split,
                    illegal_after=tuple(illegal_after), unseen=tuple(unseen), **extra)
    root = cache_dir()
    final = root / key
    truth = final / f"{game}-{seed}.json"
    if truth.exists():
        data = json.loads(truth.read_text(encoding="utf-8"))
        suffix = ".mp4" if data.get("codec") == "mp4v" else ".avi"
        video = final / f"{game}-{seed}{suffix}"
        if video.exists():
            return RenderedGame(video, truth, data)
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=root))
    try:
        rendered = render_game(game, moves, scratch, seed=seed, start_fen=start_fen, fps=fps, size=size,
                               split=split, illegal_after=illegal_after, unseen=unseen, progress=progress,
                               board_moved_after=board_moved_after, radius_ratio=radius_ratio, markers=markers)
        try:
            os.replace(scratch, final)  # atomic: another process sees all of it or none
        except OSError:
            if not truth.exists():  # not a concurrent winner: a real failure
                raise
            shutil.rmtree(scratch, ignore_errors=True)
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)
    data = json.loads(truth.read_text(encoding="utf-8"))
    return RenderedGame(final / rendered.video.name, truth, data)


def game_suite(game: str, count: int = 10, first_seed: int = 1000, plies: int | None = None, illegal: int = 1,
               unseen: int = 1, penalties: float | None = None) -> list[dict]:
    """Keyword arguments of `render_game` / `cached_game` for `count` test games of `game`:
    random games (`models.synth.playout.random_game`, the suite's length by default), a frame
    rate of 10–30 fps, `illegal` injected wrong moves and `unseen` cut pairs of plies, all
    drawn from the seed. Seeds from 1000 up are the benchmarks' and acceptance suites' (the
    module's docstring); Commander Chess games include the referee's put-back crossings
    (`penalties`, 3 % of turns by default).
    """
    from models.synth.playout import random_game

    games.get(game)
    if penalties is None:
        penalties = 0.03 if game == "commander" else 0.0
    suite = []
    for seed in range(first_seed, first_seed + count):
        rng = random.Random(f"banco-suite:{game}:{seed}")
        moves = random_game(game, plies, seed=seed, penalties=penalties)
        last = len(moves)
        firsts: list[int] = []
        while len(firsts) < unseen and last > 4:
            k = rng.randrange(2, last)
            if all(abs(k - other) > 2 for other in firsts):
                firsts.append(k)
        afters: list[int] = []
        while len(afters) < illegal and last > 2:
            k = rng.randrange(1, last)
            if k not in firsts and k not in afters:
                afters.append(k)
        suite.append({"game": game, "moves": moves, "seed": seed, "fps": random_fps(seed), "split": "test",
                      "illegal_after": sorted(afters), "unseen": sorted(firsts)})
    return suite


def random_fps(seed: int) -> float:
    """A frame rate between 10 and 30 fps, as cameras and phones record, drawn from `seed`."""
    return float(random.Random(f"banco-fps:{seed}").choice([10, 12, 15, 15, 20, 24, 25, 30, 30]))


__all__ = ["RenderError", "RenderedGame", "appearance", "cache_dir", "cached_game", "game_suite", "plan_ply",
           "random_fps", "render_game"]


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m models.synth.video --game xiangqi --plies 40 --seed 1000 --out videos/``:
    render a random game (or the moves of a file, one per line) with its truth JSON."""
    import argparse

    from rich.progress import Progress

    from models.synth.playout import random_game

    parser = argparse.ArgumentParser(description="Render a game video and its ground truth.")
    parser.add_argument("--game", default="xiangqi")
    parser.add_argument("--plies", type=int, default=None, help="random game length (default: the suite's)")
    parser.add_argument("--moves", type=Path, default=None, help="a file of moves, one per line")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--fps", type=float, default=None, help="default: 10–30 drawn from the seed")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--split", default="test", choices=["train", "test"])
    parser.add_argument("--illegal-after", type=int, nargs="*", default=[])
    parser.add_argument("--unseen", type=int, nargs="*", default=[])
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    if args.moves is not None:
        moves = [line.strip() for line in args.moves.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        moves = random_game(args.game, args.plies, seed=args.seed)
    width, height = (int(v) for v in args.size.lower().split("x"))
    with Progress() as bar:
        task = bar.add_task(f"{args.game}, {len(moves)} plies", total=None)
        rendered = render_game(args.game, moves, args.out, seed=args.seed,
                               fps=args.fps if args.fps is not None else random_fps(args.seed),
                               size=(width, height), split=args.split, illegal_after=args.illegal_after,
                               unseen=args.unseen, progress=lambda done, total: bar.update(task, completed=done,
                                                                                          total=total))
    print(f"{rendered.video} ({rendered.truth_data['frames']} frames), truth: {rendered.truth}")


if __name__ == "__main__":
    main()
