"""`trainc gc` through the CLI, on a repository with running, finished and failed jobs, files holding one job and
files holding several objects: what it lists, what --apply removes (and never), the age cut-off, the live JobSets
on stdin, and bad live input."""

from __future__ import annotations

import json

import pytest
from helpers import run, trainjob, tree, write

NOW = 1_796_083_200  # 2026-12-01T00:00:00Z
DAY = 86400


def _stamp(seconds: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _jobset(
    name: str, namespace: str = "team-a", finished: str | None = None, days: float = 0, reason: str = "AllJobsCompleted"
) -> dict:
    """A live JobSet as `kubectl get jobsets -A -o json` lists it: finished (`Completed` or `Failed`) `days` ago,
    else running."""
    conditions = [
        {
            "type": "StartupPolicyCompleted",
            "status": "True",
            "reason": "AllReplicatedJobsStarted",
            "lastTransitionTime": _stamp(NOW - 40 * DAY),
        }
    ]
    if finished:
        conditions.append(
            {
                "type": finished,
                "status": "True",
                "reason": reason,
                "message": "m",
                "lastTransitionTime": _stamp(NOW - int(days * DAY)),
            }
        )
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": namespace, "creationTimestamp": _stamp(NOW - 40 * DAY)},
        "spec": {"replicatedJobs": []},
        "status": {
            "conditions": conditions,
            "replicatedJobsStatus": [
                {
                    "name": "node",
                    "ready": 0,
                    "succeeded": 0,
                    "failed": 0,
                    "active": 0 if finished else 2,
                    "suspended": 0,
                }
            ],
        },
    }


LIVE = {
    "apiVersion": "v1",
    "kind": "List",
    "metadata": {"resourceVersion": ""},
    "items": [
        _jobset("done", finished="Completed", days=10),
        _jobset("failed", finished="Failed", days=30, reason="FailedJobs"),
        _jobset("running"),
        _jobset("recent", finished="Completed", days=2),
        _jobset("beside-config", finished="Completed", days=9),
        _jobset("first", finished="Completed", days=12),
        _jobset("second", finished="Failed", days=8, reason="FailedJobs"),
        _jobset("half-done", finished="Completed", days=20),
        _jobset("half-running"),
        _jobset("mpi", namespace="default", finished="Completed", days=15),
        _jobset("unrelated", namespace="other", finished="Completed", days=50),
    ],
}
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\ndata:\n  a: b\n"
MPI = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mpi
spec:
  runtimeRef:
    name: deepspeed-distributed
  trainer:
    numNodes: 2
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """jobs/: one file per job (finished, failed, running, recent, one not in the cluster), a finished job beside a
    ConfigMap, two finished jobs in one file, a finished and a running one in one file, an MPI job without a
    namespace (its Secret leaves with it); live.json: the cluster's JobSets."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(NOW))
    for name in ("done", "failed", "running", "recent", "absent"):
        write(tmp_path, f"jobs/{name}.yaml", trainjob(name=name))
    write(tmp_path, "jobs/mixed.yaml", trainjob(name="beside-config") + "---\n" + CONFIG_MAP)
    write(tmp_path, "jobs/two.yaml", trainjob(name="first") + "---\n" + trainjob(name="second"))
    write(tmp_path, "jobs/half.yaml", trainjob(name="half-done") + "---\n" + trainjob(name="half-running"))
    write(tmp_path, "jobs/mpi.yaml", MPI)
    write(tmp_path, "live.json", json.dumps(LIVE, indent=1))
    return tmp_path


LISTED = """\
4 files to remove, 2 files kept: TrainJobs whose JobSet finished more than 7d before 2026-12-01T00:00:00Z
remove jobs/done.yaml
  TrainJob team-a/done: Complete (AllJobsCompleted) at 2026-11-21T00:00:00Z, 10d ago
    JobSet team-a/done
remove jobs/failed.yaml
  TrainJob team-a/failed: Failed (FailedJobs) at 2026-11-01T00:00:00Z, 30d ago
    JobSet team-a/failed
keep jobs/half.yaml: it also holds TrainJob team-a/half-running (line 15, Running)
  TrainJob team-a/half-done: Complete (AllJobsCompleted) at 2026-11-11T00:00:00Z, 20d ago
    JobSet team-a/half-done
keep jobs/mixed.yaml: it also holds ConfigMap team-a/settings (line 15)
  TrainJob team-a/beside-config: Complete (AllJobsCompleted) at 2026-11-22T00:00:00Z, 9d ago
    JobSet team-a/beside-config
remove jobs/mpi.yaml
  TrainJob default/mpi: Complete (AllJobsCompleted) at 2026-11-16T00:00:00Z, 15d ago
    Secret default/mpi-mpi-ssh-auth
    ConfigMap default/mpi-mpi-hostfile
    JobSet default/mpi
remove jobs/two.yaml
  TrainJob team-a/first: Complete (AllJobsCompleted) at 2026-11-19T00:00:00Z, 12d ago
    JobSet team-a/first
  TrainJob team-a/second: Failed (FailedJobs) at 2026-11-23T00:00:00Z, 8d ago
    JobSet team-a/second
"""


def test_lists_the_finished_files_and_what_leaves_with_them(repo):
    before = tree(repo)
    result = run("gc", "--live", "live.json", "jobs", cwd=repo)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == LISTED
    assert tree(repo) == before  # without --apply nothing is touched


def test_apply_removes_exactly_those_files_and_never_one_holding_anything_else(repo):
    mixed, half = (repo / "jobs/mixed.yaml").read_bytes(), (repo / "jobs/half.yaml").read_bytes()
    result = run("gc", "--live", "live.json", "--apply", "jobs", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith("4 files removed, 2 files kept: ")
    assert [line for line in result.stdout.splitlines() if not line.startswith(" ")][1:] == [
        "removed jobs/done.yaml",
        "removed jobs/failed.yaml",
        "keep jobs/half.yaml: it also holds TrainJob team-a/half-running (line 15, Running)",
        "keep jobs/mixed.yaml: it also holds ConfigMap team-a/settings (line 15)",
        "removed jobs/mpi.yaml",
        "removed jobs/two.yaml",
    ]
    assert sorted(path.name for path in (repo / "jobs").iterdir()) == [
        "absent.yaml",
        "half.yaml",
        "mixed.yaml",
        "recent.yaml",
        "running.yaml",
    ]
    assert (repo / "jobs/mixed.yaml").read_bytes() == mixed and (repo / "jobs/half.yaml").read_bytes() == half
    again = run("gc", "--live", "live.json", "--apply", "jobs", cwd=repo)  # what is left builds, and stays
    assert again.returncode == 0 and again.stdout.splitlines()[0].startswith("0 files removed, 2 files kept")


def test_the_age_cut_off(repo):
    def listed(*flags):
        result = run("gc", "--live", "live.json", "-o", "json", *flags, "jobs", cwd=repo)
        assert result.returncode == 0, result.stderr
        return {job["name"] for file in json.loads(result.stdout)["files"] for job in file["trainJobs"]}

    every = {"done", "failed", "beside-config", "first", "second", "half-done", "mpi"}
    assert listed() == every
    assert listed("--older-than", "1d12h") == every | {"recent"}
    assert listed("--older-than", "15d") == {"failed", "half-done"}  # exactly 15 days is not more than 15 days
    assert listed("--older-than", "60d") == set()


def test_json(repo):
    result = run("gc", "--live", "live.json", "-o", "json", "jobs/mpi.yaml", "jobs/mixed.yaml", cwd=repo)
    assert json.loads(result.stdout) == {
        "now": "2026-12-01T00:00:00Z",
        "olderThanSeconds": 7 * DAY,
        "applied": False,
        "files": [
            {
                "file": "jobs/mixed.yaml",
                "remove": False,
                "removed": False,
                "alsoHolds": ["ConfigMap team-a/settings (line 15)"],
                "trainJobs": [
                    {
                        "namespace": "team-a",
                        "name": "beside-config",
                        "state": "Complete",
                        "reason": "AllJobsCompleted",
                        "finished": "2026-11-22T00:00:00Z",
                        "objects": [
                            {
                                "apiVersion": "jobset.x-k8s.io/v1alpha2",
                                "kind": "JobSet",
                                "namespace": "team-a",
                                "name": "beside-config",
                            }
                        ],
                    }
                ],
            },
            {
                "file": "jobs/mpi.yaml",
                "remove": True,
                "removed": False,
                "alsoHolds": [],
                "trainJobs": [
                    {
                        "namespace": "default",
                        "name": "mpi",
                        "state": "Complete",
                        "reason": "AllJobsCompleted",
                        "finished": "2026-11-16T00:00:00Z",
                        "objects": [
                            {"apiVersion": "v1", "kind": "Secret", "namespace": "default", "name": "mpi-mpi-ssh-auth"},
                            {
                                "apiVersion": "v1",
                                "kind": "ConfigMap",
                                "namespace": "default",
                                "name": "mpi-mpi-hostfile",
                            },
                            {
                                "apiVersion": "jobset.x-k8s.io/v1alpha2",
                                "kind": "JobSet",
                                "namespace": "default",
                                "name": "mpi",
                            },
                        ],
                    }
                ],
            },
        ],
    }


def test_live_jobsets_on_stdin_and_matched_in_the_namespace_they_render_to(repo):
    live = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [_jobset("done", finished="Completed", days=10), _jobset("done", namespace="elsewhere")],
        }
    )
    result = run("gc", "--live", "-", "jobs/done.yaml", cwd=repo, stdin=live)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == "remove jobs/done.yaml"
    # the same name in another namespace is another JobSet
    moved = live.replace('"team-a"', '"team-b"')
    assert run("gc", "--live", "-", "jobs/done.yaml", cwd=repo, stdin=moved).stdout.startswith("0 files to remove")


@pytest.mark.parametrize(
    ("item", "error"),
    [
        (
            {"lastTransitionTime": "yesterday"},
            "live.json:{line}:{column}: items[0].status.conditions[1].lastTransitionTime: 'yesterday' is not an RFC 3339 "
            "time (e.g. 2026-01-02T15:04:05Z)",
        ),
        ({"lastTransitionTime": "2026-02-30T10:00:00Z"}, "'2026-02-30T10:00:00Z' is not an RFC 3339 time"),
        ({"lastTransitionTime": None}, "items[0].status.conditions[1]: a Completed condition needs lastTransitionTime"),
        ({"namespace": None}, "items[0].metadata: metadata.namespace is required"),
        ({"kind": "Job"}, "items[0].kind: expected a JobSet (jobset.x-k8s.io), not jobset.x-k8s.io/v1alpha2 Job"),
        ({"status": "done"}, "items[0].status: must be an object"),
    ],
)
def test_bad_live_input_is_an_error_at_its_place(repo, item, error):
    jobset = _jobset("done", finished="Completed", days=10)
    for key, value in item.items():
        if key == "lastTransitionTime":
            jobset["status"]["conditions"][1].pop(key)
            if value is not None:
                jobset["status"]["conditions"][1][key] = value
        elif key == "namespace":
            del jobset["metadata"]["namespace"]
        else:
            jobset[key] = value
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [jobset]}, indent=1)
    write(repo, "live.json", text)
    result = run("gc", "--live", "live.json", "--apply", "jobs", cwd=repo)
    assert (result.returncode, result.stdout) == (1, "")
    assert (repo / "jobs/done.yaml").exists()
    [line] = result.stderr.splitlines()
    if "{line}" in error:
        at = text.index('"yesterday"')
        error = error.format(line=text.count("\n", 0, at) + 1, column=at - text.rindex("\n", 0, at))
        assert line == error
    else:
        assert line.startswith("live.json:") and error in line, line


def test_a_jobset_listed_twice_and_input_past_the_bound(repo):
    twice = json.dumps({"apiVersion": "v1", "kind": "List", "items": [_jobset("done"), _jobset("done")]}, indent=1)
    write(repo, "twice.json", twice)
    result = run("gc", "--live", "twice.json", "jobs", cwd=repo)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0].split(": ", 2)[1:] == [
        "items[1].metadata.name",
        "JobSet team-a/done is listed twice (first at twice.json:9:13)",
    ]
    big = run("gc", "--max-input-bytes", "100", "--live", "live.json", "jobs", cwd=repo)
    assert (big.returncode, big.stdout) == (1, "")
    assert big.stderr.startswith("live.json:1:1: the inputs of this run exceed 100 bytes")
    invalid = run("gc", "--live", "-", "jobs", cwd=repo, stdin="{not json")
    assert invalid.returncode == 1 and invalid.stderr.startswith("<stdin>:1:2: invalid JSON")


def test_usage_errors(repo):
    assert run("gc", "--live", "live.json", "-", cwd=repo, stdin="").returncode == 2
    bad = run("gc", "--live", "live.json", "--older-than", "7 days", "jobs", cwd=repo)
    assert bad.returncode == 2 and "'7 days' is not a duration such as 7d, 36h, 90m or 1d12h" in bad.stderr
    assert run("gc", "jobs", cwd=repo).returncode == 2  # --live is required


def test_invalid_repository_input_removes_nothing(repo):
    write(repo, "jobs/done.yaml", trainjob(name="done", extra="  trainer:\n    numNodes: x\n"))
    result = run("gc", "--live", "live.json", "--apply", "jobs", cwd=repo)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "jobs/done.yaml:10:15: spec.trainer.numNodes: must be an integer, not string\n"
    assert (repo / "jobs/failed.yaml").exists()


def test_the_docs_example(repo):
    """docs/commands/gc.md's example is what gc prints on this repository."""
    from conftest import ROOT

    page = (ROOT / "docs/commands/gc.md").read_text()
    block = page.split("<!-- tested-by: tests/commands/test_gc.py::test_the_docs_example -->\n```text\n")[1]
    command, _, shown = block.split("\n```\n")[0].partition("\n")
    assert command == "$ kubectl get jobsets -A -o json | trainc gc --live - jobs/"
    result = run("gc", "--live", "-", "jobs/", cwd=repo, stdin=(repo / "live.json").read_text())
    assert (result.returncode, result.stdout) == (0, shown + "\n")


def test_durations():
    from trainc.commands.gc import duration

    assert [duration(text) for text in ("0s", "90m", "36h", "1d12h", "7d")] == [0, 5400, 129600, 129600, 604800]
    for text in ("", "7", "d", "7w", "-1d", "1.5d", "7d ", "٧d"):
        with pytest.raises(ValueError):
            duration(text)


def test_the_objects_that_leave_are_those_build_renders_with_the_same_settings(repo):
    result = run("gc", "--live", "live.json", "--ssh-keys", "external-secrets", "jobs/mpi.yaml", cwd=repo)
    assert result.stdout.splitlines()[3:] == [
        "    SSHKey default/mpi-mpi-ssh-auth",
        "    ExternalSecret default/mpi-mpi-ssh-auth",
        "    ConfigMap default/mpi-mpi-hostfile",
        "    JobSet default/mpi",
    ]


def test_a_runtime_beside_a_finished_job_keeps_the_file(repo):
    runtime = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: mine\n"
        "spec:\n  mlPolicy: {numNodes: 1, torch: {}}\n  template:\n    spec:\n      replicatedJobs:\n"
        "        - name: node\n          template:\n            metadata:\n              labels:\n"
        "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
        "            spec: {template: {spec: {containers: [{name: node, image: i}]}}}\n"
    )
    write(repo, "jobs/done.yaml", trainjob(name="done", runtime="mine") + "---\n" + runtime)
    result = run("gc", "--live", "live.json", "--apply", "jobs/done.yaml", "jobs/recent.yaml", cwd=repo)
    assert result.stdout.splitlines()[:2] == [
        "0 files removed, 1 file kept: TrainJobs whose JobSet finished more than 7d before 2026-12-01T00:00:00Z",
        "keep jobs/done.yaml: it also holds ClusterTrainingRuntime mine (line 15)",
    ]
    assert (repo / "jobs/done.yaml").exists()


def test_a_job_finished_too_recently_keeps_the_file_it_shares(repo):
    write(repo, "jobs/pair.yaml", trainjob(name="done") + "---\n" + trainjob(name="recent"))
    result = run("gc", "--live", "live.json", "jobs/pair.yaml", cwd=repo)
    assert result.stdout.splitlines()[1] == (
        "keep jobs/pair.yaml: it also holds TrainJob team-a/recent (line 15, Complete 2d ago, not more than 7d)"
    )
