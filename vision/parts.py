"""One batch spread over the station's CPUs: cut in parts, run at once, answers kept in order.

A frame's work comes in batches of independent items (one crop per board point). Run as one
call, much of it stays on one CPU; the parts here run in threads at once, which pays wherever
the work lets go of Python's lock (onnxruntime, OpenCV, numpy's FFTs and products do).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

STATION_CPUS = 2  # what a station is sized for: the recognition issue's "2 cores"
Answer = TypeVar("Answer")


class Parts:
    """Runs the parts of a batch on `count` threads at once: the caller's and `count - 1` more."""

    def __init__(self, count: int = STATION_CPUS, name: str = "parts") -> None:
        if count < 1:
            raise ValueError(f"a batch needs at least one thread, not {count}")
        self.count = count
        self._pool = ThreadPoolExecutor(count - 1, thread_name_prefix=name) if count > 1 else None

    def run(self, work: Callable[[int, np.ndarray], Answer], items: np.ndarray, smallest: int = 1) -> list[Answer]:
        """`work(slot, part)` for each part of `items` (cut along the first axis), the parts at
        once; the answers in the parts' order. No part has fewer than `smallest` items, below
        which handing one to another thread costs more than it saves. `slot` (0 to count - 1)
        names the thread a part runs on, for work that keeps something per thread."""
        count = max(1, min(self.count, len(items) // max(1, smallest)))
        if count == 1:
            return [work(0, items)]
        parts = np.array_split(items, count)
        pending = [self._pool.submit(work, slot, part) for slot, part in enumerate(parts[:-1], start=1)]
        last = work(0, parts[-1])
        return [future.result() for future in pending] + [last]
