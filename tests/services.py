"""Real services the suite uses (PostgreSQL, Redis, Chromium, the training environment): skip where they
cannot run, fail under `make test`.

`make test` installs and starts every service and sets BANCO_TEST_REQUIRE_SERVICES=1, so there a
missing service is a failure, never a silent skip. A developer running pytest by hand without
them gets a skip that says what is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REQUIRED = os.environ.get("BANCO_TEST_REQUIRE_SERVICES") == "1"


def unavailable(reason: str) -> None:
    """Stop this test because a service is missing: a failure under `make test`, else a skip."""
    if REQUIRED:
        pytest.fail(f"{reason} (BANCO_TEST_REQUIRE_SERVICES=1: make test installs this service)")
    pytest.skip(reason)


def require_file(path: str, reason: str) -> None:
    if not os.path.exists(path):
        unavailable(reason)


REPO = Path(__file__).resolve().parent.parent


def train_python() -> str:
    """The interpreter of the training environment (torch, ultralytics): `make train-env` builds it.

    BANCO_TRAIN_PYTHON names it (`make test` sets it); else the repository's `.venv-train`.
    """
    path = os.environ.get("BANCO_TRAIN_PYTHON") or str(REPO / ".venv-train" / "bin" / "python")
    if not os.access(path, os.X_OK):
        unavailable(f"no training environment at {path} (make train-env builds it)")
    return path
