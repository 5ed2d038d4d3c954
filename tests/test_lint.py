"""The tree passes ruff's checks as pyproject.toml's [tool.ruff] selects them (no unused import or variable, no
undefined name, no syntax error) and is laid out as `ruff format` lays it out, in trainc/ and everything beside
it."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT, need


def test_ruff_finds_nothing():
    found = subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True, text=True)
    need(found.returncode == 0, "ruff is not installed (pip install '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
