"""Where a station writes the record: the server in this process (embedded) or a remote one.

Both speak the same few calls, and both write through the server's own record code: the
embedded target calls `server.record.Recorder` and then the app's fan-out (durable first,
then broadcast), the remote one posts to the documented API with the board's station key.
`follow()` yields every snapshot of the game, so the station sees referee changes. A target
that `follows_board` records the board's games one after another: once its game has a result,
the station asks `next_game()` and moves on to the game it names.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Protocol

from games.base import BancoError
from server.app import call
from server.record import RecordError


class StoreUnavailable(Exception):
    """The record could not be reached (network, database); the write must be tried again."""


class RecordTarget(Protocol):
    game_id: int
    follows_board: bool

    async def snapshot(self) -> dict[str, Any]: ...
    async def start_fen(self) -> str: ...
    async def moves(self) -> list[str]: ...
    async def commit(self, text: str, notation: str, white_ms: int | None, black_ms: int | None,
                     evidence_id: str | None) -> dict[str, Any]: ...
    async def ambiguity(self, candidates: list[str], notation: str, evidence_id: str | None) -> dict[str, Any]: ...
    async def result(self, result: str, termination: str, reason: str) -> dict[str, Any] | None: ...
    async def status(self, status: dict[str, Any]) -> None: ...
    def follow(self) -> AsyncIterator[dict[str, Any]]: ...
    async def next_game(self) -> dict[str, Any] | None: ...
    async def close(self) -> None: ...


class EmbeddedTarget:
    """The record of a server app running in this process (`server.app.create_app`)."""

    follows_board = False  # the game this process opened is its only one

    def __init__(self, app, game_id: int, author: str = "station") -> None:
        self.app = app
        self.game_id = game_id
        self.author = author
        self.recorder = app.state.recorder

    async def _publish(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        await self.app.state.fanout.publish(snapshot)
        return snapshot

    async def snapshot(self) -> dict[str, Any]:
        return await call(self.recorder.snapshot, self.game_id)

    async def start_fen(self) -> str:
        return (await call(self.recorder.get_game, self.game_id)).start_fen

    async def moves(self) -> list[str]:
        return [row.text for row in await call(self.recorder.moves, self.game_id)]

    async def commit(self, text, notation, white_ms, black_ms, evidence_id):
        try:
            snapshot = await call(self.recorder.commit_move, self.game_id, text, notation=notation,
                                  white_ms=white_ms, black_ms=black_ms, evidence_id=evidence_id,
                                  author=self.author)
        except BancoError:
            raise
        except Exception as error:  # the database itself failed: keep the move and try again
            raise StoreUnavailable(str(error)) from error
        return await self._publish(snapshot)

    async def ambiguity(self, candidates, notation, evidence_id):
        snapshot = await call(self.recorder.raise_ambiguity, self.game_id, candidates, notation=notation,
                              evidence_id=evidence_id, author=self.author)
        return await self._publish(snapshot)

    async def result(self, result, termination, reason):
        snapshot = await call(self.recorder.set_result, self.game_id, result, termination=termination,
                              reason=reason, author=self.author)
        return await self._publish(snapshot)

    async def status(self, status: dict[str, Any]) -> None:
        self.app.state.stations.update(self.game_id, status)

    async def follow(self) -> AsyncIterator[dict[str, Any]]:
        subscription = self.app.state.hub.subscribe(f"game:{self.game_id}")
        try:
            async for message in subscription.messages(keepalive=3600):
                snapshot = _parse_sse(message)
                if snapshot is not None:
                    yield snapshot
        finally:
            subscription.close()

    async def next_game(self) -> dict[str, Any] | None:
        return None

    async def close(self) -> None:
        return None


class RemoteTarget:
    """A banco server elsewhere (``--server URL --station-key KEY``), through its REST API."""

    def __init__(self, url: str, key: str, game_id: int | None = None, *, timeout: float = 10.0) -> None:
        """Without `game_id`, `find_game` asks the server for the board's game in progress, and
        the station goes on to the board's next game once that one ends (`follows_board`)."""
        import httpx

        self.url = url.rstrip("/")
        self.game_id = game_id
        self.follows_board = game_id is None
        self.http = httpx.AsyncClient(base_url=self.url, headers={"X-Station-Key": key}, timeout=timeout)

    async def _request(self, method: str, path: str, **kwargs) -> Any:
        import httpx

        try:
            answer = await self.http.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            raise StoreUnavailable(f"{self.url}: {error}") from error
        if answer.status_code >= 500:
            raise StoreUnavailable(f"{self.url}{path}: {answer.status_code} {answer.text[:200]}")
        if answer.status_code >= 400:
            try:
                detail = answer.json().get("detail", answer.text)
            except (ValueError, AttributeError):  # not banco's JSON: an HTML page of another server
                raise RecordError(f"{self.url} does not answer as a banco server ({path}: "
                                  f"{answer.status_code})") from None
            raise RecordError(f"{self.url}{path}: {answer.status_code} {detail}")
        return answer.json() if answer.content else None

    async def find_game(self) -> int:
        """The game in progress on this key's board (the server's `GET /api/station/game`)."""
        self.game_id = (await self._request("GET", "/api/station/game"))["game_id"]
        return self.game_id

    async def next_game(self) -> dict[str, Any] | None:
        """The board's game in progress if it is another than ours (``game_id``, ``variant``), else
        None: the referee has not created it yet."""
        try:
            game = await self._request("GET", "/api/station/game")
        except RecordError:  # no game in progress on the board (yet)
            return None
        return game if game["game_id"] != self.game_id else None

    async def snapshot(self) -> dict[str, Any]:
        return await self._request("GET", f"/api/games/{self.game_id}/snapshot")

    async def start_fen(self) -> str:
        return (await self._request("GET", f"/api/games/{self.game_id}"))["start_fen"]

    async def moves(self) -> list[str]:
        return [row["text"] for row in await self._request("GET", f"/api/games/{self.game_id}/moves")]

    async def commit(self, text, notation, white_ms, black_ms, evidence_id):
        return await self._request("POST", f"/api/games/{self.game_id}/moves", json={
            "move": text, "notation": notation, "white_ms": white_ms, "black_ms": black_ms,
            "evidence_id": evidence_id})

    async def ambiguity(self, candidates, notation, evidence_id):
        return await self._request("POST", f"/api/games/{self.game_id}/ambiguities", json={
            "candidates": candidates, "notation": notation, "evidence_id": evidence_id})

    async def result(self, result, termination, reason):
        return None  # only a referee sets a result on a shared server; the station shows the flag

    async def status(self, status: dict[str, Any]) -> None:
        await self._request("POST", f"/api/games/{self.game_id}/station", json=status)

    async def follow(self) -> AsyncIterator[dict[str, Any]]:
        import httpx

        last = None
        while True:
            headers = {"Last-Event-ID": last} if last else {}
            try:
                async with self.http.stream("GET", f"/api/games/{self.game_id}/stream", headers=headers,
                                            timeout=None) as answer:
                    lines: list[str] = []
                    async for line in answer.aiter_lines():
                        if line:
                            lines.append(line)
                            continue
                        snapshot = _parse_sse("\n".join(lines).encode())
                        lines = []
                        if snapshot is not None:
                            last = str(snapshot.get("seq"))
                            yield snapshot
            except httpx.HTTPError:
                await asyncio.sleep(1.0)

    async def close(self) -> None:
        await self.http.aclose()


def _parse_sse(message: bytes) -> dict[str, Any] | None:
    data = [line[5:].strip() for line in message.decode().splitlines() if line.startswith("data:")]
    if not data:
        return None
    return json.loads("\n".join(data))
