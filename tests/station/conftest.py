"""A server app on a fresh SQLite file, and a game on it for a station to record."""

from __future__ import annotations

import pytest

from server.app import create_app
from server.config import Settings
from server.station.embedded import open_game


@pytest.fixture
def app(tmp_path):
    return create_app(Settings(database_url=f"sqlite:///{tmp_path / 'station.sqlite3'}", referee_token="ref"))


@pytest.fixture
def make_game(app):
    def make(game: str = "xiangqi", control=None) -> int:
        game_id, _key = open_game(app.state.recorder, game, white="Trắng", black="Đen", control=control)
        return game_id

    return make
