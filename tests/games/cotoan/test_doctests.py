"""The runnable examples in games.cotoan's docstrings."""

import doctest
import importlib

import pytest

MODULES = ["games.cotoan", "games.cotoan.arithmetic", "games.cotoan.board", "games.cotoan.geometry",
           "games.cotoan.match", "games.cotoan.notation", "games.cotoan.options", "games.cotoan.selfplay"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
