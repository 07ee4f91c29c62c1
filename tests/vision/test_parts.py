"""Spreading a batch over the station's CPUs (`vision.parts`)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vision.parts import Parts


def test_the_parts_run_on_their_own_threads_and_come_back_in_order():
    seen = {}

    def work(slot: int, part: np.ndarray) -> np.ndarray:
        seen[slot] = threading.get_ident()
        return part * 10

    items = np.arange(20)
    answers = Parts(2).run(work, items)
    assert len(answers) == 2 and np.array_equal(np.concatenate(answers), items * 10)
    assert set(seen) == {0, 1} and seen[0] == threading.get_ident() != seen[1]


def test_a_batch_too_small_to_cut_runs_whole_on_the_callers_thread():
    slots = []
    answers = Parts(2).run(lambda slot, part: slots.append(slot) or len(part), np.arange(7), smallest=4)
    assert answers == [7] and slots == [0]
    assert Parts(1).run(lambda slot, part: len(part), np.arange(100)) == [100]
    assert Parts(3).run(lambda slot, part: len(part), np.arange(9), smallest=4) == [5, 4]


def test_a_failure_in_a_part_reaches_the_caller():
    def work(slot: int, part: np.ndarray) -> int:
        if slot == 1:
            raise RuntimeError("part failed")
        return len(part)

    with pytest.raises(RuntimeError, match="part failed"):
        Parts(2).run(work, np.arange(10))


def test_no_threads_is_refused():
    with pytest.raises(ValueError, match="at least one thread"):
        Parts(0)
