"""Real Chromium: a game played through the station API shows on the live page and the overlay;
the referee console corrects a move and the live page follows."""

from __future__ import annotations

import httpx
import pytest

from tests.server.conftest import REFEREE, new_game
from tests.services import require_file

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]



@pytest.fixture(autouse=True)
def chromium_installed():
    require_file(CHROMIUM, f"{CHROMIUM} missing: the Debian package chromium (make test installs it)")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


def wait_for_moves(page, selector: str, count: int) -> None:
    page.wait_for_selector(f'{selector}[data-count="{count}"]', state="attached", timeout=15_000)


def test_station_moves_appear_on_the_live_page_and_overlay(browser, live_server):
    with httpx.Client(base_url=live_server.url) as http:
        game_id, station = new_game(http, initial_ms=900_000)
        live = browser.new_page()
        live.goto(f"{live_server.url}/games/{game_id}")
        overlay = browser.new_page()
        overlay.goto(f"{live_server.url}/overlay/{game_id}")
        event_id = http.get(f"/api/games/{game_id}").json()["event_id"]
        overview = browser.new_page()
        overview.goto(f"{live_server.url}/events/{event_id}")
        wait_for_moves(live, "#moves", 0)
        for move in ("h2e2", "h9g7", "h0g2"):
            answer = http.post(f"/api/games/{game_id}/moves", json={"move": move, "white_ms": 880_000,
                                                                    "black_ms": 870_000}, headers=station)
            assert answer.status_code == 201
        wait_for_moves(live, "#moves", 3)
        wait_for_moves(overlay, "#last", 3)
        # The page writes moves in the federation notation (vn-coord) by default.
        assert live.inner_text("#moves").split() == ["1.", "Phe2", "Mg7", "2.", "Mg2"]
        assert "Lại Lý Huynh" in live.inner_text("#players")
        # The board is drawn from Geometry with the last move highlighted and 32 pieces.
        live.wait_for_function("document.querySelectorAll('#board .piece').length === 32")
        live.wait_for_function("document.querySelectorAll('#board .last-move').length === 2")
        assert live.locator('#board .piece[data-point="6,2"]').count() == 1  # the horse on g2
        assert live.inner_text('#clocks [data-side="w"]') == "14:40"
        assert overlay.inner_text("#last") == "2. Mg2"  # Red's second move, not the ply count
        overview.wait_for_selector(f"section[data-game='{game_id}'] .last:has-text('Mg2')", timeout=15_000)
        card = f"section[data-game='{game_id}']"
        overview.wait_for_function(f"document.querySelectorAll(\"{card} .piece\").length === 32")
        overview.close()
        background = overlay.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background in ("rgba(0, 0, 0, 0)", "transparent")
        assert overlay.locator("select, button, input").count() == 0
        live.close()
        overlay.close()


def test_console_correction_is_followed_by_the_live_page(browser, live_server):
    with httpx.Client(base_url=live_server.url) as http:
        game_id, station = new_game(http)
        for move in ("h2e2", "h9g7", "h0g2"):
            http.post(f"/api/games/{game_id}/moves", json={"move": move}, headers=station)
        live = browser.new_page()
        live.goto(f"{live_server.url}/games/{game_id}")
        wait_for_moves(live, "#moves", 3)

        console = browser.new_page()
        console.goto(f"{live_server.url}/console/{game_id}")
        wait_for_moves(console, "#moves", 3)
        # Without the token the server refuses, and the console says so.
        console.fill("#ply", "3")
        console.fill("#move", "b0c2")
        console.fill("#reason", "camera read the wrong horse")
        console.click("#apply")
        console.wait_for_selector("#error:has-text('401')")
        console.fill("#token", REFEREE)
        console.fill("#referee-name", "Nguyễn Văn Trọng")
        console.click("#login button")
        console.click("#apply")
        wait_for_moves(live, "#moves", 3)
        live.wait_for_function("document.querySelector('#moves').dataset.last === 'Mc2'", timeout=15_000)
        assert live.inner_text("#moves").split() == ["1.", "Phe2", "Mg7", "2.", "Mc2"]
        console.wait_for_selector("#audit td:has-text('camera read the wrong horse')")
        console.wait_for_selector("#audit td:has-text('referee Nguyễn Văn Trọng')")

        # An ambiguity from the station: the console draws the candidates and the referee picks one.
        http.post(f"/api/games/{game_id}/ambiguities", json={"candidates": ["i9h9", "i9i8"]}, headers=station)
        console.wait_for_selector("#candidates button[data-move='i9i8']")
        console.wait_for_function("document.querySelectorAll('#board .candidate').length === 2")
        console.click("#candidates button[data-move='i9i8']")
        live.wait_for_function("document.querySelector('#moves').dataset.last === 'Xi8'", timeout=15_000)
        moves = httpx.get(f"{live_server.url}/api/games/{game_id}/moves").json()
        assert [m["text"] for m in moves] == ["h2e2", "h9g7", "b0c2", "i9i8"]

        # Clocks and the result, set from the console, reach the live page.
        console.fill("#white-s", "600")
        console.fill("#black-s", "300")
        console.click("#set-clock")
        live.wait_for_selector('#clocks [data-side="b"]:has-text("05:00")', timeout=15_000)
        console.select_option("#result", "1-0")
        console.select_option("#termination", "resignation")
        console.click("#set-result")
        live.wait_for_selector("#result:has-text('1-0 (resignation)')", timeout=15_000)
        kinds = [a["kind"] for a in httpx.get(f"{live_server.url}/api/games/{game_id}/audit").json()]
        assert kinds[-4:] == ["ambiguity", "resolve", "clock", "result"]
        live.close()
        console.close()



def test_the_referee_console_shows_the_station_and_what_its_camera_cannot_read_surely(browser, live_server):
    """A station's status reaches the console as it reaches the live page: its devices, its
    recent doubts, and the camera's warnings, which stay while the station reports them."""
    warning = ("every piece appears under 20 px in radius, the smallest 12 px, and is misread several times as "
               "often. Bring the camera nearer or more nearly above the board, or capture at a higher resolution.")
    status = {"station": "watch-xiangqi", "camera": "watching", "frames": 40, "ply": 0, "leds": None,
              "clock": {"device": "none", "connected": False}, "leds_device": {"device": "none", "connected": False},
              "waiting": 0, "camera_warnings": [warning],
              "events": [{"kind": "camera", "text": warning, "ply": 0, "at": 0.0},
                         {"kind": "camera", "text": "camera lost: no frame for 5 s", "ply": 0, "at": 1.0}]}
    with httpx.Client(base_url=live_server.url) as http:
        game_id, station = new_game(http)
        console = browser.new_page()
        console.goto(f"{live_server.url}/console/{game_id}")
        live = browser.new_page()
        live.goto(f"{live_server.url}/games/{game_id}")
        assert console.locator("#station").is_hidden()  # no station reports yet
        assert http.post(f"/api/games/{game_id}/station", json=status, headers=station).status_code == 204
        for page in (console, live):
            page.wait_for_selector("#station:not([hidden]) .camera-warnings li", timeout=15_000)
            assert page.inner_text("#station .camera-warnings") == warning
            assert "camera lost: no frame for 5 s" in page.inner_text("#station .station-events")
            assert "camera: watching" in page.inner_text("#station .devices")
        # The camera moved nearer: the next status carries no warning, and the pages drop it.
        assert http.post(f"/api/games/{game_id}/station", json=status | {"camera_warnings": []},
                         headers=station).status_code == 204
        console.wait_for_function("document.querySelectorAll('#station .camera-warnings li').length === 0")
        live.wait_for_function("document.querySelectorAll('#station .camera-warnings li').length === 0")
        console.close()
        live.close()

def test_move_numbers_follow_the_start_position(browser, live_server):
    """A record that starts with Black to move at move 12 reads "12... Mg7", then "13. Mg2"."""
    after_cannon = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 0 12"
    with httpx.Client(base_url=live_server.url) as http:
        game_id, station = new_game(http, start_fen=after_cannon)
        overlay = browser.new_page()
        overlay.goto(f"{live_server.url}/overlay/{game_id}")
        live = browser.new_page()
        live.goto(f"{live_server.url}/games/{game_id}")
        wait_for_moves(overlay, "#last", 0)
        assert http.post(f"/api/games/{game_id}/moves", json={"move": "h9g7"}, headers=station).status_code == 201
        wait_for_moves(overlay, "#last", 1)
        assert overlay.inner_text("#last") == "12... Mg7"
        assert http.post(f"/api/games/{game_id}/moves", json={"move": "h0g2"}, headers=station).status_code == 201
        wait_for_moves(overlay, "#last", 2)
        assert overlay.inner_text("#last") == "13. Mg2"
        wait_for_moves(live, "#moves", 2)
        assert live.inner_text("#moves").split() == ["12...", "Mg7", "13.", "Mg2"]
        overlay.close()
        live.close()


def test_the_event_page_shows_the_match_score_and_follows_results(browser, live_server):
    with httpx.Client(base_url=live_server.url, headers={"Authorization": f"Bearer {REFEREE}"}) as http:
        event = http.post("/api/events", json={"name": "Cúp Tư Lệnh", "game": "commander"}).json()
        match = http.post(f"/api/events/{event['id']}/matches",
                          json={"a": "An", "b": "Bình", "games": 3, "first": "A"}).json()
        first = http.post(f"/api/matches/{match['id']}/games").json()
        http.post(f"/api/games/{first['id']}/result", json={"result": "1-0"})
        page = browser.new_page()
        page.goto(f"{live_server.url}/events/{event['id']}")
        row = f"#matches tr[data-match='{match['id']}']"
        page.wait_for_selector(f"{row}:has-text('1 – 0')", timeout=15_000)
        cells = page.locator(f"{row} td").all_inner_texts()
        assert cells[1:4] == ["An", "1 – 0", "Bình"] and "Bình đi trước" in cells[6]  # the loser moves first
        # The next game's result reaches the page through the live feed.
        second = http.post(f"/api/matches/{match['id']}/games").json()
        page.wait_for_selector(f"section[data-game='{second['id']}']", timeout=15_000)
        http.post(f"/api/games/{second['id']}/result", json={"result": "1-0"})
        page.wait_for_selector(f"{row}[data-decided='true']:has-text('2 – 0')", timeout=15_000)
        assert "An thắng trận" in page.locator(f"{row} td").all_inner_texts()[6]
        page.close()


def test_the_event_page_shows_the_round_robin_standings(browser, live_server):
    with httpx.Client(base_url=live_server.url, headers={"Authorization": f"Bearer {REFEREE}"}) as http:
        event = http.post("/api/events", json={"name": "Vô địch CLB"}).json()
        for name in ("An", "Bình", "Chi"):
            http.post(f"/api/events/{event['id']}/players", json={"name": name})
        games = http.post(f"/api/events/{event['id']}/schedule", json={}).json()
        page = browser.new_page()
        page.goto(f"{live_server.url}/events/{event['id']}")
        page.wait_for_selector(f"section[data-game='{games[0]['id']}']", timeout=15_000)
        http.post(f"/api/games/{games[0]['id']}/result", json={"result": "1-0"})
        winner = games[0]["white"]
        page.wait_for_function("document.querySelector('#standings tbody tr td:nth-child(4)')?.textContent === '1'",
                               timeout=15_000)
        first_row = page.locator("#standings tbody tr").first.locator("td").all_inner_texts()
        assert first_row[0] == "1" and first_row[2] == winner and first_row[3] == "1"
        page.close()
