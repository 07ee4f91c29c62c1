"""The station: one asyncio orchestrator per board, one event queue (picochess is the model).

Camera events (the tracker's, fed from a frame source on a thread), clock presses and flags
(the clock device's thread), device state (LED board, clock) and the record's snapshots
(referee corrections, resolved ambiguities) all arrive on ONE queue and are handled in order
by one task. The station owns the game on this board:

- it asks vision for moves (`tracker.feed` on every frame) and binds each committed move to
  the clock press that completes it (FIDE 6.7), asking the tracker to commit at a press;
  either may come first: a move waits `PRESS_GRACE_S` for its press, and a press waits as
  long for its move (the camera took a second look, or the commit overtook the press's event
  on its way from the device), then each goes on alone;
- it pushes the moves into its rules engine and stores them through the server's record
  (durable before any viewer sees them), keeping every move it could not store yet in an
  outbox that it retries, in order, until the record has it;
- it drives the LEDs (last move, lifted piece and its legal targets, illegal position,
  ambiguity, check, end of game) and the clock (set at start, started by the first move,
  flag fall, paused at the end), and reports its status for the pages (the LED mirror);
- in Commander Chess it times the GAME, not each side (COMMANDER_RULES §12, decision D34):
  ``--time M+S`` gives the game M minutes of both players' time together (15: battle mode,
  30: total war; the increment is dropped, `hardware.clock.game_duration_control`); when
  that is used up the game ends and the engine's points decide, the reason giving them
  ("time up after 15:00: Red 23 – Blue 17 points"). Each side's display keeps counting;
- on a target that follows its board (a remote station given the board's key alone), once
  the game has a result it waits for the board's next game and records that one: a club's
  rounds, one after another, on one board and one station.

The camera proposes; the rules engine disposes; doubts become events for the referee.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import games
from games.base import BancoError, Color, Outcome, Termination
from hardware.clock import (
    TIMED_BY_DURATION,
    FlagEvent,
    PointsDecide,
    TimeControl,
    game_duration_control,
    game_time_used,
    time_up,
)
from hardware.events import ClockPress, DeviceConnected, DeviceDisconnected, FlagFall, asyncio_sink
from hardware.leds import frame_for, state_of
from hardware.protocol import LedFrame
from server.record import canonical_notation, points_summary
from server.station.devices import NullClock, NullLeds, close_all, open_clock, open_leds
from server.station.modes import TimeModeMismatch, refuse_mode_mismatch
from server.station.status import led_json
from server.station.target import RecordTarget, StoreUnavailable

log = logging.getLogger("banco.station")

PRESS_GRACE_S = 3.0        # stream seconds a committed move waits for its clock press, and a press for its move
PRESS_GRACE_WALL_S = 0.5   # and at least this much real time (a press crosses a serial link)
END_GRACE_WALL_S = 1.0     # once the frames end (no more stream time), the real time a move still gets
TICK_S = 0.1               # stream seconds between the camera thread's ticks
RETRY_S = 1.0              # between attempts to store what the record could not take
STATUS_S = 0.2             # at most this often a status report
STATUS_IDLE_S = 1.0        # and at least this often while frames come
RECENT = 12                # station events kept in the status
NEXT_GAME_POLL_S = 3.0     # between questions for the board's next game, once this one is over


# ---------------------------------------------------------------- the queue's own events


@dataclass(frozen=True)
class Tick:
    """Stream time moves on (sent by the camera thread every `TICK_S` of frame time)."""

    timestamp: float


@dataclass(frozen=True)
class SourceEnded:
    """The frame source has no more frames (a file ended, or the source was stopped)."""

    reason: str = "end of video"


@dataclass(frozen=True)
class RecordChanged:
    """A snapshot of this game from the record (ours echoed back, or a referee's change)."""

    snapshot: dict[str, Any]


@dataclass(frozen=True)
class Retry:
    """Time to try again to store what the record could not take."""


@dataclass(frozen=True)
class PressWaitOver:
    """The frames have ended and the last move has waited long enough for its press."""


@dataclass(frozen=True)
class TrackerSaw:
    """A move the camera thread's tracker committed, with the tracker that saw it: a tracker
    replaced since (the board's next game began) speaks of the last game, not this one."""

    tracker: Any
    event: Any


@dataclass(frozen=True)
class NextGame:
    """The referee created the board's next game: the station records it now."""

    game_id: int


@dataclass(frozen=True)
class Stop:
    reason: str = "stopped"


@dataclass
class _Pending:
    """A committed move waiting for its press."""

    text: str
    side: Color
    timestamp: float
    wall: float
    evidence: str


@dataclass
class _HeldPress:
    """A clock press that came before the camera committed its move (the tracker took a second
    look, or the press overtook the commit on its way here): it waits for that move."""

    press: ClockPress
    timestamp: float
    wall: float


@dataclass
class _Write:
    text: str
    white_ms: int | None
    black_ms: int | None
    evidence: str


@dataclass
class StationReport:
    """What a finished run did, for tests and the command line."""

    stored: list[str] = field(default_factory=list)
    presses: list[ClockPress] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    result: str = "*"


def _kind(event: object) -> str:
    return type(event).__name__


class Station:
    """One board: a frame source and tracker, a clock, LEDs, and the record of one game.

    `source` yields ``(frame, timestamp)`` pairs, and may yield `vision` camera events
    (``CameraLost``/``CameraBack``) between them. `make_tracker(board)` builds the tracker
    (`vision.tracker.MoveTracker` or anything with ``feed``/``press``/``reset``); a tracker with a
    ``commit_on_press`` flag gets it set while a clock device is connected, cleared otherwise.
    `on_frame(index, timestamp)` is called on the camera thread after each frame (the demo's
    players press the simulated clock from it). With `exit_at_end` the station stops when the
    source ends and everything is stored; otherwise it keeps serving until `stop()`.

    In Commander Chess `time_control` is the game's duration (its base time; the increment is
    dropped): the game ends when both players together have used it, and points decide.
    """

    def __init__(self, target: RecordTarget, source: Iterable, make_tracker: Callable[[Any], Any], *,
                 clock: str | None = None, leds: str | None = None, time_control: TimeControl | None = None,
                 clock_now_ms: Callable[[], int] | None = None, on_frame: Callable[[int, float], None] | None = None,
                 exit_at_end: bool = False, name: str = "station", link_options: dict | None = None) -> None:
        self.target = target
        self.source = source
        self.make_tracker = make_tracker
        self.clock_spec = clock
        self.leds_spec = leds
        self.time_control = time_control
        self.game_time_ms: int | None = None  # a game timed by its duration (Commander Chess): its limit
        self.clock_now_ms = clock_now_ms
        self.on_frame = on_frame
        self.exit_at_end = exit_at_end
        self.name = name
        self.link_options = link_options or {}
        self.report = StationReport()
        self.clock: NullClock = NullClock()
        self.leds: NullLeds = NullLeds()
        self.ready = asyncio.Event()
        self.queue: asyncio.Queue = asyncio.Queue()
        self.board: Any = None
        self.variant: games.Variant | None = None
        self.tracker: Any = None
        self.camera = "starting"
        self.frames = 0
        self._tracker_lock = threading.Lock()
        self._stop_camera = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_ts = 0.0
        self._pending: _Pending | None = None
        self._presses: deque[_HeldPress] = deque()
        self._owed: deque[Color] = deque()  # sides whose move was stored before its press came
        self._outbox: deque[_Write] = deque()
        self._last_seq = -1
        self._source_ended = False
        self._result = "*"
        self._lifted = None
        self._illegal: frozenset = frozenset()
        self._candidates: list = []
        self._frame: LedFrame | None = None
        self._end_outcome: Outcome | None = None  # how the game ended, for the LEDs when the board cannot say
        self._recent: deque[dict[str, Any]] = deque(maxlen=RECENT)
        self._status_due = 0.0
        self._status_dirty = True
        self._following: asyncio.Task | None = None  # the record's snapshots of the game being recorded
        self._refused_next: int | None = None  # the board's next game this station said it will not play
        self._viewed_calibration: Any = None  # the tracker's calibration `camera_warnings` were taken from
        self.camera_warnings: list[str] = []

    # ------------------------------------------------------------------ running

    def post(self, event: object) -> None:
        """Put an event on the station's queue from any thread."""
        if self._loop is None:
            raise RuntimeError("the station is not running")
        self._loop.call_soon_threadsafe(self.queue.put_nowait, event)

    def stop(self, reason: str = "stopped") -> None:
        self.post(Stop(reason))

    async def run(self) -> StationReport:
        self._loop = asyncio.get_running_loop()
        sink = asyncio_sink(self._loop, self.queue)
        snapshot = await self.target.snapshot()
        await self._load_game(snapshot)
        grid = (self.variant.geometry.files, self.variant.geometry.ranks)
        try:
            self.clock = await asyncio.to_thread(open_clock, self.clock_spec, sink, timed=self.time_control is not None,
                                                 now_ms=self.clock_now_ms, **self.link_options)
            self.leds = await asyncio.to_thread(open_leds, self.leds_spec, sink, grid, **self.link_options)
        except Exception:
            close_all(self.clock, self.leds)
            raise
        tasks: list[asyncio.Task] = []
        camera: threading.Thread | None = None
        try:
            self._start_game(snapshot)
            camera = threading.Thread(target=self._camera, name=f"banco-camera-{self.name}", daemon=True)
            camera.start()
            self._following = asyncio.create_task(self._follow())
            tasks = [asyncio.create_task(self._retry())]
            if self.target.follows_board:
                tasks.append(asyncio.create_task(self._await_next_games()))
            self.ready.set()
            self._note("station", f"watching game {self.target.game_id} ({self.variant.name}); "
                       f"clock {self.clock.name}, LEDs {self.leds.name}")
            self._check_camera_view()
            while True:
                event = await self.queue.get()
                if isinstance(event, Stop):
                    break
                try:
                    await self._handle(event)
                except Exception as error:  # one bad event must not stop the board
                    log.exception("station: %s while handling %s", error, _kind(event))
                    self._note("error", f"{_kind(event)}: {error}")
                await self._maybe_status()
                if self.exit_at_end and self._source_ended and self._pending is None and not self._outbox:
                    break
            await self._flush_pending()
            await self._drain_outbox()
            await self._publish_status(force=True)
        finally:
            self._stop_camera.set()
            close = getattr(self.source, "close", None)
            if close is not None:  # a live source's grabbing thread stops with the station
                with contextlib.suppress(Exception):
                    close()
            if self._following is not None:
                tasks.append(self._following)
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            if camera is not None:
                await asyncio.to_thread(camera.join, 5)
            await asyncio.to_thread(close_all, self.clock, self.leds)
        self.report.result = self._result
        return self.report

    async def _load_game(self, snapshot: dict[str, Any]) -> None:
        """Take the target's game as the board's: its rules, start position and moves so far."""
        variant = games.get(snapshot["variant"])
        notation = canonical_notation(variant)
        start_fen = await self._start_fen(snapshot)
        board = variant.record_board(start_fen)
        reader = variant.notation(notation)
        for text in await self.target.moves():
            board.push(reader.parse(board, text))
        # Only now that all of it was read: a game that cannot be read leaves the station as it was.
        self.variant, self.notation, self.board = variant, notation, board
        if self.time_control is not None and self.variant.name in TIMED_BY_DURATION and self.game_time_ms is None:
            self.game_time_ms = self.time_control.base_ms
            if self.time_control != game_duration_control(self.time_control):
                self._note("clock", f"Commander Chess times the game: {self.time_control} gives it "
                           f"{_minutes(self.game_time_ms)} in all, without increment")
            self.time_control = game_duration_control(self.time_control)
        self._result = snapshot.get("result", "*")
        self._last_seq = snapshot.get("seq", -1)
        self._presses.clear()
        self._owed.clear()
        self._lifted, self._illegal, self._candidates, self._end_outcome = None, frozenset(), [], None

    def _start_game(self, snapshot: dict[str, Any]) -> None:
        """Set the clock, the camera's tracker and the LEDs to the game just loaded."""
        self._set_clock(snapshot)
        tracker = self.make_tracker(self.board.copy())
        with self._tracker_lock:  # the camera thread may be feeding the last game's tracker
            self.tracker = tracker
        self._follow_clock_presses()
        self._show_leds()

    async def _start_fen(self, snapshot: dict[str, Any]) -> str | None:
        getter = getattr(self.target, "start_fen", None)
        if getter is not None:
            return await getter()
        return None

    def _set_clock(self, snapshot: dict[str, Any]) -> None:
        if self.time_control is None:
            return
        clocks = snapshot.get("clocks") or {}
        white, black = clocks.get("white_ms"), clocks.get("black_ms")
        self.clock.set_control(self.time_control, white, black)
        if self.board.move_stack and self._result == "*":
            self.clock.start(self.board.turn, self._now_ms())

    # ------------------------------------------------------------------ the camera thread

    def _camera(self) -> None:
        last_tick = None
        drain = getattr(self.source, "drain_events", None)  # vision.capture.FrameSource's CameraLost/Back
        try:
            for item in self.source:
                if self._stop_camera.is_set():
                    break
                if drain is not None:
                    for event in drain():
                        self.post(event)
                if not isinstance(item, tuple):
                    self.post(item)  # a camera event yielded by the source itself
                    continue
                frame, timestamp = item
                with self._tracker_lock:
                    tracker = self.tracker
                    events = tracker.feed(frame, timestamp)
                self._last_ts = timestamp
                for event in events:
                    self.post(TrackerSaw(tracker, event) if _kind(event) == "MoveCommitted" else event)
                if last_tick is None or timestamp - last_tick >= TICK_S:
                    last_tick = timestamp
                    self.post(Tick(timestamp))
                if self.on_frame is not None:
                    self.on_frame(self.frames, timestamp)
                self.frames += 1
            finish = getattr(self.tracker, "finish", None)
            if finish is not None and not self._stop_camera.is_set():
                with self._tracker_lock:
                    for event in finish(self._last_ts):  # what the last frames show, still or not
                        self.post(event)
        except Exception as error:  # a broken source is an event, not a dead station
            log.exception("camera: %s", error)
            self.post(SourceEnded(f"camera failed: {error}"))
            return
        self.post(SourceEnded())

    # ------------------------------------------------------------------ events

    async def _handle(self, event: object) -> None:
        if isinstance(event, TrackerSaw):
            if event.tracker is not self.tracker:
                self._note("ignored", "a move the camera saw in the last game was not recorded in this one")
                return
            event = event.event
        kind = _kind(event)
        if kind == "MoveCommitted":
            notes = event.notes() if hasattr(event, "notes") else []
            await self._moves_seen(list(event.moves), event.timestamp, (getattr(event, "evidence", None) or {}),
                                   "; ".join(notes) or None)
        elif kind == "Ambiguous":
            await self._ambiguous(event)
        elif kind == "Illegal":
            self._illegal = frozenset(event.points)
            self._note("illegal", "the board differs from every legal move at " + self._names(event.points))
            self._show_leds()
        elif kind == "Occluded":
            self._note("occluded", "hidden points: " + self._names(event.points), quiet=True)
        elif kind == "HandOn":
            # A hand is putting things right (or moving): the illegal points stop blinking; if the
            # board is still wrong once it is still again, the tracker says so again.
            self._illegal = frozenset()
            self._show_leds()
        elif kind == "PieceLifted":
            # A piece of the side to move is in the hand: light where it came from and where it may go.
            if self._result == "*":
                self._lifted = event.point
                self._show_leds()
        elif kind in ("LiftEnded", "HandOff"):
            if self._lifted is not None:
                self._lifted = None
                self._show_leds()
        elif kind == "CameraLost":
            self.camera = "lost"
            self._note("camera", "camera lost: " + str(getattr(event, "reason", "")))
        elif kind == "CameraBack":
            self.camera = "watching"
            self._note("camera", "camera back")
        elif kind == "Adapted":
            self._note("camera", getattr(event, "summary", "adapted to this set"))
        elif kind == "BoardMoved":
            self._note("camera", event.note())
        elif kind == "StartFound":
            self._note("camera", f"start position found: {getattr(event, 'fen', '')}", quiet=True)
            if getattr(event, "note", ""):
                self._note("camera", event.note)
        elif isinstance(event, Tick):
            if self.camera in ("starting", "ended"):
                self.camera = "watching"
                self._status_dirty = True
            if time.monotonic() >= self._status_due + STATUS_IDLE_S:
                self._status_dirty = True  # frames and clock readings move on: refresh now and then
            await self._tick(event.timestamp)
        elif isinstance(event, ClockPress):
            await self._pressed(event)
        elif isinstance(event, FlagFall):
            await self._flag(FlagEvent(event.side, event.t_dev_ms))
        elif isinstance(event, DeviceConnected):
            self._note("device", f"{event.device} {'reconnected' if event.reconnect else 'connected'} on {event.port}")
            self._follow_clock_presses()
        elif isinstance(event, DeviceDisconnected):
            self._note("device", f"{event.device} disconnected: {event.reason}")
            self._follow_clock_presses()
        elif isinstance(event, Retry):
            await self._drain_outbox()
        elif isinstance(event, RecordChanged):
            await self._record_changed(event.snapshot)
        elif isinstance(event, NextGame):
            await self._switch_to(event.game_id)
        elif isinstance(event, SourceEnded):
            self._source_ended = True
            self.camera = "ended"
            self._note("camera", event.reason)
            if self._pending is not None:
                # Its press may be on its way (the player pressed as the video ended): no ticks
                # come any more, so wait in real time, handling what arrives meanwhile.
                self._loop.call_later(END_GRACE_WALL_S, self.post, PressWaitOver())
        elif isinstance(event, PressWaitOver):
            await self._store_without_press()
        elif kind in ("CommandRejected", "CommandLost"):
            self._note("device", f"{event.device}: {kind} {event.command}")
        else:
            log.debug("station: ignored %s", kind)

    async def _moves_seen(self, moves: list, timestamp: float, evidence: dict,
                          camera_note: str | None = None) -> None:
        """The tracker committed one move (or several it recovered after a blind spell);
        `camera_note` is what the referee should know about how sure the camera is."""
        if self._result != "*":
            self._note("ignored", "a move after the end of the game was not recorded")
            return
        self._illegal, self._lifted, self._candidates = frozenset(), None, []
        if camera_note:
            self._note("camera", camera_note)
        for index, move in enumerate(moves):
            await self._flush_pending()
            side = self.board.turn
            try:
                text = self.variant.notation(self.notation).format(self.board, move)
                self.board.push(move)
            except BancoError as error:
                self._note("illegal", f"the camera's move {move} is not legal here: {error}")
                await self._resync()
                return
            evidence_id = str(evidence.get("id") or f"{self.name}:{len(self.board.move_stack)}:{timestamp:.3f}")
            press = self._take_press(side)
            last = index == len(moves) - 1
            if press is not None:
                self._store(text, press.white_ms, press.black_ms, evidence_id)
            elif self.clock.has_presses and self.clock.connected() and self.clock.running is not None and last:
                # Wait for the press that completes it, even if the clock already runs for the
                # other side: the device has taken the press and its event is on its way here.
                self._pending = _Pending(text, side, timestamp, time.monotonic(), evidence_id)
            else:
                self._store(text, *self._times_after(side, timestamp), evidence_id)
                self._switch_clock()
        self._start_clock_if_needed(timestamp)
        await self._drain_outbox()
        self._after_move()

    def _follow_clock_presses(self) -> None:
        """A connected clock's press is the moment a move is complete (FIDE 6.7): the tracker
        commits on presses then, and on its stability window while no clock is plugged in."""
        tracker = self.tracker
        if tracker is None or not hasattr(tracker, "commit_on_press"):
            return
        on_press = self.clock.has_presses and self.clock.connected()
        if tracker.commit_on_press != on_press:
            with self._tracker_lock:
                tracker.commit_on_press = on_press
            if self.frames:
                self._note("camera", "moves commit at the clock's presses" if on_press else
                           "no clock: moves commit when the board is still", quiet=True)

    def _times_after(self, side: Color, timestamp: float) -> tuple[int | None, int | None]:
        """The clock after `side` moved without a press from a device: the software clock's press,
        or the device's mirror now (the press never came)."""
        result = self.clock.press(side, int(timestamp * 1000))
        if result is not None:
            return result.white_ms, result.black_ms
        times = self.clock.times(int(timestamp * 1000))
        return times if times is not None else (None, None)

    def _start_clock_if_needed(self, timestamp: float) -> None:
        if self.time_control is not None and self.clock.running is None and self._result == "*" \
                and self.board.move_stack and self.board.outcome() is None:
            self.clock.start(self.board.turn, int(timestamp * 1000))  # the clock starts with the first move

    def _take_press(self, side: Color) -> ClockPress | None:
        for held in list(self._presses):
            if held.press.side is side:
                self._presses.remove(held)
                return held.press
        return None

    async def _pressed(self, press: ClockPress) -> None:
        self.report.presses.append(press)
        pending = self._pending
        if pending is not None and pending.side is press.side:
            self._pending = None
            self._store(pending.text, press.white_ms, press.black_ms, pending.evidence)
            await self._drain_outbox()
            return
        if press.side in self._owed:
            # The press of a move already stored with the clock's reading: late, not a new move's.
            self._owed.remove(press.side)
            self._note("press", f"a late press by {press.side.name.lower()}; its move was already recorded")
            return
        held = _HeldPress(press, self._last_ts, time.monotonic())
        self._presses.append(held)
        if self.tracker is None:
            return
        timestamp = self._last_ts

        def ask() -> list:
            with self._tracker_lock:
                return list(self.tracker.press(timestamp))

        for event in await asyncio.to_thread(ask):
            await self._handle(event)
        if held in self._presses:
            self._note("press", f"{press.side.name.lower()} pressed the clock; no move seen yet, the press waits "
                       "for it", quiet=True)

    async def _tick(self, timestamp: float) -> None:
        if self.game_time_ms is not None:
            await self._check_game_time(int(timestamp * 1000))
        flag = self.clock.check_flag(int(timestamp * 1000))
        if flag is not None:
            await self._flag(flag)
        pending = self._pending
        if pending is not None and timestamp - pending.timestamp >= PRESS_GRACE_S \
                and time.monotonic() - pending.wall >= PRESS_GRACE_WALL_S:
            await self._store_without_press()
        now = time.monotonic()
        while self._presses and timestamp - self._presses[0].timestamp >= PRESS_GRACE_S \
                and now - self._presses[0].wall >= PRESS_GRACE_WALL_S:
            # No move came for it: binding it to this side's next move would shift every later one.
            held = self._presses.popleft()
            self._note("press", f"{held.press.side.name.lower()} pressed the clock but no move of theirs was seen; "
                       "the press is not bound to a move")

    async def _store_without_press(self) -> None:
        """The move waiting for its press has waited long enough: store it with the clock's reading."""
        if self._pending is not None:
            self._note("press", f"no clock press for {self._pending.text}; recorded with the clock's reading")
        await self._flush_pending()

    async def _flush_pending(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            times = self.clock.times(int(pending.timestamp * 1000))
            self._store(pending.text, *(times if times is not None else (None, None)), pending.evidence)
            self._owed.append(pending.side)
            self._switch_clock()
            await self._drain_outbox()

    def _switch_clock(self) -> None:
        """A move was made but its press never came: the clock must run for the side on move."""
        if self._result == "*" and self.clock.running is not None and self.clock.running is not self.board.turn:
            self.clock.switch(self.board.turn)

    async def _ambiguous(self, event) -> None:
        firsts = []
        for candidate in event.candidates:
            move = candidate[0] if isinstance(candidate, list | tuple) else candidate
            if move not in firsts:
                firsts.append(move)
        self._candidates = firsts
        self._show_leds()
        try:
            texts = [self.variant.notation(self.notation).format(self.board, move) for move in firsts]
        except BancoError as error:
            self._note("ambiguous", f"candidates not legal here: {error}")
            return
        self._note("ambiguous", "the referee must choose: " + ", ".join(texts))
        if len(texts) >= 2 and self._result == "*":
            await self._flush_pending()
            await self._drain_outbox()
            with contextlib.suppress(BancoError, StoreUnavailable):
                snapshot = await self.target.ambiguity(texts, self.notation, f"{self.name}:ambiguity")
                self._seen_snapshot(snapshot)

    async def _check_game_time(self, at_ms: int) -> None:
        """A game timed by its duration ends when both players together have used it (D34)."""
        if self._result != "*" or self.clock.running is None:
            return
        times = self.clock.times(at_ms)
        if times is None:
            return
        overrun = game_time_used(self.time_control, *times) - self.game_time_ms
        if overrun < 0:
            return
        self._note("time", f"the game's {_minutes(self.game_time_ms)} are used up")
        # The clock stops at the instant the time ran out, not when this tick noticed it.
        await self._end_on_points(f"time up after {_minutes(self.game_time_ms)}", stop_at_ms=at_ms - overrun)

    async def _flag(self, flag: FlagEvent) -> None:
        side = flag.side.name.lower()
        self._note("flag", f"{side}'s flag fell")
        if self._result != "*":
            return
        decided = time_up(self.variant.name, flag)
        if not isinstance(decided, PointsDecide):
            await self._flush_pending()
            await self._drain_outbox()
            await self._write_end(decided, f"{side}'s flag fell")
        elif self.game_time_ms is not None:
            # A side's display runs out only once the game's own time has (game_duration_control).
            await self._end_on_points(f"time up after {_minutes(self.game_time_ms)}")
        else:
            await self._end_on_points(f"{side}'s flag fell")

    async def _end_on_points(self, why: str, stop_at_ms: int | None = None) -> None:
        """Time is up in a game decided on points: the engine scores the position as it stands."""
        await self._flush_pending()
        await self._drain_outbox()
        if stop_at_ms is not None:
            self.clock.stop(stop_at_ms)
        board = self.board.copy()
        if hasattr(board, "declare_time_up"):
            board.declare_time_up()
            outcome = board.outcome()
        else:
            outcome = board.outcome(stop=True)
        if outcome is None:
            outcome = Outcome(Termination.POINTS, None)
        points = points_summary(board, stopped=True)
        await self._write_end(outcome, f"{why}: {points}" if points else why)

    async def _write_end(self, outcome: Outcome, reason: str) -> None:
        try:
            snapshot = await self.target.result(outcome.result(), outcome.termination.value, reason)
        except (BancoError, StoreUnavailable) as error:
            self._note("end", f"the result could not be written: {error}")
            return
        self._end_outcome = outcome
        if snapshot is not None:
            self._seen_snapshot(snapshot)
            self._result = snapshot.get("result", self._result)
        self._note("end", reason)
        self._show_leds()

    # ------------------------------------------------------------------ the record

    def _store(self, text: str, white_ms: int | None, black_ms: int | None, evidence: str) -> None:
        self._outbox.append(_Write(text, white_ms, black_ms, evidence))

    async def _drain_outbox(self) -> None:
        while self._outbox:
            write = self._outbox[0]
            try:
                snapshot = await self.target.commit(write.text, self.notation, write.white_ms, write.black_ms,
                                                    write.evidence)
            except StoreUnavailable as error:
                self._note("store", f"the record is unreachable ({error}); {len(self._outbox)} move(s) kept "
                           "and retried")
                return
            except BancoError as error:
                self._outbox.popleft()
                self._note("refused", f"the record refused {write.text}: {error}")
                await self._resync()
                return
            self._outbox.popleft()
            self.report.stored.append(write.text)
            self._seen_snapshot(snapshot)

    def _seen_snapshot(self, snapshot: dict[str, Any] | None) -> None:
        if not snapshot:
            return
        self._last_seq = max(self._last_seq, snapshot.get("seq", -1))
        if snapshot.get("result", "*") != "*" and self._result == "*":
            self._result = snapshot["result"]
            self._end_outcome = self._end_outcome or _outcome_of(snapshot)
            self._note("end", _game_over_note(snapshot))
            self._game_over()
        self._status_dirty = True

    async def _retry(self) -> None:
        """Wake the loop to try the outbox again (the loop alone writes, so writes stay in order),
        and pass on what the frame source says while no frame comes (a camera that dropped out)."""
        drain = getattr(self.source, "drain_events", None)
        while True:
            await asyncio.sleep(RETRY_S)
            if self._outbox:
                self.post(Retry())
            if drain is not None:
                for event in drain():
                    self.post(event)

    async def _follow(self) -> None:
        while True:
            try:
                async for snapshot in self.target.follow():
                    self.post(RecordChanged(snapshot))
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("station: following the record failed: %s", error)
            await asyncio.sleep(RETRY_S)

    async def _await_next_games(self) -> None:
        """Once the game has a result, ask the record now and then for the board's next game."""
        announced = None
        while True:
            await asyncio.sleep(NEXT_GAME_POLL_S)
            if self._result == "*":
                continue
            if announced != self.target.game_id:
                announced = self.target.game_id
                self._note("next", "game over; waiting for the board's next game")
            try:
                game = await self.target.next_game()
            except Exception as error:  # the record is unreachable for now: ask again later
                log.warning("station: asking for the board's next game failed: %s", error)
                continue
            if game is not None:
                self.post(NextGame(game["game_id"]))

    async def _switch_to(self, game_id: int) -> None:
        """Record the board's next game from its start: its rules, clock, a fresh tracker, LEDs."""
        if self._result == "*" or game_id == self.target.game_id:
            return  # the referee took the result back, or the switch was already made
        await self._flush_pending()
        await self._drain_outbox()
        if self._outbox:
            return  # the last game's moves must reach its record first; the next question retries
        finished = self.target.game_id
        self.target.game_id = game_id
        try:
            snapshot = await self.target.snapshot()
            refusal = self._refusal(snapshot, game_id)
            if refusal is not None:
                self.target.game_id = finished
                if self._refused_next != game_id:  # the board is asked every few seconds: say it once
                    self._refused_next = game_id
                    self._note("next", refusal)
                return
            await self._load_game(snapshot)
        except Exception:
            self.target.game_id = finished  # stay on the last game; the next question tries again
            raise
        self._start_game(snapshot)
        if self._following is not None:
            self._following.cancel()
        self._following = asyncio.create_task(self._follow())
        self._note("station", f"game {finished} is over; watching the board's next game {game_id}")

    def _refusal(self, snapshot: dict[str, Any], game_id: int) -> str | None:
        """Why this station cannot record the board's next game, or None: another kind of game
        (the camera reads one game's pieces: it needs a station started for it), or a Commander
        Chess game that the station's --time would play in the other mode (D34)."""
        if snapshot["variant"] != self.variant.name:
            return (f"the board's next game {game_id} is {snapshot['variant']}, but this station watches "
                    f"{self.variant.name}; start a station for {snapshot['variant']} to record it")
        try:
            refuse_mode_mismatch(snapshot["variant"], snapshot["fen"], self.time_control,
                                 f"the board's next game {game_id}")
        except TimeModeMismatch as error:
            return str(error)
        return None

    async def _record_changed(self, snapshot: dict[str, Any]) -> None:
        if snapshot.get("game_id", self.target.game_id) != self.target.game_id:
            return  # the last game's news, still on its way when the station moved on
        if snapshot.get("seq", -1) <= self._last_seq:
            return  # our own write echoed back, or older news
        self._last_seq = snapshot["seq"]
        if snapshot.get("ambiguity") is None and self._candidates:
            self._candidates = []
        result = snapshot.get("result", "*")
        reopened = result == "*" and self._result != "*"
        if result != self._result:
            self._result = result
            # A referee's result (resignation, agreed draw, a decision) is not on the board: the
            # LEDs take it from the record; a result taken back clears it.
            self._end_outcome = _outcome_of(snapshot)
            if result != "*":
                self._note("end", _game_over_note(snapshot))
                self._game_over()
        if self._outbox or self._pending is not None:
            return  # our own moves are still on their way; the record will catch up
        if reopened:
            # Moves the tracker saw while the result stood were not recorded (a player told at a
            # third repetition to change moves plays on): it reads the board again from the record.
            self._note("referee", "the result was taken back; tracking from the record")
            await self._resync()
        elif snapshot.get("fen") != self.board.fen() or snapshot.get("ply") != len(self.board.move_stack):
            self._note("referee", f"the record changed (revision {snapshot.get('revision')}); tracking from it")
            await self._resync()
        self._follow_record_clock(snapshot)
        self._show_leds()

    def _follow_record_clock(self, snapshot: dict[str, Any]) -> None:
        """A change the station did not make (a takeback, a resolved doubt, the referee's clock
        adjustment) sets the clock as the record now has it: the times, and the side to move
        running. The station's own moves never come here (their seq is its own)."""
        clocks = snapshot.get("clocks") or {}
        if self.time_control is None or self._result != "*" or clocks.get("white_ms") is None:
            return
        wanted = Color(clocks["running"]) if clocks.get("running") else None
        times = self.clock.times(self._now_ms())
        if times == (clocks["white_ms"], clocks["black_ms"]) and self.clock.running is wanted:
            return
        self._set_clock(snapshot)
        self._note("clock", f"set as the record has it (revision {snapshot.get('revision')}): "
                            f"{_minutes(clocks['white_ms'])} – {_minutes(clocks['black_ms'])}")

    async def _resync(self) -> None:
        """Take the record's moves as the truth (a referee correction, a refused move)."""
        reader = self.variant.notation(self.notation)
        try:
            texts = await self.target.moves()
        except StoreUnavailable as error:
            self._note("store", f"cannot read the record to resynchronise: {error}")
            return
        board = self.variant.record_board(await self._start_fen({}))
        for text in texts:
            board.push(reader.parse(board, text))
        self.board = board
        self._presses.clear()
        self._owed.clear()
        self._lifted = None
        if self.tracker is not None:
            copy = board.copy()

            def reset() -> None:
                with self._tracker_lock:
                    self.tracker.reset(copy)

            await asyncio.to_thread(reset)
        self._show_leds()

    def _after_move(self) -> None:
        if self.board.outcome() is not None:
            self._game_over()
        self._show_leds()

    def _game_over(self) -> None:
        with contextlib.suppress(Exception):
            self.clock.stop(self._now_ms())
        self._show_leds()

    # ------------------------------------------------------------------ LEDs and status

    def _show_leds(self) -> None:
        if self.board is None:
            return
        try:
            state = state_of(self.board, lifted=self._lifted, illegal_points=self._illegal,
                             candidates=self._candidates)
            outcome = getattr(self, "_end_outcome", None)
            if outcome is not None and state.outcome is None:
                from dataclasses import replace

                from hardware.leds import general_of

                generals = tuple((color, general_of(self.board, color)) for color in Color)
                state = replace(state, outcome=outcome, generals=generals)
            frame = frame_for(self.variant.geometry, state)
        except Exception as error:  # a layer this game cannot draw must not stop the board
            log.warning("station: LED frame: %s", error)
            return
        if frame != self._frame:
            self._frame = frame
            self.leds.show(frame)
            self._status_dirty = True

    def _note(self, kind: str, text: str, quiet: bool = False) -> None:
        entry = {"kind": kind, "text": text, "ply": len(self.board.move_stack) if self.board is not None else 0,
                 "at": time.time()}
        self._recent.append(entry)
        self.report.events.append(entry)
        self._status_dirty = True
        (log.debug if quiet else log.info)("station %s: %s", kind, text)

    def _names(self, points) -> str:
        geometry = self.variant.geometry
        names = []
        for point in list(points)[:8]:
            try:
                names.append(geometry.point_name(point))
            except Exception:
                names.append(str(tuple(point)))
        return ", ".join(names) or "?"

    def status(self) -> dict[str, Any]:
        times = self.clock.times()
        running = self.clock.running
        return {
            "station": self.name, "camera": self.camera, "frames": self.frames, "ply": len(self.board.move_stack),
            "clock": {"device": self.clock.name, "connected": self.clock.connected(),
                      "white_ms": times[0] if times else None, "black_ms": times[1] if times else None,
                      "running": running.value if running is not None else None},
            "leds": led_json(self._frame),
            "leds_device": {"device": self.leds.name, "connected": self.leds.connected()},
            "waiting": len(self._outbox) + (1 if self._pending else 0),
            "camera_warnings": list(self.camera_warnings),
            "events": list(self._recent),
        }

    def _check_camera_view(self) -> None:
        """What the camera's calibration says it cannot read surely: points it does not wholly
        show, pieces it sees too small, a view too steep (`Calibration.camera_warnings`). Taken
        again whenever the tracker's calibration changes (a bumped board found again, a grid
        turned round); each new warning is noted for the referee once, and the status carries
        those that hold for as long as they hold."""
        calibration = getattr(self.tracker, "calibration", None)
        if calibration is self._viewed_calibration or not hasattr(calibration, "camera_warnings"):
            return
        self._viewed_calibration = calibration
        warnings = calibration.camera_warnings()
        for warning in warnings:
            if warning not in self.camera_warnings:
                self._note("camera", warning)
        if warnings != self.camera_warnings:
            self.camera_warnings = warnings
            self._status_dirty = True

    async def _maybe_status(self) -> None:
        self._check_camera_view()
        if self._status_dirty and time.monotonic() >= self._status_due:
            await self._publish_status()

    async def _publish_status(self, force: bool = False) -> None:
        self._status_dirty = False
        self._status_due = time.monotonic() + STATUS_S
        try:
            await self.target.status(self.status())
        except Exception as error:  # the pages' mirror is a nicety; never stop the board for it
            log.debug("station: status not sent: %s", error)

    def _now_ms(self) -> int:
        return int(self._last_ts * 1000)


def _game_over_note(snapshot: dict[str, Any]) -> str:
    """The station's note when the record gives the game a result. A repetition verdict adds
    what the referee may do: seed 001 asks the repeating player to change moves first."""
    termination = snapshot.get("termination")
    note = f"game over: {snapshot.get('result')} ({termination})"
    if termination in {t.value for t in Termination if t.play_may_go_on}:
        note += "; if the players go on, take the result back and the station records from the board"
    return note


def _outcome_of(snapshot: dict[str, Any]) -> Outcome | None:
    """The outcome a record's snapshot gives (None while the game goes on)."""
    result = snapshot.get("result", "*")
    if result == "*":
        return None
    try:
        termination = Termination(snapshot.get("termination") or Termination.ARBITER.value)
    except ValueError:  # a newer server's reason: the LEDs need only who won
        termination = Termination.ARBITER
    return Outcome(termination, {"1-0": Color.WHITE, "0-1": Color.BLACK}.get(result))


def _minutes(ms: int) -> str:
    """``15:00`` for 900000 ms: minutes and seconds, as a clock shows them."""
    seconds = round(ms / 1000)
    return f"{seconds // 60}:{seconds % 60:02d}"
