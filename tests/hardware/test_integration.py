"""The host and the simulated devices over real pseudo-terminals (os.openpty) with pyserial."""

from __future__ import annotations

import random
import time

import games
from games.base import BLACK, WHITE, Color, Point
from hardware import leds
from hardware.clock import PRESETS, BoundMove, FlagEvent, MoveLedger, PointsDecide, PressResult, time_up
from hardware.devices import SerialClock, SerialLeds
from hardware.events import (
    ClockPress,
    CommandLost,
    CommandRejected,
    DeviceConnected,
    DeviceDisconnected,
    FlagFall,
)
from hardware.protocol import GRIDS, LedFrame
from tests.hardware.conftest import next_event, wait_until

TOLERANCE_MS = 10


def random_game(plies: int, seed: int):
    """A legal Xiangqi game from a seeded random walk (stops early if the game ends)."""
    board = games.get("xiangqi").board()
    rng = random.Random(seed)
    moves = []
    for _ in range(plies):
        legal = list(board.legal_moves)
        if not legal or board.outcome() is not None:
            break
        move = rng.choice(legal)
        moves.append(move)
        board.push(move)
    return moves


def think_times(count: int, total_ms: int, seed: int) -> list[int]:
    """`count` thinking times in ms adding up to about `total_ms`, irregular like people."""
    rng = random.Random(seed)
    weights = [rng.uniform(0.1, 2.0) for _ in range(count)]
    scale = total_ms / sum(weights)
    return [int(weight * scale) + rng.randrange(0, 1000) for weight in weights]


class Station:
    """The host's side of a game, as the later orchestrator will do it, kept minimal."""

    def __init__(self, clock: SerialClock, board_leds: SerialLeds | None, geometry) -> None:
        self.clock = clock
        self.leds = board_leds
        self.geometry = geometry
        self.board = games.get("xiangqi").board()
        self.ledger = MoveLedger(WHITE)
        self.bound: list[BoundMove] = []
        self.max_drift = 0

    def show(self) -> LedFrame:
        frame = leds.frame_for(self.geometry, leds.state_of(self.board))
        if self.leds is not None:
            self.leds.show(frame)
        return frame

    def play(self, simulator, move, think_ms: int, stepped) -> ClockPress:
        side = self.board.turn
        self.ledger.propose(side, move)  # the camera saw the move before the hand pressed
        stepped.advance(think_ms)
        sent = simulator.device.press(side)
        assert sent is not None, f"the device ignored {side}'s press"
        event = next_event(self.clock.events, ClockPress)
        assert event.side is side and event.t_dev_ms == sent.t_dev_ms
        device_times = (sent.white_ms, sent.black_ms)
        host_times = (event.host_white_ms, event.host_black_ms)
        drift = max(abs(d - h) for d, h in zip(device_times, host_times, strict=True))
        self.max_drift = max(self.max_drift, drift)
        assert drift <= TOLERANCE_MS, f"host {host_times} vs device {device_times} at ply {len(self.bound) + 1}"
        press = PressResult(side, event.t_dev_ms, 0, event.white_ms, event.black_ms)
        bound = self.ledger.on_press(press)
        assert isinstance(bound, BoundMove) and bound.move == move
        self.board.push(move)
        self.bound.append(bound)
        self.show()
        return event


def test_a_30_minute_15_plus_10_xiangqi_game_replayed_over_a_pty(make_sim, stepped):
    simulator = make_sim("clock")
    moves = random_game(90, seed=2026)
    thinks = think_times(len(moves), 30 * 60_000, seed=7)
    assert len(moves) >= 60 and 29 * 60_000 < sum(thinks) < 32 * 60_000
    with SerialClock(simulator.path, now_ms=stepped) as clock:
        connected = next_event(clock.events, DeviceConnected)
        assert connected.hello.kind == "clock" and not connected.reconnect
        clock.set_control(PRESETS["15+10"])
        clock.start(WHITE)
        wait_until(clock.link.idle, what="SET and RUN acknowledged")
        station = Station(clock, None, games.get("xiangqi").geometry)
        for move, think in zip(moves, thinks, strict=True):
            station.play(simulator, move, think, stepped)
            # between presses too, the host's view follows the device's
            host, device = clock.times(), simulator.device.times()
            assert max(abs(h - d) for h, d in zip(host, device, strict=True)) <= TOLERANCE_MS
        assert [b.move for b in station.bound] == moves
        assert len(clock.presses) == len(moves)
        assert simulator.device.clock.presses == len(moves)
        assert not simulator.device.clock.flags


def test_unplugged_mid_game_the_host_reconnects_restores_and_loses_no_press(make_sim, stepped, caplog):
    caplog.set_level("INFO", logger="banco.hardware")
    clock_sim = make_sim("clock")
    leds_sim = make_sim("leds", grid=(9, 10))
    moves = random_game(40, seed=11)
    thinks = think_times(len(moves), 12 * 60_000, seed=3)
    geometry = games.get("xiangqi").geometry
    with SerialClock(clock_sim.path, now_ms=stepped) as clock, SerialLeds(leds_sim.path) as board_leds:
        next_event(clock.events, DeviceConnected)
        next_event(board_leds.events, DeviceConnected)
        clock.set_control(PRESETS["15+10"])
        clock.start(WHITE)
        station = Station(clock, board_leds, geometry)
        station.show()
        wait_until(lambda: clock.link.idle() and board_leds.link.idle(), what="the first commands acknowledged")
        for move, think in zip(moves[:15], thinks[:15], strict=True):
            station.play(clock_sim, move, think, stepped)

        # The cable comes out in the middle of a turn, and goes back 1.5 s later.
        stepped.advance(4000)
        clock_sim.unplug()
        leds_sim.unplug()
        assert next_event(clock.events, DeviceDisconnected).device == "clock"
        assert next_event(board_leds.events, DeviceDisconnected).device == "leds"
        time.sleep(1.5)
        stepped.advance(1500)
        clock_sim.replug()
        leds_sim.replug()
        assert next_event(clock.events, DeviceConnected).reconnect
        assert next_event(board_leds.events, DeviceConnected).reconnect
        wait_until(lambda: clock.link.idle() and board_leds.link.idle(), what="the restore acknowledged")

        # The rebooted devices show what the host shows.
        assert clock_sim.boots == 2 and leds_sim.boots == 2
        assert board_leds.frame == station.show()
        wait_until(lambda: leds_sim.device.frame == board_leds.frame, what="the frame restored")
        assert clock_sim.device.clock.running is station.board.turn
        host, device = clock.times(), clock_sim.device.times()
        assert max(abs(h - d) for h, d in zip(host, device, strict=True)) <= TOLERANCE_MS

        # Every press after the reconnection arrives, once.
        before = len(clock.presses)
        for move, think in zip(moves[15:], thinks[15:], strict=True):
            station.play(clock_sim, move, think, stepped)
        assert len(clock.presses) - before == len(moves) - 15
        assert len(clock_sim.device.presses_sent) == len(moves) - 15
        assert board_leds.frame == station.show()
        wait_until(lambda: leds_sim.device.frame == board_leds.frame, what="the last frame shown")
    messages = [record.getMessage() for record in caplog.records]
    assert any("lost" in m and "reconnecting every 1 s" in m for m in messages)
    assert any(m.startswith("clock: reconnected on") for m in messages)


def test_a_lost_command_is_resent_and_carried_out_once(make_sim, stepped):
    simulator = make_sim("clock")
    with SerialClock(simulator.path, now_ms=stepped) as clock:
        next_event(clock.events, DeviceConnected)
        simulator.device.drop_next = 1  # the next frame from the host vanishes on the wire
        clock.set_control(PRESETS["30+10"])
        wait_until(clock.link.idle, what="the resent SET acknowledged")
        sets = [c for c in simulator.device.commands if type(c).__name__ == "ClockSet"]
        assert len(sets) == 1 and sets[0].white_ms == 30 * 60_000


def test_a_resent_press_is_not_counted_twice(make_sim, stepped):
    simulator = make_sim("clock")
    with SerialClock(simulator.path, now_ms=stepped) as clock:
        next_event(clock.events, DeviceConnected)
        clock.set_control(PRESETS["15+0"])
        clock.start(WHITE)
        wait_until(clock.link.idle, what="SET and RUN acknowledged")
        stepped.advance(3000)
        device = simulator.device
        device.press(WHITE)
        next_event(clock.events, ClockPress)
        # The host's ACK was lost: the device sends the same frame again, same seq.
        from hardware.protocol import encode

        with device._lock:
            device._out += encode(device.presses_sent[-1], device._seq)
        time.sleep(0.5)
        stepped.advance(2000)
        device.press(BLACK)
        second = next_event(clock.events, ClockPress)
        assert second.side is BLACK
        assert len(clock.presses) == 2


def test_the_device_refuses_a_frame_for_another_board_and_the_host_reports_it(make_sim):
    simulator = make_sim("leds", grid=(9, 10))
    with SerialLeds(simulator.path) as board_leds:
        next_event(board_leds.events, DeviceConnected)
        board_leds.show(leds.render(GRIDS["commander"], {}))
        rejected = next_event(board_leds.events, CommandRejected)
        assert rejected.command == "LedFrame"
        assert rejected.reason == "grid 11x12 does not match this board's 9x10"


def test_a_clock_port_given_to_the_led_interface_is_not_taken(make_sim, caplog):
    simulator = make_sim("clock")
    board_leds = SerialLeds(simulator.path).connect()
    try:
        wait_until(lambda: any("not an LED board" in r.getMessage() for r in caplog.records),
                   what="the refusal logged")
        assert not board_leds.link.connected and board_leds.events.empty()
    finally:
        board_leds.close()


def test_flag_fall_in_a_15_minute_commander_game_asks_for_points(make_sim, stepped):
    """Commander Chess ends on points at the time limit (seed 000); the event says so."""
    try:
        geometry = games.get("commander").geometry
    except games.UnknownGameError:
        geometry = GRIDS["commander"]  # the engine is being written; the grid is the protocol's
    assert leds.grid_of(geometry) == (11, 12)
    clock_sim = make_sim("clock")
    leds_sim = make_sim("leds", grid=(11, 12))
    with SerialClock(clock_sim.path, now_ms=stepped) as clock, SerialLeds(leds_sim.path) as board_leds:
        next_event(clock.events, DeviceConnected)
        next_event(board_leds.events, DeviceConnected)
        clock.set_control(PRESETS["15+0"])
        clock.start(WHITE)
        wait_until(clock.link.idle, what="SET and RUN acknowledged")
        side: Color = WHITE
        for think in (20_000, 35_000, 50_000, 15_000):
            stepped.advance(think)
            clock_sim.device.press(side)
            next_event(clock.events, ClockPress)
            side = side.other
        white_left = clock.times()[0]
        stepped.advance(white_left + 250)  # White thinks past the limit
        flag = next_event(clock.events, FlagFall)
        assert flag.side is WHITE and flag.first
        assert flag.t_dev_ms == clock_sim.device.clock.flags[0].at  # the instant, not when noticed
        outcome = time_up("commander", FlagEvent(flag.side, flag.t_dev_ms))
        assert isinstance(outcome, PointsDecide) and outcome.flagged is WHITE
        assert outcome.termination is games.Termination.POINTS
        # the LED board shows the game is over (the engine will say who won on points)
        frame = leds.render(geometry, leds.game_end(games.Outcome(outcome.termination, None), {}, geometry))
        board_leds.show(frame)
        wait_until(lambda: leds_sim.device.frame == frame, what="the end frame on the board")
        # both flags: White presses late, then Black runs out too
        clock_sim.device.press(WHITE)
        next_event(clock.events, ClockPress)
        stepped.advance(clock.times()[1] + 100)
        second = next_event(clock.events, FlagFall)
        assert second.side is BLACK and not second.first
        assert clock.mirror.both_flags


def test_a_press_heard_late_is_placed_at_the_instant_it_happened(make_sim, stepped):
    """The host dates a press by the device's clock (mapped through the least-delayed frame),
    not by when the bytes arrived, so a slow link does not move time between the players."""
    simulator = make_sim("clock")
    with SerialClock(simulator.path, now_ms=stepped) as clock:
        next_event(clock.events, DeviceConnected)
        clock.set_control(PRESETS["15+10"])
        clock.start(WHITE)
        wait_until(clock.link.idle, what="SET and RUN acknowledged")
        time.sleep(1.2)  # a device PING or two: the host learns the device's time base
        stepped.advance(20_000)
        simulator.hung = True  # the bytes are stuck on the way ...
        sent = simulator.device.press(WHITE)
        stepped.advance(700)  # ... for 0.7 s of game time
        simulator.hung = False
        press = next_event(clock.events, ClockPress)
        assert press.drift_ms <= TOLERANCE_MS
        assert (press.white_ms, press.black_ms) == (sent.white_ms, sent.black_ms)
        # Black's clock has been running since the press, not since it was heard.
        assert clock.times()[1] == 15 * 60_000 - 700


def test_a_command_never_acknowledged_is_reported_lost(make_sim):
    simulator = make_sim("leds", grid=(9, 10))
    with SerialLeds(simulator.path, max_attempts=3) as board_leds:
        next_event(board_leds.events, DeviceConnected)
        wait_until(board_leds.link.idle, what="the restore acknowledged")
        simulator.device.drop_next = 10_000  # the device hears nothing more from the host
        board_leds.show(leds.render((9, 10), leds.check(Point(4, 0))))
        lost = next_event(board_leds.events, CommandLost)
        assert (lost.command, lost.attempts) == ("LedFrame", 3)
