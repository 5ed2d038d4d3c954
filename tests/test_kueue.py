"""Kueue: queue labels reach the JobSet, suspend is never written false, MultiKueue TrainJobs render nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import GOLDEN, ROOT

from helpers import build

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
        capture_output=True, text=True, cwd=ROOT, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "managedBy kueue.x-k8s.io/multikueue" in result.stderr
