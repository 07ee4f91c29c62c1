"""PNG diagrams: decoded and checked pixel by pixel against where the pieces stand.

Each board point is sampled at two spots of the disc a piece would cover, both clear of the
label and of the board's lines (even the palace diagonals): inside the face (radius 17, 30°
above the horizontal), which is cream on a piece and board or water colour without one; and on
the outer ring (radius 20, 60°), which carries the piece's ink (red for Trắng, blue for Đen).
"""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image

import games
from server.raster import FACE
from server.record import pieces_of
from server.render import INK, Layout
from tests.server.conftest import new_game

CREAM = FACE[:3]
BOARD = (0xF3, 0xD9, 0xA4)


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def _near(pixel, colour, tolerance: int = 14) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=True))


def _spot(layout: Layout, point, radius: float, degrees: float, scale: float) -> tuple[int, int]:
    x, y = layout.xy(point)
    angle = math.radians(degrees)
    return round((x + radius * math.cos(angle)) * scale), round((y - radius * math.sin(angle)) * scale)


def read_board(png: bytes, variant_name: str, scale: float = 1.0) -> dict[tuple[int, int], str | None]:
    """Which colour of piece the picture shows on every point ('w', 'b' or None)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    layout = Layout(games.get(variant_name).geometry)
    seen = {}
    for point in layout.geometry.points():
        face = image.getpixel(_spot(layout, point, 17, 30, scale))
        if not _near(face, CREAM):
            seen[(point.file, point.rank)] = None
            continue
        ring = image.getpixel(_spot(layout, point, 20, 60, scale))
        distance = {side: sum((a - b) ** 2 for a, b in zip(ring, _rgb(ink), strict=True))
                    for side, ink in INK.items()}
        seen[(point.file, point.rank)] = min(distance, key=distance.get)
    return seen


def expected_board(pieces: list[dict]) -> dict[tuple[int, int], str]:
    return {(p["file"], p["rank"]): p["color"] for p in pieces}


def test_the_png_shows_every_piece_where_it_stands_and_nothing_elsewhere(client):
    game_id, station = new_game(client)
    for move in ("h2e2", "h9g7", "h0g2", "c6c5"):
        assert client.post(f"/api/games/{game_id}/moves", json={"move": move}, headers=station).status_code == 201
    answer = client.get(f"/api/games/{game_id}/diagram.png")
    assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
    assert answer.content.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(answer.content))
    layout = Layout(games.get("xiangqi").geometry)
    assert image.size == (layout.width, layout.height)  # the SVG diagram's size
    snapshot = client.get(f"/api/games/{game_id}/snapshot").json()
    shown = read_board(answer.content, "xiangqi")
    wanted = expected_board(snapshot["pieces"])
    assert {p: c for p, c in shown.items() if c} == wanted
    assert len(wanted) == 32 and (2, 5) in wanted and (2, 6) not in wanted  # the pawn moved c6-c5

    # The last move's origin (c6, now empty) is highlighted; an untouched empty point is not.
    rgb = image.convert("RGB")
    origin = rgb.getpixel(_spot(layout, games.base.Point(2, 6), 17, 30, 1))
    elsewhere = rgb.getpixel(_spot(layout, games.base.Point(4, 5), 17, 30, 1))
    assert _near(elsewhere, BOARD, 4) and not _near(origin, BOARD, 10)
    assert origin[2] < BOARD[2]  # yellow over the board: less blue

    # The label is drawn: ink-coloured pixels in the middle of a piece's face.
    x, y = layout.xy((4, 0))
    middle = [rgb.getpixel((x + dx, y + dy)) for dx in range(-6, 7) for dy in range(-6, 7)]
    assert sum(_near(p, _rgb(INK["w"]), 40) for p in middle) >= 10


def test_any_ply_of_the_record_and_any_scale(client):
    game_id, station = new_game(client)
    for move in ("h2e2", "h9g7"):
        client.post(f"/api/games/{game_id}/moves", json={"move": move}, headers=station)
    start = client.get(f"/api/games/{game_id}/diagram.png", params={"ply": 0, "scale": 2}).content
    assert Image.open(io.BytesIO(start)).size == (2 * 472, 2 * 520)
    variant = games.get("xiangqi")
    assert {p: c for p, c in read_board(start, "xiangqi", 2).items() if c} == \
        expected_board(pieces_of(variant, variant.board()))
    after_one = read_board(client.get(f"/api/games/{game_id}/diagram.png", params={"ply": 1}).content, "xiangqi")
    assert after_one[(7, 2)] is None and after_one[(4, 2)] == "w"   # the cannon h2-e2
    assert after_one[(7, 9)] == "b" and after_one[(6, 7)] is None   # the horse has not moved yet
    svg = client.get(f"/api/games/{game_id}/diagram.svg", params={"ply": 1}).text
    assert 'data-point="4,2"' in svg and 'data-point="7,2"' not in svg

    too_far = client.get(f"/api/games/{game_id}/diagram.png", params={"ply": 3})
    assert too_far.status_code == 422 and "ply 3" in too_far.json()["detail"]
    assert client.get(f"/api/games/{game_id}/diagram.png", params={"scale": 9}).status_code == 422
    assert client.get("/api/games/999/diagram.png").status_code == 404


@pytest.mark.parametrize("variant_name", ["xiangqi", "commander", "cotoan"])
def test_any_position_of_any_variant_from_its_fen(client, variant_name):
    variant = games.get(variant_name)
    board = variant.board()
    for _ in range(3):  # a position other than the start
        board.push(sorted(board.legal_moves, key=str)[len(list(board.legal_moves)) // 2])
    answer = client.get(f"/api/variants/{variant_name}/diagram.png", params={"fen": board.fen()})
    assert answer.status_code == 200, answer.text
    wanted = {}
    for piece in pieces_of(variant, board):
        wanted[(piece["file"], piece["rank"])] = piece["color"]
    assert {p: c for p, c in read_board(answer.content, variant_name).items() if c} == wanted
    layout = Layout(variant.geometry)
    assert Image.open(io.BytesIO(answer.content)).size == (layout.width, layout.height)


def test_bad_diagram_requests_say_what_was_wrong(client):
    bad_fen = client.get("/api/variants/xiangqi/diagram.png", params={"fen": "not a position"})
    assert bad_fen.status_code == 422 and bad_fen.json()["detail"]
    unknown = client.get("/api/variants/shogi/diagram.png")
    assert unknown.status_code == 422 and "shogi" in unknown.json()["detail"]
    # Reading a diagram needs no token: nothing here writes.
    assert client.get("/api/variants/cotoan/diagram.svg").status_code == 200
