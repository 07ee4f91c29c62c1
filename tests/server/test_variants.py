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


def test_pieces_of_any_engine_get_a_colour_and_a_label():
    import enum
    from typing import NamedTuple

    from server.record import describe_piece

    class Colour(enum.Enum):
        WHITE = "w"
        BLACK = "b"

    class Kind(enum.Enum):
        NAVY = 1
        AIR_FORCE = 2

    class Piece(NamedTuple):
        kind: Kind
        color: Colour

    class Number(NamedTuple):
        value: int
        color: Colour

        def symbol(self) -> str:
            return str(self.value) if self.color is Colour.WHITE else f"-{self.value}"

    variant = games.Variant(name="fake", title="Fake", board_class=object, geometry=games.get("xiangqi").geometry,
                            pieces={"H": "navy", "K": "air_force"}, notations={}, default_notation="x",
                            starting_fen="")
    assert describe_piece(variant, Piece(Kind.NAVY, Colour.BLACK))["label"] == "H"
    stack = describe_piece(variant, (Piece(Kind.NAVY, Colour.WHITE), Piece(Kind.AIR_FORCE, Colour.WHITE)))
    assert (stack["label"], stack["color"], stack["stack"]) == ("HK", "w", 2)
    number = describe_piece(variant, Number(7, Colour.BLACK))
    assert (number["label"], number["symbol"], number["color"]) == ("7", "-7", "b")
    xiangqi = games.get("xiangqi")
    general = xiangqi.board().piece_at(games.Point(4, 0))
    assert describe_piece(xiangqi, general) == {"symbol": "K", "color": "w", "label": "T", "stack": 1}
