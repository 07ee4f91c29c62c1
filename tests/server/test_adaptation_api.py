"""POST /api/games/{id}/station/adaptation: `banco calibrate --start-position` for a station."""

from __future__ import annotations

import base64
import io
import random

import cv2
import numpy as np
import pytest

import games
from calibration.profile import from_dict, to_dict
from models.synth.stage import Stage
from models.synth.video import seen
from tests.server.conftest import REFEREE_HEADERS, new_game
from vision.adapt import PROFILE_KEY, Adaptation


@pytest.fixture(scope="module")
def start_view():
    """A rendered Xiangqi start position (the game `new_game` opens) and its calibration."""
    # Seed 8: a view whose held-out points the adaptation reads at least as well as the shipped
    # model (the route's report, `adapted_accuracy` against `model_accuracy`: 97.7 % against
    # 95.3 % with the ninth Cờ Tướng model). A new model may read a view's held-out points better
    # than its adaptation, and the station then rightly keeps the model (seed 4, until the seventh
    # model): pick another seed by the same report. Earlier models' figures: git history.
    stage = Stage("xiangqi", random.Random(8), size=(640, 360), split="test")
    stage.set_position(seen("xiangqi", games.get("xiangqi").board()))
    start = stage.frame(0)
    stage.set_position({})
    return start, stage.frame(15), to_dict(stage.calibration)


def _jpeg(image: np.ndarray) -> str:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert ok
    return base64.b64encode(data.tobytes()).decode("ascii")


def test_a_station_adapts_its_set_from_a_start_photo(client, start_view):
    start, _, profile = start_view
    game_id, station = new_game(client)
    url = f"/api/games/{game_id}/station/adaptation"
    body = {"calibration": profile, "photos": [_jpeg(start)]}
    answer = client.post(url, json=body, headers=station)
    assert answer.status_code == 200, answer.text
    out = answer.json()
    assert out["game"] == "xiangqi" and out["profile_key"] == PROFILE_KEY
    assert out["report"]["held_out_points"] > out["report"]["held_out_pieces"] > 0
    assert out["report"]["adapted_accuracy"] >= out["report"]["model_accuracy"]
    adaptation = Adaptation.load(io.BytesIO(base64.b64decode(out["adaptation"])))
    assert adaptation.game == "xiangqi" and adaptation.templates is not None
    assert out["framing"] == ""  # the camera shows every point whole
    # but at 640 × 360 it sees every piece under 20 px in radius: the answer says so, as calibrate does.
    assert out["view_warnings"] == from_dict(profile).view_warnings()
    assert len(out["view_warnings"]) == 1 and out["view_warnings"][0].startswith("every piece appears under 20 px")
    assert client.post(url, json=body, headers=REFEREE_HEADERS).status_code == 200


def test_adaptation_names_the_points_the_camera_does_not_wholly_show(client, start_view):
    """The same view moved left until the photo's edge cuts the a-file: the answer repeats
    `banco calibrate`'s warning, and still adapts from the points it shows."""
    start, _, profile = start_view
    shift = np.array([[1.0, 0.0, -220.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    moved = cv2.warpAffine(start, shift[:2], (start.shape[1], start.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    moved_profile = profile | {"homography": (shift @ np.array(profile["homography"])).tolist()}
    game_id, station = new_game(client)
    answer = client.post(f"/api/games/{game_id}/station/adaptation",
                         json={"calibration": moved_profile, "photos": [_jpeg(moved)]}, headers=station)
    assert answer.status_code == 200, answer.text
    framing = answer.json()["framing"]
    assert framing == from_dict(moved_profile).framing_warning()
    assert "cuts the pieces on" in framing and "a9" in framing and "Move the camera back" in framing, framing


def test_adaptation_route_needs_a_key_and_good_photos(client, start_view):
    start, empty, profile = start_view
    game_id, station = new_game(client)
    url = f"/api/games/{game_id}/station/adaptation"
    body = {"calibration": profile, "photos": [_jpeg(start)]}
    assert client.post(url, json=body).status_code == 401
    assert client.post(url, json=body, headers={"X-Station-Key": "wrong"}).status_code == 403
    assert client.post("/api/games/999999/station/adaptation", json=body, headers=REFEREE_HEADERS).status_code == 404
    # A station told the wrong game id hears so, not that its key is wrong.
    unknown = client.post("/api/games/999999/station/adaptation", json=body, headers=station)
    assert unknown.status_code == 404 and "no game with id 999999" in unknown.json()["detail"]
    cases = [
        ({"photos": [_jpeg(empty)]}, "does not look like the xiangqi start position"),
        ({"photos": ["not base64!"]}, "photo 1 is not base64"),
        ({"photos": [""]}, "photo 1 is empty"),
        ({"photos": [_jpeg(start), "  \n"]}, "photo 2 is empty"),
        ({"photos": [base64.b64encode(b"plain text").decode()]}, "photo 1 is not an image"),
        ({"photos": [_jpeg(start)[:4000]]}, "photo 1 is a JPEG cut short"),
        ({"photos": [_jpeg(start[:, :360])]}, "photo 1 is 360×360, but the calibration is for 640×360, another shape"),
        ({"calibration": to_dict_for("cotoan")}, "calibration is for a cotoan board, but this game is xiangqi"),
        ({"calibration": {"version": 1}}, "calibration: missing field 'game'"),
        ({"calibration": profile | {"game": "chess"}}, "calibration: unknown game 'chess'"),
        ({"calibration": profile | {"camera": profile["camera"] | {"width": 0, "height": 0}}},
         "the camera's width and height are pixel counts above 0, not 0×0"),
        ({"calibration": profile | {"layout": {}}}, "missing or bad field"),
        ({"photos": []}, "photos"),
    ]
    for change, words in cases:
        answer = client.post(url, json=body | change, headers=station)
        assert answer.status_code == 422, (words, answer.text)
        assert words in answer.json()["detail"], answer.json()["detail"]


def to_dict_for(game: str) -> dict:
    stage = Stage(game, random.Random(1), size=(640, 360), split="test")
    return to_dict(stage.calibration)


def test_adaptation_takes_base64_as_tools_write_it_and_a_photo_of_another_resolution(client, start_view):
    """The `base64` command's wrapped lines, a data URL, URL-safe letters; and the same view at
    twice the resolution, scaled to as `banco recognize` scales a profile."""
    start, _, profile = start_view
    game_id, station = new_game(client)
    url = f"/api/games/{game_id}/station/adaptation"
    plain = _jpeg(start)
    wrapped = "\n".join(plain[i:i + 76] for i in range(0, len(plain), 76)) + "\n"
    urlsafe = "data:image/jpeg;base64," + plain.replace("+", "-").replace("/", "_")
    answer = client.post(url, json={"calibration": profile, "photos": [wrapped, urlsafe]}, headers=station)
    assert answer.status_code == 200, answer.text
    larger = cv2.resize(start, (start.shape[1] * 2, start.shape[0] * 2), interpolation=cv2.INTER_CUBIC)
    answer = client.post(url, json={"calibration": profile, "photos": [_jpeg(larger)]}, headers=station)
    assert answer.status_code == 200, answer.text
    assert answer.json()["report"]["start_agreement"][0] > 0.95
