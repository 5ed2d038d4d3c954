"""Golden cases: golden/<case>/*.yaml are the inputs, expected.out.yaml the rendered output.

Regenerate after an intended change with `pytest tests/test_golden.py --snapshot-update`
and review the diff of golden/ as the spec of the change.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import GOLDEN, GOLDEN_SEED, ORACLE, need

from conftest import build
from trainc.compiler.sshkeys import SeedFile
from trainc.output import manifests

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


@pytest.mark.parametrize("case", CASES)
def test_golden(case, golden):
    """What `trainc build` prints: the rendered objects and every other document passed through."""
    output = build(inputs(case), ssh_key_seed=key_settings(case))
    assert manifests.select(output, namespace="default").yaml() == golden


def test_golden_outputs_validate_against_real_crds():
    need(ORACLE.exists(), f"the CRD oracle {ORACLE} is not beside this checkout")
    expected = sorted(str(p) for p in GOLDEN.glob("*/expected.out.yaml"))
    assert expected, "no golden outputs"
    result = subprocess.run(
        [sys.executable, str(ORACLE), "--require-core", *expected], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
