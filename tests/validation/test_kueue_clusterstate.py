"""--cluster-state: where each Kueue-managed TrainJob stands on a cluster's queues and workloads, through the CLI.

The setup is golden/kueue-placement: flavors a100 and h100 (tainted), team-a (borrowingLimit 8 on a100,
preempts lower priorities, BestEffortFIFO) and team-b (32 a100 GPUs lending at most 12, preempts nothing,
StrictFIFO) in the cohort `research`; its cluster state holds team-a's `old-run` (16 a100 GPUs, priority low),
team-b's `sweep-1` (24 GPUs), a finished workload, and pending `urgent` (high), `batch` (low) in team-a and
`queued` in team-b. Each test changes one thing of it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner
from conftest import ROOT

from trainc.cli import cli
from trainc.formats import limits

CASE = ROOT / "golden" / "kueue-placement"


def state() -> dict:
    return json.loads((CASE / "cluster" / "state.json").read_text())


def item(data: dict, kind: str, name: str) -> dict:
    return next(each for each in data["items"] if each["kind"] == kind and each["metadata"]["name"] == name)


def run(
    tmp_path,
    *args,
    queues: str | None = None,
    jobs: str | None = None,
    cluster: dict | None = None,
    command: str = "summary",
):
    (tmp_path / "queues.yaml").write_text(queues or (CASE / "queues.yaml").read_text())
    (tmp_path / "jobs.yaml").write_text(jobs or (CASE / "trainjobs.yaml").read_text())
    (tmp_path / "state.json").write_text(json.dumps(cluster or state(), indent=2))
    extra = ["--format", "json"] if command == "summary" else []
    result = CliRunner().invoke(
        cli,
        [
            command,
            str(tmp_path / "queues.yaml"),
            str(tmp_path / "jobs.yaml"),
            "--cluster-state",
            str(tmp_path / "state.json"),
            *extra,
            *args,
        ],
    )
    return result


def standings(tmp_path, **given) -> dict:
    result = run(tmp_path, **given)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout[result.stdout.index("{") :])
    return {f"{job['namespace']}/{job['name']}": job for job in data["trainJobs"]}


def test_each_job_admissible_preempting_or_waiting(tmp_path):
    found = standings(tmp_path)
    eval_, finetune, pretrain, sweep = (
        found[name]["kueue"] for name in ("team-a/eval", "team-a/finetune", "team-a/pretrain", "team-b/sweep")
    )
    # a100 holds team-a's 16 GPUs: the cohort lends 8 more (team-b lends 12, uses 4 of them; borrowingLimit 8)
    assert (eval_["state"], found["team-a/eval"]["podSets"][0]["flavors"]["nvidia.com/gpu"]) == ("admissible", "a100")
    assert "borrowing from cohort quota" in eval_["message"]
    # a100 would need preempting; whenCanPreempt TryNextFlavor tries h100, whose taint it tolerates, and fits
    assert (finetune["state"], finetune["preempts"]) == ("admissible", [])
    assert found["team-a/finetune"]["podSets"][0]["flavors"]["nvidia.com/gpu"] == "h100"
    # 24 GPUs: more than h100 holds; on a100 only by preempting old-run (priority 100 < high's 1000)
    assert pretrain["state"] == "preempting"
    assert pretrain["preempts"] == [
        {"namespace": "team-a", "name": "jobset-old-run-5f2c1", "clusterQueue": "team-a-gpu", "priority": 100}
    ]
    # team-b uses 24 of 32, 12 lent: 8 unused for it; preempts nothing
    assert sweep["state"] == "waiting"
    assert sweep["waitsFor"] == [{"flavor": "a100", "resource": "nvidia.com/gpu", "amount": "8"}]


def test_pending_workloads_ahead_by_priority_then_creation(tmp_path):
    found = standings(tmp_path)
    # eval (priority 0): urgent (1000) and batch (100) first; finetune (high): only urgent, older at equal priority
    assert found["team-a/eval"]["kueue"]["pendingAhead"] == 2
    assert found["team-a/finetune"]["kueue"]["pendingAhead"] == 1
    assert found["team-a/finetune"]["kueue"]["priority"] == 1000
    # StrictFIFO: one ahead keeps even a job that fits waiting
    data = state()
    item(data, "Workload", "jobset-sweep-1-5f2c1")["status"]["admission"]["podSetAssignments"][0]["resourceUsage"][
        "nvidia.com/gpu"
    ] = "8"
    sweep = standings(tmp_path, cluster=data)["team-b/sweep"]["kueue"]
    assert (sweep["state"], sweep["waitsFor"], sweep["pendingAhead"]) == ("waiting", [], 1)
    assert "StrictFIFO: it admits none past the first" in sweep["message"]
    # BestEffortFIFO in its place: it is admissible, those ahead that fit go first
    queues = (
        (CASE / "queues.yaml").read_text().replace("queueingStrategy: StrictFIFO", "queueingStrategy: BestEffortFIFO")
    )
    assert standings(tmp_path, cluster=data, queues=queues)["team-b/sweep"]["kueue"]["state"] == "admissible"


def test_a_pending_workload_created_later_is_behind(tmp_path):
    data = state()
    item(data, "Workload", "jobset-urgent-5f2c1")["spec"]["priority"] = 0  # eval's priority, created before it
    item(data, "Workload", "jobset-batch-5f2c1")["spec"]["priority"] = -5  # lower: behind it
    assert standings(tmp_path, cluster=data)["team-a/eval"]["kueue"]["pendingAhead"] == 1


@pytest.mark.parametrize(
    "policy, state_",
    [
        ("withinClusterQueue: LowerPriority", "preempting"),
        ("withinClusterQueue: Never", "waiting"),
    ],
)
def test_preemption_only_where_the_cluster_queue_allows_it(tmp_path, policy, state_):
    queues = (CASE / "queues.yaml").read_text().replace("withinClusterQueue: LowerPriority", policy)
    pretrain = standings(tmp_path, queues=queues)["team-a/pretrain"]["kueue"]
    assert pretrain["state"] == state_
    if state_ == "waiting":
        assert pretrain["preempts"] == []
        assert pretrain["waitsFor"] == [{"flavor": "a100", "resource": "nvidia.com/gpu", "amount": "16"}]


@pytest.mark.parametrize(
    "policy, candidate_priority, preempts",
    [
        ("LowerPriority", 1000, False),  # equal priority: not lower
        ("LowerOrNewerEqualPriority", 1000, False),  # equal and older than the incoming job: kept
        ("LowerOrNewerEqualPriority", 100, True),
    ],
)
def test_preemption_policy_weighs_priorities(tmp_path, policy, candidate_priority, preempts):
    queues = (
        (CASE / "queues.yaml").read_text().replace("withinClusterQueue: LowerPriority", f"withinClusterQueue: {policy}")
    )
    data = state()
    item(data, "Workload", "jobset-old-run-5f2c1")["spec"]["priority"] = candidate_priority
    pretrain = standings(tmp_path, queues=queues, cluster=data)["team-a/pretrain"]["kueue"]
    assert (pretrain["state"] == "preempting") is preempts


def test_reclaim_within_cohort_takes_back_lent_quota(tmp_path):
    """team-b borrows a100 GPUs beyond its 32; team-a's finetune fits team-a's nominal 16 and reclaims them when
    reclaimWithinCohort allows; whenCanPreempt MayStopSearch keeps it on a100."""
    data = state()
    for name in ("jobset-old-run-5f2c1",):
        data["items"].remove(item(data, "Workload", name))
    item(data, "Workload", "jobset-sweep-1-5f2c1")["status"]["admission"]["podSetAssignments"][0]["resourceUsage"][
        "nvidia.com/gpu"
    ] = "40"
    queues = (
        (CASE / "queues.yaml").read_text().replace("whenCanPreempt: TryNextFlavor", "whenCanPreempt: MayStopSearch")
    )
    finetune = standings(tmp_path, queues=queues, cluster=data)["team-a/finetune"]
    assert finetune["kueue"]["state"] == "preempting"
    assert [each["name"] for each in finetune["kueue"]["preempts"]] == ["jobset-sweep-1-5f2c1"]
    assert finetune["podSets"][0]["flavors"]["nvidia.com/gpu"] == "a100"
    never = queues.replace("reclaimWithinCohort: Any", "reclaimWithinCohort: Never").replace(
        "    borrowWithinCohort:\n      policy: LowerPriority\n", ""
    )
    finetune = standings(tmp_path, queues=never, cluster=data)["team-a/finetune"]  # nothing to preempt on a100
    assert (finetune["kueue"]["state"], finetune["podSets"][0]["flavors"]["nvidia.com/gpu"]) == ("admissible", "h100")


def test_when_can_borrow_tries_the_next_flavor(tmp_path):
    """With 8 a100 GPUs used, 16 more fit a100 only by borrowing: TryNextFlavor takes h100 (tolerated), which
    fits within its quota; MayStopSearch stays on a100."""
    data = state()
    item(data, "Workload", "jobset-old-run-5f2c1")["status"]["admission"]["podSetAssignments"][0]["resourceUsage"][
        "nvidia.com/gpu"
    ] = "8"
    flavor = standings(tmp_path, cluster=data)["team-a/finetune"]["podSets"][0]["flavors"]["nvidia.com/gpu"]
    assert flavor == "h100"
    queues = (CASE / "queues.yaml").read_text().replace("whenCanBorrow: TryNextFlavor", "whenCanBorrow: MayStopSearch")
    finetune = standings(tmp_path, queues=queues, cluster=data)["team-a/finetune"]
    assert finetune["podSets"][0]["flavors"]["nvidia.com/gpu"] == "a100"
    assert "borrowing from cohort quota" in finetune["kueue"]["message"]


def test_lending_limit_bounds_what_the_cohort_can_borrow(tmp_path):
    """team-b lends 4 instead of 12: pretrain's 24 GPUs exceed team-a's 16 + 4, on any cluster."""
    queues = (CASE / "queues.yaml").read_text().replace("lendingLimit: 12", "lendingLimit: 4")
    result = run(tmp_path, queues=queues)
    assert result.exit_code == 1
    assert (
        "flavor 'a100': 24 nvidia.com/gpu > 20 = nominal quota 16 + at most 4 borrowed in cohort 'research'"
        in result.output
    )


def test_a_job_whose_workload_holds_quota_is_admitted(tmp_path):
    data = state()
    owner = item(data, "Workload", "jobset-old-run-5f2c1")["metadata"]["ownerReferences"][0]
    owner["name"] = "pretrain"
    pretrain = standings(tmp_path, cluster=data)["team-a/pretrain"]["kueue"]
    assert pretrain["state"] == "admitted"
    assert pretrain["message"] == "admitted: its Workload holds quota in ClusterQueue 'team-a-gpu' on a100"


def test_validate_and_diff_say_it_too(tmp_path):
    result = run(tmp_path, command="validate")
    assert result.exit_code == 0, result.output
    assert (
        f"notice: {tmp_path / 'jobs.yaml'}:73:32: team-b/sweep: Kueue: waiting in ClusterQueue 'team-b-gpu' "
        "until it has 8 nvidia.com/gpu more in flavor 'a100' unused"
    ) in result.output


def test_diff_shows_a_flavor_move_and_the_standing(tmp_path):
    """The platform halves team-a's a100 quota: finetune (16 GPUs) now fits a100 only by borrowing, and
    whenCanBorrow TryNextFlavor puts it on h100, whose taint it tolerates; eval (8) stays on a100."""
    repo = tmp_path / "repo"
    repo.mkdir()
    queues = (CASE / "queues.yaml").read_text()
    jobs = "---".join((CASE / "trainjobs.yaml").read_text().split("---")[:2])  # eval and finetune
    (repo / "queues.yaml").write_text(queues)
    (repo / "jobs.yaml").write_text(jobs)
    (repo / "state.json").write_text((CASE / "cluster" / "state.json").read_text())
    git = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "base"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=git, timeout=60)
    (repo / "queues.yaml").write_text(
        queues.replace("nominalQuota: 16, borrowingLimit: 8", "nominalQuota: 8, borrowingLimit: 8")
    )
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(
            cli, ["diff", "queues.yaml", "jobs.yaml", "--cluster-state", "state.json", "--color", "never"]
        )
        markdown = CliRunner().invoke(cli, ["diff", "queues.yaml", "jobs.yaml", "--format", "markdown"])
    finally:
        os.chdir(cwd)
    assert result.exit_code == 1, result.output
    assert (
        "JobSet team-a/finetune unchanged: applying leaves it as it is; Kueue now places it on flavor h100 "
        "(was a100)\n~ Kueue flavor: a100 → h100\n~ Kueue now: admissible now in ClusterQueue 'team-a-gpu' on h100"
        in result.output
    )
    assert "JobSet team-a/eval" not in result.output  # a100 still
    assert (
        "| `JobSet team-a/finetune` | unchanged | applying leaves it as it is; Kueue now places it on flavor h100 "
        "(was a100) |" in markdown.output
    )
    assert "\n#### `JobSet team-a/finetune` unchanged\n\n> Kueue flavor: a100 → h100\n" in markdown.output


def test_the_base_is_placed_and_priced_on_the_platform_s_queues(tmp_path):
    """Queues from the project config (`kueue-paths`), not among the inputs: the diff and summary of a TrainJob grown
    from 16 to 24 GPUs compare it with the base placed and priced on those same queues, as `trainc summary` at the
    base commit places and prices it (the base was placed nowhere, its GPUs unpriced)."""
    repo = tmp_path / "repo"
    (repo / "platform").mkdir(parents=True)
    (repo / "platform" / "queues.yaml").write_text((CASE / "queues.yaml").read_text())
    (repo / ".trainc.yaml").write_text(
        "kueue-paths: [platform/queues.yaml]\nprices:\n  currency: USD\n  flavors:\n"
        "    a100: {nvidia.com/gpu: 2.50}\n    h100: {nvidia.com/gpu: 4.00}\n  default: {cpu: 0.03, memory: 0.004}\n"
    )
    jobs = (CASE / "trainjobs.yaml").read_text().split("---")[1]  # finetune: 2 nodes of 8 GPUs
    (repo / "jobs.yaml").write_text(jobs)
    git = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    git["GIT_COMMITTER_EMAIL"] = "t@e"
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "base"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=git, timeout=60)
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        at_base = json.loads(CliRunner().invoke(cli, ["summary", "jobs.yaml", "--format", "json"]).stdout)
        (repo / "jobs.yaml").write_text(jobs.replace("numNodes: 2", "numNodes: 3"))
        diff = CliRunner().invoke(cli, ["diff", "jobs.yaml", "--color", "never"]).output
        summary = CliRunner().invoke(cli, ["summary", "jobs.yaml", "--base", "HEAD"]).output
    finally:
        os.chdir(cwd)
    base = at_base["cost"]["trainJobs"][0]["hourly"]
    assert base == "40.99"  # 16 GPUs on a100 (40.00 USD), 16 CPUs and 128 GiB of memory
    assert f"queue       team-a/team-a-gpu   {base} USD         61.49 USD   +20.50 USD" in diff, diff
    assert "+20.50 USD" in summary, summary


def test_a_snapshot_older_than_the_commit_is_a_notice(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for name, text in (
        ("queues.yaml", (CASE / "queues.yaml").read_text()),
        ("jobs.yaml", (CASE / "trainjobs.yaml").read_text()),
    ):
        (repo / name).write_text(text)
    git = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_COMMITTER_DATE": "2026-12-02T12:00:00Z",
    }
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "jobs"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=git, timeout=60)
    snapshot = tmp_path / "state.json"  # outside the repository: its modification time
    snapshot.write_text((CASE / "cluster" / "state.json").read_text())
    paths = [str(repo / "queues.yaml"), str(repo / "jobs.yaml"), "--cluster-state", str(snapshot)]
    os.utime(snapshot, (1764590400, 1764590400))  # 2025-12-01T12:00:00Z
    result = CliRunner().invoke(cli, ["validate", *paths])
    assert (
        f"notice: {snapshot}:1:1: the cluster state was taken at 2025-12-01T12:00:00Z, before the inputs' "
        "commit (2026-12-02T12:00:00Z)"
    ) in result.output
    os.utime(snapshot, (1796212800, 1796212800))  # 2026-12-02T13:20:00Z: after it
    assert "before the inputs' commit" not in CliRunner().invoke(cli, ["validate", *paths]).output


def test_a_tracked_snapshot_was_taken_when_it_was_committed(tmp_path):
    """A cluster state git tracks unmodified was taken at its last commit, whatever its modification time; once
    modified, at its modification time. No git repository, or no git: no commit to compare with, no notice."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "queues.yaml").write_text((CASE / "queues.yaml").read_text())
    (repo / "jobs.yaml").write_text((CASE / "trainjobs.yaml").read_text())
    (repo / "state.json").write_text((CASE / "cluster" / "state.json").read_text())
    git = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t"}
    git["GIT_COMMITTER_EMAIL"] = "t@example.com"

    def commit(paths: list, when: str) -> None:
        for args in (["add", *paths], ["commit", "-qm", when]):
            subprocess.run(["git", "-C", str(repo), *args], check=True, env={**git, "GIT_COMMITTER_DATE": when})

    subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True, env=git)
    commit(["state.json"], "2025-12-01T12:00:00Z")
    commit(["queues.yaml", "jobs.yaml"], "2026-12-02T12:00:00Z")
    os.utime(repo / "state.json", (1796212800, 1796212800))  # modified after the commit, as a checkout leaves it
    paths = [str(repo / "queues.yaml"), str(repo / "jobs.yaml"), "--cluster-state", str(repo / "state.json")]
    said = CliRunner().invoke(cli, ["validate", *paths]).output
    assert (
        "the cluster state was taken at 2025-12-01T12:00:00Z, before the inputs' commit (2026-12-02T12:00:00Z)" in said
    )
    (repo / "state.json").write_text((CASE / "cluster" / "state.json").read_text() + "\n")  # changed, uncommitted
    os.utime(repo / "state.json", (1796212800, 1796212800))
    assert "before the inputs' commit" not in CliRunner().invoke(cli, ["validate", *paths]).output
    shutil.rmtree(repo / ".git")
    assert "before the inputs' commit" not in CliRunner().invoke(cli, ["validate", *paths]).output


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            lambda data: item(data, "Workload", "jobset-batch-5f2c1")["spec"].update(priority="high"),
            "spec.priority: must be an integer (int32)",
        ),
        (
            lambda data: item(data, "Workload", "jobset-batch-5f2c1")["metadata"].update(creationTimestamp="yesterday"),
            "metadata.creationTimestamp: must be a time ('yesterday' is not an RFC 3339 time with its zone)",
        ),
        (
            lambda data: item(data, "Workload", "jobset-batch-5f2c1")["metadata"].update(
                creationTimestamp="2026-02-29T10:00:00Z"
            ),
            "metadata.creationTimestamp: must be a time ('2026-02-29T10:00:00Z' is not an RFC 3339 time)",
        ),
        (
            lambda data: item(data, "Workload", "jobset-old-run-5f2c1")["status"]["admission"]["podSetAssignments"][0][
                "resourceUsage"
            ].update(cpu="lots"),
            "status.admission.podSetAssignments[0].resourceUsage.cpu: must be a quantity",
        ),
        (
            lambda data: item(data, "ClusterQueue", "team-b-gpu")["spec"].update(queueingStrategy=3),
            "spec.queueingStrategy: must be a string",
        ),
        (
            lambda data: item(data, "Workload", "jobset-batch-5f2c1")["metadata"].pop("namespace"),
            "metadata.namespace: required: a non-empty string",
        ),
    ],
)
def test_a_malformed_cluster_state_is_a_positioned_error(tmp_path, change, expected):
    data = state()
    change(data)
    result = run(tmp_path, cluster=data, command="validate")
    assert result.exit_code == 1
    line = next(line for line in result.output.splitlines() if line.startswith(str(tmp_path / "state.json")))
    position, message = line[len(str(tmp_path / "state.json")) + 1 :].split(": ", 1)
    assert all(part.isdigit() for part in position.split(":")) and message.startswith(expected)


def test_not_json_and_too_many_objects_are_errors(tmp_path, monkeypatch):
    (tmp_path / "state.json").write_text('{"kind": "List", "items": [')
    result = CliRunner().invoke(
        cli,
        [
            "validate",
            str(CASE / "queues.yaml"),
            str(CASE / "trainjobs.yaml"),
            "--cluster-state",
            str(tmp_path / "state.json"),
        ],
    )
    assert (
        result.exit_code == 1 and f"{tmp_path / 'state.json'}:1:" in result.output and "invalid JSON" in result.output
    )
    monkeypatch.setattr(limits, "MAX_CLUSTER_STATE_ITEMS", 5)
    monkeypatch.setattr("trainc.validation.clusterstate.MAX_CLUSTER_STATE_ITEMS", 5)
    result = run(tmp_path, command="validate")
    assert result.exit_code == 1
    assert (
        f"{tmp_path / 'state.json'}:1:1: holds 15 objects, more than the 5 trainc reads from a cluster state"
        in result.output
    )


def test_quantities_saturate_as_kueues(tmp_path):
    """A workload charged more than int64 holds: usage saturates, and the job waits instead of crashing."""
    data = state()
    item(data, "Workload", "jobset-sweep-1-5f2c1")["status"]["admission"]["podSetAssignments"][0]["resourceUsage"][
        "nvidia.com/gpu"
    ] = "1e40"
    sweep = standings(tmp_path, cluster=data)["team-b/sweep"]["kueue"]
    assert sweep["state"] == "waiting"


def test_the_project_config_names_it(tmp_path):
    (tmp_path / ".trainc.yaml").write_text("cluster-state: cluster/state.json\n")
    (tmp_path / "cluster").mkdir()
    (tmp_path / "cluster" / "state.json").write_text((CASE / "cluster" / "state.json").read_text())
    (tmp_path / "queues.yaml").write_text((CASE / "queues.yaml").read_text())
    (tmp_path / "jobs.yaml").write_text((CASE / "trainjobs.yaml").read_text())
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(cli, ["summary", "queues.yaml", "jobs.yaml"])
        shown = CliRunner().invoke(cli, ["config", "queues.yaml"])
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    assert "team-a/pretrain: admissible now in ClusterQueue 'team-a-gpu' on a100" in result.output
    assert ".trainc.yaml:1:16\tcluster-state=cluster/state.json\n" in shown.output


def test_the_guides_example(monkeypatch):
    """docs/guides/kueue.md's summary on the cluster state, read from stdin (no stale-snapshot notice)."""
    text = (ROOT / "docs" / "guides" / "kueue.md").read_text()
    start = text.index("$ trainc summary golden/kueue-placement/")
    command, _, rest = text[start + 2 :].partition("\n")
    shown = rest[: rest.index("```")]
    words, _, stdin = command.partition(" < ")
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, words.split()[1:], input=(ROOT / stdin).read_text())
    assert result.exit_code == 0
    assert result.output == shown


def test_the_cluster_holds_the_queues_the_app_does_not(tmp_path):
    """An app without Kueue objects: its jobs are placed and checked on the cluster's queues."""
    (tmp_path / "jobs.yaml").write_text((CASE / "trainjobs.yaml").read_text())
    (tmp_path / "state.json").write_text((CASE / "cluster" / "state.json").read_text())
    args = [str(tmp_path / "jobs.yaml"), "--cluster-state", str(tmp_path / "state.json")]
    result = CliRunner().invoke(cli, ["summary", *args, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout[result.stdout.index("{") :])
    assert [(job["name"], job["kueue"]["state"]) for job in data["trainJobs"]] == [
        ("eval", "admissible"),
        ("finetune", "admissible"),
        ("pretrain", "preempting"),
        ("sweep", "waiting"),
    ]
    data = state()
    item(data, "ClusterQueue", "team-b-gpu")["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2][
        "nominalQuota"
    ] = 4
    item(data, "ClusterQueue", "team-a-gpu")["spec"]["cohortName"] = "elsewhere"
    (tmp_path / "state.json").write_text(json.dumps(data))
    refused = CliRunner().invoke(cli, ["validate", *args])
    assert refused.exit_code == 1
    assert (
        "team-b-gpu' (of LocalQueue team-b/team-b-gpu) takes it: flavor 'a100': 16 nvidia.com/gpu > its nominal "
        "quota 4" in refused.output
    )


def test_a_cluster_queue_reporting_more_than_its_workloads_hold_is_a_notice(tmp_path):
    """Taken with `-n team-a` instead of -A, the state lacks team-b's workload: the answers count what the
    Workloads hold (as Kueue's scheduler), and the ClusterQueue's own report says that is short."""
    data = state()
    data["items"].remove(item(data, "Workload", "jobset-sweep-1-5f2c1"))
    result = run(tmp_path, cluster=data, command="validate")
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.output.splitlines() if "reports" in line]
    assert line.startswith(f"notice: {tmp_path / 'state.json'}:")
    assert line.endswith(
        "ClusterQueue 'team-b-gpu' reports 24 nvidia.com/gpu in use on flavor 'a100', its Workloads "
        "in this state hold 0: the state lacks some (take it with -A) or was taken mid-change; the "
        "Workloads are what trainc counts, as Kueue's scheduler does"
    )
    assert "team-b/sweep: Kueue: waiting: 1 pending workload ahead of it (StrictFIFO" in result.output  # it fits now


def test_the_cohort_sums_are_remembered_only_for_a_usage_that_cannot_change():
    """`kueue.used` and `kueue.available` remember their sums for the cluster's usage (read only) and sum afresh a
    usage being changed (the preemption oracle charges and frees workloads on a copy between two questions)."""
    from types import MappingProxyType

    from trainc.validation import clusterstate, kueue

    documents = [(None, obj) for obj in state()["items"]]
    queues, errors = kueue.read(documents)
    assert not errors
    cluster = clusterstate.read(documents, "state.json", [])
    usage = cluster.usage(queues)
    assert type(usage) is MappingProxyType and all(type(each) is MappingProxyType for each in usage.values())
    cohort, key = queues.cohorts["research"], ("a100", "nvidia.com/gpu")
    held = kueue.used(cohort, key, queues, usage)
    assert held > 0 and kueue.used(cohort, key, queues, usage) == held
    changing = {name: dict(amounts) for name, amounts in usage.items()}
    before = kueue.used(cohort, key, queues, changing)
    for amounts in changing.values():
        amounts[key] = amounts.get(key, 0) + 8
    assert kueue.used(cohort, key, queues, changing) > before  # not a remembered sum
    assert kueue.used(cohort, key, queues, {}) == 0
    # what a ClusterQueue may still use: remembered for the cluster's usage and the empty cluster, not for one changing
    team_a = queues.cluster_queues["team-a-gpu"]
    empty, now = kueue.available(team_a, key, queues, {}), kueue.available(team_a, key, queues, usage)
    assert empty > now and kueue.available(team_a, key, queues, {}) == empty
    assert kueue.available(team_a, key, queues, usage) == now
    changing = {name: dict(amounts) for name, amounts in usage.items()}
    assert kueue.available(team_a, key, queues, changing) == now
    for amounts in changing.values():
        amounts[key] = amounts.get(key, 0) + 4
    assert kueue.available(team_a, key, queues, changing) < now  # not a remembered sum


def test_a_standing_replaces_the_empty_cluster_s_borrowing_notice(tmp_path):
    """On an empty cluster pretrain fits a100 only by borrowing (a notice); with the cluster's state its standing
    says where it stands instead, and the borrowing notice of the same TrainJob is dropped, none of another's."""
    plain = CliRunner().invoke(cli, ["build", str(CASE / "queues.yaml"), str(CASE / "trainjobs.yaml")])
    assert "team-a/pretrain: Kueue admits it only by borrowing" in plain.stderr
    result = run(tmp_path, command="build")
    assert result.exit_code == 0, result.output
    pretrain = [line for line in result.stderr.splitlines() if "team-a/pretrain: " in line]
    assert len(pretrain) == 1 and "only by borrowing" not in result.stderr  # its standing alone
    assert "team-a/pretrain: Kueue: admissible now in ClusterQueue 'team-a-gpu' on a100 borrowing" in pretrain[0]


def test_a_well_formed_object_is_known_at_once_exactly_when_it_has_no_problem(monkeypatch):
    """`_problems` checks an object of the state in one walk (`_conforms`) and looks for each problem's path only
    when that finds one: over the case's objects with random fields replaced by values of every type (a bad time, a
    bad quantity, a null item among them), the walk says well-formed exactly when the problems are none."""
    import copy
    import random

    from trainc.validation import clusterstate

    shapes = {"Workload": clusterstate._WORKLOAD, "ClusterQueue": clusterstate._REPORTED}
    shapes["WorkloadPriorityClass"] = clusterstate._PRIORITY_CLASS
    odd = [None, 1, -(2**40), True, "x", "12Gi", "2026-13-01T00:00:00Z", "2026-12-01T08:00:00Z", [], [None], {}, 1.5]
    draw, checked = random.Random(2170), 0

    def places(value, path=()):
        yield path
        if isinstance(value, dict):
            for key, inner in value.items():
                yield from places(inner, (*path, key))
        elif isinstance(value, list):
            for index, inner in enumerate(value):
                yield from places(inner, (*path, index))

    objects = [obj for obj in state()["items"] if obj["kind"] in shapes]
    for _ in range(3000):
        obj = copy.deepcopy(draw.choice(objects))
        shape = shapes[obj["kind"]]
        for _ in range(draw.randrange(3)):
            path = draw.choice(list(places(obj))[1:])
            parent = obj
            for part in path[:-1]:
                parent = parent[part]
            parent[path[-1]] = copy.deepcopy(draw.choice(odd))
        fast = clusterstate._conforms(obj, shape)
        with monkeypatch.context() as patched:
            patched.setattr(clusterstate, "_conforms", lambda *_: False)
            slow = clusterstate._problems(None, obj, shape)
        assert fast == (not slow), (obj, slow)
        checked += not fast
    assert checked > 500  # many of them have a problem


def test_the_pending_ahead_of_a_job_are_counted_as_kueue_orders_its_queue():
    """`State.ahead` bisects each ClusterQueue's pending workloads, sorted once, where each TrainJob asked them all
    (a cluster holds thousands): the same count as Kueue's order read literally (higher priority first, then the
    older, one without a creation time last, then by uid; the job's own pending workload not ahead of itself),
    over every mix of equal priorities, equal and missing times and uids."""
    import random
    from datetime import datetime, timedelta, timezone

    from trainc.validation import clusterstate, kueue

    def before(other, priority, created, own) -> bool:
        if other.priority != priority:
            return other.priority > priority
        if created is None:
            return True
        if other.created is None or other.created != created:
            return other.created is not None and other.created < created
        return other.uid < (own.uid if own is not None else "")

    draw = random.Random(2170)
    epoch = datetime(2026, 12, 1, tzinfo=timezone.utc)
    for _ in range(200):
        queues = kueue.Queues()
        queues.local_queues = {("a", "q"): "cq", ("b", "q"): "cq", ("a", "r"): "other"}
        cluster = clusterstate.State("state.json")
        for index in range(draw.randrange(0, 12)):
            namespace, queue = draw.choice([("a", "q"), ("b", "q"), ("a", "r"), ("a", "gone")])
            created = None if draw.random() < 0.2 else epoch + timedelta(minutes=draw.randrange(4))
            uid = draw.choice(["u1", "u2", "u3", f"u{index}"])
            owner = ("JobSet", f"j{index}")
            cluster.pending.append(
                clusterstate.Pending(namespace, f"w{index}", queue, draw.randrange(-1, 2), created, uid, owner)
            )
        own = draw.choice([None, *cluster.pending])
        priority = own.priority if own is not None and draw.random() < 0.7 else draw.randrange(-1, 2)
        created = own.created if own is not None else None
        expected = sum(
            1
            for each in cluster.pending
            if each is not own
            and queues.local_queues.get((each.namespace, each.queue)) == "cq"
            and before(each, priority, created, own)
        )
        assert cluster.ahead(queues, "cq", priority, created, own) == expected


def test_judged_on_several_processes_as_on_one(tmp_path, monkeypatch):
    """Many TrainJobs are placed, stood on the cluster and priced on several processes (`trainc.shares`): the
    placements, standings, costs, errors and notices of one process, in its order. Here every TrainJob is a share
    of its own, among them one Kueue can never admit and one only borrowing admits."""
    from trainc import engine, shares
    from trainc.validation import cost, kueue

    jobs = (CASE / "trainjobs.yaml").read_text()
    again = re.sub(r"(?m)^  name: (\S+)$", r"  name: \1-2", jobs).replace("numNodes: 1\n", "numNodes: 40\n", 1)
    jobs += "---\n" + again
    (tmp_path / "jobs.yaml").write_text(jobs)
    (tmp_path / "queues.yaml").write_text((CASE / "queues.yaml").read_text())
    (tmp_path / "state.json").write_text(json.dumps(state()))
    (tmp_path / ".trainc.yaml").write_text("prices:\n  currency: USD\n  default: {nvidia.com/gpu: 2.5, cpu: 0.05}\n")
    monkeypatch.setattr(kueue, "JUDGED_TOGETHER", 1)
    monkeypatch.setattr(cost, "PRICED_TOGETHER", 1)
    started = []
    real = shares._start
    monkeypatch.setattr(shares, "_start", lambda *args: started.append(1) or real(*args))
    found = []
    for workers in (1, 3):
        options = engine.Options(
            workers=workers, cluster_state=str(tmp_path / "state.json"), config=str(tmp_path / ".trainc.yaml")
        )
        result = engine.run(engine.Inputs((str(tmp_path / "queues.yaml"), str(tmp_path / "jobs.yaml"))), options)
        found.append(
            (
                [each.render() for each in (*result.errors, *result.notices)],
                list(result.placements.items()),
                list(result.standings.items()),
                list(result.costs.items()),
            )
        )
    assert found[0] == found[1] and len(started) == 2 * 2  # two helpers beside this process, for each stage
    said, placements, standings, costs = found[0]
    assert len(costs) == 8 and len(standings) >= 6 and len(placements) >= 6
    assert any("Kueue can never admit" in line for line in said), said
    assert any("borrowing from cohort quota" in line for line in said), said
    assert any("by preempting" in line for line in said) and any("waiting in" in line for line in said), said


def test_times_are_the_instants_go_reads_whatever_their_offset():
    """A time is nanoseconds since the epoch, what datetime makes of the same text, across the calendar and
    every offset: workloads are ordered by the instant, not by the text."""
    import random
    from datetime import datetime, timedelta, timezone

    from trainc.validation.clusterstate import _time

    rng, epoch = random.Random(2170), datetime(1970, 1, 1, tzinfo=timezone.utc)
    for _ in range(20000):
        instant = datetime(
            rng.randint(2, 9998), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
            rng.randint(0, 59), rng.choice([0, rng.randint(0, 999999)]), tzinfo=timezone.utc,
        )  # fmt: skip
        minutes = rng.choice([None, rng.randint(-(23 * 60 + 59), 23 * 60 + 59)])
        local = instant if minutes is None else instant.astimezone(timezone(timedelta(minutes=minutes)))
        zone = "Z" if minutes is None else local.strftime("%z")[:3] + ":" + local.strftime("%z")[3:]
        fraction = f".{instant.microsecond:06d}" if instant.microsecond else ""
        text = f"{local.year:04d}-{local:%m-%dT%H:%M:%S}{fraction}{zone}"
        since = instant - epoch
        assert _time(text) == (since.days * 86400 + since.seconds) * 10**9 + since.microseconds * 1000, text
    assert _time("2024-02-29T00:00:00.123456789+05:30") == 1709145000123456789
    for bad in ("2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00+24:00"):
        with pytest.raises(ValueError, match="is not an RFC 3339 time$"):
            _time(bad)
