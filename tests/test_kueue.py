"""Kueue: queue labels reach the JobSet, suspend is never written false, MultiKueue TrainJobs render nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import GOLDEN, ROOT

from helpers import QUEUED_TRAINJOB, build

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  labels:
    kueue.x-k8s.io/queue-name: team-queue
    kueue.x-k8s.io/priority-class: low
    kueue.x-k8s.io/other: not-copied
spec:
  runtimeRef:
    name: torch-distributed
{extra}"""


def jobset(tmp_path: Path, extra: str) -> dict:
    path = tmp_path / "job.yaml"
    path.write_text(TRAINJOB.format(name="queued", extra=extra))
    (document,) = build([str(path)]).documents()
    assert document["kind"] == "JobSet"
    return document


def test_only_the_queue_and_priority_labels_are_copied(tmp_path):
    labels = jobset(tmp_path, "")["metadata"]["labels"]
    assert labels == {
        "kueue.x-k8s.io/queue-name": "team-queue",
        "kueue.x-k8s.io/priority-class": "low",
        "trainer.kubeflow.org/trainjob-name": "queued",
    }


def test_suspend_true_reaches_the_jobset(tmp_path):
    assert jobset(tmp_path, "  suspend: true\n")["spec"]["suspend"] is True


def test_suspend_false_is_never_written(tmp_path):
    assert "suspend" not in jobset(tmp_path, "  suspend: false\n")["spec"]


def test_multikueue_renders_nothing_and_says_why():
    output = build([str(GOLDEN / "kueue-multikueue" / "trainjob.yaml")])
    assert output.documents() == []
    # at spec.managedBy, so `trainc validate -o json` and `--format github` place it
    assert [notice.render() for notice in output.notices] == [
        f"notice: {GOLDEN / 'kueue-multikueue' / 'trainjob.yaml'}:13:14: default/dispatched: managedBy "
        "kueue.x-k8s.io/multikueue: MultiKueue runs this TrainJob on a worker cluster, so no objects are rendered for it"
    ]


def test_multikueue_notice_goes_to_stderr_with_empty_stdout():
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "build", "golden/kueue-multikueue/trainjob.yaml"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "managedBy kueue.x-k8s.io/multikueue" in result.stderr


def queued(nodes: int) -> str:
    return QUEUED_TRAINJOB.format(
        name="train", queue="team-a-gpu", nodes=nodes, resources="limits: {nvidia.com/gpu: 8}"
    )


def test_the_platforms_queues_reach_the_check_without_being_deployed_with_the_app(tmp_path):
    """Issue 20: ClusterQueues and ResourceFlavors kept in the platform's folder (`--kueue`, the config's
    `kueue-paths`) are what admissibility is checked against, on every route of the one run; they never pass
    through, so an app's render does not deploy them."""
    from helpers import QUEUES, run, write

    write(tmp_path, "platform/kueue/queues.yaml", QUEUES)
    write(tmp_path, "jobs/train.yaml", queued(5))
    unchecked = run("validate", "jobs", cwd=tmp_path)
    assert unchecked.returncode == 0, unchecked.stderr  # no Kueue object known: nothing to check against
    refused = run("validate", "jobs", "--kueue", "platform/kueue", cwd=tmp_path)
    assert refused.returncode == 1
    assert (
        "jobs/train.yaml:7:32: metadata.labels[kueue.x-k8s.io/queue-name]: Kueue can never admit this TrainJob: "
        "pod set 'node' (5 pods) needs 40 nvidia.com/gpu"
    ) in refused.stderr
    write(tmp_path, ".trainc.yaml", "kueue-paths: [platform/kueue]\n")
    configured = run("build", "jobs", cwd=tmp_path)
    assert configured.returncode == 1 and configured.stdout == ""
    assert "Kueue can never admit this TrainJob" in configured.stderr
    write(tmp_path, "jobs/train.yaml", queued(2))
    fits = run("build", "jobs", cwd=tmp_path)
    assert fits.returncode == 0, fits.stderr
    assert "kind: JobSet" in fits.stdout and "ClusterQueue" not in fits.stdout and "LocalQueue" not in fits.stdout
    shown = run("config", cwd=tmp_path)
    assert ".trainc.yaml:1:15\tkueue-paths=platform/kueue\n" in shown.stdout


def test_a_kueue_path_outside_the_repository_is_refused_as_runtimes_are(tmp_path):
    from helpers import run, write

    write(tmp_path, "repo/jobs/train.yaml", queued(2))
    write(tmp_path, "repo/.trainc.yaml", "kueue-paths: [../elsewhere]\n")
    (tmp_path / "repo" / ".git").mkdir()
    result = run("validate", "jobs", cwd=tmp_path / "repo")
    assert result.returncode == 1 and "kueue-paths" in result.stderr, result.stderr
