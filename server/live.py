"""The live feed: full snapshots to every viewer, without letting any viewer slow the board down.

`Hub` gives each subscriber a small bounded queue. Publishing appends the snapshot to every
queue (the oldest is dropped from a full one) and wakes the subscriber; it never awaits a
viewer. Each viewer's own task writes its queue to its socket at its own pace. Since every
snapshot is complete, a viewer that skipped some still ends up with the current position.

`NaiveHub` is the peer measured in `benchmarks/live.py`: one loop awaiting every viewer's send
in turn.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

QUEUE_LENGTH = 4
KEEPALIVE_SECONDS = 15.0
KEEPALIVE = b": keepalive\n\n"


def sse_message(snapshot: dict[str, Any]) -> bytes:
    """One Server-Sent Event: the snapshot's seq is its id, so a reconnecting viewer resumes."""
    data = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
    return f"id: {snapshot['seq']}\nevent: snapshot\ndata: {data}\n\n".encode()


class Subscription:
    def __init__(self, hub: Hub, topics: frozenset[str], length: int) -> None:
        self.hub = hub
        self.topics = topics
        self.queue: deque[bytes] = deque(maxlen=length)
        self.ready = asyncio.Event()
        self.dropped = 0

    def offer(self, message: bytes) -> None:
        if len(self.queue) == self.queue.maxlen:
            self.dropped += 1
        self.queue.append(message)
        self.ready.set()

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
                yield self.queue.popleft()

    def close(self) -> None:
        self.hub.unsubscribe(self)


class Hub:
    """Topics are strings such as ``game:7`` and ``event:2``."""

    def __init__(self, queue_length: int = QUEUE_LENGTH) -> None:
        self.queue_length = queue_length
        self._subscribers: dict[str, set[Subscription]] = {}

    def subscribe(self, *topics: str) -> Subscription:
        subscription = Subscription(self, frozenset(topics), self.queue_length)
        for topic in topics:
            self._subscribers.setdefault(topic, set()).add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        for topic in subscription.topics:
            subscribers = self._subscribers.get(topic)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[topic]

    def viewers(self) -> int:
        return len({s for subs in self._subscribers.values() for s in subs})

    def keepalive(self) -> None:
        """A comment to every idle viewer, so proxies keep quiet streams open."""
        for subscribers in self._subscribers.values():
            for subscription in subscribers:
                if not subscription.queue:
                    subscription.queue.append(KEEPALIVE)
                    subscription.ready.set()

    async def run_keepalive(self, every: float = KEEPALIVE_SECONDS) -> None:
        while True:
            await asyncio.sleep(every)
            self.keepalive()

    def publish(self, snapshot: dict[str, Any]) -> None:
        """Hand the snapshot to every subscriber of its game and event; returns at once."""
        message = sse_message(snapshot)
        delivered: set[Subscription] = set()
        for topic in topics_of(snapshot):
            for subscription in self._subscribers.get(topic, ()):
                if subscription not in delivered:
                    delivered.add(subscription)
                    subscription.offer(message)


def topics_of(snapshot: dict[str, Any]) -> list[str]:
    topics = [f"game:{snapshot['game_id']}"]
    if snapshot.get("event_id") is not None:
        topics.append(f"event:{snapshot['event_id']}")
    return topics


Sender = Callable[[bytes], Awaitable[None]]


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
