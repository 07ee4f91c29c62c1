"""LED frames on off-the-shelf strips: an ESP32 running WLED, or any Adalight sketch.

Such controllers know nothing of boards, patterns or acknowledgements: they take a stream
of RGB triples for LED 0, 1, 2, … So the host maps grid points to strip indices
(`StripLayout`, with the serpentine wiring most hand-built grids use), animates blink and
pulse itself (`rgb_at`), and keeps sending: WLED leaves real-time mode after a timeout
with no data (2.5 s by default), so an unchanged frame is re-sent every second.

Wire formats (facts from the WLED and Adalight documentation):

- Adalight (serial): ``'A' 'd' 'a'``, count-1 high byte, count-1 low byte, their XOR with
  0x55, then R G B per LED.
- WLED UDP real-time "DRGB" (port 21324): byte 0 = 2, byte 1 = seconds WLED waits after
  the last packet before returning to normal mode, then R G B per LED (490 LEDs at most).

>>> adalight_packet(bytes([255, 0, 0, 0, 255, 0]))[:6]
b'Ada\\x00\\x01T'
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import serial

from hardware.protocol import LedFrame, Pattern

log = logging.getLogger("banco.hardware")

WLED_UDP_PORT = 21324
DRGB_MAX_LEDS = 490
BLINK_PERIOD_MS = 1000
PULSE_PERIOD_MS = 1000


@dataclass(frozen=True)
class StripLayout:
    """How a strip snakes through the grid.

    The strip starts at the point of White's left corner (file 0, rank 0) and runs along a
    rank (``by="rank"``) or along a file (``by="file"``); with `serpentine` every second
    row runs back the other way. `first_led` skips LEDs before the board (e.g. a status LED).

    >>> layout = StripLayout(3, 2, serpentine=True)
    >>> [layout.index(f, r) for r in range(2) for f in range(3)]
    [0, 1, 2, 5, 4, 3]
    """

    files: int
    ranks: int
    serpentine: bool = False
    by: str = "rank"
    first_led: int = 0

    def __post_init__(self) -> None:
        if self.by not in ("rank", "file"):
            raise ValueError(f"strip direction {self.by!r} is not 'rank' or 'file'")

    @property
    def count(self) -> int:
        return self.first_led + self.files * self.ranks

    def index(self, file: int, rank: int) -> int:
        if self.by == "rank":
            row, position, length = rank, file, self.files
        else:
            row, position, length = file, rank, self.ranks
        if self.serpentine and row % 2 == 1:
            position = length - 1 - position
        return self.first_led + row * length + position


def pattern_level(pattern: Pattern, t_ms: int) -> float:
    if pattern is Pattern.OFF:
        return 0.0
    if pattern is Pattern.SOLID:
        return 1.0
    if pattern is Pattern.BLINK:
        return 1.0 if t_ms % BLINK_PERIOD_MS < BLINK_PERIOD_MS // 2 else 0.0
    phase = (t_ms % PULSE_PERIOD_MS) / PULSE_PERIOD_MS  # a triangle wave from 10% to 100%
    return 0.1 + 0.9 * (1 - abs(2 * phase - 1))


def animated(frame: LedFrame) -> bool:
    return any(cell.pattern in (Pattern.BLINK, Pattern.PULSE) for cell in frame.cells)


def rgb_at(frame: LedFrame, layout: StripLayout, t_ms: int, brightness: int = 255) -> bytes:
    """The strip's bytes (R G B per LED, in strip order) showing `frame` at time `t_ms`."""
    if (frame.files, frame.ranks) != (layout.files, layout.ranks):
        raise ValueError(f"a {frame.files}x{frame.ranks} frame for a {layout.files}x{layout.ranks} strip")
    out = bytearray(3 * layout.count)
    scale = brightness / 255
    for rank in range(frame.ranks):
        for file in range(frame.files):
            cell = frame.cell(file, rank)
            level = pattern_level(cell.pattern, t_ms) * scale
            index = 3 * layout.index(file, rank)
            for channel, shift in enumerate((16, 8, 0)):
                out[index + channel] = round(((cell.color >> shift) & 0xFF) * level)
    return bytes(out)


def adalight_packet(rgb: bytes) -> bytes:
    if not rgb or len(rgb) % 3:
        raise ValueError(f"{len(rgb)} bytes is not a whole number of RGB LEDs")
    count = len(rgb) // 3 - 1
    high, low = count >> 8 & 0xFF, count & 0xFF
    return b"Ada" + bytes([high, low, high ^ low ^ 0x55]) + rgb


def drgb_packet(rgb: bytes, timeout_s: int = 2) -> bytes:
    if len(rgb) % 3 or len(rgb) // 3 > DRGB_MAX_LEDS:
        raise ValueError(f"DRGB carries whole RGB triples, {DRGB_MAX_LEDS} LEDs at most")
    return bytes([2, max(1, min(timeout_s, 255))]) + rgb


def udp_address(target: str) -> tuple[str, int]:
    """(host, port) of ``udp://host[:port]``; a `ValueError` naming what is wrong otherwise.

    >>> udp_address("udp://192.168.1.50"), udp_address("udp://wled.local:4048")
    (('192.168.1.50', 21324), ('wled.local', 4048))
    """
    host, colon, port = target[len("udp://"):].partition(":")
    if not host:
        raise ValueError(f"{target!r} names no host: give udp://HOST[:PORT], e.g. udp://192.168.1.50")
    if colon and not (port.isdigit() and 1 <= int(port) <= 65535):
        raise ValueError(f"{target!r}: the port {port!r} is not a number from 1 to 65535")
    return host, int(port) if colon else WLED_UDP_PORT


class StripDriver:
    """Keeps a strip showing the current frame: 20 updates a second while something blinks
    or pulses, otherwise once a second so WLED stays in real-time mode.

    `target` is a serial URL for Adalight (``/dev/ttyUSB0``, ``socket://…``) or
    ``udp://host[:port]`` for WLED's DRGB.
    """

    def __init__(self, target: str, layout: StripLayout, *, baudrate: int = 115200,
                 resend_s: float = 1.0, frame_s: float = 0.05,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.target = target
        self._address = udp_address(target) if target.startswith("udp://") else None
        self._last_error: str | None = None
        self.layout = layout
        self.resend_s = resend_s
        self.frame_s = frame_s
        self.brightness = 255
        self.sent = 0
        self._now = monotonic
        self._baudrate = baudrate
        self._frame: LedFrame | None = None
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._sink: Callable[[bytes], None] | None = None
        self._close: Callable[[], None] = lambda: None

    def show(self, frame: LedFrame) -> None:
        self._frame = frame
        self._changed.set()

    def start(self) -> StripDriver:
        self._thread = threading.Thread(target=self._run, name="banco-strip", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._changed.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close()

    def _open(self) -> None:
        if self._address is not None:
            address = self._address
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self._sink = lambda rgb: sock.sendto(drgb_packet(rgb), address)
            self._close = sock.close
        else:
            handle = serial.serial_for_url(self.target, baudrate=self._baudrate, write_timeout=1.0)
            self._sink = lambda rgb: handle.write(adalight_packet(rgb))
            self._close = handle.close
        if self._last_error is None:
            log.info("strip: sending to %s (%d LEDs)", self.target, self.layout.count)

    def _run(self) -> None:
        last = -1e9
        while not self._stop.is_set():
            frame = self._frame
            period = self.frame_s if frame is not None and animated(frame) else self.resend_s
            self._changed.wait(max(0.0, last + period - self._now()))
            self._changed.clear()
            if self._stop.is_set() or self._frame is None:
                continue
            try:
                if self._sink is None:
                    self._open()
                self._sink(rgb_at(self._frame, self.layout, int(self._now() * 1000), self.brightness))
                self.sent += 1
                if self._last_error is not None:
                    log.info("strip: %s: sending again", self.target)
                    self._last_error = None
            except (OSError, serial.SerialException) as error:
                if str(error) != self._last_error:  # one line per change of state (PROTOCOL.md §7)
                    log.warning("strip: %s: %s; retrying every second", self.target, error)
                    self._last_error = str(error)
                self._close()
                self._sink = None
                self._stop.wait(1.0)
            last = self._now()
