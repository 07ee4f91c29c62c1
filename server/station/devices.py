"""Every device of a station behind one small interface (picochess style), Null ones when absent.

A station has one clock and one LED output. Each is chosen from a spec string:

- clock: ``None`` (no clock: moves carry no times, unless a time control is set, then a
  `SoftClock` keeps the time on the station's stream time), ``sim`` (a simulated banco clock
  behind a pseudo-terminal, `hardware.simulator`), or a serial port / ``socket://`` URL;
- LEDs: ``None`` (`NullLeds`), ``sim``, a serial port / ``socket://`` URL (a banco LED board),
  or ``wled:TARGET`` (a WLED/Adalight strip: ``wled:udp://host`` or ``wled:/dev/ttyUSB0``).

Device threads put `hardware.events` on the station's queue through `sink`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from games.base import Color
from hardware.clock import ChessClock, PressResult, TimeControl
from hardware.devices import SerialClock, SerialLeds
from hardware.events import Event as HardwareEvent
from hardware.protocol import LedFrame
from hardware.simulator import PtyEndpoint, Simulator, VirtualDevice
from hardware.wled import StripDriver, StripLayout

Sink = Callable[[HardwareEvent], None]


class DeviceSpecError(ValueError):
    """A --clock or --leds value that names no device banco can drive."""


# ---------------------------------------------------------------- clocks


class NullClock:
    """No clock and no time control: moves are recorded without times."""

    name = "none"
    has_presses = False
    simulator: Simulator | None = None

    def set_control(self, control: TimeControl, white_ms: int | None = None, black_ms: int | None = None) -> None:
        return None

    def start(self, side: Color, at_ms: int) -> None:
        return None

    def press(self, side: Color, at_ms: int) -> PressResult | None:
        return None

    def switch(self, side: Color) -> None:
        """Run `side`'s clock now, the other stopped, times as they stand (no increment)."""
        return None

    def stop(self, at_ms: int) -> None:
        """The game is over: both clocks stop where they stand."""
        return None

    def check_flag(self, at_ms: int):
        return None

    @property
    def running(self) -> Color | None:
        return None

    def times(self, at_ms: int | None = None) -> tuple[int, int] | None:
        return None

    def connected(self) -> bool:
        return False

    def close(self) -> None:
        return None


class SoftClock(NullClock):
    """A time control without a clock device: the station presses for the players when a move
    is committed, on its stream time (frame timestamps), and notices flags at each tick."""

    name = "software"

    def __init__(self) -> None:
        self.clock: ChessClock | None = None
        self._now = 0

    def set_control(self, control: TimeControl, white_ms: int | None = None, black_ms: int | None = None) -> None:
        self.clock = ChessClock(control, white_ms=control.base_ms if white_ms is None else white_ms,
                                black_ms=control.base_ms if black_ms is None else black_ms)

    def start(self, side: Color, at_ms: int) -> None:
        if self.clock is not None:
            self._now = max(self._now, at_ms)
            self.clock.start(side, self._now)

    def press(self, side: Color, at_ms: int) -> PressResult | None:
        if self.clock is None:
            return None
        self._now = max(self._now, at_ms)
        return self.clock.press(side, self._now)

    def check_flag(self, at_ms: int):
        if self.clock is None:
            return None
        self._now = max(self._now, at_ms)
        return self.clock.check_flag(self._now)

    def stop(self, at_ms: int) -> None:
        if self.clock is not None and self.clock.running is not None:
            self._now = max(self._now, at_ms)
            self.clock.pause(self._now, "end of game", "station")

    @property
    def running(self) -> Color | None:
        return None if self.clock is None else self.clock.running

    def times(self, at_ms: int | None = None) -> tuple[int, int] | None:
        if self.clock is None:
            return None
        return self.clock.times(self._now if at_ms is None else max(self._now, at_ms))


class DeviceClock(NullClock):
    """A banco clock on a serial port (or a simulated one): its presses and flags are events."""

    has_presses = True

    def __init__(self, port: str, sink: Sink, *, simulator: Simulator | None = None, **link_options) -> None:
        self.name = "sim" if simulator is not None else port
        self.simulator = simulator
        self.device = SerialClock(port, sink, **link_options)
        self.device.connect()

    def set_control(self, control: TimeControl, white_ms: int | None = None, black_ms: int | None = None) -> None:
        self.device.set_control(control, white_ms, black_ms)

    def start(self, side: Color, at_ms: int) -> None:
        self.device.start(side)

    def press(self, side: Color, at_ms: int) -> PressResult | None:
        """A plugged clock's presses come from the device. While it is unplugged the host's
        mirror of it is pressed for the player when the move is committed, the increment or
        delay as the control gives it; the device gets the times back when it returns."""
        return None if self.connected() else self.device.press_on_host(side)

    def check_flag(self, at_ms: int):
        """A plugged clock says FLAG itself; an unplugged one's time still runs out, on the mirror."""
        return None if self.connected() else self.device.flag_on_host()

    def switch(self, side: Color) -> None:
        times = self.device.times()
        if times is None:
            return
        self.device.adjust(*times, reason="a move without a clock press", by="station")
        self.device.start(side)

    def stop(self, at_ms: int) -> None:
        if self.running is not None:
            self.device.pause("end of game", "station")

    @property
    def running(self) -> Color | None:
        mirror = self.device.mirror
        return None if mirror is None else mirror.running

    def times(self, at_ms: int | None = None) -> tuple[int, int] | None:
        return self.device.times()

    def connected(self) -> bool:
        return self.device.link.connected

    def close(self) -> None:
        self.device.close()
        if self.simulator is not None:
            self.simulator.stop()


# ---------------------------------------------------------------- LEDs


class NullLeds:
    name = "none"
    simulator: Simulator | None = None

    def show(self, frame: LedFrame) -> None:
        return None

    def connected(self) -> bool:
        return False

    def close(self) -> None:
        return None


class BoardLeds(NullLeds):
    """A banco LED board (hardware/PROTOCOL.md §5), real or simulated."""

    def __init__(self, port: str, sink: Sink, *, simulator: Simulator | None = None, **link_options) -> None:
        self.name = "sim" if simulator is not None else port
        self.simulator = simulator
        self.device = SerialLeds(port, sink, **link_options)
        self.device.connect()

    def show(self, frame: LedFrame) -> None:
        self.device.show(frame)

    def connected(self) -> bool:
        return self.device.link.connected

    def close(self) -> None:
        self.device.close()
        if self.simulator is not None:
            self.simulator.stop()


class StripLeds(NullLeds):
    """An addressable strip driven by WLED (UDP) or an Adalight sketch (serial), snaking through
    the grid rank by rank from White's left corner (`hardware.wled.StripLayout`)."""

    def __init__(self, target: str, grid: tuple[int, int]) -> None:
        self.name = f"wled:{target}"
        self.driver = StripDriver(target, StripLayout(*grid, serpentine=True)).start()

    def show(self, frame: LedFrame) -> None:
        self.driver.show(frame)

    def connected(self) -> bool:
        return self.driver.sent > 0

    def close(self) -> None:
        self.driver.stop()


# ---------------------------------------------------------------- from a spec


def simulated(kind: str, grid: tuple[int, int] = (9, 10), now_ms: Callable[[], int] | None = None) -> Simulator:
    """A virtual banco device behind a fresh pseudo-terminal, running on its own thread.

    The host reaches it through a symlink in a private directory, as a real device through
    ``/dev/serial/by-id/...``: once unplugged, a pty's ``/dev/pts/N`` goes back to the kernel,
    which hands it to the next process asking for one, and a station reconnecting to the bare
    number would talk to another program's device.
    """
    def boot() -> VirtualDevice:
        if now_ms is None:
            return VirtualDevice(kind, grid=grid)
        return VirtualDevice(kind, grid=grid, now_ms=now_ms)

    return Simulator(boot, PtyEndpoint.private(kind)).start()


def open_clock(spec: str | None, sink: Sink, *, timed: bool, now_ms: Callable[[], int] | None = None,
               **link_options) -> NullClock:
    """The clock a ``--clock`` value names. `now_ms` is a simulated clock's time base."""
    if spec is None or spec == "" or spec == "none":
        return SoftClock() if timed else NullClock()
    if spec == "sim":
        simulator = simulated("clock", now_ms=now_ms)
        try:
            return DeviceClock(simulator.path, sink, simulator=simulator, **link_options)
        except Exception:
            simulator.stop()
            raise
    if spec.startswith("wled:"):
        raise DeviceSpecError(f"--clock {spec!r}: a WLED strip has no clock; give a serial port, a socket:// URL "
                              "or 'sim'")
    return DeviceClock(spec, sink, **link_options)


def open_leds(spec: str | None, sink: Sink, grid: tuple[int, int], **link_options) -> NullLeds:
    """The LED output a ``--leds`` value names."""
    if spec is None or spec == "" or spec == "none":
        return NullLeds()
    if spec == "sim":
        simulator = simulated("leds", grid)
        try:
            return BoardLeds(simulator.path, sink, simulator=simulator, **link_options)
        except Exception:
            simulator.stop()
            raise
    if spec.startswith("wled:"):
        target = spec[len("wled:"):]
        if not target:
            raise DeviceSpecError("--leds wled: needs a target, e.g. wled:udp://192.168.1.50 or wled:/dev/ttyUSB0")
        if "://" in target and not target.startswith(("udp://", "socket://", "rfc2217://", "loop://")):
            raise DeviceSpecError(f"--leds wled:{target}: a strip is reached by udp://HOST[:PORT] (WLED) or a "
                                  "serial port (Adalight), e.g. wled:udp://192.168.1.50 or wled:/dev/ttyUSB0")
        try:
            return StripLeds(target, grid)
        except ValueError as error:
            raise DeviceSpecError(f"--leds wled:{target}: {error}") from None
    return BoardLeds(spec, sink, **link_options)


def close_all(*devices: NullClock | NullLeds) -> None:
    for device in devices:
        with contextlib.suppress(Exception):
            device.close()
