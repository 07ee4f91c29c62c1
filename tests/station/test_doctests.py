"""The examples in the station's docstrings run (server/ is not under --doctest-modules)."""

from __future__ import annotations

import doctest

import server.station.status


def test_status_examples():
    failures, attempted = doctest.testmod(server.station.status)
    assert attempted > 0 and failures == 0
