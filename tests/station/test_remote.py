"""A station recording on a banco server elsewhere (`banco watch --server URL --station-key KEY`)."""

from __future__ import annotations

import asyncio

import httpx

from hardware.clock import TimeControl
from server.config import Settings
from server.station.orchestrator import Station
from server.station.target import RemoteTarget
from tests.server.conftest import REFEREE, REFEREE_HEADERS, LiveServer, new_game
from tests.station.doubles import ScriptedTracker, frames
from tests.station.test_orchestrator import OPENING, script

NEXT_GAME = ["b2e2", "b9c7"]  # the board's next game opens otherwise


def run_remote(url: str, key: str, source, make_tracker, *, game_id: int | None = None, started: list | None = None,
               **options):
    """Run a station recording on the server at `url` with the board's `key` (and `game_id`, or
    the board's game in progress without it) until `source` ends: its report and the station.
    `started` receives the station before it runs, for code that acts on it meanwhile."""

    async def main():
        target = RemoteTarget(url, key, game_id)
        try:
            if game_id is None:
                await target.find_game()
            station = Station(target, source, make_tracker, exit_at_end=True, name="remote", **options)
            if started is not None:
                started.append(station)
            return await station.run(), station
        finally:
            await target.close()

    return asyncio.run(main())


def test_a_remote_station_records_with_its_key_and_reports_its_status(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        game_id, headers = new_game(http)
        key = headers["X-Station-Key"]

        report, station = run_remote(server.url, key, frames(70, pace=0.01),
                                     lambda board: ScriptedTracker("xiangqi", board, script(OPENING)), game_id=game_id)
        assert not station.target.follows_board  # a station given its game stays on it
        assert report.stored == OPENING
        assert [row["text"] for row in http.get(f"/api/games/{game_id}/moves").json()] == OPENING
        audit = http.get(f"/api/games/{game_id}/audit").json()
        assert {entry["author"] for entry in audit if entry["kind"] == "move"} == {"station"}
        status = http.get(f"/api/games/{game_id}/station").json()
        assert status["station"] == "remote" and status["ply"] == 6 and status["leds"]["grid"] == [9, 10]


def test_station_status_routes_need_the_boards_key(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        game_id, headers = new_game(http)
        assert http.get(f"/api/games/{game_id}/station").status_code == 404
        unknown = http.get("/api/games/999/station")
        assert unknown.status_code == 404 and "no game with id 999" in unknown.json()["detail"]
        assert http.get("/api/games/999/station/stream").status_code == 404
        assert http.post(f"/api/games/{game_id}/station", json={"ply": 1}).status_code == 401
        wrong = http.post(f"/api/games/{game_id}/station", json={"ply": 1}, headers={"X-Station-Key": "nope"})
        assert wrong.status_code == 403 and wrong.json()["detail"]
        assert http.post("/api/games/999/station", json={}, headers=REFEREE_HEADERS).status_code == 404
        assert http.post(f"/api/games/{game_id}/station", json={"ply": 1}, headers=headers).status_code == 204
        status = http.get(f"/api/games/{game_id}/station").json()
        assert status["ply"] == 1 and status["camera_warnings"] == [] and status["events"] == []
        # The right key for a game that does not exist: the game id is what is wrong.
        unknown = http.post("/api/games/999/station", json={}, headers=headers)
        assert unknown.status_code == 404 and "no game with id 999" in unknown.json()["detail"]
        # A field of the wrong type would break the pages that show it: refused, the last status kept.
        for bad in ({"camera_warnings": "oops"}, {"ply": -1}, {"events": [1, 2]}, {"clock": "running"},
                    {"camera": "exploded"}, {"waiting": True}):
            answer = http.post(f"/api/games/{game_id}/station", json=bad, headers=headers)
            assert answer.status_code == 422, (bad, answer.text)
            assert next(iter(bad)) in answer.json()["detail"], answer.json()["detail"]
        assert http.get(f"/api/games/{game_id}/station").json()["ply"] == 1


def test_a_remote_station_with_its_key_alone_records_the_boards_game_in_progress(tmp_path):
    import pytest

    from server.record import RecordError

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        game_id, headers = new_game(http)
        key = headers["X-Station-Key"]

        # No game id: the board's game in progress.
        report, station = run_remote(server.url, key, frames(30, pace=0.01),
                                     lambda board: ScriptedTracker("xiangqi", board, script(OPENING[:2])))
        assert station.target.game_id == game_id and report.stored == OPENING[:2]
        assert [row["text"] for row in http.get(f"/api/games/{game_id}/moves").json()] == OPENING[:2]

        async def find(key):
            target = RemoteTarget(server.url, key)
            try:
                return await target.find_game()
            finally:
                await target.close()

        with pytest.raises(RecordError, match="no board has this station key"):
            asyncio.run(find("not-a-key"))
        assert http.post(f"/api/games/{game_id}/result", json={"result": "1-0"},
                         headers=REFEREE_HEADERS).status_code == 200
        with pytest.raises(RecordError, match="no game in progress"):
            asyncio.run(find(key))
        assert httpx.get(f"{server.url}/api/station/game").status_code == 401


def test_a_station_given_the_board_alone_records_the_boards_next_game_once_this_one_ends(tmp_path, monkeypatch):
    import time

    from server.station import orchestrator

    monkeypatch.setattr(orchestrator, "NEXT_GAME_POLL_S", 0.05)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        first, headers = new_game(http)
        board_id = http.get(f"/api/games/{first}").json()["board_id"]
        trackers = []
        started: list = []

        def make_tracker(board):
            # Each game's tracker commits two moves, the second game's after the round changed.
            moves = {5: [OPENING[0]], 15: [OPENING[1]]} if not trackers else {45: [NEXT_GAME[0]], 55: [NEXT_GAME[1]]}
            trackers.append(ScriptedTracker("xiangqi", board, moves))
            return trackers[-1]

        def next_round():
            """Between frames: the referee ends the first game and creates the board's next one."""
            assert http.post(f"/api/games/{first}/result", json={"result": "1/2-1/2"},
                             headers=REFEREE_HEADERS).status_code == 200
            game = http.post("/api/games", json={"white": "Trịnh A Sáng", "black": "Vũ Hữu Cường",
                                                 "board_id": board_id}, headers=REFEREE_HEADERS)
            assert game.status_code == 201, game.text
            deadline = time.monotonic() + 10
            while started[0].target.game_id != game.json()["id"] and time.monotonic() < deadline:
                time.sleep(0.02)

        report, station = run_remote(server.url, headers["X-Station-Key"],
                                     frames(70, pace=0.01, gaps={30: [next_round]}), make_tracker, started=started,
                                     time_control=TimeControl.parse("15+10"))
        second = station.target.game_id
        assert second != first and len(trackers) == 2
        assert trackers[1].board.fen() == http.get(f"/api/games/{second}/snapshot").json()["fen"]
        first_moves, next_moves = (http.get(f"/api/games/{game}/moves").json() for game in (first, second))
        assert [row["text"] for row in first_moves] == OPENING[:2]
        assert [row["text"] for row in next_moves] == NEXT_GAME
        clocks = [[(row["white_ms"], row["black_ms"]) for row in moves] for moves in (first_moves, next_moves)]
        # The next game's clock starts afresh, at the same pace of moves as the first game's.
        assert all(abs(a - b) < 250 for first_move, next_move in zip(*clocks, strict=True)
                   for a, b in zip(first_move, next_move, strict=True)), clocks
        texts = [event["text"] for event in report.events]
        assert "game over; waiting for the board's next game" in texts
        assert http.get(f"/api/games/{second}/station").json()["ply"] == 2


def _board_with_a_game(http, game: str, **extra) -> tuple[int, int, dict[str, str]]:
    """An event of `game` with one board and a game on it: the game id, the board id, the key."""
    event = http.post("/api/events", json={"name": "Giải thử", "game": game}, headers=REFEREE_HEADERS)
    board = http.post(f"/api/events/{event.json()['id']}/boards", json={"number": 1}, headers=REFEREE_HEADERS)
    body = {"variant": game, "white": "Lại Lý Huynh", "black": "Nguyễn Thành Bảo", "board_id": board.json()["id"]}
    created = http.post("/api/games", json=body | extra, headers=REFEREE_HEADERS)
    assert created.status_code == 201, created.text
    return created.json()["id"], board.json()["id"], {"X-Station-Key": board.json()["station_key"]}


def _refused_next_game(tmp_path, monkeypatch, game: str, first: dict, following: dict, time_control: str | None):
    """A station follows a board; the referee ends its game and creates the board's next one
    (`following`): the station's report, the first and next games' ids, and the station."""
    import time

    from server.station import orchestrator

    monkeypatch.setattr(orchestrator, "NEXT_GAME_POLL_S", 0.05)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        first_id, board_id, headers = _board_with_a_game(http, game, **first)
        created = []

        def next_round():
            assert http.post(f"/api/games/{first_id}/result", json={"result": "1-0"},
                             headers=REFEREE_HEADERS).status_code == 200
            body = {"white": "Trịnh A Sáng", "black": "Vũ Hữu Cường", "board_id": board_id} | following
            answer = http.post("/api/games", json=body, headers=REFEREE_HEADERS)
            assert answer.status_code == 201, answer.text
            created.append(answer.json()["id"])
            time.sleep(0.5)  # several of the station's questions for the board's next game

        report, station = run_remote(server.url, headers["X-Station-Key"],
                                     frames(40, pace=0.01, gaps={10: [next_round]}),
                                     lambda board: ScriptedTracker(game, board, {}),
                                     time_control=TimeControl.parse(time_control) if time_control else None)
        return report, first_id, created[0], station


def test_a_station_following_its_board_leaves_a_next_game_of_another_kind_to_another_station(tmp_path, monkeypatch):
    report, first, following, station = _refused_next_game(tmp_path, monkeypatch, "xiangqi", {},
                                                           {"variant": "cotoan"}, None)
    assert station.target.game_id == first and station.variant.name == "xiangqi"
    refusals = [e["text"] for e in report.events if "is cotoan" in e["text"]]
    assert refusals == [f"the board's next game {following} is cotoan, but this station watches xiangqi; "
                        "start a station for cotoan to record it"]


def test_a_station_following_its_board_refuses_a_next_commander_game_its_time_would_play_in_the_other_mode(
        tmp_path, monkeypatch):
    # Started with --time 15 for a battle; the board's next game is total war (30 minutes, D34).
    report, first, following, station = _refused_next_game(
        tmp_path, monkeypatch, "commander", {"initial_ms": 15 * 60_000}, {"variant": "commander",
                                                                          "initial_ms": 30 * 60_000}, "15+0")
    assert station.target.game_id == first
    refusals = [e["text"] for e in report.events if "total war" in e["text"]]
    assert len(refusals) == 1 and refusals[0].startswith(f"the board's next game {following} is set up for total war")
    assert "--time 15+0 would play a 15-minute battle" in refusals[0]


def test_a_server_that_is_not_banco_is_named_so_in_one_line(tmp_path):
    import threading
    from http.server import HTTPServer, SimpleHTTPRequestHandler

    import pytest

    from server.record import RecordError

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            return

    plain = HTTPServer(("127.0.0.1", 0), lambda *a: Quiet(*a, directory=str(tmp_path)))
    threading.Thread(target=plain.serve_forever, daemon=True).start()

    async def ask():
        target = RemoteTarget(f"http://127.0.0.1:{plain.server_port}/", "key")
        try:
            await target.find_game()
        finally:
            await target.close()

    try:
        with pytest.raises(RecordError) as refused:
            asyncio.run(ask())
    finally:
        plain.shutdown()
    message = str(refused.value)
    assert "does not answer as a banco server (/api/station/game: 404)" in message and "\n" not in message
