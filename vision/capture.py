"""Frames from a camera index, a video file, or an RTSP/HTTP stream, with their timestamps.

`FrameSource(spec)` iterates ``(frame, timestamp)`` pairs:

- a **file** is read in order, every frame; the timestamp is the file's own
  (`CAP_PROP_POS_MSEC`, in seconds), or frame number / fps where the container has none;
- a **live source** (camera index, ``rtsp://``, ``http(s)://``) is read on a grabbing thread
  that keeps only the newest frame, so a slow consumer never falls behind the camera; the
  timestamp is the monotonic clock when the frame was grabbed. When the source stops giving
  frames, the source says so (`CameraLost`, in `events`), reconnects with a growing pause
  and says so again (`CameraBack`).

Events are collected in `drain_events()`; `banco record` and the station pass them on.

>>> import tempfile, pathlib, numpy as np, cv2
>>> path = pathlib.Path(tempfile.mkdtemp()) / "two.avi"
>>> writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
>>> for _ in range(2):
...     _ = writer.write(np.zeros((24, 32, 3), np.uint8))
>>> writer.release()
>>> [round(t, 2) for _, t in FrameSource(path)]
[0.0, 0.1]
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.events import CameraBack, CameraLost

log = logging.getLogger(__name__)

LIVE_PREFIXES = ("rtsp://", "rtsps://", "http://", "https://", "udp://", "tcp://")
# Reconnection pauses grow from the first to the last, then stay there.
BACKOFF_S = (0.5, 1.0, 2.0, 4.0, 8.0)
# A live source that gives no frame for this long has dropped out.
STALL_S = 3.0


class CaptureError(ValueError):
    """A source that cannot be opened or read (a missing file, a bad index)."""


Opener = Callable[[int | str], "cv2.VideoCapture"]


def is_live(spec: int | str | Path) -> bool:
    if isinstance(spec, int):
        return True
    text = str(spec)
    return text.isdigit() or text.lower().startswith(LIVE_PREFIXES)


def _target(spec: int | str | Path) -> int | str:
    if isinstance(spec, int):
        return spec
    text = str(spec)
    return int(text) if text.isdigit() else text


class FrameSource:
    """Frames and timestamps from one source; see the module docstring.

    `opener` makes the `cv2.VideoCapture` (tests pass one that fails and recovers);
    `reconnect=False` ends a live source at its first drop-out.
    """

    def __init__(self, spec: int | str | Path, *, opener: Opener | None = None, reconnect: bool = True,
                 backoff: tuple[float, ...] = BACKOFF_S, stall_s: float = STALL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.spec = spec
        self.name = str(spec)
        self.live = is_live(spec)
        self._opener = opener or (lambda target: cv2.VideoCapture(target))
        self.reconnect = reconnect
        self.backoff = backoff
        self.stall_s = stall_s
        self.clock = clock
        self._events: list = []
        self._lock = threading.Lock()
        self._said_lost = False  # CameraLost said and no CameraBack since: by the grabber or the stall watch
        self._newest: tuple[np.ndarray, float] | None = None
        self._fresh = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.dropped = 0  # live frames replaced before anyone read them
        self._stream: Iterator[tuple[np.ndarray, float]] | None = None
        if not self.live:
            path = Path(str(spec))
            if path.is_dir():
                raise CaptureError(f"{str(path)!r} is a folder, not a video file")
            if not path.is_file():
                raise CaptureError(f"video file {str(path)!r} does not exist")
            capture = self._opener(str(path))
            if not capture.isOpened():
                raise CaptureError(f"{str(path)!r} is not a video OpenCV can read")
            self._capture = capture
            self.fps = float(capture.get(cv2.CAP_PROP_FPS) or 0.0)
            self.frame_count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
            size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH) or 0), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT) or 0))
            self.frame_size: tuple[int, int] | None = size if min(size) > 0 else None  # width, height
        else:
            self._capture = None
            self.fps = 0.0
            self.frame_count = 0
            self.frame_size = None  # a live source's frames are seen as they come

    # ------------------------------------------------------------------ events
    def _lost(self, why: str) -> None:
        with self._lock:
            if self._said_lost:
                return
            self._said_lost = True
        self._say(CameraLost(self.clock(), self.name, why))

    def _back(self, stamp: float) -> None:
        with self._lock:
            if not self._said_lost:
                return
            self._said_lost = False
        self._say(CameraBack(stamp, self.name))

    def _say(self, event) -> None:
        with self._lock:
            self._events.append(event)
        log.warning("%s: %s", self.name, type(event).__name__)

    def drain_events(self) -> list:
        """The `CameraLost`/`CameraBack` events since the last call."""
        with self._lock:
            out, self._events = self._events, []
        return out

    # ------------------------------------------------------------------ files
    def _file_frames(self) -> Iterator[tuple[np.ndarray, float]]:
        capture = self._capture
        index = 0
        last = -1.0
        try:
            while True:
                ok, frame = capture.read()
                if not ok or frame is None:
                    return
                # The container's time of this frame; where it has none, the frame's number / fps.
                msec = capture.get(cv2.CAP_PROP_POS_MSEC)
                stamp = msec / 1000.0 if msec and msec > 0 else (index / self.fps if self.fps > 0 else float(index))
                if stamp <= last:
                    stamp = last + (1.0 / self.fps if self.fps > 0 else 1e-3)
                last = stamp
                index += 1
                yield frame, stamp
        finally:
            capture.release()

    # ------------------------------------------------------------------ live
    def _open_live(self):
        capture = self._opener(_target(self.spec))
        if capture is None or not capture.isOpened():
            if capture is not None:
                capture.release()
            return None
        return capture

    def start(self) -> None:
        """Open a live source and start the grabbing thread (called by iteration)."""
        if self._thread is not None:
            return
        capture = self._open_live()
        if capture is None:
            raise CaptureError(f"camera {self.name!r} cannot be opened")
        self._thread = threading.Thread(target=self._grab, args=(capture,), name=f"grab {self.name}", daemon=True)
        self._thread.start()

    def _grab(self, capture) -> None:
        attempt = 0
        lost = False
        while not self._stop.is_set():
            if capture is None:
                pause = self.backoff[min(attempt, len(self.backoff) - 1)]
                if self._stop.wait(pause):
                    break
                attempt += 1
                capture = self._open_live()
                continue
            ok, frame = capture.read()
            if ok and frame is not None:
                stamp = self.clock()
                if lost:
                    lost = False
                    attempt = 0
                    self._back(stamp)
                with self._fresh:
                    if self._newest is not None:
                        self.dropped += 1
                    self._newest = (frame, stamp)
                    self._fresh.notify_all()
                continue
            capture.release()
            capture = None
            if not lost:
                lost = True
                self._lost("no frame from the source")
                with self._fresh:
                    self._fresh.notify_all()
            if not self.reconnect:
                break
        if capture is not None:
            capture.release()
        with self._fresh:
            self._fresh.notify_all()

    def read(self, timeout: float | None = None) -> tuple[np.ndarray, float] | None:
        """The newest live frame not yet read, waiting up to `timeout` (None when none came)."""
        self.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._fresh:
            while self._newest is None:
                if self._thread is None or not self._thread.is_alive():
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._fresh.wait(remaining if remaining is not None else 0.5)
            newest, self._newest = self._newest, None
        return newest

    def _live_frames(self) -> Iterator[tuple[np.ndarray, float]]:
        self.start()
        try:
            while not self._stop.is_set():
                item = self.read(timeout=self.stall_s)
                if item is None:
                    if self._thread is None or not self._thread.is_alive():
                        return
                    # The source gives nothing, and no error either (a network camera whose read
                    # hangs): it has dropped out all the same (STALL_S).
                    self._lost(f"no frame for {self.stall_s:g} s")
                    continue
                self._back(item[1])
                yield item
        finally:
            self.close()

    # ------------------------------------------------------------------ both
    def __iter__(self) -> Iterator[tuple[np.ndarray, float]]:
        # One stream per source: a second loop goes on where the first one stopped.
        if self._stream is None:
            self._stream = self._live_frames() if self.live else self._file_frames()
        return self._stream

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        if self._capture is not None:
            self._capture.release()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
