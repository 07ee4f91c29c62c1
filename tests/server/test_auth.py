"""Every write needs the referee's token or, for a station's own game, that board's key."""

from __future__ import annotations

import pytest

from server.app import create_app
from tests.server.conftest import REFEREE_HEADERS, new_game

# A station posts moves, ambiguities and its status (server/station: the LED mirror, its devices),
# and photos of its set's start position to adapt its classifier (vision/adapt).
STATION_ROUTES = {"/api/games/{game_id}/moves", "/api/games/{game_id}/ambiguities", "/api/games/{game_id}/station",
                  "/api/games/{game_id}/station/adaptation"}


def write_routes() -> list[str]:
    from server.config import Settings

    app = create_app(Settings(database_url="sqlite://", referee_token="x"))
    paths = app.openapi()["paths"]
    return sorted(path for path, methods in paths.items() if set(methods) & {"post", "put", "patch", "delete"})


ROUTES = write_routes()


def test_the_write_routes_are_the_ones_we_expect():
    assert len(ROUTES) == 17 and STATION_ROUTES <= set(ROUTES)
    assert {"/api/events/{event_id}/matches", "/api/matches/{match_id}/games",
            "/api/matches/{match_id}/games/{number}/points"} <= set(ROUTES)


@pytest.mark.parametrize("path", ROUTES)
def test_every_write_without_valid_credentials_is_refused(client, path):
    game_id, station = new_game(client)
    other_id, other_station = new_game(client)
    snapshot = client.post(f"/api/games/{game_id}/ambiguities", json={"candidates": ["h2e2", "b2e2"]},
                           headers=station).json()
    url = path.format(game_id=game_id, event_id=1, ambiguity_id=snapshot["ambiguity"]["id"], match_id=1, number=1)
    before = client.get(f"/api/games/{game_id}/audit").json()
    bodies = {"move": {"move": "h2e2"}, "candidates": ["h2e2", "b2e2"], "name": "x", "number": 9,
              "action": "takeback", "reason": "r", "white_ms": 1, "black_ms": 1, "result": "1-0",
              "increment_ms": 0}
    key_refused = 403 if path in STATION_ROUTES else 401  # referee routes do not read station keys
    attempts = [
        ({}, 401),
        ({"Authorization": "Bearer wrong"}, 403),
        ({"Authorization": "Basic cmVmZXJlZTpzZWNyZXQ="}, 401),
        (other_station, key_refused),  # a key, but of another board
        ({"X-Station-Key": "forged"}, key_refused),
    ]
    if path not in STATION_ROUTES:
        attempts.append((station, 401))  # a station key never stands in for the referee
    for headers, status in attempts:
        answer = client.post(url, json=bodies, headers=headers)
        assert answer.status_code == status, (headers, answer.text)
        assert answer.json()["detail"]
    assert client.get(f"/api/games/{game_id}/audit").json() == before
    assert client.get("/api/events/1/matches").json() == []
    assert client.get(f"/api/games/{other_id}/audit").json()[-1]["kind"] == "create"
    if path in STATION_ROUTES:
        # A game that does not exist is a 404 whatever the key, none included.
        missing = client.post(path.format(game_id=999, ambiguity_id=1), json=bodies)
        assert missing.status_code == 404 and "999" in missing.json()["detail"], missing.text


def test_the_station_key_writes_its_own_game(client):
    game_id, station = new_game(client)
    assert client.post(f"/api/games/{game_id}/moves", json={"move": "h2e2"}, headers=station).status_code == 201
    assert client.post(f"/api/games/{game_id}/moves", json={"move": "h9g7"},
                       headers=REFEREE_HEADERS).status_code == 201
