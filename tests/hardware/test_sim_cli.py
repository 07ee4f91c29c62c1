"""`banco sim clock` / `banco sim leds`: a separate process a host can talk to."""

from __future__ import annotations

import subprocess
import sys

from rich.console import Console
from typer.testing import CliRunner

from banco.cli import app
from banco.sim import _clock_view, _leds_view
from games.base import BLACK, WHITE, Point
from hardware import leds
from hardware.clock import PRESETS
from hardware.devices import SerialClock, SerialLeds
from hardware.events import CommandRejected, DeviceConnected
from hardware.protocol import ClockRun, ClockSet
from hardware.simulator import PtyEndpoint, Simulator, VirtualDevice
from tests.hardware.conftest import next_event, wait_until


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "banco", "sim", *args, "--no-draw"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    path = process.stdout.readline().strip()
    assert path, process.stderr.read()
    return process, path


def test_sim_leds_prints_its_port_and_speaks_the_protocol():
    process, path = _start("leds", "--game", "commander")
    try:
        assert path.startswith("/dev/pts/")
        with SerialLeds(path) as board_leds:
            connected = next_event(board_leds.events, DeviceConnected)
            assert connected.hello.kind == "leds" and connected.hello.grid == (11, 12)
            board_leds.show(leds.render((11, 12), leds.check(Point(5, 0))))
            wait_until(board_leds.link.idle, what="the frame acknowledged")
            board_leds.show(leds.render((9, 10), {}))
            assert "does not match" in next_event(board_leds.events, CommandRejected).reason
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_sim_clock_over_tcp():
    import socket

    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process, path = _start("clock", "--tcp", str(port))
    try:
        assert path == f"socket://127.0.0.1:{port}"
        with SerialClock(path) as clock:
            assert next_event(clock.events, DeviceConnected).hello.has_clock
            clock.set_control(PRESETS["15+10"])
            clock.start(WHITE)
            wait_until(clock.link.idle, what="SET and RUN acknowledged")
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_bad_options_get_a_clear_message():
    result = CliRunner().invoke(app, ["sim", "leds", "--grid", "nine"])
    assert result.exit_code == 2 and "--grid 'nine' is not WxH" in result.output
    result = CliRunner().invoke(app, ["sim", "leds", "--game", "chess"])
    assert result.exit_code == 2 and "unknown game 'chess'" in result.output
    result = CliRunner().invoke(app, ["sim", "clock", "--control", "blitz"])
    assert result.exit_code == 2 and "time control 'blitz' is not" in result.output


def _draw(view, simulator) -> str:
    console = Console(record=True, width=80, color_system="truecolor")
    console.print(view(simulator))
    return console.export_text()


def test_the_terminal_views_show_the_device_state(tmp_path):
    now = [0]
    clock = Simulator(lambda: VirtualDevice("clock", now_ms=lambda: now[0]), PtyEndpoint())
    device = clock.device
    device._apply(ClockSet("FISCHER", 900_000, 900_000, 10_000, 0))
    device._apply(ClockRun("w"))
    now[0] = 65_000
    text = _draw(_clock_view, clock)
    assert "13:55" in text and "15:00" in text
    now[0] = 900_000
    device.tick()
    device.press(WHITE)
    assert device.clock.flagged(WHITE) and device.clock.running is BLACK
    assert "FLAG" in _draw(_clock_view, clock)

    board = Simulator(lambda: VirtualDevice("leds", grid=(9, 10)), PtyEndpoint())
    board.device._apply(leds.render((9, 10), leds.last_move(Point(7, 2), Point(4, 2))))
    text = _draw(_leds_view, board)
    assert text.count("●") == 2 and "frames 1" in text
    assert text.index(" 9 ") < text.index(" 0 ")  # Black's far rank drawn on top
    # A Cờ Toán board's rows are named as the game names them: a1 is on row 1, not 0.
    cotoan = Simulator(lambda: VirtualDevice("leds", grid=(9, 11)), PtyEndpoint())
    rows = [line.strip("│ ").split(" ")[0] for line in _draw(_leds_view, cotoan).splitlines()[1:12]]
    assert rows == [str(rank) for rank in range(11, 0, -1)]
