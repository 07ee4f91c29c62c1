"""Virtual devices that speak the protocol exactly as firmware would.

`VirtualDevice` is the firmware's logic, sans-IO: bytes from the host go in through
`receive`, bytes for the host come out of `output`, the buttons are `press`, and `tick`
runs the timers. It is the reference a firmware author can read next to PROTOCOL.md.

`Simulator` puts a `VirtualDevice` behind a real pseudo-terminal (`os.openpty`) or a TCP
port, pumping bytes on a thread. `unplug` and `replug` imitate a USB cable being pulled
and put back: the pty disappears, and a new one appears behind the same stable link path
(like ``/dev/serial/by-id/...``), the device booting afresh.
"""

from __future__ import annotations

import collections
import contextlib
import os
import select
import socket
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field

from games.base import BLACK, WHITE, Color
from hardware.clock import ChessClock, ClockError, Mode, TimeControl
from hardware.protocol import (
    OFF,
    PROTOCOL_VERSION,
    Ack,
    Brightness,
    ClockAdjust,
    ClockPause,
    ClockRun,
    ClockSet,
    Decoder,
    Flag,
    Hello,
    LedFrame,
    Message,
    Nak,
    Ping,
    Press,
    Received,
    encode,
    next_seq,
)

FIRMWARE = "sim-1.0"


def _side(side: str) -> Color:
    return WHITE if side == "w" else BLACK


def _letter(side: Color) -> str:
    return "w" if side is WHITE else "b"


@dataclass
class VirtualDevice:
    """The firmware of a banco clock, LED board, or both.

    `now_ms` is the device's time base (ms); the protocol's timers (ping, resend) run on
    `monotonic` (seconds), so tests can step the chess clock without stalling the link.
    """

    kind: str = "clock"
    grid: tuple[int, int] = (9, 10)
    color: str = "rgb"
    now_ms: Callable[[], int] = field(default=lambda: int(time.monotonic() * 1000))
    monotonic: Callable[[], float] = time.monotonic
    resend_s: float = 0.5
    ping_s: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in ("clock", "leds", "both"):
            raise ValueError(f"device kind {self.kind!r} is not clock, leds or both")
        self.boot_ms = self.now_ms()
        self.decoder = Decoder()
        self.clock: ChessClock | None = None
        self.frame: LedFrame | None = None
        self.brightness = 255
        self.frames_received = 0
        self.commands: list[Message] = []  # every command carried out, in order
        self.presses_sent: list[Press] = []
        self.host_seen = False
        self.drop_next = 0  # test hook: ignore this many incoming command frames (no ACK)
        self._out = bytearray()
        self._seq = 0
        self._queue: collections.deque[Message] = collections.deque()
        self._in_flight: tuple[int, Message, float, int] | None = None
        self._seen: collections.deque[int] = collections.deque(maxlen=64)
        self._last_sent = self.monotonic()
        self._lock = threading.RLock()
        self._out += b"\n" + encode(self.hello(), self._next())

    def _next(self) -> int:
        self._seq = next_seq(self._seq)
        return self._seq

    @property
    def t_dev_ms(self) -> int:
        return self.now_ms() - self.boot_ms

    def hello(self) -> Hello:
        info = [("kind", self.kind)]
        if self.kind in ("leds", "both"):
            info += [("grid", f"{self.grid[0]}x{self.grid[1]}"), ("color", self.color)]
        info += [("clock", "1" if self.kind in ("clock", "both") else "0"), ("fw", FIRMWARE)]
        return Hello(PROTOCOL_VERSION, tuple(info))

    # ---- the wire

    def output(self) -> bytes:
        with self._lock:
            data, self._out = bytes(self._out), bytearray()
            return data

    def receive(self, data: bytes) -> None:
        with self._lock:
            for item in self.decoder.feed(data):
                if not isinstance(item, Received):
                    self._out += encode(Nak(item.seq, item.reason), 0)
                    continue
                self._frame(item.seq, item.message)

    def _frame(self, seq: int, message: Message) -> None:
        if isinstance(message, Ack | Nak):
            if self._in_flight is not None and self._in_flight[0] == message.seq:
                self._in_flight = None
            return
        if self.drop_next > 0:
            self.drop_next -= 1
            return
        if seq in self._seen and not isinstance(message, Hello):
            self._out += encode(Ack(seq), 0)  # a resend of something already done: ACK again only
            return
        refusal = self._apply(message)
        if refusal is not None:
            self._out += encode(Nak(seq, refusal), 0)
            return
        if isinstance(message, Hello):
            self._seen.clear()  # seqs are remembered since the peer's HELLO (PROTOCOL §3): a new host counts from 1
        self._seen.append(seq)
        self._out += encode(Ack(seq), 0)
        if isinstance(message, Hello):
            # A new host session: our HELLO goes first, ahead of anything waiting (a press
            # not yet acknowledged is sent again after it, under a new seq; none is dropped).
            self.host_seen = True
            if self._in_flight is not None and not isinstance(self._in_flight[1], Hello | Ping):
                self._queue.appendleft(self._in_flight[1])
            self._in_flight = None
            self._queue = collections.deque(m for m in self._queue if not isinstance(m, Hello | Ping))
            self._queue.appendleft(self.hello())

    def _apply(self, message: Message) -> str | None:
        has_clock = self.kind in ("clock", "both")
        has_leds = self.kind in ("leds", "both")
        match message:
            case Hello(version):
                if version != PROTOCOL_VERSION:
                    return f"unsupported protocol banco/{version}; this device speaks banco/{PROTOCOL_VERSION}"
                return None
            case Ping():
                return None
            case LedFrame(files, ranks) if has_leds:
                if (files, ranks) != self.grid:
                    return f"grid {files}x{ranks} does not match this board's {self.grid[0]}x{self.grid[1]}"
                self.frame = message
                self.frames_received += 1
            case Brightness(level) if has_leds:
                self.brightness = level
            case LedFrame() | Brightness():
                return "no LEDs on this device"
            case ClockSet() | ClockRun() | ClockPause() | ClockAdjust() if not has_clock:
                return "no clock on this device"
            case ClockSet(mode, white_ms, black_ms, increment_ms, delay_ms):
                try:
                    control = TimeControl(max(white_ms, black_ms, 1), Mode(mode), increment_ms, delay_ms)
                except ClockError as error:
                    return str(error)
                self.clock = ChessClock(control, white_ms=white_ms, black_ms=black_ms)
            case ClockRun(side):
                if self.clock is None:
                    return "no time control set (send CLK SET first)"
                if self.clock.running is not _side(side):
                    if self.clock.paused_side is _side(side):
                        self.clock.resume(self.t_dev_ms)
                    else:
                        self.clock.start(_side(side), self.t_dev_ms)
            case ClockPause():
                if self.clock is None:
                    return "no time control set (send CLK SET first)"
                self.clock.pause(self.t_dev_ms)
            case ClockAdjust(white_ms, black_ms):
                if self.clock is None:
                    return "no time control set (send CLK SET first)"
                self.clock.adjust(white_ms, black_ms, self.t_dev_ms, by="host")
            case _:
                return f"{type(message).__name__} is not a command a device accepts"
        self.commands.append(message)
        return None

    # ---- the buttons and the timers

    def press(self, side: Color) -> Press | None:
        """The player of `side` presses their button. Ignored unless that side's clock runs."""
        with self._lock:
            if self.clock is None:
                return None
            self._check_flag()
            result = self.clock.press(side, self.t_dev_ms)
            if result is None:
                return None
            event = Press(_letter(side), result.at, result.white_ms, result.black_ms)
            self.presses_sent.append(event)
            self._queue.append(event)
            self._transmit()
            return event

    def _check_flag(self) -> None:
        if self.clock is not None:
            flag = self.clock.check_flag(self.t_dev_ms)
            if flag is not None:
                self._queue.append(Flag(_letter(flag.side), flag.at))

    def tick(self) -> None:
        with self._lock:
            self._check_flag()
            self._transmit()

    def _transmit(self) -> None:
        now = self.monotonic()
        if self._in_flight is not None:
            seq, message, sent_at, attempts = self._in_flight
            if now - sent_at < self.resend_s:
                return
            if attempts >= 20:
                self._in_flight = None  # the host is gone; a real device would keep it for later
            else:
                self._in_flight = (seq, message, now, attempts + 1)
                self._out += encode(message, seq)
                self._last_sent = now
            return
        if self._queue:
            message = self._queue.popleft()
        elif self.host_seen and now - self._last_sent >= self.ping_s:
            message = Ping(self.t_dev_ms)
        else:
            return
        seq = self._next()
        self._in_flight = (seq, message, now, 1)
        self._out += encode(message, seq)
        self._last_sent = now

    # ---- what it shows

    def times(self) -> tuple[int, int] | None:
        with self._lock:
            if self.clock is None:
                return None
            return self.clock.times(self.t_dev_ms)

    def cell(self, file: int, rank: int):
        return self.frame.cell(file, rank) if self.frame is not None else OFF


class PtyEndpoint:
    """A pseudo-terminal whose far end is a serial port for the host, with a stable path."""

    def __init__(self, link: str | None = None) -> None:
        self.link = link
        self._own_directory = ""
        self.master = -1
        self._slave = -1
        self.slave_path = ""

    @classmethod
    def private(cls, name: str) -> PtyEndpoint:
        """An endpoint whose stable path lies in a fresh directory of its own, removed at `dispose`."""
        endpoint = cls(os.path.join(tempfile.mkdtemp(prefix="banco-sim-"), name))
        endpoint._own_directory = os.path.dirname(endpoint.link)
        return endpoint

    @property
    def path(self) -> str:
        return self.link or self.slave_path

    def open(self) -> str:
        self.master, self._slave = os.openpty()
        # Raw at once, or the line discipline would echo our first bytes back to us.
        tty.setraw(self._slave)
        tty.setraw(self.master)
        self.slave_path = os.ttyname(self._slave)
        os.set_blocking(self.master, False)
        if self.link:
            temporary = f"{self.link}.{os.getpid()}.tmp"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            os.symlink(self.slave_path, temporary)
            os.replace(temporary, self.link)
        return self.path

    def close(self) -> None:
        for fd in (self.master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self._slave = -1
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.link)

    def dispose(self) -> None:
        self.close()
        if self._own_directory:
            with contextlib.suppress(OSError):
                os.rmdir(self._own_directory)

    def fileno(self) -> int:
        return self.master

    def read(self) -> bytes:
        try:
            return os.read(self.master, 4096)
        except BlockingIOError:
            return b""
        except OSError:  # EIO: nobody has the port open yet
            return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + 0.2
        while view:
            try:
                written = os.write(self.master, view)
            except BlockingIOError:
                # Nobody is reading: like a UART with no listener, drop what does not fit.
                if time.monotonic() > deadline:
                    return
                select.select([], [self.master], [], 0.02)
                continue
            view = view[written:]


class TcpEndpoint:
    """A TCP port the host reaches with ``socket://host:port``; one client at a time."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.address = (host, port)
        self.server: socket.socket | None = None
        self.client: socket.socket | None = None

    @property
    def path(self) -> str:
        return f"socket://{self.address[0]}:{self.address[1]}"

    def open(self) -> str:
        self.server = socket.create_server(self.address)
        self.address = self.server.getsockname()[:2]
        self.server.setblocking(False)
        return self.path

    def close(self) -> None:
        for sock in (self.client, self.server):
            if sock is not None:
                sock.close()
        self.client = self.server = None

    def dispose(self) -> None:
        self.close()

    def fileno(self) -> int:
        if self.client is not None:
            return self.client.fileno()
        return self.server.fileno() if self.server is not None else -1

    def read(self) -> bytes:
        if self.client is None:
            if self.server is None:
                return b""
            try:
                self.client, _ = self.server.accept()
            except BlockingIOError:
                return b""
            self.client.setblocking(False)
            return b""
        try:
            data = self.client.recv(4096)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self.client.close()
            self.client = None
        return data

    def write(self, data: bytes) -> None:
        if self.client is not None:
            try:
                self.client.setblocking(True)
                self.client.sendall(data)
                self.client.setblocking(False)
            except OSError:
                self.client.close()
                self.client = None


class Simulator:
    """Runs a `VirtualDevice` behind an endpoint on a thread."""

    def __init__(self, make_device: Callable[[], VirtualDevice], endpoint: PtyEndpoint | TcpEndpoint) -> None:
        self._make_device = make_device
        self.endpoint = endpoint
        self.device = make_device()
        self.path = ""
        self.plugged = False
        self.boots = 1
        self.hung = False  # test hook: the firmware stops answering, the port stays open
        self._stop = threading.Event()
        self._plug_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> Simulator:
        self.path = self.endpoint.open()
        self.plugged = True
        self._thread = threading.Thread(target=self._run, name="banco-simulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._plug_lock:
            self.endpoint.dispose()
            self.plugged = False

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def unplug(self) -> None:
        """Pull the cable: the port vanishes and the host's reads fail."""
        with self._plug_lock:
            self.endpoint.close()
            self.plugged = False

    def replug(self, reboot: bool = True) -> str:
        """Put the cable back: a fresh port at the same path and, by default, a fresh boot."""
        with self._plug_lock:
            if reboot:
                self.device = self._make_device()
                self.boots += 1
            self.path = self.endpoint.open()
            self.plugged = True
            return self.path

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._plug_lock:
                if not self.plugged:
                    fd = -1
                else:
                    fd = self.endpoint.fileno()
            if fd < 0 or self.hung:
                self._stop.wait(0.01)
                continue
            try:
                readable, _, _ = select.select([fd], [], [], 0.01)
            except (OSError, ValueError):
                continue
            with self._plug_lock:
                if not self.plugged or self.endpoint.fileno() != fd:
                    continue
                device = self.device
                if readable:
                    data = self.endpoint.read()
                    if data:
                        device.receive(data)
                device.tick()
                out = device.output()
                if out:
                    try:
                        self.endpoint.write(out)
                    except OSError:
                        pass
