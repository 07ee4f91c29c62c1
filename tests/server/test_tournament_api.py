"""An event's round robin through the API: players, the seed's schedule, results, standings."""

from __future__ import annotations

from games.tournament import berger
from tests.server.conftest import REFEREE_HEADERS


def test_schedule_results_and_standings(client):
    event = client.post("/api/events", json={"name": "Vô địch CLB"}, headers=REFEREE_HEADERS).json()
    names = ["An", "Bình", "Chi", "Dũng", "Em"]
    for name in names:
        assert client.post(f"/api/events/{event['id']}/players", json={"name": name},
                           headers=REFEREE_HEADERS).status_code == 201
    games = client.post(f"/api/events/{event['id']}/schedule", json={"initial_ms": 900_000},
                        headers=REFEREE_HEADERS)
    assert games.status_code == 201, games.text
    games = games.json()
    table = berger(5)
    assert len(games) == 10  # 5 players: 5 rounds of 2 games, one rests each round
    for game in games:
        pairing = table.pairing(game["white_number"], game["black_number"])
        assert pairing.white == game["white_number"]
        assert game["white"] == names[game["white_number"] - 1]
    rounds = client.get(f"/api/events/{event['id']}/rounds").json()
    assert [r["number"] for r in rounds] == [1, 2, 3, 4, 5]
    # Round 1: White wins everywhere.
    first = client.get(f"/api/rounds/{rounds[0]['id']}/games").json()
    for game in first:
        client.post(f"/api/games/{game['id']}/result", json={"result": "1-0"}, headers=REFEREE_HEADERS)
    rows = client.get(f"/api/events/{event['id']}/standings", params={"after_round": 1}).json()
    winners = {g["white_number"] for g in first}
    assert {r["number"] for r in rows if r["points"] == 1} == winners
    assert rows[0]["rank"] == 1 and rows[0]["name"] in names
    again = client.post(f"/api/events/{event['id']}/schedule", json={}, headers=REFEREE_HEADERS)
    assert again.status_code == 409 and "already" in again.json()["detail"]


def test_a_schedule_needs_three_to_sixteen_numbered_players(client):
    event = client.post("/api/events", json={"name": "nhỏ"}, headers=REFEREE_HEADERS).json()
    client.post(f"/api/events/{event['id']}/players", json={"name": "A"}, headers=REFEREE_HEADERS)
    client.post(f"/api/events/{event['id']}/players", json={"name": "B"}, headers=REFEREE_HEADERS)
    answer = client.post(f"/api/events/{event['id']}/schedule", json={}, headers=REFEREE_HEADERS)
    assert answer.status_code == 422 and "2" in answer.json()["detail"]
    answer = client.post(f"/api/events/{event['id']}/players", json={"name": "C", "number": 1},
                         headers=REFEREE_HEADERS)
    assert answer.status_code == 409 and "number 1" in answer.json()["detail"]


def test_standings_list_the_registered_numbers_and_count_the_tables_games_only(client):
    event = client.post("/api/events", json={"name": "Giải mở", "game": "cotoan"}, headers=REFEREE_HEADERS).json()
    for name, number in (("An", 1), ("Bình", 2), ("Chi", 3), ("Em", 5)):
        assert client.post(f"/api/events/{event['id']}/players", json={"name": name, "number": number},
                           headers=REFEREE_HEADERS).status_code == 201
    rows = client.get(f"/api/events/{event['id']}/standings").json()
    assert sorted((r["number"], r["name"]) for r in rows) == [(1, "An"), (2, "Bình"), (3, "Chi"), (5, "Em")]
    # The lowest free number when none is given; the schedule then runs 1…5.
    added = client.post(f"/api/events/{event['id']}/players", json={"name": "Dũng"}, headers=REFEREE_HEADERS)
    assert added.json()["number"] == 4
    assert client.post(f"/api/events/{event['id']}/schedule", json={}, headers=REFEREE_HEADERS).status_code == 201
    late = client.post(f"/api/events/{event['id']}/players", json={"name": "Giang"}, headers=REFEREE_HEADERS)
    assert late.status_code == 409 and "scheduled" in late.json()["detail"]
    # A match placed in round 1 between 1 and 2 is scored as the match, not as a table game.
    round_one = client.get(f"/api/events/{event['id']}/rounds").json()[0]["id"]
    match = client.post(f"/api/events/{event['id']}/matches", json={"a": 1, "b": 2, "games": 1, "round_id": round_one},
                        headers=REFEREE_HEADERS).json()
    game = client.post(f"/api/matches/{match['id']}/games", headers=REFEREE_HEADERS).json()
    assert client.post(f"/api/games/{game['id']}/result", json={"result": "1-0"},
                       headers=REFEREE_HEADERS).status_code == 200
    rows = client.get(f"/api/events/{event['id']}/standings").json()
    assert all(r["points"] == 0 and r["games"] == 0 for r in rows)


def test_registration_stops_at_sixteen_players(client):
    event = client.post("/api/events", json={"name": "Đông"}, headers=REFEREE_HEADERS).json()
    for number in range(16):
        assert client.post(f"/api/events/{event['id']}/players", json={"name": f"P{number}"},
                           headers=REFEREE_HEADERS).status_code == 201
    answer = client.post(f"/api/events/{event['id']}/players", json={"name": "P16"}, headers=REFEREE_HEADERS)
    assert answer.status_code == 409 and "at most 16" in answer.json()["detail"]
