"""`trainc diff --base-trainer-version`: the upgrade report for the pull request that changes a project's pin.

Run over every golden case from v2.3 to v2.4, it must name each MPI JobSet the release changes as refused in
place (with the JobSet webhook's reason), and every other JobSet as unchanged.
"""

from __future__ import annotations

import pytest
from conftest import GOLDEN
from helpers import build, run
from helpers import GOLDEN_CASES as CASES, golden_inputs as inputs, key_settings

from trainc.commands import diff
from trainc.engine import Options
from trainc.trainer import releases

V23 = releases.named("v2.3")
WEBHOOK = "the JobSet webhook refuses this update of JobSet"


def rendered_jobsets(case: str, release) -> dict:
    output = build(inputs(case), ssh_key_seed=key_settings(case), trainer_version=release.name)
    return {obj["metadata"]["name"]: obj for obj in output.documents() if obj["kind"] == "JobSet"}


def is_mpi(jobset: dict) -> bool:
    return any(
        volume.get("name") == "mpi-ssh-auth"
        for rjob in jobset["spec"]["replicatedJobs"]
        for volume in rjob["template"]["spec"]["template"]["spec"].get("volumes", ())
    )


def launches_open_mpi(jobset: dict) -> bool:
    return any(
        entry["name"] == "OMPI_MCA_orte_default_hostfile"
        for rjob in jobset["spec"]["replicatedJobs"]
        for container in rjob["template"]["spec"]["template"]["spec"]["containers"]
        for entry in container.get("env", ())
    )


@pytest.mark.parametrize("case", [case for case in CASES if not (GOLDEN / case / "trainer-version").exists()])
def test_the_report_over_every_golden_case_from_v23_to_v24(case):
    verdicts = {
        d.name: d
        for d in diff.compare(inputs(case), Options(ssh_key_seed=key_settings(case)), base_release=V23)
        if d.kind == "JobSet"
    }
    old, new = rendered_jobsets(case, V23), rendered_jobsets(case, releases.DEFAULT)
    assert set(verdicts) == set(new)
    for name, jobset in new.items():
        verdict = verdicts[name]
        if not is_mpi(jobset) or old[name] == jobset:
            assert (verdict.change, verdict.effect, verdict.reasons) == ("unchanged", diff.UNCHANGED, []), name
            continue
        assert (verdict.change, verdict.effect) == ("changed", diff.UPGRADE_REFUSED), name
        (reason,) = verdict.reasons
        assert WEBHOOK in reason and "field is immutable" in reason
    # an Open MPI launcher always changes: the PRTE env is new in v2.4
    assert all(
        verdicts[name].effect == diff.UPGRADE_REFUSED for name, jobset in new.items() if launches_open_mpi(jobset)
    )


MPI_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
  labels: {labels}
spec:
  suspend: {suspend}
  runtimeRef:
    name: {runtime}
  trainer:
    numNodes: 2
"""


def write_jobs(tmp_path):
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / "held.yaml").write_text(
        MPI_JOB.format(name="held", labels="{}", suspend="true", runtime="deepspeed-distributed")
    )
    (jobs / "queued.yaml").write_text(
        MPI_JOB.format(
            name="queued", labels="{kueue.x-k8s.io/queue-name: gpu}", suspend="false", runtime="deepspeed-distributed"
        )
    )
    (jobs / "torch.yaml").write_text(
        MPI_JOB.format(name="torch", labels="{}", suspend="false", runtime="torch-distributed")
    )
    (tmp_path / "seed").write_bytes(bytes(range(64)))
    (tmp_path / "seed").chmod(0o600)
    return ["jobs", "--ssh-key-seed", "seed"]


def test_suspended_and_queued_jobs_are_called_out_with_the_release_note(tmp_path):
    args = write_jobs(tmp_path)
    result = run("diff", "--base-trainer-version", "v2.3", *args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Kubeflow Trainer v2.3 -> v2.4; its release note: {releases.DEFAULT.note}"
    assert f"JobSet team-a/held changed: {diff.UPGRADE_REFUSED}" in lines
    assert f"JobSet team-a/torch unchanged: {diff.UNCHANGED}" in lines
    assert f"! {diff.SUSPENDED}" in lines
    assert "! " + diff.QUEUED.format(queue="gpu") in lines
    assert lines[-1] == "0 added, 2 changed, 0 removed, 5 unchanged (2 refused by the cluster; 2 suspended or queued)"


def test_the_markdown_report_has_a_verdict_per_object_and_a_section_per_change(tmp_path):
    args = write_jobs(tmp_path)
    result = run("diff", "--base-trainer-version", "v2.3", "--format", "markdown", *args, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    text = result.stdout
    assert text.startswith("**trainc diff** (Kubeflow Trainer v2.3 -> v2.4; its release note: ")
    assert f"| `JobSet team-a/held` | changed | {diff.UPGRADE_REFUSED} **(suspended)** |" in text
    assert f"| `JobSet team-a/queued` | changed | {diff.UPGRADE_REFUSED} **(managed by Kueue)** |" in text
    assert f"| `JobSet team-a/torch` | unchanged | {diff.UNCHANGED} |" in text
    assert "#### `JobSet team-a/held` changed" in text and "#### `JobSet team-a/torch`" not in text
    assert "+ name: PRTE_MCA_prte_default_hostfile" in text


def test_the_same_release_on_both_sides_changes_nothing(tmp_path):
    args = write_jobs(tmp_path)
    result = run("diff", "--base-trainer-version", "v2.4", *args, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 added, 0 changed, 0 removed, 7 unchanged (2 suspended or queued)"
    pinned = run("diff", "--base-trainer-version", "v2.3", "--trainer-version", "v2.3", *args, cwd=tmp_path)
    assert pinned.returncode == 0 and " changed: " not in pinned.stdout
