"""Golden cases: golden/<case>/*.yaml are the inputs, expected.out.yaml the rendered output.

Regenerate after an intended change with `pytest tests/test_golden.py --snapshot-update`
and review the diff of golden/ as the spec of the change.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import GOLDEN, GOLDEN_SEED, ORACLE, need

from trainc.build import build
from trainc.compiler.sshkeys import SeedFile
from trainc.output import manifests
from trainc.trainer import releases

CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def inputs(case: str) -> list[str]:
    """The case's *.yaml and *.json inputs (JSON as the Kubeflow SDK sends it, see tools/golden/sdk-generate.py)."""
    found = [*(GOLDEN / case).glob("*.yaml"), *(GOLDEN / case).glob("*.json")]
    return sorted(str(p) for p in found if not p.name.endswith(".out.yaml"))


def key_settings(case: str):
    """The seed, and the --ssh-keys mode a case's `ssh-keys` file names (with the certificate beside it)."""
    mode = GOLDEN / case / "ssh-keys"
    if not mode.exists():
        return GOLDEN_SEED
    return SeedFile(None, _seed=GOLDEN_SEED, mode=mode.read_text().strip(),
                    cert=str(GOLDEN / case / "sealed-secrets-cert.pem"))


def release(case: str):
    """The Trainer release a case renders for: its `trainer-version` file (as --trainer-version), else the
    newest. Cases named <case>-v2.3 pin the older release where it renders differently."""
    pin = GOLDEN / case / "trainer-version"
    return releases.using(releases.named(pin.read_text().strip()) if pin.exists() else releases.DEFAULT)


@pytest.mark.parametrize("case", CASES)
def test_golden(case, golden):
    """What `trainc build` prints: the rendered objects and every other document passed through."""
    with release(case):
        output = build(inputs(case), ssh_key_seed=key_settings(case))
    assert manifests.select(output, namespace="default").yaml() == golden


def test_pinned_cases_differ_from_the_newest_release():
    """A v2.3 variant exists only where the release changes the output, and the newest renders its case."""
    pinned = [case for case in CASES if (GOLDEN / case / "trainer-version").exists()]
    assert pinned
    for case in pinned:
        newest = case.removesuffix("-" + (GOLDEN / case / "trainer-version").read_text().strip())
        assert newest in CASES and newest != case
        output = build(inputs(case), ssh_key_seed=key_settings(case))
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
