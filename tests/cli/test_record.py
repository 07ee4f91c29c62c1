"""`banco record`: a rendered video becomes a PGN; unreadable or boardless videos fail clearly."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from banco.cli import app
from games.xiangqi.pgn import read_game

runner = CliRunner()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    from models.synth.playout import random_game
    from models.synth.video import render_game

    moves = random_game("xiangqi", 4, seed=23)
    return render_game("xiangqi", moves, tmp_path_factory.mktemp("video"), seed=23, fps=10)


def test_record_writes_the_game_as_pgn_with_markers_only(rendered, tmp_path):
    out = tmp_path / "game.pgn"
    result = runner.invoke(app, ["record", str(rendered.video), "--game", "xiangqi", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == str(out)
    # The test video's far ranks show small pieces: the size warning may come between.
    said = [line for line in result.output.strip().splitlines() if not line.startswith("warning: ")]
    assert said[-2].startswith("board found by its markers; ")
    game = read_game(out.read_text(encoding="utf-8"))
    assert len(game.moves) == len(rendered.truth_data["moves"])
    assert game.board().fen().split()[0] == rendered.truth_data["final_fen"].split()[0]


def test_record_with_a_profile_and_a_clock_log(rendered, tmp_path):
    truth = rendered.truth_data
    profile_path = tmp_path / "cal.json"
    profile_path.write_text(json.dumps(truth["calibration"]), encoding="utf-8")
    presses = tmp_path / "clock.txt"
    # A press a little after each hand has left (FIDE 6.7: the press completes the move).
    presses.write_text("".join(f"{(m['frame_done'] + 6) / truth['fps']:.2f}\n" for m in truth["moves"]))
    out = tmp_path / "clocked.pgn"
    result = runner.invoke(app, ["record", str(rendered.video), "--calibration", str(profile_path),
                                 "--clock-log", str(presses), "--notation", "iccs", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert '[Format "ICCS"]' in text
    import games

    variant, board, played = games.get("xiangqi"), games.get("xiangqi").board(), []
    for entry in truth["moves"]:
        played.append(variant.parse_move(board, entry["move"]))
        board.push(played[-1])
    assert [m.move for m in read_game(text).moves] == played
    # Line breaks are spaces in PGN (a long comment wraps at 79 characters).
    assert f"1. {str(played[0]).upper()[:2]}-{str(played[0]).upper()[2:]} " in " ".join(text.split())


def test_a_profile_made_on_larger_photos_of_the_view_reads_the_video_and_another_shape_is_refused(rendered, tmp_path):
    """A phone films at a smaller resolution than it photographs: the profile is scaled to the
    video's frames, and the game is recorded as with a profile made on them."""
    from calibration.profile import from_dict, to_dict

    truth = rendered.truth_data
    filmed = from_dict(truth["calibration"])
    width, height = filmed.image_size
    photographed = tmp_path / "photo-cal.json"
    photographed.write_text(json.dumps(to_dict(filmed.for_image_size((width * 2, height * 2)))), encoding="utf-8")
    out = tmp_path / "game.pgn"
    result = runner.invoke(app, ["record", str(rendered.video), "--calibration", str(photographed), "--out", str(out)])
    assert result.exit_code == 0, result.output
    game = read_game(out.read_text(encoding="utf-8"))
    assert len(game.moves) == len(truth["moves"])
    assert game.board().fen().split()[0] == truth["final_fen"].split()[0]
    square = tmp_path / "square-cal.json"
    data = to_dict(filmed)
    data["camera"] |= {"width": height, "height": height}
    square.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["record", str(rendered.video), "--calibration", str(square), "--out", str(out)])
    assert result.exit_code != 0
    assert f"is {width}×{height}, but the calibration is for {height}×{height}, another shape of view" in result.output
    # `banco watch` looks at its camera's first frame before it reads through the profile.
    import games
    from banco.watch import _calibration

    watched = _calibration(games.get("xiangqi"), photographed, str(rendered.video))
    assert watched.image_size == (width, height)
    # Scaled, then fitted to the printed lines on that frame: within a pixel of the truth.
    assert np.allclose(watched.grid_corners_px(), filmed.grid_corners_px(), atol=1.0)
    with pytest.raises(ValueError, match="another shape of view"):
        _calibration(games.get("xiangqi"), square, str(rendered.video))


def test_a_profile_a_few_pixels_off_the_video_is_fitted_to_its_printed_lines(rendered, tmp_path):
    """The camera shifted a little since the profile was made (or a phone films a little wider
    than it photographs): record and watch fit the profile to the lines on the first frame, and
    say by how much."""
    import cv2

    import games
    from banco.watch import _calibration
    from calibration import Calibration
    from calibration.profile import from_dict, to_dict

    truth = from_dict(rendered.truth_data["calibration"])
    corners = truth.grid_corners_px() + [[4, -3], [-3, -4], [-4, 3], [3, 4]]
    sheet = np.array([truth.layout.point_mm(p) for p in truth.layout.corner_points()], np.float32)
    off = Calibration(truth.layout, cv2.getPerspectiveTransform(sheet, corners.astype(np.float32)).astype(float),
                      truth.image_size, "corners", piece_height_mm=truth.piece_height_mm)
    profile = tmp_path / "off-cal.json"
    profile.write_text(json.dumps(to_dict(off)), encoding="utf-8")
    out = tmp_path / "game.pgn"
    result = runner.invoke(app, ["record", str(rendered.video), "--calibration", str(profile), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"board from {profile} (fitted to the board's printed lines: the profile's corners moved up to " \
        in result.output
    game = read_game(out.read_text(encoding="utf-8"))
    assert game.board().fen().split()[0] == rendered.truth_data["final_fen"].split()[0]
    watched = _calibration(games.get("xiangqi"), profile, str(rendered.video))
    # Every point within a tenth of a piece's radius of the truth (the profile put some 5 px off).
    assert _worst_point_error(off, rendered.truth_data) > 3
    assert _worst_point_error(watched, rendered.truth_data) < 0.1 * truth.piece_radius_px()


def test_a_small_video_of_an_untouched_board_notes_no_move_of_the_board(rendered, tmp_path):
    """At 480 × 270 the markers are about 10 px wide, and fits from the few a hand leaves in
    view swung the grid's corners by 6–8 px, there and back: each was noted as the board
    moving, until a new place had to be seen on two looks."""
    source = cv2.VideoCapture(str(rendered.video))
    small = tmp_path / "small.avi"
    writer = cv2.VideoWriter(str(small), cv2.VideoWriter_fourcc(*"MJPG"), rendered.truth_data["fps"], (480, 270))
    while True:
        ok, frame = source.read()
        if not ok:
            break
        writer.write(cv2.resize(frame, (480, 270), interpolation=cv2.INTER_AREA))
    writer.release()
    out = tmp_path / "small.pgn"
    result = runner.invoke(app, ["record", str(small), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "board moved" not in out.read_text(encoding="utf-8")
    assert len(read_game(out.read_text(encoding="utf-8")).moves) == len(rendered.truth_data["moves"])


def test_an_unknown_notation_is_refused_before_the_video_is_read(tmp_path):
    result = runner.invoke(app, ["record", str(tmp_path / "missing.mp4"), "--notation", "pinyin",
                                 "--out", str(tmp_path / "x.pgn")])
    assert result.exit_code != 0
    assert "unknown notation 'pinyin' for xiangqi" in result.output


def test_unreadable_video_is_one_clear_line(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"no video here")
    result = runner.invoke(app, ["record", str(bad), "--out", str(tmp_path / "x.pgn")])
    assert result.exit_code != 0
    assert "not a video" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "x.pgn").exists()


@pytest.mark.parametrize("out, words", [
    ("missing-folder/game.pgn", "the folder"),
    (".", "is a folder: give the record's file name"),
])
def test_a_record_path_that_cannot_be_written_is_refused_before_the_video_is_read(tmp_path, out, words, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # A video that cannot be read: had it been read first, its error would be the one said.
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"no video here")
    result = runner.invoke(app, ["record", str(broken), "--out", out])
    assert result.exit_code == 2
    assert words in result.output and len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize("line", ["nan", "-3", "inf"])
def test_a_clock_log_line_that_is_no_time_into_the_video_is_refused(tmp_path, line):
    from banco.record import RecordError, read_clock_log

    log = tmp_path / "clock.txt"
    log.write_text(f"3.5\n{line}\n")
    with pytest.raises(RecordError, match=rf"clock log line 2: '{line}' is not a time into the video"):
        read_clock_log(log)


def test_a_video_without_a_board_says_so(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for _ in range(12):
        writer.write(np.full((240, 320, 3), 90, np.uint8))
    writer.release()
    result = runner.invoke(app, ["record", str(path), "--out", str(tmp_path / "x.pgn")])
    assert result.exit_code != 0
    assert "board was not found" in result.output


def test_no_start_position_is_a_clear_failure(tmp_path):
    from models.synth.video import render_game

    midgame = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    rendered = render_game("xiangqi", ["h7e7"], tmp_path / "video", seed=29, fps=5, start_fen=midgame)
    result = runner.invoke(app, ["record", str(rendered.video), "--out", str(tmp_path / "x.pgn")])
    assert result.exit_code != 0
    assert "no start position found" in result.output


def test_a_commit_the_camera_could_not_tell_from_another_names_both():
    """A capture by another operation (Cờ Toán) or by another piece firing in place (Cờ Tư Lệnh)
    leaves the same position: the record says which other reading there was."""
    import games
    from banco.record import describe
    from vision import events as ev

    board = games.get("xiangqi").board()
    move = next(iter(board.legal_moves))
    both = ev.MoveCommitted([move], ["8:7xi11"], 3.0, {"alternatives": [["8-7xi11"]]})
    assert describe("xiangqi", both) == "8:7xi11 or 8-7xi11: the same position, the camera cannot tell which"
    alone = ev.MoveCommitted([move], ["h2e2"], 3.0, {"margin": 9.0})
    assert describe("xiangqi", alone) is None


def test_a_penalty_turn_no_look_saw_tried_is_flagged_as_a_guess():
    """Cờ Tư Lệnh referee mode: a turn passed for a crossing the camera never saw tried. The
    record names the crossing the tracker chose and says it is a guess; one seen is no news."""
    from banco.record import describe
    from tests.games.commander.helpers import with_kings
    from vision import events as ev

    board = with_kings({"5,9": "A", "8,8": "i"}, referee=True)
    turn = next(m for m in board.penalty_turns() if str(m) == "P5,9_6,9")
    guessed = ev.MoveCommitted([turn], ["P5,9_6,9$"], 7.0, {"penalty_seen": False})
    assert describe("commander", guessed) == \
        "P5,9_6,9$: a penalty turn the camera did not see tried; which crossing it was is a guess"
    seen = ev.MoveCommitted([turn], ["P5,9_6,9$"], 7.0, {"penalty_seen": True})
    assert describe("commander", seen) is None


def test_a_third_repetition_is_noted_where_it_stood_and_the_record_goes_on():
    """Red chases Black's chariot until the position stands a third time: the verdict is noted at
    that ply, and the moves played after it (the arbiter asked for a change) follow it."""
    import games
    from banco.record import Recording, write_record
    from vision import events as ev

    variant = games.get("xiangqi")
    start = "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1"
    recording = Recording("xiangqi", variant.board(), variant.starting_fen)
    recording.take(ev.StartFound(start, 0.5))
    texts = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2 h9g7".split()
    for number, text in enumerate(texts, 1):
        board = recording.board
        move = variant.parse_move(board, text)
        recording.take(ev.MoveCommitted([move], [variant.notation().format(board, move)], float(number)))
    noted = {ply: notes for ply, notes in recording.comments.items() if any("repetition" in n for n in notes)}
    assert list(noted) == [9]
    assert noted[9] == ["third repetition, perpetual chase: Red loses (0-1) unless the game goes on "
                        "(seed 001, Điều 7: the arbiter asks for a change of moves)"]
    assert len(recording.moves) == 10 and recording.board.outcome() is None
    text = write_record(recording, "game.mp4")
    assert "Red loses" in text and text.rstrip().endswith("*")


def test_a_commander_record_in_its_other_notation_names_it_and_writes_every_move_in_it():
    import games
    from banco.record import Recording, write_record
    from vision import events as ev

    variant = games.get("commander")
    recording = Recording("commander", variant.record_board(), variant.starting_fen)
    recording.take(ev.StartFound(variant.starting_fen, 0.5))
    board, expected = variant.record_board(), []
    squares = variant.notation("secretary-squares")
    for number in range(4):
        move = sorted(board.legal_moves, key=str)[number]
        expected.append(squares.format(board, move))
        recording.take(ev.MoveCommitted([move], [variant.notation().format(board, move)], float(number)))
        board.push(move)
    text = write_record(recording, "game.mp4", "secretary-squares")
    assert '[Notation "secretary-squares"]' in text
    body = text.split("\n\n", 1)[1]
    assert body.split() == ["1.", expected[0], expected[1], "2.", expected[2], expected[3], "*"]
    assert expected != recording.san


@pytest.fixture(scope="module")
def without_markers(tmp_path_factory):
    """A Cờ Toán board from a shop (no markers), filmed from the second player's side."""
    from models.synth.playout import random_game
    from models.synth.video import render_game

    moves = random_game("cotoan", 4, seed=41)
    return render_game("cotoan", moves, tmp_path_factory.mktemp("plain"), seed=41, fps=10, markers=False)


def _worst_point_error(calibration, truth) -> float:
    import games
    from calibration import profile

    true = profile.from_dict(truth["calibration"])
    return max(float(np.hypot(*np.subtract(calibration.point_pixel(p), true.point_pixel(p))))
               for p in games.get(truth["game"]).geometry.points())


def test_a_board_without_markers_is_found_by_its_grid_the_start_position_the_right_way_up(without_markers):
    from banco.record import locate_board
    from vision.capture import FrameSource

    calibration, frames = locate_board("cotoan", FrameSource(without_markers.video), None)
    assert calibration.method == "grid" and frames
    # Not one marker in the first second: the grid at once, not five seconds of frames held.
    assert len(frames) <= without_markers.truth_data["fps"] * 1.0 + 2
    assert _worst_point_error(calibration, without_markers.truth_data) < 4.0
    # The grid alone puts the first rank at the photo's bottom, here the second player's.
    from calibration.grid import calibrate_from_grid

    as_found = calibrate_from_grid(calibration.layout, frames[0][0])
    assert _worst_point_error(as_found, without_markers.truth_data) > 100


def test_record_and_watch_need_no_profile_for_a_board_without_markers(without_markers, tmp_path):
    import games
    from banco.watch import _calibration

    out = tmp_path / "plain.txt"
    result = runner.invoke(app, ["record", str(without_markers.video), "--game", "cotoan", "--out", str(out)])
    assert result.exit_code == 0, result.output
    truth = without_markers.truth_data
    import re

    body = re.sub(r"\{[^}]*\}", " ", out.read_text(encoding="utf-8").split("\n\n", 1)[1])
    assert [word for word in body.split() if not word.endswith(".") and word != "*"] == \
        [move["move"] for move in truth["moves"]]
    # The board's lines are checked at every still look, and this board never moved.
    assert "board moved" not in out.read_text(encoding="utf-8")
    # The test video is small: the size warning comes between.
    said = [line for line in result.output.splitlines() if not line.startswith("warning: ")]
    assert said[-2].startswith("board found by its printed grid (confidence 0.")
    assert f"; {len(truth['moves'])} moves, " in said[-2]
    watched = _calibration(games.get("cotoan"), None, str(without_markers.video))
    assert watched.method == "grid" and _worst_point_error(watched, truth) < 4.0


def test_the_board_is_searched_for_on_the_first_seconds_of_a_camera_whose_clock_is_not_at_zero():
    """A camera's stamps are its monotonic clock: the markers are looked for during the first
    seconds from its first frame (the hand leaves them at the third second), not on one frame."""
    import random

    import games
    from banco.locate import find_board
    from models.synth.scene import render_scene
    from vision.classes import EMPTY, appearance

    position = {p: c for p, c in appearance("xiangqi", games.get("xiangqi").board()).items() if c != EMPTY}
    scene = render_scene("xiangqi", random.Random(4), position=position, hands=False, max_tilt=20)
    blank = np.full_like(scene.image, 100)  # a hand over the whole board: nothing to find
    frames = [(blank, 5000.0 + i / 10) for i in range(30)] + [(scene.image, 5003.0 + i / 10) for i in range(10)]
    kept: list = []
    found = find_board(games.get("xiangqi"), iter(frames), keep=kept)
    assert found.method == "markers"  # this render prints them
    assert len(kept) == 31  # read up to the first frame that shows the board, none lost
    error = np.linalg.norm(found.grid_corners_px() - scene.calibration.grid_corners_px(), axis=1)
    assert error.max() < 0.25 * scene.calibration.piece_radius_px()


def test_an_occlusion_the_next_move_resolved_leaves_no_comment_and_one_left_open_does():
    import games
    from banco.record import Recording, describe
    from vision import events as ev

    variant = games.get("xiangqi")
    recording = Recording("xiangqi", variant.board(), variant.starting_fen)
    recording.take(ev.StartFound(variant.starting_fen, 0.5))
    hidden = ev.Occluded([games.Point(7, 2)], 2.0)
    recording.take(hidden)
    board = recording.board
    move = variant.parse_move(board, "h2e2")
    recording.take(ev.MoveCommitted([move], [variant.notation().format(board, move)], 3.0))
    wrong = ev.Illegal([games.Point(0, 6)], 4.0, "no legal move explains these points", [])
    recording.take(wrong)
    recording.take(ev.Occluded([games.Point(4, 7)], 5.0))  # the video ends behind a hand
    assert recording.comments == {1: [describe("xiangqi", wrong), "occluded at 5.0s: e7"]}


def test_what_the_camera_could_not_tell_at_the_start_opens_the_record():
    import games
    from banco.record import Recording
    from vision import events as ev

    variant = games.get("commander")
    recording = Recording("commander", variant.record_board(), variant.starting_fen)
    recording.take(ev.StartFound(variant.starting_fen, 0.5, "Red's commander hides in a headquarters …"))
    assert recording.comments == {0: ["Red's commander hides in a headquarters …"]}


def test_the_record_is_never_written_over_an_input(rendered, tmp_path):
    """--out naming the video (or the clock log) would destroy it: refused before reading."""
    import shutil

    video = tmp_path / "game.mp4"
    shutil.copy(rendered.video, video)
    size = video.stat().st_size
    result = runner.invoke(app, ["record", str(video), "--out", str(video)])
    assert result.exit_code != 0 and "is the input" in result.output, result.output
    assert video.stat().st_size == size
    log = tmp_path / "presses.txt"
    log.write_text("3.5\n")
    result = runner.invoke(app, ["record", str(rendered.video), "--clock-log", str(log), "--out", str(log)])
    assert result.exit_code != 0 and "is the input" in result.output and log.read_text() == "3.5\n"
    # Nor over the adaptation the profile names beside it (a set's learning), nor the model.
    profile, learnt = tmp_path / "cal.json", tmp_path / "cal.adapt.npz"
    profile.write_text('{"adaptation": "cal.adapt.npz"}')
    learnt.write_bytes(b"kept")
    result = runner.invoke(app, ["record", str(rendered.video), "--calibration", str(profile), "--out", str(learnt)])
    assert result.exit_code != 0 and "is the input" in result.output and learnt.read_bytes() == b"kept"
    result = runner.invoke(app, ["record", str(rendered.video), "--model", str(learnt), "--out", str(learnt)])
    assert result.exit_code != 0 and "is the input" in result.output and learnt.read_bytes() == b"kept"


def test_a_video_cut_short_keeps_its_moves_and_says_the_record_may_lack_the_last(rendered, tmp_path):
    import cv2

    from vision.capture import FrameSource

    frames = [frame for frame, _ in FrameSource(rendered.video)]
    # An MJPG AVI whose last 40 % is gone, its header still announcing every frame.
    whole = tmp_path / "whole.avi"
    writer = cv2.VideoWriter(str(whole), cv2.VideoWriter_fourcc(*"MJPG"), 10, frames[0].shape[1::-1])
    for frame in frames:
        writer.write(frame)
    writer.release()
    cut = tmp_path / "cut.avi"
    data = whole.read_bytes()
    cut.write_bytes(data[:int(len(data) * 0.6)])
    out = tmp_path / "cut.pgn"
    result = runner.invoke(app, ["record", str(cut), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "warning: the video ended after " in result.output and "may lack the last moves" in out.read_text()
