"""schemathesis against the OpenAPI schema: no 5xx, and every 4xx carries a message."""

from __future__ import annotations

import tempfile
from pathlib import Path

import hypothesis
import pytest
import schemathesis
from fastapi.testclient import TestClient
from schemathesis import GenerationMode

from server.app import create_app
from server.config import Settings
from tests.server.conftest import REFEREE, REFEREE_HEADERS

_directory = Path(tempfile.mkdtemp(prefix="banco-schema-"))
app = create_app(Settings(database_url=f"sqlite:///{_directory / 'schema.sqlite3'}", referee_token=REFEREE))

with TestClient(app) as _client:  # something for the generated ids to find
    _event = _client.post("/api/events", json={"name": "fuzz"}, headers=REFEREE_HEADERS).json()
    _board = _client.post(f"/api/events/{_event['id']}/boards", json={"number": 1}, headers=REFEREE_HEADERS).json()
    _client.post(f"/api/events/{_event['id']}/rounds", json={"number": 1}, headers=REFEREE_HEADERS)
    _client.post("/api/games", json={"board_id": _board["id"], "initial_ms": 60000}, headers=REFEREE_HEADERS)
    for _game in ("commander", "cotoan"):  # a match with a game in each, for the match routes to find
        _other = _client.post("/api/events", json={"name": _game, "game": _game}, headers=REFEREE_HEADERS).json()
        _match = _client.post(f"/api/events/{_other['id']}/matches", json={"a": "A", "b": "B", "games": 3},
                              headers=REFEREE_HEADERS).json()
        _client.post(f"/api/matches/{_match['id']}/games", headers=REFEREE_HEADERS)

schema = schemathesis.openapi.from_asgi("/openapi.json", app)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=12,
                                deterministic=True, database="none")
# Streams never end by design; they are tested in test_live.py.
schema = schema.exclude(path_regex=r"/stream$")


@schema.parametrize()
@hypothesis.settings(deadline=None, suppress_health_check=list(hypothesis.HealthCheck), max_examples=12)
def test_no_server_error_and_every_refusal_explains_itself(case):
    headers = dict(case.headers or {})
    headers.setdefault("Authorization", f"Bearer {REFEREE}")
    response = case.call(headers=headers)
    assert response.status_code < 500, response.text
    if 400 <= response.status_code < 500:
        body = response.json()
        assert body.get("detail"), response.text


def test_openapi_names_every_resource():
    paths = app.openapi()["paths"]
    for resource in ("/api/events", "/api/events/{event_id}/rounds", "/api/events/{event_id}/boards",
                     "/api/games", "/api/games/{game_id}/moves"):
        assert resource in paths, resource


@pytest.mark.parametrize("body", [b"", b"[]", b"{", b'{"move": 5}', b'{"move": "h2e2", "extra": 1}',
                                  b'{"move": "' + b"x" * 500 + b'"}', b'{"move": "h2\\u0000e2"}'])
def test_malformed_move_bodies_get_4xx_with_a_message(body):
    with TestClient(app) as client:
        answer = client.post("/api/games/1/moves", content=body,
                             headers=REFEREE_HEADERS | {"content-type": "application/json"})
    assert 400 <= answer.status_code < 500 and answer.json()["detail"], answer.text


def test_a_bad_game_id_is_named_once():
    """The path's game id is checked by the route and by the key's check: one problem, said once."""
    with TestClient(app) as client:
        answer = client.post("/api/games/abc/station", json={}, headers={"X-Station-Key": "k"})
    assert answer.status_code == 422
    assert answer.json()["detail"].count("path.game_id") == 1, answer.json()["detail"]
