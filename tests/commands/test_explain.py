"""`trainc explain`: the provenance recorded while compiling, printed per leaf field.

Exact output for a Torch, an MPI and a runtime-patch golden case is kept beside
the case as golden/<case>/expected.explain.txt; after an intended change,
regenerate with `TRAINC_UPDATE_EXPLAIN=1 pytest tests/commands/test_explain.py` and review.
"""

from __future__ import annotations

import os

import pytest
from conftest import GOLDEN, GOLDEN_SEED, ROOT
from helpers import GOLDEN_CASES, golden_inputs, golden_release, key_settings, run, trainjob

from helpers import build
from trainc.commands.explain import explain
from trainc.engine import Options
from trainc.output import manifests

EXPLAINED = ("torch-env-order", "mpi-env-order", "patch-two-managers-node-selector", "patch-sidecar-volumes-env")
PET_NNODES = "spec.replicatedJobs[node].template.spec.template.spec.containers[node].env[PET_NNODES]"


def relative(case: str) -> list[str]:
    return [os.path.relpath(path, ROOT) for path in golden_inputs(case)]


@pytest.mark.parametrize("case", EXPLAINED)
def test_explain_golden(case):
    result = run("explain", *relative(case), cwd=ROOT)
    assert result.returncode == 0, result.stderr
    expected = GOLDEN / case / "expected.explain.txt"
    if os.environ.get("TRAINC_UPDATE_EXPLAIN") == "1":
        expected.write_text(result.stdout)
    assert result.stdout == expected.read_text()


def test_one_field(tmp_path):
    (tmp_path / "trainjob.yaml").write_text(trainjob())
    result = run("explain", "trainjob.yaml", "--job", "team-a/demo", "--field", PET_NNODES, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout
        == f"""\
JobSet team-a/demo
  {PET_NNODES}.name ← torch plugin, from trainjob.yaml:10:15 (spec.trainer.numNodes)
  {PET_NNODES}.value ← torch plugin, from trainjob.yaml:10:15 (spec.trainer.numNodes)
"""
    )


def test_field_and_job_that_name_nothing_are_usage_errors():
    missing_field = run("explain", *relative("torch-env-order"), "--field", "spec.nothing[here]", cwd=ROOT)
    assert (missing_field.returncode, missing_field.stdout) == (2, "")
    assert "no rendered object has the field 'spec.nothing[here]'" in missing_field.stderr
    missing_job = run("explain", *relative("torch-env-order"), "--job", "default/other", cwd=ROOT)
    assert (missing_job.returncode, missing_job.stdout) == (2, "")
    assert "no TrainJob default/other is rendered from the inputs" in missing_job.stderr


def test_invalid_input_is_reported_as_build_reports_it(tmp_path):
    bad = tmp_path / "job.yaml"
    bad.write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: x\n"
        "spec:\n  runtimeRef:\n    name: torch-distributed\n  trainer:\n    numNodes: two\n"
    )
    result = run("explain", str(bad))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"{bad}:9:15: spec.trainer.numNodes: ")


def test_values_are_never_printed():
    """An MPI case's Secret holds a private key: explain names its fields only."""
    secret = next(
        obj
        for obj in build(golden_inputs("mpi-env-order"), ssh_key_seed=GOLDEN_SEED).documents()
        if obj["kind"] == "Secret"
    )
    text = (GOLDEN / "mpi-env-order" / "expected.explain.txt").read_text()
    assert "data.ssh-privatekey ← mpi plugin" in text
    assert all(value not in text for value in secret["data"].values()) and "BEGIN" not in text


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_recording_changes_no_output(case, golden):
    """Every golden case renders byte-identically with provenance recorded, and every leaf is accounted for."""
    output = build(
        golden_inputs(case), ssh_key_seed=key_settings(case), provenance=True, trainer_version=golden_release(case)
    )
    recorder = output.provenance
    assert manifests.select(output, namespace="default").yaml() == golden
    assert set(recorder.units) == {(trainjob.namespace, trainjob.name) for trainjob, _ in output.jobs}


def test_docs_examples_are_tested_output(tmp_path):
    readme = (ROOT / "docs" / "commands" / "explain.md").read_text()
    (tmp_path / "trainjob.yaml").write_text(trainjob())
    field = run("explain", "trainjob.yaml", "--field", PET_NNODES, cwd=tmp_path).stdout
    assert f"```text\n$ trainc explain trainjob.yaml --field '{PET_NNODES}'\n{field}```\n" in readme
    quoted = readme.split("From `golden/torch-env-order/expected.explain.txt`:\n\n", 1)[1].split("```text\n", 1)[1]
    quoted = quoted.split("```", 1)[0]
    golden = (GOLDEN / "torch-env-order" / "expected.explain.txt").read_text().splitlines()
    assert quoted and all(f"  {line.strip()}" in golden for line in quoted.splitlines())


def test_mpi_node_image_says_the_trainer_image_reaches_only_the_launcher(tmp_path):
    """Until v2.4 upstream applies spec.trainer.image to the `trainer` ancestor step's job only: DeepSpeed's node
    pods keep the runtime's image, and explain says so there (and only there); from v2.4 the override writes it."""
    (tmp_path / "ds.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        "  name: ds\nspec:\n  runtimeRef:\n    name: deepspeed-distributed\n"
        "  trainer:\n    image: example.com/mine:1\n    numNodes: 2\n"
    )
    old = explain([str(tmp_path / "ds.yaml")], Options(ssh_key_seed=bytes(32), trainer_version="v2.3"))
    lines = [line for line in old.splitlines() if line.endswith("image") or "reaches only the launcher" in line]
    note = (
        f"; spec.trainer.image ({tmp_path}/ds.yaml:9:12) reaches only the launcher, as upstream until v2.4 "
        "(--trainer-version): these MPI node pods run the runtime's image, which must hold the same code and "
        "packages"
    )
    assert [line.split(" ← ")[0].strip() for line in lines] == [
        "spec.replicatedJobs[node].template.spec.template.spec.containers[node].image"
    ]
    assert lines[0].endswith(note)
    newest = explain([str(tmp_path / "ds.yaml")], Options(ssh_key_seed=bytes(32)))
    assert "reaches only the launcher" not in newest
    assert "spec.replicatedJobs[node].template.spec.template.spec.containers[node].image ← trainer override" in newest
