"""The deadline pass: the TrainJob's activeDeadlineSeconds on every Job, a runtime's shorter one kept, where the Job
API declares it; `trainc explain` names the TrainJob's field."""

from __future__ import annotations

from helpers import STEP_RUNTIME, run, through, trainjob, write

from trainc.compiler.passes.deadline import deadline
from trainc.compiler.passes.mlpolicy import mlpolicy
from trainc.compiler.passes.network import network
from trainc.compiler.passes.resolve import resolve

TWO_JOBS = (
    STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1")
    + """\
        - name: sidecar
          template:
            spec:
              activeDeadlineSeconds: {own}
              template:
                spec:
                  containers: [{name: s, image: s}]
"""
)
PASSES = (resolve, mlpolicy, network, deadline)


def _deadlines(own: int, trainjob_seconds: int | None) -> dict:
    extra = "  trainer:\n    numNodes: 2\n" + (
        f"  activeDeadlineSeconds: {trainjob_seconds}\n" if trainjob_seconds else ""
    )
    unit = through(PASSES, trainjob(extra=extra), TWO_JOBS.replace("{own}", str(own)))
    return {rjob["name"]: list(rjob["template"]["spec"].items())[:3] for rjob in unit.replicated_jobs}


def test_every_job_gets_the_deadline_after_completions_and_a_shorter_runtime_one_stays():
    assert _deadlines(own=60, trainjob_seconds=600) == {
        "node": [("parallelism", 2), ("completions", 2), ("activeDeadlineSeconds", 600)],
        "sidecar": [("parallelism", 1), ("completions", 1), ("activeDeadlineSeconds", 60)],
    }


def test_a_longer_runtime_deadline_gives_way_in_its_place():
    assert _deadlines(own=86400, trainjob_seconds=600)["sidecar"] == [
        ("parallelism", 1),
        ("completions", 1),
        ("activeDeadlineSeconds", 600),
    ]


def test_without_a_trainjob_deadline_the_runtime_is_left_as_it_is():
    found = _deadlines(own=86400, trainjob_seconds=None)
    assert found["sidecar"][2] == ("activeDeadlineSeconds", 86400)
    assert [key for key, _ in found["node"]] == ["parallelism", "completions", "template"]


def test_explain_names_the_trainjobs_field(tmp_path):
    write(tmp_path, "a.yaml", trainjob(extra="  activeDeadlineSeconds: 600\n  trainer:\n    numNodes: 2\n"))
    result = run(
        "explain", "a.yaml", "--field", "spec.replicatedJobs[node].template.spec.activeDeadlineSeconds", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "activeDeadlineSeconds ← deadline pass, from a.yaml:9:26 (spec.activeDeadlineSeconds)" in result.stdout


def test_a_deadline_that_restarts_without_end_is_said(tmp_path):
    runtime = STEP_RUNTIME.format(name="endless", policy="numNodes: 1").replace(
        "    spec:\n      replicatedJobs:",
        "    spec:\n      failurePolicy:\n        maxRestarts: 3\n        rules:\n"
        "          - {name: again, action: RestartJobSetAndIgnoreMaxRestarts, onJobFailureReasons: [PodFailurePolicy]}\n"
        "      replicatedJobs:",
    )
    write(tmp_path, "rt.yaml", runtime)
    write(tmp_path, "a.yaml", trainjob(runtime="endless", extra="  activeDeadlineSeconds: 600\n"))
    result = run("build", "a.yaml", "rt.yaml", cwd=tmp_path)
    assert result.returncode == 0 and "        activeDeadlineSeconds: 600\n" in result.stdout
    assert result.stderr == (
        "notice: a.yaml:9:26: team-a/demo: spec.activeDeadlineSeconds ends each run of its Jobs, but the JobSet's "
        "failurePolicy restarts them without counting (RestartJobSetAndIgnoreMaxRestarts), so nothing bounds the "
        "total: see docs/reference/differences.md#activedeadlineseconds\n"
    )
