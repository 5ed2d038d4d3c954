"""`validate -o json` and `--format github`: exact records and annotations."""

from __future__ import annotations

import json

from helpers import run, trainjob, write

TYPO = trainjob(runtime="torch-distribute", extra="  trainer:\n    numNode: 2\n")
DEPRECATED = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: old
  labels: {trainer.kubeflow.org/support: deprecated}
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template: {spec: {template: {spec: {containers: [{name: node, image: i}]}}}}
"""
NOT_FOUND = (
    'ClusterTrainingRuntime "torch-distribute" not found; looked in the inputs, --runtimes and the bundled '
    'runtimes; did you mean "torch-distributed"?'
)


def test_json(tmp_path):
    write(tmp_path, "jobs/a.yaml", TYPO)
    result = run("validate", "-o", "json", "jobs", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout) == {
        "problems": [
            {
                "file": "jobs/a.yaml",
                "line": 8,
                "column": 11,
                "field": "spec.runtimeRef.name",
                "message": NOT_FOUND,
                "severity": "error",
            },
            {
                "file": "jobs/a.yaml",
                "line": 10,
                "column": 5,
                "field": "spec.trainer.numNode",
                "message": 'unknown field (did you mean "numNodes"?)',
                "severity": "error",
            },
        ],
        "summary": {"valid": False, "errors": 2, "warnings": 0},
    }


def test_json_warnings_of_a_valid_run(tmp_path):
    write(tmp_path, "old.yaml", DEPRECATED)
    write(tmp_path, "a.yaml", trainjob(runtime="old"))
    result = run("validate", "-o", "json", "old.yaml", "a.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    problems = json.loads(result.stdout)["problems"]
    assert [(p["severity"], p["file"], p["line"], p["column"]) for p in problems] == [
        ("warning", "old.yaml", 5, 42),
        ("warning", "a.yaml", 8, 11),
    ]  # the TrainJob's spec.runtimeRef.name
    assert problems[1]["message"].startswith('team-a/demo: Referenced ClusterTrainingRuntime "old" is deprecated')
    assert json.loads(result.stdout)["summary"] == {"valid": True, "errors": 0, "warnings": 2}


def test_github_annotations(tmp_path):
    write(tmp_path, "a,b:c.yaml", TYPO)
    result = run("validate", "--format", "github", "a,b:c.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        f"::error file=a%2Cb%3Ac.yaml,line=8,col=11::spec.runtimeRef.name: {NOT_FOUND}\n"
        '::error file=a%2Cb%3Ac.yaml,line=10,col=5::spec.trainer.numNode: unknown field (did you mean "numNodes"?)\n'
    )
    assert result.stderr.splitlines()[-1] == "invalid: 2 errors"


def test_github_escapes_as_the_actions_toolkit():
    from trainc.commands.validate import Problem, to_github

    problem = Problem("100%.yaml", 1, 2, "", "50% done\r\nnext: a,b", "warning")
    assert to_github([problem]) == "::warning file=100%25.yaml,line=1,col=2::50%25 done%0D%0Anext: a,b\n"


def test_json_and_github_together_is_a_usage_error(tmp_path):
    result = run("validate", "-o", "json", "--format", "github", "a.yaml", cwd=tmp_path)
    assert result.returncode == 2 and "choose one" in result.stderr


def test_located_warnings_keep_their_field_path():
    from trainc.commands.validate import Problem, from_notice
    from trainc.errors import Notice, Origin

    text = "kind: TrainJob\nspec:\n  trainer:\n    command: [a, b, 'x: y']\n  activeDeadlineSeconds: 60\n"
    origin = Origin("a.yaml", text=text)
    assert from_notice(
        Notice("warning", origin, ("spec", "trainer", "command", 2), "opens a heredoc", mark=(14, 7))
    ) == Problem("a.yaml", 14, 7, "spec.trainer.command[2]", "opens a heredoc", "warning")
    # a message that holds `word: ` is not split into a field (the old line parser took `x` for one)
    assert from_notice(Notice("notice", origin, (), "x: y", at=("spec", "activeDeadlineSeconds"))) == Problem(
        "a.yaml", 5, 26, "", "x: y", "notice"
    )
    assert from_notice(Notice("notice", None, (), "team-a/demo: the SSH key is random")) == Problem(
        None, None, None, "", "team-a/demo: the SSH key is random", "notice"
    )


def test_notices_keep_their_place_in_json_and_github(tmp_path):
    write(tmp_path, "a.yaml", trainjob(extra="  managedBy: kueue.x-k8s.io/multikueue\n"))
    result = run("validate", "-o", "json", "a.yaml", cwd=tmp_path)
    notice = json.loads(result.stdout)["problems"][0]
    assert (notice["severity"], notice["file"], notice["line"], notice["column"], notice["field"]) == (
        "notice",
        "a.yaml",
        9,
        14,
        "",
    )
    assert notice["message"].startswith("team-a/demo: managedBy kueue.x-k8s.io/multikueue: MultiKueue runs")
    result = run("validate", "--format", "github", "a.yaml", cwd=tmp_path)
    assert result.stdout.startswith("::notice file=a.yaml,line=9,col=14::team-a/demo: managedBy ")
    assert result.stderr.startswith("notice: a.yaml:9:14: team-a/demo: managedBy kueue.x-k8s.io/multikueue: ")
