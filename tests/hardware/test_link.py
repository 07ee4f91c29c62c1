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


def test_a_loop_url_opens_but_its_echo_is_never_taken_for_a_device():
    """loop:// echoes every byte: the link ACKs its own HELLO coming back, but an echo never
    answers with a HELLO of its own after that, so no device is announced."""
    greeted = []
    link = Link(
        "echo",
        "loop://",
        hello=Hello(info=(("kind", "both"),)),
        on_connect=lambda hello, again: greeted.append(hello),
        on_message=lambda message: None,
    )
    with link:
        wait_until(lambda: link.state == "handshake" and link.idle(), what="the echoed HELLO acknowledged")
        assert not link.wait_connected(1.0)
    assert greeted == []


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


def test_events_reach_an_asyncio_queue_from_the_link_thread(make_sim, stepped):
    import asyncio

    from hardware.events import asyncio_sink

    simulator = make_sim("clock")

    async def main():
        events: asyncio.Queue = asyncio.Queue()
        clock = SerialClock(simulator.path, sink=asyncio_sink(asyncio.get_running_loop(), events), now_ms=stepped)
        with clock:
            connected = await asyncio.wait_for(events.get(), timeout=10)
            assert isinstance(connected, DeviceConnected)
            clock.set_control(PRESETS["15+0"])
            clock.start(WHITE)
            while not clock.link.idle():
                await asyncio.sleep(0.01)
            stepped.advance(1234)
            simulator.device.press(WHITE)
            press = await asyncio.wait_for(events.get(), timeout=10)
            assert isinstance(press, ClockPress) and press.white_ms == 15 * 60_000 - 1234

    asyncio.run(main())


def test_a_press_waiting_on_the_device_when_the_host_comes_back_is_delivered(stepped):
    """The device kept running (TCP, no reboot); the host restarted; the press still arrives."""
    simulator = Simulator(lambda: VirtualDevice("clock", now_ms=stepped), TcpEndpoint(0)).start()
    try:
        with SerialClock(simulator.path, now_ms=stepped) as clock:
            next_event(clock.events, DeviceConnected)
            clock.set_control(PRESETS["15+10"])
            clock.start(WHITE)
            wait_until(clock.link.idle, what="SET and RUN acknowledged")
        stepped.advance(42_000)
        sent = simulator.device.press(WHITE)  # nobody listens: it waits on the device
        time.sleep(0.6)  # long enough for a resend into the void
        with SerialClock(simulator.path, now_ms=stepped) as clock:
            next_event(clock.events, DeviceConnected)
            press = next_event(clock.events, ClockPress)
            assert (press.side, press.t_dev_ms, press.white_ms) == (WHITE, sent.t_dev_ms, sent.white_ms)
            time.sleep(1.2)  # any duplicate would have arrived by now
            assert len(clock.presses) == 1
    finally:
        simulator.stop()
