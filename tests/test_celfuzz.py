"""The CEL library fuzzer (`fuzz/celfuzz.py`) on a fixed seed: every function trainc implements, with every
CEL type and edge values, in-process (forked workers under a memory limit) and through the command line (a
time and memory limit per run): no crash, traceback, hang or unpositioned error. Longer runs: the docstring
of fuzz/celfuzz.py and docs/guides/policies.md."""

from __future__ import annotations

import re
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "fuzz"))

import celfuzz


def test_a_seeded_cel_fuzz_run_finds_nothing():
    report = celfuzz.run(seed=22, expressions=3000, commands=12)
    assert report.findings == []
    assert (report.expressions, report.commands) == (3000, 12)
    # the calls reach every outcome: results, runtime errors and compile errors, allowed and denied builds
    assert all(report.outcomes[kind] > 100 for kind in ("ok", "eval error", "compile error")), report.outcomes
    assert report.outcomes["command exit 0"] and report.outcomes["command exit 1"], report.outcomes


def test_the_fuzzer_calls_every_function_trainc_implements():
    source = (ROOT / "trainc" / "k8s" / "celengine.py").read_text()
    declared = set(re.findall(r'(?:_member|_global|FunctionDecl)\(\s*"([\w.]+)"', source))
    assert len(declared) == 30, declared
    assert declared == {name for name, _ in celfuzz.MEMBERS + celfuzz.GLOBALS}
