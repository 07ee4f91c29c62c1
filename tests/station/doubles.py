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
class PieceLifted:
    point: Any
    timestamp: float


@dataclass
class LiftEnded:
    point: Any
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
        self.press_modes: list[bool] = []  # each value the station gave `commit_on_press`
        self._commit_on_press = False

    @property
    def commit_on_press(self) -> bool:
        return self._commit_on_press

    @commit_on_press.setter
    def commit_on_press(self, value: bool) -> None:
        self._commit_on_press = value
        self.press_modes.append(value)

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


class RelayedClock:
    """A clock device whose press events the test relays by hand (contract: the station's
    `server.station.devices.DeviceClock`). A player's press switches the clock at once, as the
    device and the host's mirror do; its `ClockPress` reaches the station only when released:
    the moment the test chooses, before or after the camera's commit."""

    name = "relayed"
    has_presses = True
    simulator = None

    def __init__(self, sink) -> None:
        self.sink = sink
        self.clock = None
        self.held: list = []
        self.sent: list = []

    def set_control(self, control, white_ms=None, black_ms=None) -> None:
        from hardware.clock import ChessClock

        self.clock = ChessClock(control, white_ms=control.base_ms if white_ms is None else white_ms,
                                black_ms=control.base_ms if black_ms is None else black_ms)

    def start(self, side, at_ms: int) -> None:
        self.clock.start(side, at_ms)

    def player_press(self, side, at_ms: int) -> None:
        from hardware.events import ClockPress

        result = self.clock.press(side, at_ms)
        if result is not None:
            self.held.append(ClockPress(side, at_ms, result.white_ms, result.black_ms, result.white_ms,
                                        result.black_ms))

    def release(self) -> None:
        for press in self.held:
            self.sent.append(press)
            self.sink(press)
        self.held = []

    def press(self, side, at_ms: int):
        return None  # the device's presses come from its players, not from the station

    def switch(self, side) -> None:
        times = self.clock.times(self.clock._turn_start)
        self.clock.sync(*times, side, self.clock._turn_start)

    def stop(self, at_ms: int) -> None:
        if self.clock is not None and self.clock.running is not None:
            self.clock.pause(at_ms)

    def check_flag(self, at_ms: int):
        return None

    @property
    def running(self):
        return None if self.clock is None else self.clock.running

    def times(self, at_ms: int | None = None):
        if self.clock is None:
            return None
        return self.clock.times(self.clock._turn_start if at_ms is None else max(at_ms, self.clock._turn_start))

    def connected(self) -> bool:
        return True

    def close(self) -> None:
        return None
