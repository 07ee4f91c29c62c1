"""Real-time press latency and clock drift over a pty, against a raw pty round trip.

The tests replay games on a stepped clock, where host and device read the same instant;
here both run on the real monotonic clock, so the drift printed is what the transport adds.

    .venv/bin/python benchmarks/hardware_link.py [presses]

Peer: a bare write/read of the same PRESS bytes through a pty pair, measured in the same run.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import tty

from games.base import WHITE
from hardware.clock import PRESETS
from hardware.devices import SerialClock
from hardware.events import ClockPress, DeviceConnected
from hardware.protocol import Press, encode
from hardware.simulator import PtyEndpoint, Simulator, VirtualDevice


def _raw_round_trips(count: int) -> list[float]:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    line = encode(Press("w", 123456, 897000, 900000), 42)
    samples = []
    try:
        for _ in range(count):
            start = time.perf_counter()
            os.write(master, line)
            got = b""
            while len(got) < len(line):
                got += os.read(slave, 4096)
            samples.append(time.perf_counter() - start)
            time.sleep(0.005)
    finally:
        os.close(master)
        os.close(slave)
    return samples


def main(presses: int = 60) -> None:
    link = os.path.join(tempfile.mkdtemp(), "clock")
    simulator = Simulator(lambda: VirtualDevice("clock"), PtyEndpoint(link)).start()
    latencies, drifts = [], []
    try:
        with SerialClock(link) as clock:
            while not isinstance(clock.events.get(timeout=10), DeviceConnected):
                pass
            clock.set_control(PRESETS["15+10"])
            clock.start(WHITE)
            while not clock.link.idle():
                time.sleep(0.01)
            side = WHITE
            for _ in range(presses):
                time.sleep(0.03)
                start = time.perf_counter()
                simulator.device.press(side)
                event = clock.events.get(timeout=10)
                latencies.append(time.perf_counter() - start)
                assert isinstance(event, ClockPress)
                drifts.append(event.drift_ms)
                side = side.other
    finally:
        simulator.stop()
    raw = _raw_round_trips(presses)
    ours, peer = statistics.median(latencies), statistics.median(raw)
    print(f"presses: {presses}")
    print(f"press -> host event, median: {ours * 1000:.2f} ms (max {max(latencies) * 1000:.2f} ms)")
    print(f"raw pty write -> read (peer), median: {peer * 1000:.3f} ms")
    print(f"ratio banco link / raw pty: {ours / peer:.1f}x")
    print(f"host vs device clock at a press: max {max(drifts)} ms, median {statistics.median(drifts)} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
