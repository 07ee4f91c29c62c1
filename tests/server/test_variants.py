"""The server knows games only through games.Variant: a game it has never seen plugs in."""

from __future__ import annotations

import pytest

import games
from tests.server.conftest import REFEREE_HEADERS


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(games._MODULES, "toy", "tests.server.toy_variant")
    return games.get("toy")


def test_an_unknown_game_plays_records_and_draws(client, toy):
    game = client.post("/api/games", json={"variant": "toy"}, headers=REFEREE_HEADERS).json()
    answer = client.post(f"/api/games/{game['id']}/moves", json={"move": "h2>e2"}, headers=REFEREE_HEADERS)
    assert answer.status_code == 201, answer.text
    assert answer.json()["moves"] == {"arrow": ["h2>e2"]}
    moves = client.get(f"/api/games/{game['id']}/moves").json()
    assert (moves[0]["text"], moves[0]["notation"]) == ("h2>e2", "arrow")  # its own notation is canonical
    svg = client.get(f"/api/games/{game['id']}/diagram.svg").text
    # Cells: a grid of 10 + 11 lines and no printed segments; the sea tinted; marks as squares.
    assert svg.count("<line") == 10 + 11 and svg.count('class="region sea"') == 18
    assert svg.count('class="mark"') == 2
    pgn = client.get(f"/api/games/{game['id']}/pgn").text
    assert '[Game "Toy"]' in pgn and "1. h2>e2" in pgn


def test_every_registered_engine_renders_its_start_position(client):
    for name in games.names():
        try:
            variant = games.get(name)
        except games.UnknownGameError:
            continue  # an engine still being written
        game = client.post("/api/games", json={"variant": name}, headers=REFEREE_HEADERS)
        assert game.status_code == 201, (name, game.text)
        svg = client.get(f"/api/games/{game.json()['id']}/diagram.svg").text
        assert svg.count('class="piece"') == sum(1 for p in variant.geometry.points()
                                                 if variant.board().piece_at(p) is not None)
