"""The runnable examples in the tracker's modules (vision/ and banco/ are not doctest paths)."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["vision.inference", "vision.events", "vision.capture", "banco.record"])
def test_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
