"""Fixtures for the hardware tests: a steppable game clock and simulators on real ptys."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from hardware.simulator import PtyEndpoint, Simulator, VirtualDevice


class SteppedTime:
    """A millisecond clock that moves only when a test says so, shared by host and device.

    The chess clocks run on it; the link's own timers (ping, resend, reconnect) stay on real
    time, so a 30-minute game replays in seconds without starving the link.
    """

    def __init__(self, start_ms: int = 1_000_000) -> None:
        self._ms = start_ms
        self._lock = threading.Lock()

    def __call__(self) -> int:
        with self._lock:
            return self._ms

    def advance(self, ms: int) -> None:
        with self._lock:
            self._ms += ms


@pytest.fixture
def stepped() -> SteppedTime:
    return SteppedTime()


@pytest.fixture
def make_sim(tmp_path, stepped):
    """Start simulators behind ptys reached through a stable symlink, stopped at the end."""
    started: list[Simulator] = []

    def make(kind: str = "clock", name: str | None = None, **device_options) -> Simulator:
        link = str(tmp_path / (name or kind))
        simulator = Simulator(lambda: VirtualDevice(kind, now_ms=stepped, **device_options), PtyEndpoint(link))
        started.append(simulator.start())
        return simulator

    yield make
    for simulator in started:
        simulator.stop()


def next_event(events: queue.Queue, kind: type, timeout: float = 10.0, seen: list | None = None):
    """The next event of `kind`, keeping the others in `seen`; fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {kind.__name__} within {timeout} s; saw {seen}")
        try:
            event = events.get(timeout=left)
        except queue.Empty:
            continue
        if isinstance(event, kind):
            return event
        if seen is not None:
            seen.append(event)


def wait_until(predicate, timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)
