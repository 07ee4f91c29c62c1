"""`python -m models.evaluate`: what it refuses."""

import subprocess
import sys

from tests.services import REPO


def test_a_knock_out_of_range_is_refused_by_name():
    run = subprocess.run([sys.executable, "-m", "models.evaluate", "--photos", "1", "--knocked", "5"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "--knocked is in piece radii, from 0 to 2, not 5.0" in run.stderr
    assert run.stdout == ""
