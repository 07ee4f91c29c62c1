"""What the hardware tells the station: small immutable events for one shared queue.

Each device interface (picochess style: one per kind of device) turns protocol frames into
these and hands them to a sink, usually `queue.Queue.put`; an asyncio orchestrator can
bridge with ``loop.call_soon_threadsafe(async_queue.put_nowait, event)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from games.base import Color
from hardware.protocol import Hello


@dataclass(frozen=True, slots=True)
class DeviceConnected:
    """A device answered HELLO on `port`; `hello` lists what it can do."""

    device: str  # "clock" or "leds": which interface saw it
    port: str
    hello: Hello
    reconnect: bool  # True when the link had been up before and came back


@dataclass(frozen=True, slots=True)
class DeviceDisconnected:
    device: str
    port: str
    reason: str


@dataclass(frozen=True, slots=True)
class ClockPress:
    """A player pressed the clock, completing a move (FIDE 6.7).

    The device's figures are official. `host_white_ms`/`host_black_ms` are what the host's
    mirror of the clock predicted at the moment the press arrived, kept to measure drift.
    """

    side: Color
    t_dev_ms: int
    white_ms: int
    black_ms: int
    host_white_ms: int
    host_black_ms: int

    @property
    def drift_ms(self) -> int:
        return max(abs(self.white_ms - self.host_white_ms), abs(self.black_ms - self.host_black_ms))


@dataclass(frozen=True, slots=True)
class FlagFall:
    """The time of `side` ran out (device time `t_dev_ms`). `first` is False for the second flag."""

    side: Color
    t_dev_ms: int
    first: bool = True


@dataclass(frozen=True, slots=True)
class CommandRejected:
    """The device refused a command with NAK: a bug or a version mismatch, shown to a human."""

    device: str
    command: str
    reason: str


@dataclass(frozen=True, slots=True)
class CommandLost:
    """A command was sent `attempts` times without an ACK and given up on."""

    device: str
    command: str
    attempts: int


Event = DeviceConnected | DeviceDisconnected | ClockPress | FlagFall | CommandRejected | CommandLost


def asyncio_sink(loop: asyncio.AbstractEventLoop, events: asyncio.Queue) -> Callable[[Event], None]:
    """A sink for the device interfaces that hands events to an asyncio queue from their threads."""

    def put(event: Event) -> None:
        loop.call_soon_threadsafe(events.put_nowait, event)

    return put
