"""`trainc status`: the TrainJob status upstream's controller derives from a JobSet (spec §9)."""

from __future__ import annotations

import json
import textwrap

import yaml
from click.testing import CliRunner

from trainc.cli import cli

COMPLETED = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: demo
  namespace: team-a
  creationTimestamp: "2026-03-01T10:00:00Z"
spec:
  replicatedJobs: []
status:
  conditions:
    - type: StartupPolicyCompleted
      status: "True"
      reason: AllReplicatedJobsStarted
      message: all replicated jobs have started
      lastTransitionTime: "2026-03-01T10:00:05Z"
    - type: Completed
      status: "True"
      reason: AllJobsCompleted
      message: jobset completed successfully
      lastTransitionTime: "2026-03-01T11:00:00Z"
      observedGeneration: 1
  replicatedJobsStatus:
    - name: node
      ready: 0
      succeeded: 2
      failed: 0
      active: 0
      suspended: 0
  terminalState: Completed
"""


def status(text: str, *args: str):
    return CliRunner().invoke(cli, ["status", *args], input=text)


def test_completed_jobset_gives_complete_condition_and_jobs_status():
    result = status(COMPLETED)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == textwrap.dedent("""\
        ---
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata:
          name: demo
          namespace: team-a
        status:
          conditions:
          - type: Complete
            status: "True"
            observedGeneration: 1
            lastTransitionTime: "2026-03-01T11:00:00Z"
            reason: AllJobsCompleted
            message: jobset completed successfully
          jobsStatus:
          - name: node
            ready: 0
            succeeded: 2
            failed: 0
            active: 0
            suspended: 0
        """)


def test_failed_condition_is_copied_only_when_true():
    failed = COMPLETED.replace("type: Completed", "type: Failed").replace("AllJobsCompleted", "FailedJobs")
    (condition,) = yaml.safe_load(status(failed).stdout)["status"]["conditions"]
    assert condition["type"] == "Failed" and condition["reason"] == "FailedJobs"
    not_yet = COMPLETED.replace('type: Completed\n      status: "True"', 'type: Completed\n      status: "False"')
    assert "conditions" not in yaml.safe_load(status(not_yet).stdout)["status"]


def test_suspended_jobset():
    suspended = (
        COMPLETED.replace("spec:\n", "spec:\n  suspend: true\n")
        .replace(
            "    - type: Completed",
            """\
    - type: Suspended
      status: "True"
      reason: SuspendedJobs
      message: jobset is suspended
      lastTransitionTime: "2026-03-01T10:30:00Z"
    - type: Completed""",
        )
        .replace('type: Completed\n      status: "True"', 'type: Completed\n      status: "False"')
    )
    assert yaml.safe_load(status(suspended).stdout)["status"]["conditions"] == [
        {
            "type": "Suspended",
            "status": "True",
            "lastTransitionTime": "2026-03-01T10:30:00Z",
            "reason": "Suspended",
            "message": "TrainJob is suspended",
        },
    ]


def test_created_suspended_before_the_jobset_controller_ran_uses_creation_time():
    fresh = (
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: demo\n"
        "  creationTimestamp: '2026-03-01T10:00:00Z'\nspec:\n  suspend: true\n"
    )
    assert yaml.safe_load(status(fresh).stdout)["status"] == {
        "conditions": [
            {
                "type": "Suspended",
                "status": "True",
                "lastTransitionTime": "2026-03-01T10:00:00Z",
                "reason": "Suspended",
                "message": "TrainJob is suspended",
            },
        ]
    }


def test_resumed_after_a_suspension_then_completed():
    resumed = COMPLETED.replace(
        "    - type: Completed",
        """\
    - type: Suspended
      status: "False"
      reason: ResumeJobs
      message: jobset is resumed
      lastTransitionTime: "2026-03-01T10:40:00Z"
    - type: Completed""",
    )
    conditions = yaml.safe_load(status(resumed).stdout)["status"]["conditions"]
    assert [(c["type"], c["status"], c["reason"]) for c in conditions] == [
        ("Suspended", "False", "Resumed"),
        ("Complete", "True", "AllJobsCompleted"),
    ]
    assert conditions[0]["message"] == "TrainJob is resumed"
    assert conditions[0]["lastTransitionTime"] == "2026-03-01T10:40:00Z"


def test_never_suspended_running_jobset_has_no_conditions():
    running = (
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: r\nstatus:\n"
        "  replicatedJobsStatus:\n    - {name: node, ready: 2, active: 2}\n"
    )
    assert yaml.safe_load(status(running).stdout)["status"] == {
        "jobsStatus": [{"name": "node", "ready": 2, "succeeded": 0, "failed": 0, "active": 2, "suspended": 0}],
    }


def test_list_of_jobsets_as_json_and_table():
    second = yaml.safe_load(COMPLETED)
    second["metadata"]["name"] = "other"
    second["status"] = {
        "replicatedJobsStatus": [{"name": "node", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]
    }
    listing = {"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(COMPLETED), second]}
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(status(json.dumps(listing, indent="\t")).stdout)]
    assert names == ["demo", "other"]
    table = status(yaml.safe_dump(listing), "-o", "table")
    assert table.exit_code == 0
    assert table.stdout == textwrap.dedent("""\
        NAMESPACE   NAME    STATE      REASON             MESSAGE
        team-a      demo    Complete   AllJobsCompleted   jobset completed successfully
        team-a      other   Running    -                  -

        NAMESPACE   TRAINJOB   JOB    READY   SUCCEEDED   FAILED   ACTIVE   SUSPENDED
        team-a      demo       node   0       2           0        0        0
        team-a      other      node   1       0           0        1        0
        """)


def test_file_argument(tmp_path):
    (tmp_path / "js.yaml").write_text(COMPLETED)
    result = CliRunner().invoke(cli, ["status", str(tmp_path / "js.yaml")])
    assert result.exit_code == 0 and "reason: AllJobsCompleted" in result.stdout


def test_bad_input_is_reported_at_its_position():
    not_jobset = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n"
    result = status(not_jobset)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "<stdin>:2:7: kind: expected a JobSet (jobset.x-k8s.io), not batch/v1 Job\n"
    bad_counter = COMPLETED.replace("succeeded: 2", "succeeded: two")
    assert status(bad_counter).stderr == (
        "<stdin>:25:18: status.replicatedJobsStatus[0].succeeded: must be an integer, not string\n"
    )
    listed = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [{"kind": "JobSet"}]})
    assert status(listed).stderr.splitlines() == [
        "<stdin>:3:3: items[0].apiVersion: required field is missing",
        "<stdin>:3:3: items[0].metadata: required field is missing",
    ]
    assert status("a: [").stderr.startswith("<stdin>:")


def test_a_condition_the_jobset_gives_no_time_for_is_stamped_now(monkeypatch):
    """Upstream's SetStatusCondition stamps metav1.Now(); SOURCE_DATE_EPOCH pins it for reproducible output."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    unreconciled = (
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: demo\nspec:\n  suspend: true\n"
    )
    assert yaml.safe_load(status(unreconciled).stdout)["status"]["conditions"] == [
        {
            "type": "Suspended",
            "status": "True",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
            "reason": "Suspended",
            "message": "TrainJob is suspended",
        },
    ]
    resuming = unreconciled.replace("suspend: true", "suspend: false") + (
        "status:\n  conditions:\n    - {type: Suspended, status: 'True', reason: SuspendedJobs, "
        "lastTransitionTime: '2025-01-01T00:00:00Z'}\n"
    )
    (condition,) = yaml.safe_load(status(resuming).stdout)["status"]["conditions"]
    assert (condition["reason"], condition["lastTransitionTime"]) == ("Resumed", "2026-01-01T00:00:00Z")


def test_table_cells_cannot_break_rows_or_send_terminal_escapes():
    hostile = COMPLETED.replace("message: jobset completed successfully", 'message: "done\\n\\x1b[31mred"')
    lines = status(hostile, "-o", "table").stdout.splitlines()
    assert len(lines) == 5 and lines[1].endswith("done\\n\\x1b[31mred")  # two tables, a blank line between
