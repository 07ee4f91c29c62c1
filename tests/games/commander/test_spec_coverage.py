"""Every numbered rule of COMMANDER_RULES.md §1–§13 and every decision D1–D41 has a test that
names it (in the test's name or docstring). This guards the acceptance list of issue 3."""

import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SECTIONS = {1: 4, 2: 7, 3: 3, 4: 6, 5: 9, 6: 5, 7: 4, 8: 4, 9: 4, 10: 3, 11: 3, 12: 5, 13: 4}


def _test_texts() -> str:
    """Names and docstrings of the test functions of this folder."""
    chunks = []
    for path in HERE.glob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        source = path.read_text(encoding="utf-8")
        for match in re.finditer(r'def (test_\w+)\([^)]*\):\n\s+"""(.*?)"""', source, re.S):
            chunks.append(match.group(1) + " " + match.group(2))
    return "\n".join(chunks)


TEXT = _test_texts()


@pytest.mark.parametrize("rule", [f"{s}.{n}" for s, count in SECTIONS.items() for n in range(1, count + 1)])
def test_every_numbered_rule_has_a_test(rule):
    section, number = rule.split(".")
    pattern = rf"§{section}\.{number}\b|test_s{section}_{number}_"
    assert re.search(pattern, TEXT), f"no test names §{rule}"


@pytest.mark.parametrize("decision", range(1, 42))
def test_every_decision_has_a_test(decision):
    assert re.search(rf"\bD{decision}\b|_d{decision}(_|\b)", TEXT), f"no test names D{decision}"
