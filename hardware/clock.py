"""Chess-clock arithmetic: time controls, presses, flags, pauses and arbiter adjustments.

Pure and sans-IO: every method takes the time `at` (milliseconds on any monotonic scale)
instead of reading a clock, so the device firmware (the simulator), the host's mirror of it
and the tests all run the same arithmetic on whatever time base they own.

Time controls (FIDE Laws of Chess, Article 6 and its guidelines on clocks):

- sudden death: the time only goes down;
- Fischer: after each press the mover gets `increment` back;
- Bronstein: after each press the mover gets back what was used, up to `delay`;
- simple delay (US delay): each turn the clock waits `delay` before it starts counting down.

>>> control = TimeControl.parse("15+10")
>>> clock = ChessClock(control)
>>> clock.start(WHITE, at=0)
>>> clock.press(WHITE, at=4_000).white_ms    # 15 min - 4 s + 10 s
906000
>>> clock.remaining(BLACK, at=5_000)
899000
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from games.base import BLACK, WHITE, BancoError, Color, Outcome, Termination

MAX_MS = 2**31 - 1


class ClockError(BancoError):
    """A time control or clock action that cannot be accepted."""


class Mode(enum.Enum):
    SUDDEN_DEATH = "SD"
    FISCHER = "FISCHER"
    BRONSTEIN = "BRONSTEIN"
    DELAY = "DELAY"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A base time for each side and what a move gives back."""

    base_ms: int
    mode: Mode = Mode.SUDDEN_DEATH
    increment_ms: int = 0
    delay_ms: int = 0

    def __post_init__(self) -> None:
        if self.base_ms <= 0:
            raise ClockError(f"base time must be positive, not {self.base_ms} ms")
        if self.increment_ms < 0 or self.delay_ms < 0:
            raise ClockError("increment and delay must not be negative")
        for what, value in (("base time", self.base_ms), ("increment", self.increment_ms), ("delay", self.delay_ms)):
            if value > MAX_MS:  # the protocol's times are whole milliseconds, 0-2147483647 (PROTOCOL.md §6.1)
                raise ClockError(f"{what} {value} ms is more than a clock can hold ({MAX_MS} ms, about 24 days)")
        if self.mode is Mode.FISCHER and self.delay_ms:
            raise ClockError("a Fischer control has an increment, not a delay")
        if self.mode in (Mode.BRONSTEIN, Mode.DELAY) and self.increment_ms:
            raise ClockError("a delay control has a delay, not an increment")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read ``M+S`` (Fischer, or sudden death when S is 0), ``MdS`` (simple delay) or
        ``MbS`` (Bronstein): M minutes, S seconds. The presets are 15+10, 30+10, 15+0, 30+0.

        >>> TimeControl.parse("30+0")
        TimeControl(base_ms=1800000, mode=<Mode.SUDDEN_DEATH: 'SD'>, increment_ms=0, delay_ms=0)
        >>> TimeControl.parse("15 min")
        Traceback (most recent call last):
        ...
        hardware.clock.ClockError: time control '15 min' is not M+S, MdS or MbS (M minutes, S seconds), e.g. 15+10
        """
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([+db])\s*(\d+)\s*", text)
        if not match:
            raise ClockError(
                f"time control {text!r} is not M+S, MdS or MbS (M minutes, S seconds), e.g. 15+10"
            )
        minutes, sign, seconds = match.groups()
        base_ms = round(float(minutes) * 60_000)
        extra_ms = int(seconds) * 1000
        if sign == "+":
            if extra_ms == 0:
                return cls(base_ms)
            return cls(base_ms, Mode.FISCHER, increment_ms=extra_ms)
        return cls(base_ms, Mode.DELAY if sign == "d" else Mode.BRONSTEIN, delay_ms=extra_ms)

    def __str__(self) -> str:
        minutes = f"{self.base_ms / 60_000:g}"
        if self.mode is Mode.FISCHER:
            return f"{minutes}+{self.increment_ms // 1000:g}"
        if self.mode is Mode.SUDDEN_DEATH:
            return f"{minutes}+0"
        letter = "d" if self.mode is Mode.DELAY else "b"
        return f"{minutes}{letter}{self.delay_ms // 1000:g}"


PRESETS = {name: TimeControl.parse(name) for name in ("15+10", "30+10", "15+0", "30+0")}


@dataclass(frozen=True, slots=True)
class PressResult:
    """What a press did: who pressed, when, how long the turn took and both times after it."""

    side: Color
    at: int
    used_ms: int
    white_ms: int
    black_ms: int


@dataclass(frozen=True, slots=True)
class FlagEvent:
    """The time of `side` ran out at `at` (the exact instant, not when it was noticed)."""

    side: Color
    at: int


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One arbiter-visible action on the clock, kept in order."""

    at: int
    action: str
    white_ms: int
    black_ms: int
    reason: str = ""
    by: str = ""


@dataclass
class ChessClock:
    """Two countdowns, one running at a time.

    Flagged sides stay at zero: later presses neither add increments to them nor un-flag
    them, and a second flag is recorded after the first (`both_flags`).
    """

    control: TimeControl
    white_ms: int = -1
    black_ms: int = -1
    running: Color | None = None
    flags: list[FlagEvent] = field(default_factory=list)
    audit: list[AuditEntry] = field(default_factory=list)
    presses: int = 0
    _turn_start: int = 0  # when the running side's turn (or its resumed part) began
    _turn_used: int = 0  # time used in this turn before a pause
    _paused_side: Color | None = None

    def __post_init__(self) -> None:
        if self.white_ms < 0:
            self.white_ms = self.control.base_ms
        if self.black_ms < 0:
            self.black_ms = self.control.base_ms

    # ---- reading

    def _stored(self, side: Color) -> int:
        return self.white_ms if side is WHITE else self.black_ms

    def _store(self, side: Color, value: int) -> None:
        if side is WHITE:
            self.white_ms = value
        else:
            self.black_ms = value

    def flagged(self, side: Color) -> bool:
        return any(flag.side is side for flag in self.flags)

    @property
    def both_flags(self) -> bool:
        return self.flagged(WHITE) and self.flagged(BLACK)

    def _used(self, at: int) -> int:
        if at < self._turn_start:
            raise ClockError(f"time went backwards: {at} ms is before {self._turn_start} ms")
        return self._turn_used + at - self._turn_start

    def _charged(self, used: int) -> int:
        """How much of `used` ms in a turn comes off the clock."""
        if self.control.mode is Mode.DELAY:
            return max(0, used - self.control.delay_ms)
        return used

    def remaining(self, side: Color, at: int) -> int:
        """The time `side` would have if its clock were stopped at `at` (never below zero)."""
        stored = self._stored(side)
        if side is self._paused_side:
            return max(0, stored - self._charged(self._turn_used))
        if side is not self.running:
            return stored
        return max(0, stored - self._charged(self._used(at)))

    def times(self, at: int) -> tuple[int, int]:
        return self.remaining(WHITE, at), self.remaining(BLACK, at)

    def flag_due(self) -> int | None:
        """The instant the running side's flag falls if nobody presses, or None."""
        if self.running is None or self.flagged(self.running):
            return None
        stored = self._stored(self.running)
        if self.control.mode is Mode.DELAY:
            stored += self.control.delay_ms
        return self._turn_start - self._turn_used + stored

    # ---- acting

    def start(self, side: Color, at: int) -> None:
        """Start the clock of `side` (the first mover, or after `set`). The other side's clock,
        running or paused, stops where it stands: the time its turn used stays used (no
        increment: no move was completed by a press)."""
        other = self.running or self._paused_side
        if other is not None and other is not side:
            if self.running is not None:
                self.check_flag(at)
            self._store(other, self.remaining(other, at))
        self.running = side
        self._turn_start, self._turn_used = at, 0
        self._paused_side = None
        self._record(at, f"start {side.name.lower()}")

    def check_flag(self, at: int) -> FlagEvent | None:
        """Record and return the flag of the running side if it has fallen by `at`."""
        due = self.flag_due()
        if due is None or at < due:
            return None
        flag = FlagEvent(self.running, due)
        self.flags.append(flag)
        self._store(self.running, 0)
        self._turn_start, self._turn_used = due, 0
        return flag

    def press(self, side: Color, at: int) -> PressResult | None:
        """`side` ends its turn. A press by the side that is not running is ignored (None)."""
        if self.running is not side:
            return None
        self.check_flag(at)
        used = self._used(at)
        if self.flagged(side):
            after = 0
        else:
            after = max(0, self._stored(side) - self._charged(used))
            if self.control.mode is Mode.FISCHER:
                after += self.control.increment_ms
            elif self.control.mode is Mode.BRONSTEIN:
                after += min(used, self.control.delay_ms)
        self._store(side, after)
        self.running = side.other
        self._turn_start, self._turn_used = at, 0
        self.presses += 1
        return PressResult(side, at, used, self.white_ms, self.black_ms)

    def pause(self, at: int, reason: str = "", by: str = "") -> None:
        """Stop both clocks; `resume` continues the same turn (its delay is not given again)."""
        if self.running is None:
            return
        self.check_flag(at)
        self._turn_used = self._used(at)
        self._paused_side, self.running = self.running, None
        self._record(at, "pause", reason, by)

    def resume(self, at: int, reason: str = "", by: str = "") -> None:
        if self._paused_side is None:
            raise ClockError("the clock is not paused")
        self.running, self._paused_side = self._paused_side, None
        self._turn_start = at
        self._record(at, "resume", reason, by)

    @property
    def turn_started(self) -> int:
        """When the running turn (or its resumed part) began."""
        return self._turn_start

    @property
    def paused_side(self) -> Color | None:
        return self._paused_side

    def adjust(self, white_ms: int, black_ms: int, at: int, reason: str = "", by: str = "arbiter") -> None:
        """Set both remaining times (an arbiter's correction). The running turn restarts at
        `at` with its delay used up, so the new figures are what the display shows now."""
        if white_ms < 0 or black_ms < 0:
            raise ClockError(f"adjusted times must not be negative: {white_ms}, {black_ms}")
        self.white_ms, self.black_ms = white_ms, black_ms
        self.flags = [flag for flag in self.flags if self._stored(flag.side) == 0]
        if self.running is not None or self._paused_side is not None:
            # The turn restarts now with its delay spent, so the new figures count down at once.
            self._turn_start = at
            self._turn_used = self.control.delay_ms if self.control.mode is Mode.DELAY else 0
        self._record(at, "adjust", reason, by)

    def sync(self, white_ms: int, black_ms: int, running: Color | None, at: int) -> None:
        """Take the official times from the device: both clocks read these at `at`, a new turn
        of `running` having just begun (as after a press). Not audited: it is not a correction."""
        self.white_ms, self.black_ms = white_ms, black_ms
        self.running, self._paused_side = running, None
        self._turn_start, self._turn_used = at, 0

    def _record(self, at: int, action: str, reason: str = "", by: str = "") -> None:
        white, black = self.times(at)
        self.audit.append(AuditEntry(at, action, white, black, reason, by))


# ---------------------------------------------------------------- moves bound to presses


@dataclass(frozen=True, slots=True)
class BoundMove:
    """A move completed by a press (FIDE 6.7: a move is complete when the clock is pressed)."""

    ply: int
    side: Color
    move: object
    press: PressResult


@dataclass(frozen=True, slots=True)
class UnboundPress:
    """A press with no move proposed since the last one: for the referee to look at."""

    press: PressResult


class MoveLedger:
    """Binds the moves the camera proposes to the presses that complete them.

    The camera may change its mind while the hand is still on the board: the last proposal
    before the press wins. A proposal by the side that is not on move is rejected.

    >>> ledger = MoveLedger(first=WHITE)
    >>> ledger.propose(WHITE, "h2e2")
    >>> ledger.on_press(PressResult(WHITE, 5000, 5000, 895000, 900000)).move
    'h2e2'
    """

    def __init__(self, first: Color = WHITE) -> None:
        self.turn = first
        self.moves: list[BoundMove] = []
        self._pending: object | None = None

    def propose(self, side: Color, move: object) -> None:
        if side is not self.turn:
            raise ClockError(f"{side.name.lower()} proposed a move but {self.turn.name.lower()} is on move")
        self._pending = move

    def withdraw(self) -> None:
        self._pending = None

    @property
    def pending(self) -> object | None:
        return self._pending

    def on_press(self, press: PressResult) -> BoundMove | UnboundPress:
        if press.side is not self.turn or self._pending is None:
            return UnboundPress(press)
        bound = BoundMove(len(self.moves) + 1, press.side, self._pending, press)
        self.moves.append(bound)
        self._pending = None
        self.turn = self.turn.other
        return bound


# ---------------------------------------------------------------- what a flag means


@dataclass(frozen=True, slots=True)
class PointsDecide:
    """Time is up in a game decided on points: the rules engine must score the position.

    Commander Chess (seed 000): "Nếu sau 15 phút không bên nào kết thúc chiến trận thì thắng
    thua tính theo điểm" — after the time limit, points decide. Cờ Toán ends on points too.
    """

    game: str
    flagged: Color
    at: int
    termination: Termination = Termination.POINTS


def time_up(game: str, flag: FlagEvent) -> Outcome | PointsDecide:
    """What the game's outcome logic needs when `flag` falls.

    Xiangqi: the side out of time loses (time forfeit). Commander Chess and Cờ Toán: the
    game stops and the engine adjudicates on points.

    >>> time_up("xiangqi", FlagEvent(WHITE, 900_000)).winner
    <Color.BLACK: 'b'>
    >>> time_up("commander", FlagEvent(WHITE, 900_000)).termination
    <Termination.POINTS: 'points'>
    """
    if game in ("commander", "cotoan"):
        return PointsDecide(game, flag.side, flag.at)
    return Outcome(Termination.TIME_FORFEIT, flag.side.other)


# ---------------------------------------------------------------- a game-duration clock


# Games whose clock times the whole game, not each side (COMMANDER_RULES §12, decision D34).
TIMED_BY_DURATION = frozenset({"commander"})


def game_duration_control(control: TimeControl) -> TimeControl:
    """The per-side clock that runs a game timed by its DURATION (Commander Chess, COMMANDER_RULES
    §12 and decision D34: a battle lasts at most 15 minutes of total game time, total war 30).

    ``--time M+S`` gives the game M minutes in all. The increment (or delay) is dropped: the
    rules give none, and time handed back would stretch the game past its limit. Each side's
    display counts down from M, sudden death, and shows what that side may still use if the
    other used nothing more; what both have used together is `game_time_used`, and no side's
    flag can fall before the game's limit is reached.

    >>> game_duration_control(TimeControl.parse("15+10"))
    TimeControl(base_ms=900000, mode=<Mode.SUDDEN_DEATH: 'SD'>, increment_ms=0, delay_ms=0)
    """
    return TimeControl(control.base_ms)


def game_time_used(control: TimeControl, white_ms: int, black_ms: int) -> int:
    """The time both sides have used together, read from two displays of `game_duration_control`.

    >>> control = game_duration_control(TimeControl.parse("15+0"))
    >>> game_time_used(control, white_ms=600_000, black_ms=300_000)  # Red used 5 min, Blue 10
    900000
    """
    return 2 * control.base_ms - white_ms - black_ms
