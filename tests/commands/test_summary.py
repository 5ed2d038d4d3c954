"""`trainc summary` and the requests delta of `trainc diff`: golden outputs (text, Markdown, JSON) of
golden/summary-kueue-queues against the base tests/summary-base, kept as snapshots
(tests/commands/__snapshots__/test_summary.ambr; `--snapshot-update` after an intended change)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import ROOT

from helpers import build
from trainc.cli import cli
from trainc.validation import requests

CASE = ("golden/summary-kueue-queues/queues.yaml", "golden/summary-kueue-queues/trainjobs.yaml")
BASE = "tests/summary-base"


def trainc(*args, stdin: str | None = None) -> str:
    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2 mixes stderr into stdout by default
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli, list(args), catch_exceptions=False, input=stdin)
    return f"$ trainc {' '.join(args)}\n{result.stdout}{result.stderr}exit {result.exit_code}\n"


@pytest.mark.parametrize("output_format", ["text", "markdown", "json"])
def test_summary_golden(output_format, snapshot, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert trainc("summary", *CASE, "--format", output_format) == snapshot


@pytest.mark.parametrize("output_format", ["text", "markdown"])
def test_summary_and_diff_delta_golden(output_format, snapshot, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert (
        trainc("summary", *CASE, "--base", BASE, "--format", output_format)
        + trainc("diff", *CASE, "--base", BASE, "--format", output_format, "--color", "never")
        == snapshot
    )


PLACEMENT = ("golden/kueue-placement/queues.yaml", "golden/kueue-placement/trainjobs.yaml")
STATE = "golden/kueue-placement/cluster/state.json"


@pytest.mark.parametrize("output_format", ["text", "markdown", "json"])
def test_summary_on_a_cluster_state_golden(output_format, snapshot, monkeypatch):
    """golden/kueue-placement on its cluster state: a job admissible now by borrowing, one Kueue moves to the
    tainted flavor it tolerates because a100 is full, one that preempts a lower priority, one that waits in a
    StrictFIFO queue."""
    monkeypatch.chdir(ROOT)  # on stdin, taken now: no notice that the snapshot is older than the commit
    assert (
        trainc(
            "summary", *PLACEMENT, "--cluster-state", "-", "--format", output_format, stdin=(ROOT / STATE).read_text()
        )
        == snapshot
    )


def test_totals_count_every_pod_as_kueue_does(monkeypatch):
    monkeypatch.chdir(ROOT)
    found = {job.name: job for job in requests.jobs(build(CASE))}
    llm = found["llm"]
    assert (llm.queue, llm.nodes, llm.processes) == ("team-a-gpu", 6, "auto")
    # limits stand in for the missing GPU request, as Kueue counts them
    assert llm.per_node == {"cpu": 32000, "memory": 256 << 30, "nvidia.com/gpu": 8}
    assert llm.total == {"cpu": 192000, "memory": 1536 << 30, "nvidia.com/gpu": 48}
    assert found["boosted"].queue == "default"  # team-b's `default` LocalQueue, which Kueue assigns
    assert found["notebook-check"].queue is None


def test_delta_signs_and_removed_queues():
    def job(queue, gpus):
        return requests.Job("ns", "j", queue, 1, "1", {}, {"nvidia.com/gpu": gpus})

    changes = requests.delta([job("a", 8), job("gone", 4)], [job("a", 40), job(None, 0)])
    assert requests.delta_lines(changes) == ["+32 nvidia.com/gpu on ns/a", "-4 nvidia.com/gpu on ns/gone"]
    assert requests.delta([job("a", 8)], [job("a", 8)]) == []


def test_json_has_queues_and_delta(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["summary", *CASE, "--base", BASE, "--format", "json"])
    data = json.loads(result.stdout)
    assert {"namespace": "team-a", "queue": "team-a-gpu", "resource": "nvidia.com/gpu", "change": "+34"} in data[
        "delta"
    ]
    assert {"namespace": "team-a", "queue": None, "total": {"cpu": "2", "memory": "8Gi"}} in data["queues"]


def test_a_base_that_is_no_revision_is_a_usage_error(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["summary", *CASE, "--base", "no-such-revision-xyz"])
    assert result.exit_code == 2 and "--base" in result.output


def test_invalid_input_is_reported_as_build_reports_it(tmp_path):
    (tmp_path / "job.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata: {name: x}\nspec: {runtimeRef: {name: torch-distributed}, bad: 1}\n"
    )
    result = CliRunner().invoke(cli, ["summary", str(tmp_path)])
    assert result.exit_code == 1 and "spec.bad: unknown field" in result.output


def test_an_mpi_launcher_that_runs_as_a_node_is_counted_as_one(tmp_path):
    """deepspeed-distributed runs its launcher as a node: numNodes 4 is one launcher and three `node` pods,
    four hosts in the hostfile, and the summary says 4 nodes (issue 20, finding 8)."""
    (tmp_path / "job.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata: {name: ds, namespace: team-a}\nspec:\n"
        "  runtimeRef: {name: deepspeed-distributed}\n"
        "  trainer:\n    numNodes: 4\n"
        "    resourcesPerNode: {limits: {nvidia.com/gpu: 2}}\n"
    )
    result = CliRunner().invoke(cli, ["summary", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    (job,) = json.loads(result.stdout)["trainJobs"]
    assert job["nodes"] == 4 and job["processesPerNode"] == "2"
    assert job["total"]["nvidia.com/gpu"] == "8"


def test_queues_without_a_namespace_are_read_in_the_run_s_namespace(tmp_path):
    """Under -n, a LocalQueue that sets no namespace is the run's namespace's (kubectl apply -n puts it there):
    summary places the TrainJobs that name it, and the unlabelled ones its `default` LocalQueue takes, as the
    build's Kueue check does (they showed no flavor, and no queue, when summary read the queues in `default`)."""
    (tmp_path / "queues.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: cpu}\n---\n"
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: batch}\nspec:\n"
        "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n"
        "    - name: cpu\n      resources: [{name: cpu, nominalQuota: 100}, {name: memory, nominalQuota: 100Gi}]\n"
        + "".join(
            f"---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: {name}}}\n"
            "spec: {clusterQueue: batch}\n"
            for name in ("batch", "default")
        )
    )
    (tmp_path / "jobs.yaml").write_text(
        "".join(
            f"---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {name}\n{labels}"
            "spec:\n  runtimeRef: {name: torch-distributed}\n  trainer:\n"
            "    resourcesPerNode: {requests: {cpu: 2, memory: 1Gi}}\n"
            for name, labels in (("labelled", "  labels: {kueue.x-k8s.io/queue-name: batch}\n"), ("unlabelled", ""))
        )
    )
    shown = trainc("summary", "-n", "team-a", str(tmp_path / "queues.yaml"), str(tmp_path / "jobs.yaml"))
    rows = {line.split()[0]: line.split()[1:3] for line in shown.splitlines() if line.startswith("team-a/")}
    assert rows["team-a/labelled"] == ["batch", "cpu"] and rows["team-a/unlabelled"] == ["default", "cpu"], shown
