"""Matches through the API: Commander Chess (points + bonus, 3–5 games, the loser moves first)
and Cờ Toán (odd lengths, alternating White, a captured 0 loses the match)."""

from __future__ import annotations

import games
from server.record import canonical_notation
from tests.server.conftest import REFEREE_HEADERS


def _event(client, game: str, players: list[str] | None = None) -> int:
    event = client.post("/api/events", json={"name": f"Giải {game}", "game": game}, headers=REFEREE_HEADERS)
    assert event.status_code == 201, event.text
    for name in players or []:
        assert client.post(f"/api/events/{event.json()['id']}/players", json={"name": name},
                           headers=REFEREE_HEADERS).status_code == 201
    return event.json()["id"]


def _next_game(client, match_id: int) -> dict:
    answer = client.post(f"/api/matches/{match_id}/games", headers=REFEREE_HEADERS)
    assert answer.status_code == 201, answer.text
    return answer.json()


def _result(client, game_id: int, result: str, termination: str | None = None) -> None:
    body = {"result": result} | ({"termination": termination} if termination else {})
    answer = client.post(f"/api/games/{game_id}/result", json=body, headers=REFEREE_HEADERS)
    assert answer.status_code == 200, answer.text


def _play_until_a_capture(client, game: dict) -> dict:
    """Play the game (as the referee) until a piece is captured; returns the engine's board."""
    variant = games.get(game["variant"])
    board = variant.board(game["start_fen"])
    writer = variant.notation(canonical_notation(variant))
    for index in range(200):
        legal = sorted(board.legal_moves, key=str)
        captures = []
        for move in legal:
            trial = board.copy()
            trial.push(move)
            if trial.scores != board.scores:
                captures.append(move)
        move = captures[0] if captures else legal[(index * 7) % len(legal)]
        text = writer.format(board, move)
        board.push(move)
        answer = client.post(f"/api/games/{game['id']}/moves", json={"move": text, "notation": writer.name},
                             headers=REFEREE_HEADERS)
        assert answer.status_code == 201, answer.text
        if captures:
            return board
    raise AssertionError("no capture within 200 plies")


def test_commander_match_loser_moves_first_and_points_decide_level_games(client):
    event_id = _event(client, "commander", ["An", "Bình"])
    created = client.post(f"/api/events/{event_id}/matches", json={"a": 1, "b": 2, "games": 3, "first": "B"},
                          headers=REFEREE_HEADERS)
    assert created.status_code == 201, created.text
    match = created.json()
    assert (match["a"], match["b"], match["length"], match["variant"]) == ("An", "Bình", 3, "commander")
    assert match["score"]["next_first"] == "B" and match["score"]["next_first_name"] == "Bình"

    # Game 1: Bình won the lot and moves first; An keeps Red, so Blue is to move.
    one = _next_game(client, match["id"])
    assert (one["white"], one["black"]) == ("An", "Bình") and one["start_fen"].split()[1] == "b"
    snapshot = client.get(f"/api/games/{one['id']}/snapshot").json()
    assert snapshot["turn"] == "b" and snapshot["first_move"]["color"] == "b"
    busy = client.post(f"/api/matches/{match['id']}/games", headers=REFEREE_HEADERS)
    assert busy.status_code == 409 and "no result yet" in busy.json()["detail"]
    board = _play_until_a_capture(client, one)
    _result(client, one["id"], "1-0")  # An (Red) wins, by the referee's decision
    match = client.get(f"/api/matches/{match['id']}").json()
    first = match["games"][0]
    red, blue = board.scores[games.WHITE], board.scores[games.BLACK]
    assert red + blue > 0  # the points are the board's captures
    assert (first["winner"], first["points_a"], first["points_b"], first["first"]) == ("A", red, blue, "B")
    assert match["score"]["games_a"] == 1 and match["score"]["next_first"] == "B"  # the loser moves first

    # Game 2: Bình lost, so Bình (Blue) moves first again; Bình wins it. Points entered by hand.
    two = _next_game(client, match["id"])
    assert two["start_fen"].split()[1] == "b"
    _result(client, two["id"], "0-1")
    entered = client.post(f"/api/matches/{match['id']}/games/2/points", json={"a": 10, "b": 150},
                          headers=REFEREE_HEADERS)
    assert entered.status_code == 200, entered.text
    assert (entered.json()["games"][1]["points_a"], entered.json()["games"][1]["points_b"]) == (10, 150)
    assert entered.json()["score"]["next_first"] == "A"
    # Entered again, with a reason: both entries stay in the game's audit, who, why and what they replaced.
    again = client.post(f"/api/matches/{match['id']}/games/2/points", json={"a": 10, "b": 150, "reason": "recounted"},
                        headers=REFEREE_HEADERS | {"X-Referee-Name": "Referee B"})
    assert again.status_code == 200, again.text
    entries = [r for r in client.get(f"/api/games/{two['id']}/audit").json() if r["kind"] == "points"]
    assert [(r["detail"]["white"], r["detail"]["black"], r["detail"]["before"]) for r in entries] == [
        (10, 150, {"white": None, "black": None}), (10, 150, {"white": 10, "black": 150})]
    assert (entries[1]["author"], entries[1]["reason"]) == ("referee Referee B", "recounted")

    # Game 3: An lost game 2 and moves first (Red to move); a draw leaves games level at 1-1,
    # so the match goes to the higher total of points: Bình's 150 against An's 10 + captures.
    three = _next_game(client, match["id"])
    assert three["start_fen"].split()[1] == "r"
    _result(client, three["id"], "1/2-1/2")
    client.post(f"/api/matches/{match['id']}/games/3/points", json={"a": 20, "b": 20}, headers=REFEREE_HEADERS)
    score = client.get(f"/api/matches/{match['id']}").json()["score"]
    assert score["decided"] and (score["games_a"], score["games_b"]) == (1, 1)
    assert (score["points_a"], score["points_b"]) == (red + 10 + 20, blue + 150 + 20)
    expected = "B" if blue + 170 > red + 30 else "A"
    assert score["winner"] == expected and score["reason"] == "games level, more points"
    over = client.post(f"/api/matches/{match['id']}/games", headers=REFEREE_HEADERS)
    assert over.status_code == 409 and "over" in over.json()["detail"]
    assert [m["id"] for m in client.get(f"/api/events/{event_id}/matches").json()] == [match["id"]]


def test_commander_match_won_early_and_lengths_three_to_five(client):
    event_id = _event(client, "commander")
    for games_count in (2, 6):
        answer = client.post(f"/api/events/{event_id}/matches", json={"a": "An", "b": "Bình", "games": games_count},
                             headers=REFEREE_HEADERS)
        assert answer.status_code == 422 and str(games_count) in answer.json()["detail"]
    match = client.post(f"/api/events/{event_id}/matches", json={"a": "An", "b": "Bình", "games": 3},
                        headers=REFEREE_HEADERS).json()
    for _ in range(2):
        game = _next_game(client, match["id"])
        _result(client, game["id"], "1-0", "commander captured")
    score = client.get(f"/api/matches/{match['id']}").json()
    assert score["score"]["decided"] and score["score"]["winner_name"] == "An"
    assert score["games"][0]["absolute"] and score["score"]["reason"] == "more games won"


def test_cotoan_match_alternates_white_and_a_captured_zero_loses_it_all(client):
    event_id = _event(client, "cotoan")
    even = client.post(f"/api/events/{event_id}/matches", json={"a": "An", "b": "Bình", "games": 4},
                       headers=REFEREE_HEADERS)
    assert even.status_code == 422 and "odd" in even.json()["detail"]
    match = client.post(f"/api/events/{event_id}/matches", json={"a": "An", "b": "Bình", "games": 3},
                        headers=REFEREE_HEADERS).json()
    one = _next_game(client, match["id"])
    assert (one["white"], one["black"]) == ("An", "Bình")
    board = _play_until_a_capture(client, one)
    _result(client, one["id"], "1-0")
    two = _next_game(client, match["id"])
    assert (two["white"], two["black"]) == ("Bình", "An")  # White alternates, whoever won
    _result(client, two["id"], "0-1")
    described = client.get(f"/api/matches/{match['id']}").json()
    assert [g["winner"] for g in described["games"]] == ["A", "A"]
    assert (described["games"][0]["points_a"], described["games"][0]["points_b"]) == board.scores
    # 2-0 up with a game to play decides nothing: a 0 captured in game 3 would overturn it.
    assert not described["score"]["decided"] and described["score"]["winner"] is None
    three = _next_game(client, match["id"])
    assert (three["white"], three["black"]) == ("An", "Bình")
    _result(client, three["id"], "0-1", "zero captured")
    score = client.get(f"/api/matches/{match['id']}").json()["score"]
    assert score["decided"] and score["winner_name"] == "Bình" and "0" in score["reason"]
    assert (score["games_a"], score["games_b"]) == (2, 1)


def test_match_requests_that_the_rules_refuse(client):
    xiangqi = _event(client, "xiangqi")
    answer = client.post(f"/api/events/{xiangqi}/matches", json={"a": "An", "b": "Bình"}, headers=REFEREE_HEADERS)
    assert answer.status_code == 422 and "xiangqi" in answer.json()["detail"]
    event_id = _event(client, "cotoan", ["An"])
    for body, words in (({"a": 1, "b": 5}, "number 5"), ({"a": "An", "b": "An"}, "two different"),
                        ({"a": "An", "b": "Bình", "first": "C"}, "first"),
                        ({"a": "An", "b": "Bình", "round_id": 999}, "round 999")):
        answer = client.post(f"/api/events/{event_id}/matches", json=body, headers=REFEREE_HEADERS)
        assert answer.status_code == 422 and words in answer.json()["detail"], (body, answer.text)
    assert client.get("/api/matches/999").status_code == 404
    assert client.post("/api/events/999/matches", json={"a": "x", "b": "y"}, headers=REFEREE_HEADERS).status_code == 404
    match = client.post(f"/api/events/{event_id}/matches", json={"a": "An", "b": "Bình"},
                        headers=REFEREE_HEADERS).json()
    missing = client.post(f"/api/matches/{match['id']}/games/1/points", json={"a": 1, "b": 2},
                          headers=REFEREE_HEADERS)
    assert missing.status_code == 404 and "no game 1" in missing.json()["detail"]


def test_match_writes_need_the_referee(client):
    event_id = _event(client, "cotoan")
    board = client.post(f"/api/events/{event_id}/boards", json={"number": 1}, headers=REFEREE_HEADERS).json()
    station = {"X-Station-Key": board["station_key"]}
    match = client.post(f"/api/events/{event_id}/matches", json={"a": "An", "b": "Bình", "board_id": board["id"]},
                        headers=REFEREE_HEADERS).json()
    game = _next_game(client, match["id"])
    assert game["board_id"] == board["id"]
    _result(client, game["id"], "1-0")
    before = client.get(f"/api/matches/{match['id']}").json()
    writes = [(f"/api/events/{event_id}/matches", {"a": "X", "b": "Y"}),
              (f"/api/matches/{match['id']}/games", None),
              (f"/api/matches/{match['id']}/games/1/points", {"a": 5, "b": 5})]
    for url, body in writes:
        for headers, status in (({}, 401), ({"Authorization": "Bearer wrong"}, 403), (station, 401)):
            answer = client.post(url, json=body, headers=headers)
            assert answer.status_code == status and answer.json()["detail"], (url, headers, answer.text)
    assert client.get(f"/api/matches/{match['id']}").json() == before
    assert len(client.get(f"/api/events/{event_id}/matches").json()) == 1


def test_a_registered_players_name_stands_for_that_player(client):
    """'a'/'b' by name: a name one player of the event has is that player (its number); a name
    two players share must be given as a number; a name nobody has is a player from outside."""
    event_id = _event(client, "cotoan", ["Red", "Blue", "Dup", "Dup"])
    named = client.post(f"/api/events/{event_id}/matches", json={"a": "Red", "b": "Blue"}, headers=REFEREE_HEADERS)
    assert named.status_code == 201, named.text
    assert (named.json()["number_a"], named.json()["number_b"]) == (1, 2)
    shared = client.post(f"/api/events/{event_id}/matches", json={"a": "Dup", "b": "Red"}, headers=REFEREE_HEADERS)
    assert shared.status_code == 422 and "2 players named 'Dup'" in shared.json()["detail"], shared.text
    by_number = client.post(f"/api/events/{event_id}/matches", json={"a": 3, "b": 4}, headers=REFEREE_HEADERS)
    assert by_number.status_code == 201, by_number.text  # two players, one name: numbers tell them apart
    outside = client.post(f"/api/events/{event_id}/matches", json={"a": "Khách", "b": "Red"}, headers=REFEREE_HEADERS)
    assert outside.status_code == 201 and (outside.json()["number_a"], outside.json()["number_b"]) == (None, 1)
