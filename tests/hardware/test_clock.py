"""Clock arithmetic: the four time controls, flags, pause/adjust and moves bound to presses."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import BLACK, WHITE, Outcome, Termination
from hardware.clock import (
    PRESETS,
    BoundMove,
    ChessClock,
    ClockError,
    FlagEvent,
    Mode,
    MoveLedger,
    PointsDecide,
    PressResult,
    TimeControl,
    UnboundPress,
    time_up,
)

MIN = 60_000


def test_presets():
    assert PRESETS["15+10"] == TimeControl(15 * MIN, Mode.FISCHER, increment_ms=10_000)
    assert PRESETS["30+10"] == TimeControl(30 * MIN, Mode.FISCHER, increment_ms=10_000)
    assert PRESETS["15+0"] == TimeControl(15 * MIN)
    assert PRESETS["30+0"] == TimeControl(30 * MIN)
    assert [str(control) for control in PRESETS.values()] == list(PRESETS)


def test_parse_delays_and_errors():
    assert TimeControl.parse("5d3") == TimeControl(5 * MIN, Mode.DELAY, delay_ms=3000)
    assert TimeControl.parse("5b3") == TimeControl(5 * MIN, Mode.BRONSTEIN, delay_ms=3000)
    assert str(TimeControl.parse("5b3")) == "5b3"
    with pytest.raises(ClockError, match="'fast'"):
        TimeControl.parse("fast")
    with pytest.raises(ClockError, match="positive"):
        TimeControl.parse("0+5")
    # The protocol carries whole milliseconds up to 2147483647 (PROTOCOL.md §6.1): more is refused here.
    with pytest.raises(ClockError, match="base time 2400000000 ms is more than a clock can hold"):
        TimeControl.parse("40000+0")
    with pytest.raises(ClockError, match="increment"):
        TimeControl.parse("15+1000000000")
    assert issubclass(ClockError, ValueError)


def test_sudden_death():
    clock = ChessClock(PRESETS["15+0"])
    clock.start(WHITE, at=1000)
    assert clock.remaining(WHITE, 4000) == 15 * MIN - 3000
    result = clock.press(WHITE, 11_000)
    assert (result.used_ms, result.white_ms, result.black_ms) == (10_000, 15 * MIN - 10_000, 15 * MIN)
    assert clock.running is BLACK
    assert clock.remaining(BLACK, 12_000) == 15 * MIN - 1000


def test_fischer_adds_the_increment_after_each_press():
    clock = ChessClock(PRESETS["15+10"])
    clock.start(WHITE, 0)
    assert clock.press(WHITE, 30_000).white_ms == 15 * MIN - 30_000 + 10_000
    assert clock.press(BLACK, 32_000).black_ms == 15 * MIN - 2000 + 10_000


def test_bronstein_gives_back_what_was_used_up_to_the_delay():
    clock = ChessClock(TimeControl.parse("5b5"))
    clock.start(WHITE, 0)
    assert clock.press(WHITE, 3000).white_ms == 5 * MIN  # 3 s used, 3 s back
    assert clock.remaining(BLACK, 11_000) == 5 * MIN - 8000  # shown counting down from the start
    assert clock.press(BLACK, 11_000).black_ms == 5 * MIN - 8000 + 5000


def test_simple_delay_waits_before_counting():
    clock = ChessClock(TimeControl.parse("5d5"))
    clock.start(WHITE, 0)
    assert clock.remaining(WHITE, 4000) == 5 * MIN
    assert clock.remaining(WHITE, 7000) == 5 * MIN - 2000
    assert clock.press(WHITE, 7000).white_ms == 5 * MIN - 2000
    assert clock.flag_due() is None or clock.running is BLACK


def test_flag_falls_at_the_exact_instant_and_stays():
    clock = ChessClock(TimeControl(10_000))
    clock.start(WHITE, 0)
    assert clock.check_flag(9_999) is None
    assert clock.check_flag(12_345) == FlagEvent(WHITE, 10_000)
    assert clock.remaining(WHITE, 20_000) == 0
    assert clock.check_flag(20_000) is None  # once
    assert clock.press(WHITE, 21_000).white_ms == 0


def test_simple_delay_flag_includes_the_delay():
    clock = ChessClock(TimeControl(10_000, Mode.DELAY, delay_ms=5000))
    clock.start(BLACK, 100)
    assert clock.flag_due() == 15_100


def test_flagged_side_gets_no_increment_and_both_flags_are_recorded():
    clock = ChessClock(TimeControl(10_000, Mode.FISCHER, increment_ms=2000))
    clock.start(WHITE, 0)
    assert clock.press(WHITE, 15_000).white_ms == 0  # the press noticed the flag first
    assert clock.flags == [FlagEvent(WHITE, 10_000)]
    assert not clock.both_flags
    clock.check_flag(40_000)
    assert clock.flags[1] == FlagEvent(BLACK, 25_000)
    assert clock.both_flags


def test_press_by_the_waiting_side_is_ignored():
    clock = ChessClock(PRESETS["15+0"])
    clock.start(WHITE, 0)
    assert clock.press(BLACK, 1000) is None
    assert clock.running is WHITE and clock.presses == 0


def test_pause_resume_and_adjust_leave_an_audit_trail():
    clock = ChessClock(TimeControl.parse("5d5"))
    clock.start(WHITE, 0)
    clock.pause(8000, reason="player called the arbiter", by="arbiter A")
    assert clock.times(100_000) == (5 * MIN - 3000, 5 * MIN)
    clock.resume(100_000, by="arbiter A")
    assert clock.remaining(WHITE, 101_000) == 5 * MIN - 4000  # the delay is not given again
    clock.adjust(2 * MIN, 3 * MIN, 102_000, reason="illegal move penalty: 2 min to Black", by="arbiter A")
    assert clock.remaining(WHITE, 103_000) == 2 * MIN - 1000
    actions = [(entry.action, entry.white_ms, entry.black_ms, entry.by) for entry in clock.audit]
    assert actions == [
        ("start white", 5 * MIN, 5 * MIN, ""),
        ("pause", 5 * MIN - 3000, 5 * MIN, "arbiter A"),
        ("resume", 5 * MIN - 3000, 5 * MIN, "arbiter A"),
        ("adjust", 2 * MIN, 3 * MIN, "arbiter A"),
    ]
    assert clock.audit[-1].reason.startswith("illegal move penalty")
    with pytest.raises(ClockError, match="not paused"):
        clock.resume(104_000)


def test_time_never_goes_backwards():
    clock = ChessClock(PRESETS["15+0"])
    clock.start(WHITE, 5000)
    with pytest.raises(ClockError, match="backwards"):
        clock.press(WHITE, 4000)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["15+10", "30+10", "15+0", "30+0", "5d5", "5b5"]),
       st.lists(st.integers(0, 120_000), max_size=60))
def test_time_is_conserved(control_text, turns):
    """Whatever the turns, each side's time is base − charged + refunds, never negative."""
    control = TimeControl.parse(control_text)
    clock = ChessClock(control)
    at, side = 0, WHITE
    clock.start(side, at)
    spent = {WHITE: 0, BLACK: 0}
    for used in turns:
        at += used
        before = clock.remaining(side, at - used)
        result = clock.press(side, at)
        after = result.white_ms if side is WHITE else result.black_ms
        if clock.flagged(side):
            assert after == 0
        else:
            charged = max(0, used - control.delay_ms) if control.mode is Mode.DELAY else used
            refund = control.increment_ms + (min(used, control.delay_ms) if control.mode is Mode.BRONSTEIN else 0)
            assert after == before - charged + refund
            spent[side] += used
        side = side.other
    assert clock.white_ms >= 0 and clock.black_ms >= 0


def test_moves_are_bound_to_presses():
    ledger = MoveLedger(WHITE)
    press = PressResult(WHITE, 5000, 5000, 905_000, 900_000)
    assert isinstance(ledger.on_press(press), UnboundPress)  # nothing proposed yet
    ledger.propose(WHITE, "h2e2")
    ledger.propose(WHITE, "h2d2")  # the camera changed its mind before the press
    bound = ledger.on_press(press)
    assert bound == BoundMove(1, WHITE, "h2d2", press)
    assert ledger.turn is BLACK and ledger.pending is None
    with pytest.raises(ClockError, match="white proposed a move but black is on move"):
        ledger.propose(WHITE, "b0c2")


def test_what_a_flag_means_per_game():
    flag = FlagEvent(BLACK, 1_800_000)
    assert time_up("xiangqi", flag) == Outcome(Termination.TIME_FORFEIT, WHITE)
    assert time_up("commander", flag) == PointsDecide("commander", BLACK, 1_800_000)
    assert time_up("cotoan", flag).termination is Termination.POINTS


def test_running_the_other_side_stops_this_one_where_it_stands():
    """PROTOCOL §6.1: `CLK RUN <side>` runs that side's clock, the other stopped; the time the
    stopped side's turn used stays used (it was given back)."""
    from hardware.protocol import ClockRun, ClockSet, Hello, encode
    from hardware.simulator import VirtualDevice

    now = [0]
    clock = VirtualDevice("clock", now_ms=lambda: now[0])
    clock.receive(encode(Hello(), 1) + encode(ClockSet("SD", 900_000, 900_000, 0, 0), 2) + encode(ClockRun("w"), 3))
    now[0] = 5_000
    assert clock.times() == (895_000, 900_000)
    clock.receive(encode(ClockRun("b"), 4))
    assert clock.times() == (895_000, 900_000)
    now[0] = 8_000
    assert clock.times() == (895_000, 897_000)


def test_a_new_host_session_is_carried_out_though_it_counts_from_one_again():
    """Seqs are remembered since the peer's HELLO (PROTOCOL §3): a restarted host's frames, which
    reuse the old session's numbers, are done, not taken for resends."""
    from hardware.protocol import Brightness, Hello, encode
    from hardware.simulator import VirtualDevice

    leds = VirtualDevice("leds", grid=(3, 2))
    leds.receive(encode(Hello(), 1) + encode(Brightness(100), 2))
    leds.receive(b"\n" + encode(Hello(), 1) + encode(Brightness(50), 2))
    assert leds.brightness == 50
    leds.receive(encode(Brightness(10), 2))  # a resend within the session: acknowledged, not done again
    assert leds.brightness == 50
