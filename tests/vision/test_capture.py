"""Frame sources: real video files written by OpenCV, and a live source that drops out."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.capture import CaptureError, FrameSource, is_live
from vision.events import CameraBack, CameraLost


def _write_video(path: Path, frames: int, fps: float = 20.0, size=(64, 48)) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    assert writer.isOpened()
    for index in range(frames):
        image = np.full((size[1], size[0], 3), (index * 9) % 256, np.uint8)
        cv2.putText(image, str(index), (4, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
        writer.write(image)
    writer.release()
    return path


def test_a_file_gives_every_frame_in_order_with_its_own_timestamps(tmp_path):
    path = _write_video(tmp_path / "clip.avi", 25, fps=20.0)
    source = FrameSource(path)
    assert not source.live and source.fps == pytest.approx(20.0)
    frames = list(source)
    assert len(frames) == 25
    stamps = [t for _, t in frames]
    assert stamps == pytest.approx([i / 20.0 for i in range(25)], abs=1e-3)
    brightness = [int(f[2, 60, 0]) for f, _ in frames]
    assert brightness == sorted(brightness)  # in order, none skipped


def test_unreadable_sources_are_clear_errors(tmp_path):
    with pytest.raises(CaptureError, match="does not exist"):
        FrameSource(tmp_path / "missing.mp4")
    with pytest.raises(CaptureError, match="is a folder, not a video file"):
        FrameSource(tmp_path)
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all")
    with pytest.raises(CaptureError, match="not a video"):
        FrameSource(junk)
    assert isinstance(CaptureError("x"), ValueError)


def test_live_specs():
    assert is_live(0) and is_live("1") and is_live("rtsp://cam/stream") and is_live("http://cam/mjpg")
    assert not is_live("game.mp4")


def test_a_live_source_that_drops_out_reconnects_and_says_so(tmp_path):
    """The stream is a real OpenCV capture of a file: when it ends the camera is 'lost'; the
    first reconnection fails (a path that does not exist), the next one works."""
    clip = _write_video(tmp_path / "stream.avi", 10)
    attempts: list[str] = []

    def opener(target):
        attempts.append(str(target))
        if len(attempts) == 2:
            return cv2.VideoCapture(str(tmp_path / "gone.avi"))  # the camera is still away
        return cv2.VideoCapture(str(clip))

    source = FrameSource("rtsp://camera/stream", opener=opener, backoff=(0.01, 0.02), stall_s=1.0)
    assert source.live
    frames = []
    events = []
    for _frame, stamp in source:
        frames.append(stamp)
        events.extend(source.drain_events())
        if any(isinstance(e, CameraBack) for e in events) and len(frames) >= 3:
            break
    source.close()
    events.extend(source.drain_events())
    kinds = [type(e) for e in events]
    assert CameraLost in kinds and CameraBack in kinds
    assert kinds.index(CameraLost) < kinds.index(CameraBack)
    assert len(attempts) >= 3
    assert frames == sorted(frames)  # monotonic clock stamps


class _HangingCapture:
    """A network camera whose read blocks after a few frames (no error, no frame), then resumes."""

    def __init__(self, clip: Path, good: int, hang_s: float) -> None:
        self.capture, self.good, self.hang_s, self.reads = cv2.VideoCapture(str(clip)), good, hang_s, 0

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return True

    def read(self):
        import time

        self.reads += 1
        if self.reads == self.good + 1:
            time.sleep(self.hang_s)
        ok, frame = self.capture.read()
        if not ok:  # loop the clip: the camera goes on
            self.capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self.capture.read()
        return ok, frame

    def release(self):
        self.capture.release()


def test_a_live_source_whose_read_hangs_is_said_lost_and_back(tmp_path):
    clip = _write_video(tmp_path / "stream.avi", 10)
    source = FrameSource("rtsp://camera/stream", opener=lambda target: _HangingCapture(clip, 5, 1.0), stall_s=0.3)
    events, frames = [], 0
    for _frame, _stamp in source:
        frames += 1
        events.extend(source.drain_events())
        if frames >= 10:
            break
    source.close()
    events.extend(source.drain_events())
    kinds = [type(e) for e in events]
    assert kinds[:2] == [CameraLost, CameraBack], kinds
    assert "no frame for 0.3 s" in events[0].reason


def test_a_live_source_keeps_only_the_newest_frame(tmp_path):
    clip = _write_video(tmp_path / "fast.avi", 40)
    source = FrameSource("rtsp://camera/fast", opener=lambda t: cv2.VideoCapture(str(clip)), reconnect=False)
    source.start()
    import time

    time.sleep(0.5)  # the grabber reads the whole clip meanwhile; only the last frame is kept
    item = source.read(timeout=1.0)
    source.close()
    assert item is not None
    assert source.dropped > 0
