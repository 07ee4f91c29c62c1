"""The transport's other paths: auto-detection, socket:// and loop:// URLs, a hung device."""

from __future__ import annotations

import time
from types import SimpleNamespace

from games.base import WHITE
from hardware.clock import PRESETS
from hardware.devices import SerialClock
from hardware.events import ClockPress, DeviceConnected, DeviceDisconnected
from hardware.link import Link, candidate_ports
from hardware.protocol import Hello
from hardware.simulator import Simulator, TcpEndpoint, VirtualDevice
from tests.hardware.conftest import next_event, wait_until


def fake_port(device: str, vid: int | None):
    return SimpleNamespace(device=device, vid=vid)


def test_candidate_ports_put_known_boards_first_and_skip_ports_without_usb_ids():
    ports = [
        fake_port("/dev/ttyS0", None),
        fake_port("/dev/ttyUSB3", 0x9999),
        fake_port("/dev/ttyACM0", 0x2341),
        fake_port("/dev/ttyUSB0", 0x1A86),
    ]
    assert candidate_ports(lambda: ports) == ["/dev/ttyACM0", "/dev/ttyUSB0", "/dev/ttyUSB3"]


def test_auto_detection_skips_a_silent_port_and_finds_the_clock(make_sim, tmp_path, stepped):
    import os

    simulator = make_sim("clock")
    master, slave = os.openpty()  # a USB port where nothing answers
    try:
        ports = [fake_port(os.ttyname(slave), 0x0403), fake_port(simulator.path, 0x2341)]
        with SerialClock(None, now_ms=stepped, comports=lambda: ports, hello_timeout_s=0.5) as clock:
            connected = next_event(clock.events, DeviceConnected, timeout=15)
            assert connected.port == simulator.path and connected.hello.kind == "clock"
    finally:
        os.close(master)
        os.close(slave)


def test_a_device_over_tcp_with_a_socket_url(stepped):
    simulator = Simulator(lambda: VirtualDevice("clock", now_ms=stepped), TcpEndpoint(0)).start()
    try:
        assert simulator.path.startswith("socket://127.0.0.1:")
        with SerialClock(simulator.path, now_ms=stepped) as clock:
            next_event(clock.events, DeviceConnected)
            clock.set_control(PRESETS["30+0"])
            clock.start(WHITE)
            wait_until(clock.link.idle, what="SET and RUN acknowledged")
            stepped.advance(61_000)
            simulator.device.press(WHITE)
            press = next_event(clock.events, ClockPress)
            assert (press.white_ms, press.black_ms) == (30 * 60_000 - 61_000, 30 * 60_000)
    finally:
        simulator.stop()


def test_a_loop_url_talks_to_itself_through_the_whole_handshake():
    """loop:// echoes every byte: the link reads its own HELLO as the device's and ACKs it."""
    greeted = []
    link = Link(
        "echo",
        "loop://",
        hello=Hello(info=(("kind", "both"),)),
        on_connect=lambda hello, again: greeted.append(hello) or [],
        on_message=lambda message: None,
    )
    with link:
        assert link.wait_connected(5)
        wait_until(link.idle, what="the echoed HELLO acknowledged")
    assert greeted == [Hello(info=(("kind", "both"),))]


def test_a_hung_device_is_noticed_by_its_silence_and_picked_up_again(make_sim, stepped):
    simulator = make_sim("clock")
    with SerialClock(simulator.path, now_ms=stepped, silence_s=1.0) as clock:
        next_event(clock.events, DeviceConnected)
        clock.set_control(PRESETS["15+10"])
        clock.start(WHITE)
        wait_until(clock.link.idle, what="SET and RUN acknowledged")
        started = time.monotonic()
        simulator.hung = True
        lost = next_event(clock.events, DeviceDisconnected)
        assert "silent for 1 s" in lost.reason and time.monotonic() - started < 5
        simulator.device = VirtualDevice("clock", now_ms=stepped)  # the watchdog reboots it
        simulator.hung = False
        assert next_event(clock.events, DeviceConnected).reconnect
        wait_until(lambda: simulator.device.clock is not None and simulator.device.clock.running is WHITE,
                   what="the clock restored on the rebooted device")
