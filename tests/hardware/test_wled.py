"""Strips driven through WLED or Adalight: mapping, animation, packets, keep-alive."""

from __future__ import annotations

import re
import socket
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.base import Point
from hardware import leds
from hardware.protocol import Cell, Pattern
from hardware.wled import (
    StripDriver,
    StripLayout,
    adalight_packet,
    drgb_packet,
    rgb_at,
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 16), st.integers(1, 16), st.booleans(), st.sampled_from(["rank", "file"]),
       st.integers(0, 3))
def test_every_point_has_its_own_led(files, ranks, serpentine, by, first):
    layout = StripLayout(files, ranks, serpentine, by, first)
    indices = [layout.index(f, r) for r in range(ranks) for f in range(files)]
    assert sorted(indices) == list(range(first, first + files * ranks))


def test_serpentine_rows_run_back():
    layout = StripLayout(9, 10, serpentine=True)
    assert [layout.index(f, 1) for f in range(9)] == list(range(17, 8, -1))
    by_file = StripLayout(9, 10, serpentine=True, by="file")
    assert by_file.index(0, 9) == 9 and by_file.index(1, 9) == 10 and by_file.index(1, 0) == 19


def test_rgb_follows_patterns_and_brightness():
    cells = {Point(0, 0): Cell(Pattern.BLINK, 0xFF8000), Point(1, 0): Cell(Pattern.PULSE, 0x0000FF)}
    frame = leds.render((2, 1), cells)
    layout = StripLayout(2, 1)
    assert rgb_at(frame, layout, 100) == bytes([255, 128, 0, 0, 0, 71])  # pulse at 28 %: 0.1 + 0.9 × 0.2
    assert rgb_at(frame, layout, 600)[:3] == bytes(3)  # blink off in the second half second
    assert rgb_at(frame, layout, 500)[3:] == bytes([0, 0, 255])  # pulse at its peak
    assert rgb_at(frame, layout, 0, brightness=128)[:3] == bytes([128, 64, 0])
    with pytest.raises(ValueError, match="a 2x1 frame for a 9x10 strip"):
        rgb_at(frame, StripLayout(9, 10), 0)


def test_packets():
    rgb = bytes(range(6))
    assert adalight_packet(rgb) == b"Ada\x00\x01\x54" + rgb
    big = bytes(3 * 300)
    assert adalight_packet(big)[3:6] == bytes([1, 43, 1 ^ 43 ^ 0x55])
    assert drgb_packet(rgb, timeout_s=2) == bytes([2, 2]) + rgb
    with pytest.raises(ValueError):
        drgb_packet(bytes(3 * 491))


def test_the_driver_keeps_sending_an_unchanged_frame():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received = bytearray()

    def accept() -> None:
        connection, _ = server.accept()
        connection.settimeout(3)
        while True:
            try:
                data = connection.recv(4096)
            except OSError:
                return
            if not data:
                return
            received.extend(data)

    threading.Thread(target=accept, daemon=True).start()
    layout = StripLayout(9, 10, serpentine=True)
    driver = StripDriver(f"socket://127.0.0.1:{port}", layout, resend_s=0.2).start()
    try:
        frame = leds.render((9, 10), leds.last_move(Point(7, 2), Point(4, 2)))
        driver.show(frame)
        deadline = time.monotonic() + 10
        packet = adalight_packet(rgb_at(frame, layout, 0))
        while received.count(packet) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert received.count(packet) >= 3  # one per resend period with no new frame shown
    finally:
        driver.stop()
        server.close()


def test_a_malformed_udp_target_is_refused_at_once_in_one_line():
    from server.station.devices import DeviceSpecError, open_leds

    for spec, words in (("wled:udp://127.0.0.1:abc", "the port 'abc' is not a number from 1 to 65535"),
                        ("wled:udp://127.0.0.1:99999", "the port '99999'"),
                        ("wled:udp://", "names no host"),
                        ("wled:http://x", "a strip is reached by udp://HOST[:PORT] (WLED) or a serial port")):
        with pytest.raises(DeviceSpecError, match=re.escape(words)):
            open_leds(spec, lambda event: None, (9, 10))


def test_an_unreachable_strip_is_said_once_not_every_retry(tmp_path, caplog):
    import logging

    layout = StripLayout(9, 10)
    driver = StripDriver(str(tmp_path / "no-such-port"), layout, resend_s=0.2).start()
    try:
        with caplog.at_level(logging.INFO, logger="banco.hardware"):
            driver.show(leds.render((9, 10), leds.last_move(Point(7, 2), Point(4, 2))))
            time.sleep(2.6)  # three tries, one a second
    finally:
        driver.stop()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "retrying every second" in warnings[0].getMessage()
