"""The live feed: SSE ids and Last-Event-ID resume on a real server; bounded queues in the hub."""

from __future__ import annotations

import asyncio
import json
import queue
import threading

import httpx

from server.live import KEEPALIVE, Hub
from tests.server.conftest import new_game


class SseReader:
    """Reads one SSE stream in a thread and hands each event (id, data) to a queue."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.events: queue.Queue = queue.Queue()
        self.url, self.headers = url, headers or {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self._read()
        except httpx.HTTPError as error:
            if not self.stop.is_set():
                self.events.put(error)

    def _read(self) -> None:
        with httpx.Client(timeout=httpx.Timeout(10, read=30)) as http, \
                http.stream("GET", self.url, headers=self.headers) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            event: dict[str, str] = {}
            for line in response.iter_lines():
                if self.stop.is_set():
                    return
                if not line:
                    if "data" in event:
                        self.events.put((int(event["id"]), json.loads(event["data"])))
                    event = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(": ")
                    event[key] = value

    def next(self, timeout: float = 10) -> tuple[int, dict]:
        item = self.events.get(timeout=timeout)
        if isinstance(item, Exception):
            raise item
        return item

    def close(self) -> None:
        self.stop.set()


def test_sse_ids_follow_the_record_and_resume_from_last_event_id(live_server):
    with httpx.Client(base_url=live_server.url) as http:
        game_id, station = new_game(http)
        reader = SseReader(f"{live_server.url}/api/games/{game_id}/stream")
        first_id, first = reader.next()
        assert first["ply"] == 0 and first["seq"] == first_id
        seen = []
        for move in ("h2e2", "h9g7", "h0g2"):
            assert http.post(f"/api/games/{game_id}/moves", json={"move": move}, headers=station).status_code == 201
            event_id, snapshot = reader.next()
            seen.append(event_id)
            assert snapshot["last_move"]["text"] == move and snapshot["seq"] == event_id
        assert seen == sorted(seen) and seen[0] > first_id
        reader.close()

        # Up to date: nothing until the next change, then exactly that change.
        resumed = SseReader(f"{live_server.url}/api/games/{game_id}/stream", {"Last-Event-ID": str(seen[-1])})
        http.post(f"/api/games/{game_id}/moves", json={"move": "i9h9"}, headers=station)
        event_id, snapshot = resumed.next()
        assert event_id > seen[-1] and snapshot["moves"]["iccs"][-1] == "i9h9"
        resumed.close()

        # Behind: the current snapshot at once (it holds every move missed).
        behind = SseReader(f"{live_server.url}/api/games/{game_id}/stream", {"Last-Event-ID": str(seen[0])})
        event_id, snapshot = behind.next()
        assert snapshot["moves"]["iccs"] == ["h2e2", "h9g7", "h0g2", "i9h9"]
        behind.close()


def test_event_stream_carries_every_board(live_server):
    with httpx.Client(base_url=live_server.url) as http:
        game_id, station = new_game(http)
        reader = SseReader(f"{live_server.url}/api/events/1/stream")
        _, snapshot = reader.next()
        assert snapshot["game_id"] == game_id
        http.post(f"/api/games/{game_id}/moves", json={"move": "c3c4"}, headers=station)
        _, snapshot = reader.next()
        assert snapshot["last_move"]["text"] == "c3c4"
        reader.close()


def test_a_slow_viewer_drops_old_snapshots_and_others_get_all():
    async def scenario() -> None:
        hub = Hub()
        slow, fast = hub.subscribe("game:1"), hub.subscribe("game:1")
        received: list[bytes] = []

        async def read_fast() -> None:
            async for message in fast.messages():
                received.append(message)
                if len(received) == 10:
                    return

        task = asyncio.create_task(read_fast())
        for seq in range(1, 11):
            hub.publish({"seq": seq, "game_id": 1, "event_id": None})
            while fast.queue:  # a viewer that keeps up: it reads before the next move
                await asyncio.sleep(0)
        await asyncio.wait_for(task, 5)
        assert [int(m.split(b"\n")[0][4:]) for m in received] == list(range(1, 11))
        # The slow viewer never read: it holds only the newest (complete) snapshot, and counted
        # what it lost.
        assert [int(m.split(b"\n")[0][4:]) for m in slow.queue.values()] == [10]
        assert slow.dropped == 9
        slow.close()
        fast.close()
        assert hub.viewers() == 0

    asyncio.run(scenario())


def test_a_stalled_socket_never_holds_up_the_others():
    """Attached viewers: a socket that blocks gets its own task and a bounded backlog."""

    async def scenario() -> None:
        hub = Hub()
        fast, stalled = hub.subscribe("game:1"), hub.subscribe("game:1")
        fast_got: list[int] = []
        stalled_got: list[int] = []
        unblock = asyncio.Event()

        async def fast_send(message: bytes) -> None:
            fast_got.append(int(message.split(b"\n")[0][4:]))

        async def stalled_send(message: bytes) -> None:
            await unblock.wait()  # a full socket: the write waits for the viewer to read
            stalled_got.append(int(message.split(b"\n")[0][4:]))

        await fast.attach(fast_send)
        await stalled.attach(stalled_send)
        for seq in range(1, 11):
            hub.publish({"seq": seq, "game_id": 1, "event_id": None})
            # The fast viewer was written to within publish itself: no task switch needed.
            assert fast_got[-1] == seq
        assert stalled_got == [] and stalled.dropped == 10 - 1 - 1
        unblock.set()
        for _ in range(50):
            await asyncio.sleep(0)
        # The send in flight (1), then the newest; 2…9 were dropped.
        assert stalled_got == [1, 10]
        hub.publish({"seq": 11, "game_id": 1, "event_id": None})
        for _ in range(5):
            await asyncio.sleep(0)
        assert stalled_got[-1] == 11 and fast_got[-1] == 11
        fast.close()
        stalled.close()

    asyncio.run(scenario())


def test_viewers_are_written_in_the_order_they_came_and_once_each():
    """A viewer of both the game and its event gets each snapshot once; arrival order is kept."""

    async def scenario() -> None:
        hub = Hub()
        order: list[str] = []
        names = ["first", "second", "third", "fourth"]
        subscriptions = []
        for index, name in enumerate(names):
            topics = ("game:1", "event:9") if index % 2 else ("event:9",)
            subscription = hub.subscribe(*topics)

            async def send(message: bytes, name: str = name) -> None:
                order.append(name)

            await subscription.attach(send)
            subscriptions.append(subscription)
        hub.publish({"seq": 1, "game_id": 1, "event_id": 9})
        # The game's viewers in the order they came, then the event's viewers not yet written.
        assert order == ["second", "fourth", "first", "third"]
        subscriptions[1].close()
        order.clear()
        hub.publish({"seq": 2, "game_id": 1, "event_id": 9})
        assert order == ["fourth", "first", "third"]
        for subscription in subscriptions:
            subscription.close()
        assert hub.viewers() == 0

    asyncio.run(scenario())


def test_keepalives_go_only_to_quiet_streams():
    async def scenario() -> None:
        hub = Hub()
        playing, quiet, whole_event = hub.subscribe("game:1"), hub.subscribe("game:2"), hub.subscribe("event:9")
        got: dict[str, list[bytes]] = {"playing": [], "quiet": [], "event": []}
        for name, subscription in (("playing", playing), ("quiet", quiet), ("event", whole_event)):
            async def send(message: bytes, name: str = name) -> None:
                got[name].append(message)

            await subscription.attach(send)
        hub.publish({"seq": 1, "game_id": 1, "event_id": 9})
        hub.keepalive(quiet=60)
        # game 1 and its event just carried a snapshot; only game 2's viewer needs a keepalive.
        assert [len(got[n]) for n in ("playing", "quiet", "event")] == [1, 1, 1]
        assert got["quiet"] == [KEEPALIVE] and got["playing"][0].startswith(b"id: 1\n")
        hub.keepalive(quiet=0)  # long after the last move: everyone
        assert [got[n][-1] for n in ("playing", "quiet", "event")] == [KEEPALIVE] * 3
        for subscription in (playing, quiet, whole_event):
            subscription.close()
        hub.keepalive(quiet=0)
        assert hub._last_publish == {}

    asyncio.run(scenario())


def test_a_slow_event_viewer_keeps_every_games_newest_snapshot():
    """One event stream carries many games: a burst of one game's snapshots must not push out
    another game's only one (resuming after the burst's last id would never bring it back)."""

    async def scenario() -> None:
        hub = Hub()
        slow = hub.subscribe("event:1")
        seq = 0
        for game in [9] * 1500 + [10] + [9] * 20:
            seq += 1
            hub.publish({"seq": seq, "game_id": game, "event_id": 1})
        queued = {int(m.split(b"\n")[0][4:]) for m in slow.queue.values()}
        assert queued == {1501, 1521} and slow.dropped == 1521 - 2
        slow.close()

    asyncio.run(scenario())


def test_an_event_stream_opens_in_id_order_and_a_round_stream_carries_only_its_round(live_server):
    from tests.server.conftest import REFEREE_HEADERS

    with httpx.Client(base_url=live_server.url) as http:
        event = http.post("/api/events", json={"name": "Vòng tròn", "game": "xiangqi"}, headers=REFEREE_HEADERS).json()
        rounds = [http.post(f"/api/events/{event['id']}/rounds", json={"number": n}, headers=REFEREE_HEADERS).json()
                  for n in (1, 2)]
        games = [http.post("/api/games", json={"white": "A", "black": "B", "event_id": event["id"],
                                               "round_id": rnd["id"]}, headers=REFEREE_HEADERS).json()
                 for rnd in (rounds[0], rounds[1], rounds[0])]
        # The first game changes last: its snapshot is the newest, yet it is listed first.
        moved = http.post(f"/api/games/{games[0]['id']}/result", json={"result": "1-0"}, headers=REFEREE_HEADERS)
        assert moved.status_code < 300, moved.text
        reader = SseReader(f"{live_server.url}/api/events/{event['id']}/stream")
        ids = [reader.next()[0] for _ in games]
        assert ids == sorted(ids)
        reader.close()

        first_round = SseReader(f"{live_server.url}/api/events/{event['id']}/stream?round_id={rounds[0]['id']}")
        opened = {first_round.next()[1]["game_id"] for _ in range(2)}
        assert opened == {games[0]["id"], games[2]["id"]}
        # A change in round 2, then one in round 1: only the latter comes through.
        for game in (games[1], games[2]):
            answer = http.post(f"/api/games/{game['id']}/result", json={"result": "0-1"}, headers=REFEREE_HEADERS)
            assert answer.status_code < 300, answer.text
        assert first_round.next()[1]["game_id"] == games[2]["id"]
        first_round.close()
        other = http.post("/api/events", json={"name": "Khác", "game": "xiangqi"}, headers=REFEREE_HEADERS).json()
        wrong = http.get(f"/api/events/{other['id']}/stream", params={"round_id": rounds[0]["id"]})
        assert wrong.status_code == 404 and "belongs to event" in wrong.text
