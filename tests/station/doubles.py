"""Test doubles with the tracker's interface (contracts: vision.tracker.MoveTracker, vision.events)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class MoveCommitted:
    moves: list
    san: list
    timestamp: float
    evidence: dict = field(default_factory=dict)


@dataclass
class Ambiguous:
    candidates: list
    scores: list
    timestamp: float


@dataclass
class Illegal:
    points: list
    timestamp: float


@dataclass
class CameraLost:
    reason: str = "unplugged"


@dataclass
class CameraBack:
    pass


class ScriptedTracker:
    """Commits the scripted moves at given frame numbers (frames are their own index). A move
    scripted `on_press` waits for a clock press instead."""

    def __init__(self, game: str, board, script: dict[int, list[str]], on_press: set[int] = frozenset()):
        self.game = game
        self.board = board
        self.script = script
        self.on_press = on_press
        self.waiting: list[str] | None = None
        self.resets: list[Any] = []
        self.presses = 0

    def _commit(self, texts: list[str], timestamp: float) -> MoveCommitted:
        import games

        variant = games.get(self.game)
        moves = []
        for text in texts:
            move = variant.parse_move(self.board, text)
            moves.append(move)
            self.board.push(move)
        return MoveCommitted(moves, list(texts), timestamp, {"id": f"frame-{timestamp:.2f}"})

    def feed(self, frame: int, timestamp: float) -> list:
        texts = self.script.get(frame)
        if texts is None:
            return []
        if frame in self.on_press:
            self.waiting = texts
            return []
        return [self._commit(texts, timestamp)]

    def press(self, timestamp: float) -> list:
        self.presses += 1
        if self.waiting is None:
            return []
        texts, self.waiting = self.waiting, None
        return [self._commit(texts, timestamp)]

    def reset(self, board) -> None:
        self.board = board
        self.resets.append(board.fen())


def frames(count: int, fps: float = 15.0, pace: float = 0.0, gaps: dict[int, Any] | None = None):
    """Frames 0..count-1 as (index, timestamp); `gaps[i]` is yielded before frame i (camera events),
    or is a number of seconds to stall, or a function to wait on."""
    for index in range(count):
        for gap in (gaps or {}).get(index, ()):
            if isinstance(gap, int | float):
                time.sleep(gap)
            elif callable(gap):
                gap()
            else:
                yield gap
        if pace:
            time.sleep(pace)
        yield index, index / fps
