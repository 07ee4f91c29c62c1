"""Getting snapshots from the process that wrote them to every process that serves viewers.

`LocalFanout` hands them to this process's hub. `RedisFanout` (when BANCO_REDIS_URL is set)
appends them to a Redis Stream; every API process reads the stream and feeds its own hub, so
any number of processes serve viewers of any board.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from server.live import Hub, NaiveHub

STREAM = "banco:live"
STREAM_LENGTH = 10_000
log = logging.getLogger(__name__)


class LocalFanout:
    def __init__(self, hub: Hub | None = None, naive: NaiveHub | None = None) -> None:
        self.hub = hub
        self.naive = naive

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def publish(self, snapshot: dict[str, Any]) -> None:
        if self.hub is not None:
            # The snapshot is already durable; answer the station first and fan out right after
            # (call_soon keeps the order of snapshots), so thousands of viewers never delay a move.
            asyncio.get_running_loop().call_soon(self.hub.publish, snapshot)
        if self.naive is not None:
            await self.naive.publish(snapshot)


class RedisFanout(LocalFanout):
    def __init__(self, url: str, hub: Hub) -> None:
        super().__init__(hub)
        import redis.asyncio as redis

        self.redis = redis.from_url(url)
        self._reader: asyncio.Task | None = None

    async def start(self) -> None:
        await self.redis.ping()
        self._reader = asyncio.create_task(self._read())

    async def stop(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        await self.redis.aclose()

    async def publish(self, snapshot: dict[str, Any]) -> None:
        data = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
        await self.redis.xadd(STREAM, {"snapshot": data}, maxlen=STREAM_LENGTH, approximate=True)

    async def _read(self) -> None:
        last = "$"
        while True:
            try:
                batches = await self.redis.xread({STREAM: last}, block=1000, count=100)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # keep serving viewers; say why the feed paused
                log.warning("reading %s from Redis failed: %s", STREAM, error)
                await asyncio.sleep(1)
                continue
            for _stream, entries in batches:
                for entry_id, fields in entries:
                    last = entry_id
                    payload = fields.get(b"snapshot") or fields.get("snapshot")
                    if payload is not None:
                        self.hub.publish(json.loads(payload))
