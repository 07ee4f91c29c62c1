"""The CLI contracts of issue 2: last-line outputs and one-line errors."""

import subprocess
import sys


def banco(*args):
    return subprocess.run([sys.executable, "-m", "banco", *args], capture_output=True, text=True)


def test_perft_prints_node_count_last():
    result = banco("perft", "--game", "xiangqi", "--depth", "2")
    assert result.returncode == 0
    assert result.stdout.strip().splitlines()[-1] == "1920"


def test_moves_after_moves_in_iccs():
    result = banco("moves", "--game", "xiangqi", "--moves", "h2e2 h9g7", "--notation", "iccs")
    assert result.returncode == 0
    lines = result.stdout.split()
    assert "e2e6" in lines and "h0g2" in lines
    assert len(lines) == len(set(lines))


def test_illegal_move_is_one_line_naming_the_token():
    result = banco("moves", "--moves", "h2e2 h9h7")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "h9h7" in result.stderr and "move 1" in result.stderr


def test_malformed_fen_is_one_line():
    result = banco("perft", "--fen", "rnbakabnr/9/9 w", "--depth", "1")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "ranks" in result.stderr


def test_unknown_notation_is_one_line():
    result = banco("moves", "--notation", "klingon")
    assert result.returncode != 0
    assert "klingon" in result.stderr and "Traceback" not in result.stderr


def test_the_measured_size_note_says_when_a_size_off_the_usual_is_still_read_as_usual():
    from banco.cli import _size_note

    assert _size_note(0.45, reframed=False) == "radius 0.45 of the point spacing, a usual size, read as usual"
    assert _size_note(0.53, reframed=False) == ("radius 0.53 of the point spacing, not clearly off the usual "
                                                "0.37–0.50, read as usual")
    assert _size_note(0.32, reframed=True) == "radius 0.32 of the point spacing, crops framed to it"


def test_a_camera_that_cannot_be_opened_is_one_line_without_opencvs_own_warnings(tmp_path):
    # No machine running the tests has 40 cameras: index 39 cannot be opened.
    result = banco("calibrate", "--camera", "39", "--out", str(tmp_path / "cal.json"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["banco: camera '39' cannot be opened"]


def test_an_unreadable_video_is_one_line_without_ffmpegs_own(tmp_path):
    # An MP4's first box and nothing after it: FFmpeg itself says "moov atom not found" unless quieted.
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"no video here")
    result = banco("record", str(bad), "--out", str(tmp_path / "game.pgn"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"banco: {str(bad)!r} is not a video OpenCV can read"]
