"""The fuzz harness (`fuzz/fuzz.py`) on a fixed seed and a fixed number of inputs (about 15 s of CPU) through
every command (build, build --previous, diff, explain, fn, run --dry-run, status, a project config, the Python
API): no traceback, hang, unreadable output or partial output. Longer runs with other seeds: see the README."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "fuzz"))

import fuzz  # noqa: E402


def test_a_bounded_fuzz_run_finds_nothing():
    report = fuzz.run(seed=2170, count=6000, limit=20)
    assert report.findings == []
    assert report.inputs == 6000
    commands = {command for command, _ in report.outcomes}
    assert commands == set(fuzz.COMMANDS)
    # the mutations reach both verdicts of every command, not only the reader's errors
    assert all(report.outcomes[(command, "exit 0")] > 10 for command in fuzz.COMMANDS), report.outcomes
    assert report.outcomes[("diff", "exit 1")] > 10, report.outcomes  # diff's "changes"
