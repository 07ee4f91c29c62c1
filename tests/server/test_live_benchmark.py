"""The live benchmark's harness on a small, bounded scale: it runs, and every viewer gets every move.

The full measurement (2,000 viewers) is `benchmarks/live.py`; here only that its parts work.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("mode", ["queues", "naive"])
def test_small_run_delivers_every_move_to_every_reading_viewer(mode, monkeypatch):
    # Importable by name, so that the spawned viewer processes find `viewer_process` too.
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    live = importlib.import_module("live")
    moves = live.opening(3)
    result = live.summarize([live.measure(mode, viewers=12, stalled=2, moves=moves, interval=0.05, workers=2)])
    assert result["moves_accepted"] == 3 and result["blocked"] == 0
    assert result["delivered"] == result["expected"] == 3 * 10
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
