"""The REST API: a game from event to PGN, and bad requests answered with a message."""

from __future__ import annotations

from tests.server.conftest import REFEREE_HEADERS, new_game


def test_event_round_board_game_moves_and_exports(client):
    event = client.post("/api/events", json={"name": "Giải Hà Nội mở rộng"}, headers=REFEREE_HEADERS).json()
    rnd = client.post(f"/api/events/{event['id']}/rounds", json={"number": 1}, headers=REFEREE_HEADERS)
    assert rnd.status_code == 201
    board = client.post(f"/api/events/{event['id']}/boards", json={"number": 3, "label": "bàn 3"},
                        headers=REFEREE_HEADERS).json()
    game = client.post("/api/games", json={"white": "A", "black": "B", "round_id": rnd.json()["id"],
                                           "board_id": board["id"], "initial_ms": 900_000},
                       headers=REFEREE_HEADERS).json()
    assert game["event_id"] == event["id"]
    station = {"X-Station-Key": board["station_key"]}
    for move, white_ms, black_ms in [("h2e2", 899_000, 900_000), ("h9g7", 899_000, 897_500)]:
        answer = client.post(f"/api/games/{game['id']}/moves", headers=station,
                             json={"move": move, "white_ms": white_ms, "black_ms": black_ms, "evidence_id": "f1"})
        assert answer.status_code == 201, answer.text
    moves = client.get(f"/api/games/{game['id']}/moves").json()
    assert [(m["ply"], m["text"], m["evidence_id"]) for m in moves] == [(1, "h2e2", "f1"), (2, "h9g7", "f1")]
    assert [g["id"] for g in client.get(f"/api/rounds/{rnd.json()['id']}/games").json()] == [game["id"]]
    pgn = client.get(f"/api/games/{game['id']}/pgn").text
    assert '[Event "Giải Hà Nội mở rộng"]' in pgn and '[Round "1"]' in pgn and '[Game "Chinese Chess"]' in pgn
    assert "1. h2e2 {[%clk 0:14:59]} h9g7 {[%clk 0:14:57]} *" in pgn
    fen = client.get(f"/api/games/{game['id']}/fen").text
    assert fen == "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"
    svg = client.get(f"/api/games/{game['id']}/diagram.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.count('class="piece"') == 32 and svg.text.count('class="last-move"') == 2
    # `transparent` leaves out the paper behind the lines (an overlay on a video), and only that.
    paper = 'fill="#f3d9a4"'
    clear = client.get(f"/api/games/{game['id']}/diagram.svg", params={"transparent": True}).text
    assert paper in svg.text and paper not in clear
    assert clear.count('class="piece"') == 32 and clear.count("<line") == svg.text.count("<line")


def test_pgn_in_each_notation_the_variant_knows(client):
    game_id, station = new_game(client)
    client.post(f"/api/games/{game_id}/moves", json={"move": "h2e2"}, headers=station)
    import games

    for name in games.get("xiangqi").notations:
        answer = client.get(f"/api/games/{game_id}/pgn", params={"notation": name})
        assert answer.status_code == 200 and f'[Format "{name.upper()}"]' in answer.text
    answer = client.get(f"/api/games/{game_id}/pgn", params={"notation": "klingon"})
    assert answer.status_code == 422 and "klingon" in answer.json()["detail"]


def test_bad_input_gets_a_message_naming_it(client):
    game_id, station = new_game(client)
    answer = client.post(f"/api/games/{game_id}/moves", json={"move": "z9z9"}, headers=station)
    assert answer.status_code == 422 and "z9z9" in answer.json()["detail"]
    answer = client.post(f"/api/games/{game_id}/moves", json={"move": "h2e3"}, headers=station)
    assert answer.status_code == 422 and "h2e3" in answer.json()["detail"]
    answer = client.post(f"/api/games/{game_id}/moves", json={"mvoe": "h2e2"}, headers=station)
    assert answer.status_code == 422 and "body.move" in answer.json()["detail"]
    answer = client.post(f"/api/games/{game_id}/moves", content=b"{not json", headers=station | {
        "content-type": "application/json"})
    assert answer.status_code == 422 and answer.json()["detail"]
    answer = client.post("/api/games", json={"variant": "go"}, headers=REFEREE_HEADERS)
    assert answer.status_code == 422 and "go" in answer.json()["detail"]
    answer = client.post("/api/games", json={"start_fen": "rnbakabnr/9 w"}, headers=REFEREE_HEADERS)
    assert answer.status_code == 422 and answer.json()["detail"]
    assert client.get("/api/games/999").status_code == 404
    assert "999" in client.get("/api/games/999").json()["detail"]
    answer = client.post(f"/api/games/{game_id}/corrections", json={"action": "takeback", "reason": "x"},
                         headers=REFEREE_HEADERS)
    assert answer.status_code == 422 and "ply" in answer.json()["detail"]


def test_result_and_clock_from_the_referee(client):
    game_id, station = new_game(client, initial_ms=600_000)
    client.post(f"/api/games/{game_id}/moves", json={"move": "h2e2"}, headers=station)
    answer = client.post(f"/api/games/{game_id}/clock", json={"white_ms": 500_000, "black_ms": 420_000,
                                                              "reason": "clock failure"},
                         headers=REFEREE_HEADERS | {"X-Referee-Name": "Tr%E1%BB%8Dng%20t%C3%A0i%20A"})
    assert answer.json()["clocks"]["black_ms"] == 420_000
    answer = client.post(f"/api/games/{game_id}/result", json={"result": "1-0", "termination": "time forfeit"},
                         headers=REFEREE_HEADERS)
    assert answer.json()["result"] == "1-0"
    answer = client.post(f"/api/games/{game_id}/moves", json={"move": "h9g7"}, headers=station)
    assert answer.status_code == 409 and "over" in answer.json()["detail"]
    audit = client.get(f"/api/games/{game_id}/audit").json()
    assert [(a["kind"], a["author"]) for a in audit] == [("create", "referee"), ("move", "station"),
                                                          ("clock", "referee Trọng tài A"), ("result", "referee")]
    assert audit[2]["reason"] == "clock failure"


def test_berger_table_route(client):
    rounds = client.get("/api/tournaments/berger/12").json()
    assert len(rounds) == 11
    assert {"round": 7, "white": 5, "black": 3, "bye": False, "resting": None} in rounds[6]
    assert client.get("/api/tournaments/berger/2").status_code == 422
    # With 5 players the phantom 6 is White against 4 in round 2, as the printed table has it.
    second = client.get("/api/tournaments/berger/5").json()[1]
    assert {"round": 2, "white": 6, "black": 4, "bye": True, "resting": 4} in second


def test_pages_are_served(client):
    game_id, _ = new_game(client)
    for path in ("/", f"/games/{game_id}", f"/overlay/{game_id}", "/events/1", f"/console/{game_id}",
                 "/static/banco.js", "/static/banco.css"):
        assert client.get(path).status_code == 200, path
    # A mistyped id is a page that says so, not an empty board that looks like one waiting to start.
    for path in ("/games/999", "/overlay/999", "/console/999", "/events/999"):
        missing = client.get(path)
        assert missing.status_code == 404 and "Không có" in missing.text and "999" in missing.text, path


def test_the_api_on_sqlite_and_postgresql(database_url):
    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.config import Settings

    with TestClient(create_app(Settings(database_url=database_url, referee_token="referee-secret"))) as http:
        game_id, station = new_game(http, initial_ms=60_000)
        for move in ("h2e2", "h9g7", "h0g2"):
            assert http.post(f"/api/games/{game_id}/moves", json={"move": move}, headers=station).status_code == 201
        answer = http.post(f"/api/games/{game_id}/corrections", json={"action": "takeback", "reason": "test"},
                           headers=REFEREE_HEADERS)
        assert answer.json()["moves"]["iccs"] == ["h2e2", "h9g7"]
    # A new process on the same database serves the same record.
    with TestClient(create_app(Settings(database_url=database_url, referee_token="referee-secret"))) as http:
        assert [m["text"] for m in http.get(f"/api/games/{game_id}/moves").json()] == ["h2e2", "h9g7"]
        assert [a["kind"] for a in http.get(f"/api/games/{game_id}/audit").json()] == [
            "create", "move", "move", "move", "takeback"]


def test_the_modules_examples_run():
    import doctest

    import server.render

    assert doctest.testmod(server.render).failed == 0


def test_the_streams_and_station_routes_document_their_errors_as_problems(client):
    # A client generated from the schema parses the string `detail` these routes answer with.
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/games/{game_id}/stream", "/api/events/{event_id}/stream", "/api/games/{game_id}/station",
                 "/api/games/{game_id}/station/stream", "/api/station/game"):
        for code in ("404", "422"):
            schema = paths[path]["get"]["responses"][code]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/Problem"}, (path, code)
    missing = client.get("/api/games/999/stream")
    assert missing.status_code == 404 and isinstance(missing.json()["detail"], str)
