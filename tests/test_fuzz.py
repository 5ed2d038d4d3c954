"""The fuzz harness (`fuzz/fuzz.py`) on a fixed seed and a fixed number of inputs (about 15 s of CPU): no
traceback, hang, unreadable output or partial output. Longer runs with other seeds: see the README."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "fuzz"))

import fuzz  # noqa: E402


def test_a_bounded_fuzz_run_finds_nothing():
    report = fuzz.run(seed=2170, count=8000, limit=20)
    assert report.findings == []
    assert report.inputs == 8000
    commands = {command for command, _ in report.outcomes}
    assert commands == set(fuzz.COMMANDS)
    # the mutations reach both verdicts of every command, not only the reader's errors
    assert all(report.outcomes[(command, "exit 0")] > 20 for command in fuzz.COMMANDS), report.outcomes
