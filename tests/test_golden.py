"""Golden cases: golden/<case>/*.yaml are the inputs, expected.out.yaml the rendered output.

Regenerate after an intended change with `pytest tests/test_golden.py --snapshot-update`
and review the diff of golden/ as the spec of the change.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import GOLDEN, ORACLE, need
from helpers import build, GOLDEN_CASES, golden_inputs, golden_release, key_settings

from trainc.output import manifests


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_golden(case, golden):
    """What `trainc build` prints: the rendered objects and every other document passed through."""
    output = build(golden_inputs(case), ssh_key_seed=key_settings(case), trainer_version=golden_release(case))
    assert manifests.select(output, namespace="default").yaml() == golden


def test_pinned_cases_differ_from_the_newest_release():
    """A v2.3 variant exists only where the release changes the output, and the newest renders its case."""
    pinned = [case for case in GOLDEN_CASES if (GOLDEN / case / "trainer-version").exists()]
    assert pinned
    for case in pinned:
        newest = case.removesuffix("-" + (GOLDEN / case / "trainer-version").read_text().strip())
        assert newest in GOLDEN_CASES and newest != case
        output = build(golden_inputs(case), ssh_key_seed=key_settings(case))
        newest_output = (GOLDEN / newest / "expected.out.yaml").read_text()
        assert manifests.select(output, namespace="default").yaml() == newest_output
        assert newest_output != (GOLDEN / case / "expected.out.yaml").read_text()


def test_golden_outputs_validate_against_real_crds():
    need(ORACLE.exists(), f"the CRD oracle {ORACLE} is not beside this checkout")
    expected = sorted(str(p) for p in GOLDEN.glob("*/expected.out.yaml"))
    assert expected, "no golden outputs"
    result = subprocess.run(
        [sys.executable, str(ORACLE), "--require-core", *expected], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
