"""The examples in the server's docstrings run (the suite's --doctest-modules covers games/ and
calibration/ only; server/ holds an Alembic env that must not be imported as a test)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["server.record", "server.raster", "server.render"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failures == 0
