"""`build` and `validate` report every independent problem in one run, sorted by file, line and column."""

from __future__ import annotations

from helpers import RUNTIME, run, trainjob, write


def errors(result) -> list[str]:
    assert result.returncode == 1 and result.stdout == ""
    return result.stderr.splitlines()


def test_schema_errors_of_one_trainjob_do_not_hide_a_missing_runtime_of_another(tmp_path):
    write(tmp_path, "a.yaml", trainjob(name="a", extra="  trainer:\n    numNode: 2\n"))
    write(tmp_path, "b.yaml", trainjob(name="b", runtime="torch-distribute"))
    assert errors(run("validate", "b.yaml", "a.yaml", cwd=tmp_path)) == [
        'a.yaml:10:5: spec.trainer.numNode: unknown field (did you mean "numNodes"?)',
        'b.yaml:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "torch-distribute" not found; looked in the '
        'inputs, --runtimes and the bundled runtimes; did you mean "torch-distributed"?',
        "invalid: 2 errors",
    ]


def test_an_unknown_field_and_a_missing_runtime_of_the_same_trainjob(tmp_path):
    write(tmp_path, "a.yaml", trainjob(runtime="nope", extra="  trainer:\n    numNode: 2\n"))
    assert errors(run("build", "a.yaml", cwd=tmp_path)) == [
        'a.yaml:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "nope" not found; looked in the inputs, '
        "--runtimes and the bundled runtimes",
        'a.yaml:10:5: spec.trainer.numNode: unknown field (did you mean "numNodes"?)',
    ]


def test_a_trainjob_whose_runtime_failed_is_not_told_it_is_missing(tmp_path):
    write(tmp_path, "runtime.yaml", RUNTIME.format(name="mine", policy="numNode: 1"))
    write(tmp_path, "job.yaml", trainjob(runtime="mine"))
    write(tmp_path, "other.yaml", trainjob(name="other", runtime="nope"))
    assert errors(run("validate", "job.yaml", "other.yaml", "runtime.yaml", cwd=tmp_path)) == [
        'other.yaml:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "nope" not found; looked in the inputs, '
        "--runtimes and the bundled runtimes",
        'runtime.yaml:6:14: spec.mlPolicy.numNode: unknown field (did you mean "numNodes"?)',
        "invalid: 2 errors",
    ]


def test_an_unreadable_file_may_hold_any_runtime(tmp_path):
    write(tmp_path, "broken.yaml", "kind: [unclosed\n")
    write(tmp_path, "job.yaml", trainjob(runtime="mine"))
    assert errors(run("validate", "job.yaml", "broken.yaml", cwd=tmp_path)) == [
        "broken.yaml:2:1: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 1, "
        "column 7)",
        "invalid: 1 error",
    ]


def test_a_runtime_defined_twice_and_a_schema_error_together(tmp_path):
    write(tmp_path, "r1.yaml", RUNTIME.format(name="mine", policy=""))
    write(tmp_path, "r2.yaml", RUNTIME.format(name="mine", policy=""))
    write(tmp_path, "job.yaml", trainjob(runtime="mine", extra="  suspend: maybe\n"))
    assert errors(run("validate", "job.yaml", "r2.yaml", "r1.yaml", cwd=tmp_path)) == [
        "job.yaml:9:12: spec.suspend: must be a boolean, not string",
        "r2.yaml:4:9: metadata.name: ClusterTrainingRuntime mine is defined twice (first in r1.yaml:4:9)",
        "invalid: 2 errors",
    ]


def test_near_names_only(tmp_path):
    write(tmp_path, "a.yaml", trainjob(runtime="completely-different", extra="  trainer:\n    zzz: 1\n"))
    assert errors(run("build", "a.yaml", cwd=tmp_path)) == [
        'a.yaml:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "completely-different" not found; looked in '
        "the inputs, --runtimes and the bundled runtimes",
        "a.yaml:10:5: spec.trainer.zzz: unknown field",
    ]
