"""The banco serial protocol, sans-IO: messages to bytes and bytes to messages.

Nothing here touches a port or a clock. `encode` turns one message and its sequence number
into one line of bytes; a `Decoder` is fed bytes in any chunks and returns what it could
read. The wire format is specified in `hardware/PROTOCOL.md`; this module is its reference
implementation.

>>> line = encode(ClockRun(side="w"), seq=7)
>>> line
b'7 CLK RUN w *6D\\n'
>>> decoder = Decoder()
>>> decoder.feed(line[:5]) + decoder.feed(line[5:])
[Received(seq=7, message=ClockRun(side='w'))]
>>> decoder.feed(b"junk\\n7 CLK RUN w *00\\n"), decoder.errors
([], 2)
"""

from __future__ import annotations

import enum
import string
from collections.abc import Iterable
from dataclasses import dataclass, field

PROTOCOL_NAME = "banco"
PROTOCOL_VERSION = 1
BAUD_RATE = 115200
MAX_LINE = 1024  # bytes of one frame, the newline included; firmware sizes its buffer to this
MAX_SEQ = 9999  # sequence numbers run 1..MAX_SEQ and wrap to 1; 0 is for ACK and NAK
PALETTE_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
SIDES = ("w", "b")
CLOCK_MODES = ("SD", "FISCHER", "BRONSTEIN", "DELAY")
# The grids the protocol names; a device may announce any W×H up to these bounds.
GRIDS = {"xiangqi": (9, 10), "commander": (11, 12), "cotoan": (9, 11)}
MAX_FILES, MAX_RANKS = 16, 16


class Pattern(enum.Enum):
    """How one LED shows its colour. Blink and pulse have a 1 s period, phase set by the device."""

    OFF = "O"
    SOLID = "S"
    BLINK = "B"
    PULSE = "P"


@dataclass(frozen=True, slots=True)
class Cell:
    """What one point of the board shows: a pattern and a 24-bit RGB colour."""

    pattern: Pattern = Pattern.OFF
    color: int = 0x000000

    def __post_init__(self) -> None:
        if not 0 <= self.color <= 0xFFFFFF:
            raise ValueError(f"colour {self.color:#x} is not 24-bit RGB")


OFF = Cell()


# ---------------------------------------------------------------- messages (both directions)


@dataclass(frozen=True, slots=True)
class Hello:
    """Sent by each side when a link opens. `info` is the ordered key=value capabilities.

    A device announces `kind` (clock, leds or both), `grid` (W×H), `color` (rgb or mono),
    `clock` (0 or 1) and `fw` (its firmware version); the host announces `host`.
    """

    version: int = PROTOCOL_VERSION
    info: tuple[tuple[str, str], ...] = ()

    def get(self, key: str, default: str | None = None) -> str | None:
        return dict(self.info).get(key, default)

    @property
    def kind(self) -> str | None:
        return self.get("kind")

    @property
    def grid(self) -> tuple[int, int] | None:
        text = self.get("grid")
        if not text:
            return None
        try:
            files, ranks = (int(part) for part in text.lower().split("x"))
        except ValueError:
            return None
        return files, ranks

    @property
    def has_clock(self) -> bool:
        return self.get("clock") == "1" or self.kind in ("clock", "both")

    @property
    def has_leds(self) -> bool:
        return self.kind in ("leds", "both")


@dataclass(frozen=True, slots=True)
class Ack:
    """The frame numbered `seq` was received and carried out (or was a harmless duplicate)."""

    seq: int


@dataclass(frozen=True, slots=True)
class Nak:
    """The frame numbered `seq` was well formed but refused; `reason` says why."""

    seq: int
    reason: str


@dataclass(frozen=True, slots=True)
class Ping:
    """Liveness, once a second each way. A device adds its clock in ms since boot."""

    t_ms: int | None = None


# ---------------------------------------------------------------- host → device


@dataclass(frozen=True, slots=True)
class LedFrame:
    """The whole board at once: one `Cell` per point, rank by rank from White's side."""

    files: int
    ranks: int
    cells: tuple[Cell, ...]

    def __post_init__(self) -> None:
        if not (1 <= self.files <= MAX_FILES and 1 <= self.ranks <= MAX_RANKS):
            raise ValueError(f"grid {self.files}x{self.ranks} is outside 1x1..{MAX_FILES}x{MAX_RANKS}")
        if len(self.cells) != self.files * self.ranks:
            raise ValueError(f"{len(self.cells)} cells for a {self.files}x{self.ranks} grid")

    def cell(self, file: int, rank: int) -> Cell:
        return self.cells[rank * self.files + file]


@dataclass(frozen=True, slots=True)
class Brightness:
    level: int  # 0..255

    def __post_init__(self) -> None:
        if not 0 <= self.level <= 255:
            raise ValueError(f"brightness {self.level} is outside 0..255")


@dataclass(frozen=True, slots=True)
class ClockSet:
    """Load both times and the time control; the clock stops until `ClockRun`."""

    mode: str
    white_ms: int
    black_ms: int
    increment_ms: int = 0
    delay_ms: int = 0

    def __post_init__(self) -> None:
        if self.mode not in CLOCK_MODES:
            raise ValueError(f"clock mode {self.mode!r} is not one of {', '.join(CLOCK_MODES)}")
        for name in ("white_ms", "black_ms", "increment_ms", "delay_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")


@dataclass(frozen=True, slots=True)
class ClockRun:
    """Start (or keep) running the clock of `side`, stopping the other."""

    side: str

    def __post_init__(self) -> None:
        _check_side(self.side)


@dataclass(frozen=True, slots=True)
class ClockPause:
    pass


@dataclass(frozen=True, slots=True)
class ClockAdjust:
    """The arbiter's correction: both remaining times, the running side unchanged."""

    white_ms: int
    black_ms: int

    def __post_init__(self) -> None:
        if self.white_ms < 0 or self.black_ms < 0:
            raise ValueError("adjusted times must not be negative")


# ---------------------------------------------------------------- device → host


@dataclass(frozen=True, slots=True)
class Press:
    """`side` pressed its button, ending its turn at device time `t_dev_ms`; both times after it."""

    side: str
    t_dev_ms: int
    white_ms: int
    black_ms: int

    def __post_init__(self) -> None:
        _check_side(self.side)


@dataclass(frozen=True, slots=True)
class Flag:
    """The time of `side` ran out at device time `t_dev_ms`."""

    side: str
    t_dev_ms: int

    def __post_init__(self) -> None:
        _check_side(self.side)


Message = (Hello | Ack | Nak | Ping | LedFrame | Brightness | ClockSet | ClockRun | ClockPause
           | ClockAdjust | Press | Flag)


@dataclass(frozen=True, slots=True)
class Received:
    """A frame that was read and understood."""

    seq: int
    message: Message


@dataclass(frozen=True, slots=True)
class Refused:
    """A frame whose checksum was right but whose command or arguments were not: NAK it."""

    seq: int
    reason: str


def _check_side(side: str) -> None:
    if side not in SIDES:
        raise ValueError(f"side {side!r} is not 'w' or 'b'")


# ---------------------------------------------------------------- encoding


def checksum(body: bytes) -> int:
    """XOR of every byte of the frame before `` *``."""
    value = 0
    for byte in body:
        value ^= byte
    return value


def _words(message: Message) -> list[str]:
    match message:
        case Hello(version, info):
            return ["HELLO", f"{PROTOCOL_NAME}/{version}"] + [f"{key}={value}" for key, value in info]
        case Ack(seq):
            return ["ACK", str(seq)]
        case Nak(seq, reason):
            return ["NAK", str(seq)] + _clean_reason(reason).split()
        case Ping(t_ms):
            return ["PING"] if t_ms is None else ["PING", str(t_ms)]
        case LedFrame(files, ranks, cells):
            palette: list[Cell] = []
            digits = []
            for cell in cells:
                if cell not in palette:
                    if len(palette) == len(PALETTE_DIGITS):
                        raise ValueError(f"a frame may use at most {len(PALETTE_DIGITS)} distinct cells")
                    palette.append(cell)
                digits.append(PALETTE_DIGITS[palette.index(cell)])
            entries = ",".join(f"{cell.pattern.value}{cell.color:06X}" for cell in palette)
            return ["LED", f"{files}x{ranks}", entries, "".join(digits)]
        case Brightness(level):
            return ["BRI", str(level)]
        case ClockSet(mode, white_ms, black_ms, increment_ms, delay_ms):
            return ["CLK", "SET", mode, str(white_ms), str(black_ms), str(increment_ms), str(delay_ms)]
        case ClockRun(side):
            return ["CLK", "RUN", side]
        case ClockPause():
            return ["CLK", "PAUSE"]
        case ClockAdjust(white_ms, black_ms):
            return ["CLK", "ADJUST", str(white_ms), str(black_ms)]
        case Press(side, t_dev_ms, white_ms, black_ms):
            return ["PRESS", side, str(t_dev_ms), str(white_ms), str(black_ms)]
        case Flag(side, t_dev_ms):
            return ["FLAG", side, str(t_dev_ms)]
    raise TypeError(f"not a protocol message: {message!r}")


def _clean_reason(reason: str) -> str:
    text = "".join(ch if 0x21 <= ord(ch) <= 0x7E and ch != "*" else " " for ch in reason)
    return " ".join(text.split()) or "refused"


def encode(message: Message, seq: int) -> bytes:
    """One frame: ``<seq> <words> *<XOR as 2 hex>\\n``. ACK and NAK frames use seq 0."""
    if not 0 <= seq <= MAX_SEQ:
        raise ValueError(f"sequence number {seq} is outside 0..{MAX_SEQ}")
    body = " ".join([str(seq), *_words(message)]).encode("ascii")
    line = body + b" *" + f"{checksum(body):02X}".encode("ascii") + b"\n"
    if len(line) > MAX_LINE:
        raise ValueError(f"frame of {len(line)} bytes exceeds {MAX_LINE}")
    return line


def needs_ack(message: Message) -> bool:
    """Every frame except ACK and NAK is acknowledged by its receiver."""
    return not isinstance(message, Ack | Nak)


def next_seq(seq: int) -> int:
    return 1 if seq >= MAX_SEQ else seq + 1


# ---------------------------------------------------------------- decoding


class _Unknown(ValueError):
    """A well-formed frame naming a command this side does not know."""


def _int(text: str, what: str, low: int = 0, high: int = 2**31 - 1) -> int:
    if not text.isdigit() or len(text) > 10:
        raise ValueError(f"{what} {text!r} is not a number")
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{what} {value} is outside {low}..{high}")
    return value


def _argc(words: list[str], count: int, command: str) -> None:
    if len(words) != count:
        raise ValueError(f"{command} takes {count} arguments, got {len(words)}")


def _parse_side(text: str) -> str:
    if text not in SIDES:
        raise ValueError(f"side {text!r} is not 'w' or 'b'")
    return text


def _parse_led(args: list[str]) -> LedFrame:
    _argc(args, 3, "LED")
    grid, entries, digits = args
    files_text, sep, ranks_text = grid.partition("x")
    if not sep:
        raise ValueError(f"grid {grid!r} is not WxH")
    files = _int(files_text, "files", 1, MAX_FILES)
    ranks = _int(ranks_text, "ranks", 1, MAX_RANKS)
    palette = []
    for entry in entries.split(","):
        if len(entry) != 7:
            raise ValueError(f"palette entry {entry!r} is not a pattern letter and 6 hex digits")
        try:
            pattern = Pattern(entry[0])
            color = int(entry[1:], 16)
        except ValueError:
            raise ValueError(f"palette entry {entry!r} is not a pattern letter and 6 hex digits") from None
        if not all(ch in "0123456789ABCDEFabcdef" for ch in entry[1:]):
            raise ValueError(f"palette entry {entry!r} has a colour that is not hex")
        palette.append(Cell(pattern, color))
    if len(palette) > len(PALETTE_DIGITS):
        raise ValueError(f"palette of {len(palette)} entries exceeds {len(PALETTE_DIGITS)}")
    if len(digits) != files * ranks:
        raise ValueError(f"{len(digits)} points for a {files}x{ranks} grid")
    cells = []
    for index, digit in enumerate(digits):
        position = PALETTE_DIGITS.find(digit)
        if not 0 <= position < len(palette):
            raise ValueError(f"point {index} names palette entry {digit!r}, which is not defined")
        cells.append(palette[position])
    return LedFrame(files, ranks, tuple(cells))


def _parse(words: list[str]) -> Message:
    command, args = words[0], words[1:]
    if command == "HELLO":
        if not args:
            raise ValueError("HELLO needs the protocol name and version")
        name, sep, version = args[0].partition("/")
        if name != PROTOCOL_NAME or not sep:
            raise ValueError(f"protocol {args[0]!r} is not {PROTOCOL_NAME}/<version>")
        info = []
        for arg in args[1:]:
            key, sep, value = arg.partition("=")
            if not sep or not key:
                raise ValueError(f"HELLO field {arg!r} is not key=value")
            info.append((key, value))
        return Hello(_int(version, "protocol version", 1, 999), tuple(info))
    if command == "ACK":
        _argc(args, 1, command)
        return Ack(_int(args[0], "acknowledged seq", 1, MAX_SEQ))
    if command == "NAK":
        if not args:
            raise ValueError("NAK needs the refused seq")
        return Nak(_int(args[0], "refused seq", 1, MAX_SEQ), " ".join(args[1:]) or "refused")
    if command == "PING":
        if len(args) > 1:
            raise ValueError(f"PING takes at most 1 argument, got {len(args)}")
        return Ping(_int(args[0], "ping time") if args else None)
    if command == "LED":
        return _parse_led(args)
    if command == "BRI":
        _argc(args, 1, command)
        return Brightness(_int(args[0], "brightness", 0, 255))
    if command == "CLK":
        if not args:
            raise ValueError("CLK needs a subcommand")
        sub, rest = args[0], args[1:]
        if sub == "SET":
            _argc(rest, 5, "CLK SET")
            if rest[0] not in CLOCK_MODES:
                raise ValueError(f"clock mode {rest[0]!r} is not one of {', '.join(CLOCK_MODES)}")
            return ClockSet(rest[0], *(_int(text, "time") for text in rest[1:]))
        if sub == "RUN":
            _argc(rest, 1, "CLK RUN")
            return ClockRun(_parse_side(rest[0]))
        if sub == "PAUSE":
            _argc(rest, 0, "CLK PAUSE")
            return ClockPause()
        if sub == "ADJUST":
            _argc(rest, 2, "CLK ADJUST")
            return ClockAdjust(_int(rest[0], "white time"), _int(rest[1], "black time"))
        raise _Unknown(f"unknown command CLK {sub}")
    if command == "PRESS":
        _argc(args, 4, command)
        return Press(_parse_side(args[0]), *(_int(text, "time") for text in args[1:]))
    if command == "FLAG":
        _argc(args, 2, command)
        return Flag(_parse_side(args[0]), _int(args[1], "time"))
    raise _Unknown(f"unknown command {command}")


@dataclass
class Decoder:
    """Bytes in, frames out. Never raises on input: bad lines are counted in `errors`.

    Resync rule: whatever cannot be read is dropped up to and including the next newline.
    A line longer than `MAX_LINE` is dropped the same way, without being buffered.
    """

    errors: int = 0
    last_error: str = ""
    _buffer: bytearray = field(default_factory=bytearray)
    _overflow: bool = False

    def feed(self, data: bytes) -> list[Received | Refused]:
        out: list[Received | Refused] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._keep(data[start:])
                return out
            if self._overflow:
                self._overflow = False
                self._buffer.clear()
            elif len(self._buffer) + end - start >= MAX_LINE:
                self._buffer.clear()
                self._error("line longer than the frame limit")
            else:
                self._buffer += data[start:end]
                line = bytes(self._buffer)
                self._buffer.clear()
                item = self._line(line)
                if item is not None:
                    out.append(item)
            start = end + 1

    def _keep(self, tail: bytes) -> None:
        if self._overflow:
            return
        self._buffer += tail
        if len(self._buffer) >= MAX_LINE:  # no newline can make this a frame any more
            self._buffer.clear()
            self._overflow = True
            self._error("line longer than the frame limit")

    def _error(self, reason: str) -> None:
        self.errors += 1
        self.last_error = reason

    def _line(self, line: bytes) -> Received | Refused | None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            return None  # a lone newline is the documented way to flush a peer's partial line
        if any(byte < 0x20 or byte > 0x7E for byte in line):
            self._error("bytes outside printable ASCII")
            return None
        body, sep, tail = line.rpartition(b" *")
        if not sep or len(tail) != 2:
            self._error("no ' *XX' checksum at the end of the line")
            return None
        if not all(chr(byte) in string.hexdigits for byte in tail):  # int() would take " 7" and "+7"
            self._error(f"checksum {tail!r} is not two hex digits")
            return None
        expected = int(tail, 16)
        if checksum(body) != expected:
            self._error("checksum mismatch")
            return None
        words = body.decode("ascii").split(" ")
        if len(words) < 2 or not words[0].isdigit() or len(words[0]) > 4 or any(not w for w in words) \
                or (len(words[0]) > 1 and words[0].startswith("0")):  # decimal without leading zeros
            self._error("frame is not '<seq> <command> <args>' with single spaces")
            return None
        seq = int(words[0])
        try:
            message = _parse(words[1:])
        except _Unknown as error:
            self._error(str(error))
            return Refused(seq, str(error)) if 0 < seq <= MAX_SEQ else None
        except ValueError as error:
            self._error(str(error))
            return Refused(seq, f"bad arguments for {words[1]}: {error}") if 0 < seq <= MAX_SEQ else None
        if isinstance(message, Ack | Nak) != (seq == 0):
            self._error("only ACK and NAK may use, and must use, seq 0")
            return None
        if seq > MAX_SEQ:
            self._error(f"seq {seq} is outside 0..{MAX_SEQ}")
            return None
        return Received(seq, message)


def decode_all(data: bytes) -> list[Received | Refused]:
    """Decode a complete byte string at once."""
    return Decoder().feed(data)


def encode_all(items: Iterable[tuple[int, Message]]) -> bytes:
    return b"".join(encode(message, seq) for seq, message in items)
