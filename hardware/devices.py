"""One interface per kind of device (picochess style), each over its own `Link`.

`SerialClock` keeps a mirror of the device's clock (`hardware.clock.ChessClock`) so the
station can show times between presses and re-send the clock after a reconnection; the
device's figures stay official, and the mirror takes them at every press.

`SerialLeds` keeps the current frame and brightness and re-sends them after a reconnection.

Both put `hardware.events` on a sink (``queue.Queue().put`` by default).
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from collections.abc import Callable

from games.base import BLACK, WHITE, Color
from hardware.clock import ChessClock, ClockError, FlagEvent, PressResult, TimeControl
from hardware.events import (
    ClockPress,
    CommandLost,
    CommandRejected,
    DeviceConnected,
    DeviceDisconnected,
    Event,
    FlagFall,
)
from hardware.link import Link
from hardware.protocol import (
    Brightness,
    ClockAdjust,
    ClockPause,
    ClockRun,
    ClockSet,
    Flag,
    Hello,
    LedFrame,
    Message,
    Ping,
    Press,
)

log = logging.getLogger("banco.hardware")


def _host_hello() -> Hello:
    from importlib.metadata import PackageNotFoundError, version

    try:
        ours = version("banco")
    except PackageNotFoundError:
        ours = "dev"
    return Hello(info=(("host", f"banco-{ours}"),))


def _side(letter: str) -> Color:
    return WHITE if letter == "w" else BLACK


def _letter(side: Color) -> str:
    return "w" if side is WHITE else "b"


def _monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class _Device:
    kind = ""

    def __init__(self, port: str | None, sink: Callable[[Event], None] | None, **link_options) -> None:
        self.events: queue.Queue[Event] = queue.Queue()
        self._sink = sink or self.events.put
        self._lock = threading.RLock()
        self.link = Link(
            self.kind,
            port,
            hello=_host_hello(),
            restore=self._restore,
            state_lock=self._lock,
            on_connect=self._connected,
            on_message=self._message,
            on_disconnect=self._disconnected,
            on_reject=self._rejected,
            on_lost=self._lost,
            accept=self._accept,
            **link_options,
        )

    def connect(self):
        """Start the link's thread: it finds, opens and keeps the port."""
        self.link.start()
        return self

    def close(self) -> None:
        self.link.stop()

    def __enter__(self):
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _accept(self, hello: Hello) -> str | None:
        return None

    def _restore(self) -> list[Message]:
        return []

    def _connected(self, hello: Hello, reconnect: bool) -> None:
        self._sink(DeviceConnected(self.kind, self.link.current_port, hello, reconnect))

    def _disconnected(self, reason: str) -> None:
        self._sink(DeviceDisconnected(self.kind, self.link.current_port, reason))

    def _rejected(self, message: Message, reason: str) -> None:
        self._sink(CommandRejected(self.kind, type(message).__name__, reason))

    def _lost(self, message: Message, attempts: int) -> None:
        self._sink(CommandLost(self.kind, type(message).__name__, attempts))

    def _message(self, message: Message) -> None:
        if isinstance(message, Ping):
            return
        log.warning("%s: unexpected %s from the device", self.kind, type(message).__name__)


class SerialClock(_Device):
    """A chess clock on a serial port. `now_ms` is the host's time base for the mirror."""

    kind = "clock"

    def __init__(
        self,
        port: str | None,
        sink: Callable[[Event], None] | None = None,
        *,
        now_ms: Callable[[], int] = _monotonic_ms,
        **link_options,
    ) -> None:
        self.now_ms = now_ms
        self.mirror: ChessClock | None = None
        self.presses: list[ClockPress] = []
        # host time minus device time, per frame heard; the smallest is the least delayed
        self._offsets: collections.deque[int] = collections.deque(maxlen=16)
        super().__init__(port, sink, **link_options)

    def _accept(self, hello: Hello) -> str | None:
        return None if hello.has_clock else f"it is a {hello.kind or 'unknown'} device, not a clock"

    # ---- commands

    def set_control(self, control: TimeControl, white_ms: int | None = None, black_ms: int | None = None) -> None:
        with self._lock:
            self.mirror = ChessClock(
                control,
                white_ms=control.base_ms if white_ms is None else white_ms,
                black_ms=control.base_ms if black_ms is None else black_ms,
            )
            self.link.send(self._set_message())

    def _set_message(self) -> ClockSet:
        assert self.mirror is not None
        control = self.mirror.control
        white, black = self.mirror.times(self.now_ms())
        return ClockSet(control.mode.value, white, black, control.increment_ms, control.delay_ms)

    def _need_mirror(self) -> ChessClock:
        if self.mirror is None:
            raise ClockError("set a time control first")
        return self.mirror

    def start(self, side: Color) -> None:
        """Start the clock of `side` (the first mover)."""
        with self._lock:
            mirror = self._need_mirror()
            if mirror.paused_side is side:
                mirror.resume(self.now_ms())
            else:
                mirror.start(side, self.now_ms())
            self.link.send(ClockRun(_letter(side)))

    def pause(self, reason: str = "", by: str = "arbiter") -> None:
        with self._lock:
            self._need_mirror().pause(self.now_ms(), reason, by)
            self.link.send(ClockPause())

    def resume(self, reason: str = "", by: str = "arbiter") -> None:
        with self._lock:
            mirror = self._need_mirror()
            side = mirror.paused_side
            mirror.resume(self.now_ms(), reason, by)
            self.link.send(ClockRun(_letter(side)))

    def adjust(self, white_ms: int, black_ms: int, reason: str, by: str = "arbiter") -> None:
        """An arbiter's correction; it goes in the mirror's audit trail."""
        with self._lock:
            self._need_mirror().adjust(white_ms, black_ms, self.now_ms(), reason, by)
            self.link.send(ClockAdjust(white_ms, black_ms))

    def press_on_host(self, side: Color) -> PressResult | None:
        """While the device cannot hear it (unplugged): `side`'s press on the host's mirror, the
        increment or delay as the control gives it; a reconnection sends the times back."""
        with self._lock:
            return None if self.mirror is None else self.mirror.press(side, self.now_ms())

    def flag_on_host(self) -> FlagEvent | None:
        """While the device cannot say FLAG (unplugged): the running side's flag, if its time ran
        out on the host's mirror."""
        with self._lock:
            return None if self.mirror is None else self.mirror.check_flag(self.now_ms())

    def times(self) -> tuple[int, int] | None:
        """The host's view of both clocks now."""
        with self._lock:
            return None if self.mirror is None else self.mirror.times(self.now_ms())

    # ---- the link's side

    def _observe(self, t_dev_ms: int) -> None:
        self._offsets.append(self.now_ms() - t_dev_ms)

    def _host_time(self, t_dev_ms: int) -> int:
        """When device time `t_dev_ms` was, on the host's time base (never in the future, never
        before the mirror's running turn began)."""
        at = t_dev_ms + min(self._offsets) if self._offsets else self.now_ms()
        at = min(at, self.now_ms())
        if self.mirror is not None:
            at = max(at, self.mirror.turn_started)
        return at

    def _restore(self) -> list[Message]:
        self._offsets.clear()  # a new session may be a rebooted device with a new time base
        if self.mirror is None:
            return []
        messages: list[Message] = [self._set_message()]
        if self.mirror.running is not None:
            # The re-sent SET carries the time used so far, so the turn starts afresh now.
            self.mirror.sync(*self.mirror.times(self.now_ms()), self.mirror.running, self.now_ms())
            messages.append(ClockRun(_letter(self.mirror.running)))
        return messages

    def _message(self, message: Message) -> None:
        if isinstance(message, Ping):
            if message.t_ms is not None:
                with self._lock:
                    self._observe(message.t_ms)
        elif isinstance(message, Press):
            self._press(message)
        elif isinstance(message, Flag):
            self._flag(message)
        else:
            super()._message(message)

    def _press(self, press: Press) -> None:
        side = _side(press.side)
        with self._lock:
            last = self.presses[-1] if self.presses else None
            if last is not None and (last.side, last.t_dev_ms) == (side, press.t_dev_ms):
                return  # the same press again, re-sent under a new seq after a new session
            self._observe(press.t_dev_ms)
            now = self._host_time(press.t_dev_ms)  # the press happened then, not when heard
            if self.mirror is None:
                host_white, host_black = press.white_ms, press.black_ms
            else:
                predicted = self.mirror.press(side, now)
                if predicted is not None:
                    host_white, host_black = predicted.white_ms, predicted.black_ms
                else:
                    host_white, host_black = self.mirror.times(now)
                self.mirror.sync(press.white_ms, press.black_ms, side.other, now)
            event = ClockPress(side, press.t_dev_ms, press.white_ms, press.black_ms, host_white, host_black)
            self.presses.append(event)
        self._sink(event)

    def _flag(self, flag: Flag) -> None:
        side = _side(flag.side)
        with self._lock:
            self._observe(flag.t_dev_ms)
            if self.mirror is not None:
                if self.mirror.flagged(side):
                    return  # already known (the device flags again after a restore)
                first = not self.mirror.flags
                at = self._host_time(flag.t_dev_ms)
                self.mirror.flags.append(FlagEvent(side, at))
                if self.mirror.running is side:
                    self.mirror.sync(*self._zeroed(side, at), side, at)
            else:
                first = True
        self._sink(FlagFall(side, flag.t_dev_ms, first))

    def _zeroed(self, side: Color, at: int) -> tuple[int, int]:
        white, black = self.mirror.times(at)
        return (0, black) if side is WHITE else (white, 0)


class SerialLeds(_Device):
    """An LED board on a serial port."""

    kind = "leds"

    def __init__(self, port: str | None, sink: Callable[[Event], None] | None = None, **link_options) -> None:
        self.frame: LedFrame | None = None
        self.level = 255
        super().__init__(port, sink, **link_options)

    def _accept(self, hello: Hello) -> str | None:
        return None if hello.has_leds else f"it is a {hello.kind or 'unknown'} device, not an LED board"

    def show(self, frame: LedFrame) -> None:
        with self._lock:
            grid = self.link.device_hello.grid if self.link.device_hello else None
            if grid is not None and grid != (frame.files, frame.ranks):
                log.warning("leds: a %dx%d frame for a %dx%d board", frame.files, frame.ranks, *grid)
            self.frame = frame
            self.link.send(frame)

    def brightness(self, level: int) -> None:
        with self._lock:
            self.level = Brightness(level).level
            self.link.send(Brightness(level))

    def _restore(self) -> list[Message]:
        messages: list[Message] = [Brightness(self.level)]
        if self.frame is not None:
            messages.append(self.frame)
        return messages
