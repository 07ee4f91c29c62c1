"""A station recording on a banco server elsewhere (`banco watch --server URL --station-key KEY`)."""

from __future__ import annotations

import asyncio

import httpx

from server.config import Settings
from server.station.orchestrator import Station
from server.station.target import RemoteTarget
from tests.server.conftest import REFEREE, REFEREE_HEADERS, LiveServer, new_game
from tests.station.doubles import ScriptedTracker, frames
from tests.station.test_orchestrator import OPENING, script


def test_a_remote_station_records_with_its_key_and_reports_its_status(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        game_id, headers = new_game(http)
        key = headers["X-Station-Key"]

        async def main():
            target = RemoteTarget(server.url, key, game_id)
            try:
                station = Station(target, frames(70, pace=0.01),
                                  lambda board: ScriptedTracker("xiangqi", board, script(OPENING)), exit_at_end=True,
                                  name="remote")
                return await station.run()
            finally:
                await target.close()

        report = asyncio.run(main())
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
        assert http.post(f"/api/games/{game_id}/station", json={"ply": 1}).status_code == 401
        wrong = http.post(f"/api/games/{game_id}/station", json={"ply": 1}, headers={"X-Station-Key": "nope"})
        assert wrong.status_code == 403 and wrong.json()["detail"]
        assert http.post("/api/games/999/station", json={}, headers=REFEREE_HEADERS).status_code == 404
        assert http.post(f"/api/games/{game_id}/station", json={"ply": 1}, headers=headers).status_code == 204
        assert http.get(f"/api/games/{game_id}/station").json()["ply"] == 1


def test_a_remote_station_with_its_key_alone_records_the_boards_game_in_progress(tmp_path):
    import pytest

    from server.record import RecordError

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'remote.sqlite3'}", referee_token=REFEREE)
    with LiveServer(settings) as server, httpx.Client(base_url=server.url) as http:
        game_id, headers = new_game(http)
        key = headers["X-Station-Key"]

        async def main():
            target = RemoteTarget(server.url, key)  # no game id: the board's game in progress
            try:
                assert await target.find_game() == game_id
                station = Station(target, frames(30, pace=0.01),
                                  lambda board: ScriptedTracker("xiangqi", board, script(OPENING[:2])),
                                  exit_at_end=True, name="remote")
                return await station.run()
            finally:
                await target.close()

        assert asyncio.run(main()).stored == OPENING[:2]
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
