"""A knocked board: it slides and turns under the camera between two moves. With the board's
markers the tracker finds it again and reads on; the same video through a tracker without a
locator keeps cutting its crops where the board was. A board without markers is found again
by its printed grid (`calibration.follow.BoardFollower`)."""

from __future__ import annotations

import pytest

import games
from calibration import profile
from calibration.markers import BoardLocator
from vision import events as ev
from vision.capture import FrameSource
from vision.detector import Detector
from vision.tracker import MoveTracker

PLIES = 7
SEED = 41  # tests use video seeds 0–999 (models.synth.video)
MOVED_AFTER = 3


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    from models.synth.playout import random_game
    from models.synth.video import render_game

    moves = random_game("xiangqi", PLIES, seed=SEED)
    return render_game("xiangqi", moves, tmp_path_factory.mktemp("video"), seed=SEED, fps=10, size=(960, 540),
                       board_moved_after=[MOVED_AFTER])


def track(rendered, with_locator: bool, locator_kind=BoardLocator):
    truth = rendered.truth_data
    cal = profile.from_dict(truth["calibration"])
    locator = locator_kind(cal) if with_locator else None
    tracker = MoveTracker("xiangqi", games.get("xiangqi").board(truth["start_fen"]), Detector("xiangqi", cal), cal,
                          locator=locator)
    events = []
    stamp = 0.0
    for frame, stamp in FrameSource(rendered.video):
        events.extend(tracker.feed(frame, stamp))
    events.extend(tracker.finish(stamp))
    return tracker, events


def test_the_render_moves_the_board_by_more_than_the_crops_forgive(rendered):
    truth = rendered.truth_data
    (moved,) = truth["board_moved"]
    assert moved["after_ply"] == MOVED_AFTER
    before = profile.from_dict(truth["calibration"])
    after = profile.from_dict(moved["calibration"])
    assert after.drift_px(before) > before.piece_radius_px() / 2


def test_with_its_markers_the_tracker_follows_the_board_and_misses_no_move(rendered):
    truth = rendered.truth_data
    tracker, events = track(rendered, with_locator=True)
    committed = [san for e in events if isinstance(e, ev.MoveCommitted) for san in e.san]
    assert committed == [m["move"] for m in truth["moves"]]
    moved = [e for e in events if isinstance(e, ev.BoardMoved)]
    assert len(moved) == 1
    assert moved[0].timestamp >= truth["board_moved"][0]["frame"] / truth["fps"]
    found = profile.from_dict(truth["board_moved"][0]["calibration"])
    assert tracker.calibration.drift_px(found) < 3.0  # the markers' fit, not the old one
    assert moved[0].to_json()["kind"] == "board_moved"


def test_without_a_locator_the_tracker_reads_on_from_where_the_board_was(rendered):
    """The control: nothing follows the board, so every crop after the knock is cut more than
    half a piece radius off-centre. The shipped Cờ Tướng models since the second still read this
    short game's moves from such crops (the first model lost them; a candidate that never saw an
    off-centre crop in training lost the last one: models/MODEL_CARD.md)."""
    truth = rendered.truth_data
    tracker, events = track(rendered, with_locator=False)
    committed = [san for e in events if isinstance(e, ev.MoveCommitted) for san in e.san]
    assert committed == [m["move"] for m in truth["moves"]]
    assert not [e for e in events if isinstance(e, ev.BoardMoved)]
    found = profile.from_dict(truth["board_moved"][0]["calibration"])
    assert tracker.calibration.drift_px(found) > tracker.calibration.piece_radius_px() / 2


@pytest.fixture(scope="module")
def rendered_plain(tmp_path_factory):
    """The same game and knock on a board from a shop: no markers."""
    from models.synth.playout import random_game
    from models.synth.video import render_game

    moves = random_game("xiangqi", PLIES, seed=SEED)
    return render_game("xiangqi", moves, tmp_path_factory.mktemp("plain"), seed=SEED, fps=10, size=(960, 540),
                       board_moved_after=[MOVED_AFTER], markers=False)


def test_without_markers_the_follower_finds_the_board_again_by_its_grid(rendered_plain):
    from calibration.follow import BoardFollower

    truth = rendered_plain.truth_data
    start = profile.from_dict(truth["calibration"])
    tracker, events = track(rendered_plain, with_locator=True, locator_kind=BoardFollower)
    committed = [san for e in events if isinstance(e, ev.MoveCommitted) for san in e.san]
    assert committed == [m["move"] for m in truth["moves"]]
    (moved,) = [e for e in events if isinstance(e, ev.BoardMoved)]  # once, not at a camera's shake
    knocked = truth["board_moved"][0]
    assert moved.timestamp >= knocked["frame"] / truth["fps"] and moved.found_by == "grid"
    assert moved.note().endswith("found again by its printed grid")
    found = profile.from_dict(knocked["calibration"])
    assert tracker.calibration.drift_px(found) < found.piece_radius_px() / 4
    assert tracker.calibration.drift_px(found) < start.drift_px(found) / 4
