"""The live feed: full snapshots to every viewer, without letting any viewer slow the board down.

`Hub` gives each subscriber a small bounded queue. Publishing never awaits a viewer:

- a viewer whose socket is keeping up gets the snapshot written at once: its ASGI `send` is
  stepped once, and on an open socket it finishes in that step (no task switch per viewer);
- a viewer whose socket is full (the send had to wait) is *busy*: a task of its own finishes
  that send, while newer snapshots wait in its queue, which holds the newest snapshot of each
  game: a newer one of the same game replaces it (counted in `dropped`). When the socket
  drains, the task writes what is queued and the viewer is idle again.

Since every snapshot is complete, a viewer that skipped some still ends on every game's current
position: one event's stream carries many games, and a burst of one game's snapshots never
pushes out another game's only one.

`NaiveHub` is the peer measured in `benchmarks/live.py`: one loop awaiting every viewer's send
in turn.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

KEEPALIVE_SECONDS = 15.0
KEEPALIVE = b": keepalive\n\n"


def sse_message(snapshot: dict[str, Any]) -> bytes:
    """One Server-Sent Event: the snapshot's seq is its id, so a reconnecting viewer resumes."""
    data = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
    return f"id: {snapshot['seq']}\nevent: snapshot\ndata: {data}\n\n".encode()


Sender = Callable[[bytes], Awaitable[None]]


class Subscription:
    """One viewer. Until `attach` gives it a sender, snapshots wait in its queue (`messages`)."""

    def __init__(self, hub: Hub, topics: frozenset[str]) -> None:
        self.hub = hub
        self.topics = topics
        self.queue: OrderedDict[object, bytes] = OrderedDict()  # game id (or KEEPALIVE) → newest message
        self.ready = asyncio.Event()
        self.dropped = 0
        self.closed = False
        self._send: Sender | None = None
        self._busy = False
        self._task: asyncio.Task | None = None

    def offer(self, message: bytes, key: object) -> None:
        """Write `message` now, or queue it as the newest of `key` (its game, or KEEPALIVE),
        replacing the one queued before it."""
        if self.closed:
            return
        if self._send is None or self._busy:
            if self.queue.pop(key, None) is not None:
                self.dropped += 1
            self.queue[key] = message
            self.ready.set()
            return
        self._write_now(message)

    def _next(self) -> bytes:
        return self.queue.popitem(last=False)[1]

    def _write_now(self, message: bytes) -> None:
        assert self._send is not None
        step = self._send(message)
        try:
            waiting_on = step.send(None)
        except StopIteration:
            return  # written: the common case, with no task switch
        except Exception:
            self.close()  # the viewer has gone
            return
        self._busy = True
        self._task = asyncio.get_running_loop().create_task(self._finish(step, waiting_on))

    async def _finish(self, step, waiting_on) -> None:
        """Carry on the send that had to wait (as a Task would), then write what queued meanwhile."""
        try:
            while True:
                if waiting_on is None:
                    await asyncio.sleep(0)
                else:
                    await asyncio.wait([waiting_on])
                try:
                    waiting_on = step.send(None)
                except StopIteration:
                    break
            while self.queue and not self.closed:
                await self._send(self._next())
        except asyncio.CancelledError:
            step.close()
            raise
        except Exception:
            self.close()
            return
        finally:
            self._busy = False

    async def attach(self, send: Sender) -> None:
        """From now on, write snapshots through `send`, first those already queued."""
        self._busy = True
        self._send = send
        try:
            while self.queue and not self.closed:
                await send(self._next())
        finally:
            self._busy = False

    async def messages(self, keepalive: float = KEEPALIVE_SECONDS) -> AsyncIterator[bytes]:
        while True:
            if not self.queue:
                self.ready.clear()
                try:
                    await asyncio.wait_for(self.ready.wait(), keepalive)
                except TimeoutError:
                    yield b": keepalive\n\n"
                    continue
            while self.queue:
                yield self._next()

    def close(self) -> None:
        self.closed = True
        self.hub.unsubscribe(self)
        if self._task is not None and not self._task.done() and self._task is not asyncio.current_task():
            self._task.cancel()


class Hub:
    """Topics are strings such as ``game:7`` and ``event:2``.

    Each topic keeps its viewers in the order they came (a dict used as an ordered set): the
    first to arrive is written first, and the writes to one client machine's sockets come in
    runs, which costs that machine fewer wake-ups than a hash order scattering them.
    """

    def __init__(self) -> None:
        self._subscribers: dict[str, dict[Subscription, None]] = {}
        self._last_publish: dict[str, float] = {}  # topic → when its last snapshot went out (monotonic)

    def subscribe(self, *topics: str) -> Subscription:
        subscription = Subscription(self, frozenset(topics))
        for topic in topics:
            self._subscribers.setdefault(topic, {})[subscription] = None
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        for topic in subscription.topics:
            subscribers = self._subscribers.get(topic)
            if subscribers is not None:
                subscribers.pop(subscription, None)
                if not subscribers:
                    del self._subscribers[topic]

    def viewers(self) -> int:
        return len({s for subs in self._subscribers.values() for s in subs})

    def keepalive(self, quiet: float = KEEPALIVE_SECONDS) -> None:
        """A comment to every idle viewer of a quiet stream, so proxies keep it open.

        A stream that carried a snapshot in the last `quiet` seconds needs none: during play
        the moves themselves keep the connections busy, and thousands of needless writes would
        only delay the next move's fan-out.
        """
        now = time.monotonic()
        active = {topic for topic, when in self._last_publish.items() if now - when < quiet}
        for topic in [t for t in self._last_publish if t not in active and t not in self._subscribers]:
            del self._last_publish[topic]  # forget finished streams
        written: set[Subscription] = set()
        for topic, subscribers in list(self._subscribers.items()):
            if topic in active:
                continue
            for subscription in list(subscribers):
                if subscription in written or subscription.queue or subscription.topics & active:
                    continue
                written.add(subscription)
                subscription.offer(KEEPALIVE, KEEPALIVE)

    async def run_keepalive(self, every: float = KEEPALIVE_SECONDS) -> None:
        while True:
            await asyncio.sleep(every)
            self.keepalive()

    def publish(self, snapshot: dict[str, Any]) -> None:
        """Hand the snapshot to every subscriber of its game and event; returns at once.

        The snapshot is encoded once; every viewer is handed the same bytes.
        """
        message = sse_message(snapshot)
        delivered: set[Subscription] = set()
        now = time.monotonic()
        for topic in topics_of(snapshot):
            self._last_publish[topic] = now
            for subscription in list(self._subscribers.get(topic, ())):
                if subscription not in delivered:
                    delivered.add(subscription)
                    subscription.offer(message, snapshot["game_id"])


def topics_of(snapshot: dict[str, Any]) -> list[str]:
    """``game:G``, and ``event:E`` and ``round:R`` where the game belongs to them."""
    topics = [f"game:{snapshot['game_id']}"]
    if snapshot.get("event_id") is not None:
        topics.append(f"event:{snapshot['event_id']}")
    if snapshot.get("round_id") is not None:
        topics.append(f"round:{snapshot['round_id']}")
    return topics


class NaiveHub:
    """The naive peer: one shared loop that awaits each viewer's send before the next one."""

    def __init__(self) -> None:
        self._senders: dict[str, list[Sender]] = {}
        self._lock = asyncio.Lock()

    def add(self, topic: str, send: Sender) -> None:
        self._senders.setdefault(topic, []).append(send)

    def remove(self, topic: str, send: Sender) -> None:
        senders = self._senders.get(topic, [])
        if send in senders:
            senders.remove(send)

    def viewers(self) -> int:
        return sum(len(s) for s in self._senders.values())

    async def publish(self, snapshot: dict[str, Any]) -> None:
        message = sse_message(snapshot)
        async with self._lock:
            for topic in topics_of(snapshot):
                for send in list(self._senders.get(topic, ())):
                    try:
                        await send(message)
                    except Exception:
                        self.remove(topic, send)
