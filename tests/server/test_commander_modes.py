"""A timed Commander Chess game is played in the mode its time chooses (seed 000: 15 minutes
battle, 30 minutes total war), however the game is made: the API, a schedule, a match."""

from __future__ import annotations

import games
from tests.server.conftest import REFEREE_HEADERS

THIRTY_MINUTES = 30 * 60_000
FIFTEEN_MINUTES = 15 * 60_000


def _mode_field(fen: str) -> str:
    return fen.split()[3]  # '-' battle with every objective, 'w' total war


def _commander_event(client, players: int = 0) -> int:
    event = client.post("/api/events", json={"name": "Giải Cờ Tư Lệnh", "game": "commander"},
                        headers=REFEREE_HEADERS)
    assert event.status_code == 201, event.text
    for number in range(players):
        assert client.post(f"/api/events/{event.json()['id']}/players", json={"name": f"Kỳ thủ {number + 1}"},
                           headers=REFEREE_HEADERS).status_code == 201
    return event.json()["id"]


def test_a_game_posted_with_thirty_minutes_is_total_war_with_fifteen_a_battle_unless_its_fen_says(client):
    modes = {}
    for initial_ms in (THIRTY_MINUTES, FIFTEEN_MINUTES, None):
        created = client.post("/api/games", json={"variant": "commander", "initial_ms": initial_ms},
                              headers=REFEREE_HEADERS)
        assert created.status_code == 201, created.text
        snapshot = client.get(f"/api/games/{created.json()['id']}/snapshot").json()
        modes[initial_ms] = _mode_field(snapshot["fen"])
    assert modes == {THIRTY_MINUTES: "w", FIFTEEN_MINUTES: "-", None: "-"}
    # A start position given explicitly keeps its own mode.
    battle_start = games.get("commander").starting_fen  # its mode field is "-": battle
    created = client.post("/api/games", json={"variant": "commander", "initial_ms": THIRTY_MINUTES,
                                              "start_fen": battle_start}, headers=REFEREE_HEADERS)
    assert created.status_code == 201, created.text
    assert _mode_field(client.get(f"/api/games/{created.json()['id']}/snapshot").json()["fen"]) == "-"


def test_a_scheduled_thirty_minute_round_robin_plays_total_war(client):
    event_id = _commander_event(client, players=3)
    scheduled = client.post(f"/api/events/{event_id}/schedule", json={"initial_ms": THIRTY_MINUTES},
                            headers=REFEREE_HEADERS)
    assert scheduled.status_code == 201, scheduled.text
    fens = [client.get(f"/api/games/{game['id']}/snapshot").json()["fen"] for game in scheduled.json()]
    assert fens and all(_mode_field(fen) == "w" for fen in fens)


def test_a_thirty_minute_match_game_is_total_war_with_the_lot_winner_to_move(client):
    event_id = _commander_event(client, players=2)
    match = client.post(f"/api/events/{event_id}/matches",
                        json={"a": 1, "b": 2, "games": 3, "first": "B", "initial_ms": THIRTY_MINUTES},
                        headers=REFEREE_HEADERS)
    assert match.status_code == 201, match.text
    game = client.post(f"/api/matches/{match.json()['id']}/games", headers=REFEREE_HEADERS)
    assert game.status_code == 201, game.text
    fen = client.get(f"/api/games/{game.json()['id']}/snapshot").json()["fen"]
    assert fen.split()[1] == "b" and _mode_field(fen) == "w"


def test_a_fifteen_minute_game_keeps_the_nine_piece_battle_and_a_battles_chosen_objectives():
    from games.commander import NINE_PIECE_FEN, Board
    from server.record import timed_start_fen

    nine = Board(timed_start_fen("commander", FIFTEEN_MINUTES, NINE_PIECE_FEN))
    assert nine.mode.value == "nine" and not nine.is_game_over()  # not a battle won at move 0
    sea_only = games.get("commander").starting_fen.replace(" - 0 1", " bsr 0 1")
    assert Board(timed_start_fen("commander", FIFTEEN_MINUTES, sea_only)).objectives == {"sea", "raid"}
    assert Board(timed_start_fen("commander", THIRTY_MINUTES, sea_only)).mode.value == "war"
