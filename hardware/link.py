"""The transport: one serial connection to one device, kept alive by a thread.

A `Link` opens its port with pyserial's `serial_for_url` (so ``/dev/ttyACM0``, ``socket://``
and ``loop://`` all work), or finds the port itself (`candidate_ports`) when given none. It
says HELLO, waits for the device's HELLO, then carries frames both ways:

- stop-and-wait: one unacknowledged frame in flight at a time, so commands arrive in order;
  a frame without an ACK after `resend_s` is sent again with the same seq, up to
  `max_attempts` times;
- a newer LED frame replaces an older one still waiting in the queue (a frame is the whole
  board, so the old one is worthless);
- frames from the device are acknowledged at once and de-duplicated by seq (a resent PRESS
  must not count twice);
- PING every `ping_s` when idle; `silence_s` without a byte from the device means it is gone;
- after a loss it tries again every `reconnect_s`; on each (re)connection the owner's
  `restore` returns the messages that restore the device (the current LED frame, the
  clock's state), which are sent before anything else; then `on_connect` is told.

Each change of state is logged once on the ``banco.hardware`` logger.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import serial
from serial.tools import list_ports

from hardware.protocol import (
    BAUD_RATE,
    Ack,
    Decoder,
    Hello,
    LedFrame,
    Message,
    Nak,
    Ping,
    Received,
    Refused,
    encode,
    next_seq,
)

log = logging.getLogger("banco.hardware")

# USB vendor ids of the serial chips and boards a club is likely to build with.
KNOWN_VENDORS = {
    0x2341: "Arduino",
    0x2A03: "Arduino",
    0x1A86: "WCH CH340",
    0x10C4: "Silicon Labs CP210x",
    0x0403: "FTDI",
    0x303A: "Espressif",
    0x239A: "Adafruit",
    0x2E8A: "Raspberry Pi",
}


def candidate_ports(comports: Callable[[], Sequence] = list_ports.comports) -> list[str]:
    """Serial ports that may be a banco device: known USB vendors first, then other USB ports.

    Ports without USB ids (built-in UARTs, Bluetooth) are left out: probing them with HELLO
    could disturb whatever is there.
    """
    known, other = [], []
    for port in comports():
        vid = getattr(port, "vid", None)
        if vid is None:
            continue
        (known if vid in KNOWN_VENDORS else other).append(port.device)
    return sorted(known) + sorted(other)


@dataclass
class _InFlight:
    seq: int
    message: Message
    sent_at: float
    attempts: int


class Link:
    """One device on one port. Thread-safe `send`; callbacks run on the link's thread."""

    def __init__(
        self,
        name: str,
        port: str | None,
        *,
        hello: Hello,
        on_message: Callable[[Message], None],
        restore: Callable[[], list[Message]] = lambda: [],
        on_connect: Callable[[Hello, bool], None] = lambda hello, reconnect: None,
        state_lock: threading.RLock | None = None,
        on_disconnect: Callable[[str], None] = lambda reason: None,
        on_reject: Callable[[Message, str], None] = lambda message, reason: None,
        on_lost: Callable[[Message, int], None] = lambda message, attempts: None,
        accept: Callable[[Hello], str | None] = lambda hello: None,
        baudrate: int = BAUD_RATE,
        reconnect_s: float = 1.0,
        resend_s: float = 0.5,
        max_attempts: int = 10,
        ping_s: float = 1.0,
        silence_s: float = 3.5,
        hello_timeout_s: float = 2.0,
        comports: Callable[[], Sequence] = list_ports.comports,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.port = port
        self._hello = hello
        self._on_connect = on_connect
        self._restore = restore
        self._state_lock = state_lock or threading.RLock()
        self._on_message = on_message
        self._on_disconnect = on_disconnect
        self._on_reject = on_reject
        self._on_lost = on_lost
        self._accept = accept
        self._baudrate = baudrate
        self.reconnect_s = reconnect_s
        self.resend_s = resend_s
        self.max_attempts = max_attempts
        self.ping_s = ping_s
        self.silence_s = silence_s
        self.hello_timeout_s = hello_timeout_s
        self._comports = comports
        self._now = monotonic

        self._lock = threading.Lock()
        self._outbox: collections.deque[Message] = collections.deque()
        self._in_flight: _InFlight | None = None
        self._seq = 0
        self._seen: collections.deque[int] = collections.deque(maxlen=64)
        self._serial: serial.SerialBase | None = None
        self._decoder = Decoder()
        self._state = "stopped"
        self._connected = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._was_connected = False
        self._last_heard = 0.0
        self._last_sent = 0.0
        self._opened_at = 0.0
        self._current_port = ""
        self._candidates: list[str] = []
        self._last_good = ""
        self._hello_acked = False
        self.device_hello: Hello | None = None
        self.protocol_errors = 0
        self.connections = 0

    # ---- public

    def start(self) -> Link:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"banco-{self.name}-link", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close("stopped")
        self._set_state("stopped", "stopped")

    def __enter__(self) -> Link:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def state(self) -> str:
        return self._state

    @property
    def current_port(self) -> str:
        """The port last opened (the one found, when auto-detecting)."""
        return self._current_port

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    def send(self, message: Message) -> bool:
        """Queue `message` for the device. Returns False (and drops it) when not connected:
        the owner's `restore` brings the device up to date on the next connection instead."""
        with self._lock:
            if not self._connected.is_set():
                return False
            if isinstance(message, LedFrame):
                self._outbox = collections.deque(m for m in self._outbox if not isinstance(m, LedFrame))
            self._outbox.append(message)
            handle = self._serial
        # Wake the thread from its read so the frame goes out now, not after the read timeout.
        cancel = getattr(handle, "cancel_read", None)
        if cancel is not None:
            try:
                cancel()
            except (OSError, serial.SerialException):
                pass
        return True

    def idle(self) -> bool:
        """Nothing queued and nothing waiting for an ACK."""
        with self._lock:
            return not self._outbox and self._in_flight is None

    # ---- the thread

    def _set_state(self, state: str, detail: str) -> None:
        if state != self._state:
            self._state = state
            log.info("%s: %s", self.name, detail)

    def _run(self) -> None:
        next_attempt = 0.0
        while not self._stop.is_set():
            try:
                if self._serial is None:
                    now = self._now()
                    if now < next_attempt:
                        self._stop.wait(min(0.05, next_attempt - now))
                        continue
                    next_attempt = now + self.reconnect_s
                    self._open()
                else:
                    self._pump()
            except (serial.SerialException, OSError) as error:
                self._lose(f"{error}")
            except Exception:  # a bug in a callback must not silence the device for the whole game
                log.exception("%s: error in the link thread; reopening the port", self.name)
                self._lose("internal error")

    def _open(self) -> None:
        if self.port is not None:
            port = self.port
        else:
            if not self._candidates:
                found = candidate_ports(self._comports)
                # the port that worked last time first: a replugged device usually comes back there
                self._candidates = sorted(found, key=lambda p: p != self._last_good)
                if not self._candidates:
                    self._set_state("searching", "no serial device found; looking again every "
                                    f"{self.reconnect_s:g} s")
                    return
            port = self._candidates.pop(0)
        try:
            handle = serial.serial_for_url(port, baudrate=self._baudrate, timeout=0.02, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as error:
            log.debug("%s: cannot open %s: %s", self.name, port, error)
            waiting = "waiting" if not self._was_connected else "reconnecting"
            self._set_state(waiting, f"{port} is not available ({error}); trying every {self.reconnect_s:g} s")
            return
        try:
            handle.reset_input_buffer()  # bytes from before we opened belong to nobody
        except (serial.SerialException, OSError):
            pass
        with self._lock:
            self._serial = handle
            self._current_port = port
            self._decoder = Decoder()
            self._outbox.clear()
            self._in_flight = None
            self._seen.clear()
            self._seq = 0  # the counter starts at 1 after opening the port (PROTOCOL §3)
            self._hello_acked = False
            self._opened_at = self._last_heard = self._now()
        self._set_state("handshake", f"opened {port}; saying HELLO")
        self._write(b"\n")  # flush whatever half line the device holds (PROTOCOL.md, resync)
        with self._lock:
            self._outbox.append(self._hello)

    def _close(self, reason: str) -> None:
        with self._lock:
            handle, self._serial = self._serial, None
            self._connected.clear()
            self._outbox.clear()
            self._in_flight = None
        if handle is not None:
            try:
                handle.close()
            except (serial.SerialException, OSError):
                pass

    def _lose(self, reason: str) -> None:
        was_up = self._connected.is_set()
        port = self._current_port
        self._close(reason)
        if was_up:
            self._set_state("disconnected", f"lost {port}: {reason}; reconnecting every {self.reconnect_s:g} s")
            self._on_disconnect(reason)
        else:
            self._set_state("waiting", f"{port} did not answer ({reason}); trying again every "
                            f"{self.reconnect_s:g} s")

    def _write(self, data: bytes) -> None:
        handle = self._serial
        if handle is None:
            return
        handle.write(data)
        self._last_sent = self._now()

    def _send_frame(self, message: Message, seq: int) -> None:
        self._write(encode(message, seq))

    def _pump(self) -> None:
        handle = self._serial
        assert handle is not None
        waiting = handle.in_waiting
        data = handle.read(waiting or 1)
        now = self._now()
        if data:
            self._last_heard = now
            before = self._decoder.errors
            items = self._decoder.feed(data)
            if self._decoder.errors != before:
                self.protocol_errors += self._decoder.errors - before
                log.debug("%s: protocol error: %s", self.name, self._decoder.last_error)
            for item in items:
                self._handle(item)
        if self._serial is None:
            return
        if not self._connected.is_set() and now - self._opened_at > self.hello_timeout_s * 2:
            raise serial.SerialException(f"no HELLO within {self.hello_timeout_s * 2:g} s")
        if now - self._last_heard > self.silence_s:
            raise serial.SerialException(f"silent for {self.silence_s:g} s")
        self._transmit(now)

    def _transmit(self, now: float) -> None:
        lost: _InFlight | None = None
        frame: tuple[Message, int] | None = None
        with self._lock:
            flight = self._in_flight
            if flight is not None:
                if now - flight.sent_at >= self.resend_s:
                    if flight.attempts >= self.max_attempts:
                        lost, self._in_flight = flight, None
                    else:
                        flight.attempts += 1
                        flight.sent_at = now
                        frame = (flight.message, flight.seq)
                        log.debug("%s: resending seq %d (attempt %d)", self.name, flight.seq, flight.attempts)
            elif self._outbox:
                message = self._outbox.popleft()
                self._seq = next_seq(self._seq)
                self._in_flight = _InFlight(self._seq, message, now, 1)
                frame = (message, self._seq)
            elif self._connected.is_set() and now - self._last_sent >= self.ping_s:
                self._seq = next_seq(self._seq)
                self._in_flight = _InFlight(self._seq, Ping(), now, 1)
                frame = (Ping(), self._seq)
        if frame is not None:
            self._send_frame(*frame)
        if lost is not None:
            log.warning("%s: gave up on seq %d after %d attempts", self.name, lost.seq, lost.attempts)
            if not isinstance(lost.message, Ping | Hello):
                self._on_lost(lost.message, lost.attempts)

    def _handle(self, item: Received | Refused) -> None:
        if isinstance(item, Refused):
            self._send_frame(Nak(item.seq, item.reason), 0)
            return
        seq, message = item.seq, item.message
        if isinstance(message, Ack | Nak):
            with self._lock:
                flight = self._in_flight
                if flight is None or flight.seq != message.seq:
                    return  # a late ACK of a frame already resent and acknowledged
                self._in_flight = None
            if isinstance(flight.message, Hello) and isinstance(message, Ack):
                self._hello_acked = True
            if isinstance(message, Nak):
                log.warning("%s: device refused %s: %s", self.name, type(flight.message).__name__, message.reason)
                if not isinstance(flight.message, Ping):
                    self._on_reject(flight.message, message.reason)
            return
        if not isinstance(message, Hello) and not self._connected.is_set():
            return  # not ACKed: the device sends it again once the session is open
        self._send_frame(Ack(seq), 0)
        if isinstance(message, Hello):
            if self._hello_acked:
                self._greeted(message)
            else:
                # Sent before our HELLO was heard (a boot banner, say): the answer to ours follows.
                log.debug("%s: device HELLO before ours was acknowledged; waiting for its answer", self.name)
            return
        if seq in self._seen:
            return
        self._seen.append(seq)
        self._on_message(message)

    def _greeted(self, hello: Hello) -> None:
        problem = self._accept(hello)
        if problem is not None:
            log.warning("%s: %s answered but %s", self.name, self._current_port, problem)
            raise serial.SerialException(problem)
        reconnect = self._was_connected
        # Under the owner's lock: a command the owner sends meanwhile is either already in the
        # restored state or queued after it, never lost between the two.
        with self._state_lock:
            restore = self._restore()
            with self._lock:
                self.device_hello = hello
                self._seen.clear()
                # A device HELLO means a fresh session: what was queued before is superseded.
                self._outbox = collections.deque(restore)
                self._in_flight = None
                already = self._connected.is_set()
                self._connected.set()
                self.connections += 1
                self._was_connected = True
                self._candidates = []
        self._last_good = self._current_port
        if already:
            log.info("%s: device on %s restarted; restoring its state", self.name, self._current_port)
        fields = " ".join(f"{k}={v}" for k, v in hello.info)
        self._set_state("connected", f"{'re' if reconnect else ''}connected on {self._current_port} "
                        f"(banco/{hello.version} {fields})")
        self._on_connect(hello, reconnect)
