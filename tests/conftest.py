"""Shared test fixtures: the golden-case snapshot extension and paths."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"
SHARED = ROOT.parent / "shared"
ORACLE = SHARED / "oracle" / "validate_manifests.py"
GOLDEN_SEED = (ROOT / "tests" / "golden-ssh-seed").read_bytes()
IN_CI = os.environ.get("CI") == "true"
# The run's CEL compile cache (trainc.k8s.celcache) in a folder of this session's, never the user's: every
# test after the first that compiles an expression reads it back, in this process or a `trainc` it starts.
os.environ["TRAINC_CACHE_DIR"] = tempfile.mkdtemp(prefix="trainc-test-cache-")
atexit.register(shutil.rmtree, os.environ["TRAINC_CACHE_DIR"], True)


def need(condition: bool, reason: str) -> None:
    """Skip when a tool or file is missing locally; in CI (which installs it all) fail instead."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI installs it, so this is a failure there)")
    pytest.skip(reason)


class GoldenExtension(SingleFileSnapshotExtension):
    """Stores a case's expected output as golden/<case>/expected.out.yaml, beside its inputs."""

    file_extension = "out.yaml"
    _write_mode = WriteMode.TEXT

    @classmethod
    def dirname(cls, *, test_location) -> str:
        case = test_location.testname.partition("[")[2].rstrip("]")
        return str(GOLDEN / case)

    @classmethod
    def discovery_dirname(cls, *, test_location) -> str:
        """Scan golden/ as a shared directory, so syrupy claims only expected.out.yaml files
        and never treats a case's input files as stale snapshots (or deletes them on update)."""
        return str(GOLDEN)

    @classmethod
    def get_snapshot_name(cls, *, test_location, index=0) -> str:
        return "expected"


@pytest.fixture
def golden(snapshot):
    return snapshot.use_extension(GoldenExtension)
