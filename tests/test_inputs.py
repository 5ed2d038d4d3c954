"""The input set (`trainc/inputs.py`): which files every command reads, each once (issue 14, items 5 and 6;
issue 15: only runtimes under --runtimes)."""

from __future__ import annotations

import yaml
from click.testing import CliRunner

from trainc import inputs as inputset
from trainc.cli import cli

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: {runtime}
"""
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: mine
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: busybox
"""
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: other-apps-secret\nstringData:\n  token: CANARY\n"
# YAML that is not manifests, where a repository keeps it
TOOL_FILES = {
    ".trainc.yaml": "runtimes: [platform/runtimes]\n",
    ".pre-commit-config.yaml": "repos:\n- repo: https://example.com/trainc\n  rev: v1\n  hooks: [{id: trainc}]\n",
    ".github/workflows/ci.yaml": "on: [push]\njobs:\n  render: {runs-on: ubuntu-latest, steps: []}\n",
    ".gitlab-ci.yml": "render:\n  script: [trainc build .]\n",
    "apps/a/.argocd-source.yaml": "plugin:\n  parameters: [{name: namespace, string: team-a}]\n",
    "apps/a/.argocd-source-a.yaml": "plugin:\n  env: []\n",
}


def write(root, files: dict) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def run(tmp_path, monkeypatch, *args, env=None):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def identities(text: str) -> set:
    return {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(text) if d}


def repository(tmp_path) -> None:
    (tmp_path / ".git").mkdir()  # the config's search stops here
    write(tmp_path, {**TOOL_FILES, "platform/runtimes/mine.yaml": RUNTIME,
                     "apps/a/job.yaml": TRAINJOB.format(name="a", runtime="mine"),
                     "apps/b/job.yaml": TRAINJOB.format(name="b", runtime="torch-distributed")})


def test_a_repository_root_builds_and_validates(tmp_path, monkeypatch):
    """`trainc build .` at a repository root read its tool configs as manifests and failed; and the config's
    runtimes, inside `.`, were "defined twice (first in <the same file>)"."""
    repository(tmp_path)
    result = run(tmp_path, monkeypatch, "build", ".")
    assert result.exit_code == 0, result.stderr
    assert identities(result.stdout) == {("JobSet", "a"), ("JobSet", "b")}
    result = run(tmp_path, monkeypatch, "validate", ".")
    assert result.exit_code == 0 and result.stderr.endswith("valid: 2 TrainJobs, 1 runtime\n"), result.stderr


def test_hidden_names_are_skipped_in_directories_only(tmp_path):
    write(tmp_path, {"a.yaml": "", ".b.yaml": "", ".hidden/c.yaml": "", "d/.e.yml": "", "d/f.json": "",
                     ".yaml": ""})
    assert inputset.listed([str(tmp_path)]) == [f"{tmp_path}/a.yaml", f"{tmp_path}/d/f.json"]
    # named explicitly, or a hidden directory given as a PATH: read
    assert inputset.listed([str(tmp_path / ".b.yaml"), str(tmp_path / ".hidden")]) == [
        f"{tmp_path}/.b.yaml", f"{tmp_path}/.hidden/c.yaml"]


def test_a_runtime_file_reached_by_every_route_is_read_once(tmp_path, monkeypatch):
    repository(tmp_path)
    for args, env in [(["--runtimes", "platform/runtimes"], None),
                      (["--runtimes", "platform/runtimes/mine.yaml"], None), ([], {"TRAINC_RUNTIMES": "platform"})]:
        result = run(tmp_path, monkeypatch, "build", ".", *args, env=env)
        assert result.exit_code == 0, (args, result.stderr)
        assert identities(result.stdout) == {("JobSet", "a"), ("JobSet", "b")}
    result = run(tmp_path, monkeypatch, "runtimes", "list", ".", "--runtimes", "platform/runtimes")
    assert result.exit_code == 0 and "platform/runtimes/mine.yaml:1" in result.stdout, result.stderr


def test_only_runtimes_are_read_under_runtimes(tmp_path, monkeypatch):
    """`--runtimes /tmp` (or a config's or an Application's `runtimes`) passed every other document there
    through: another app's Secret landed in this app's manifests."""
    write(tmp_path, {"app/job.yaml": TRAINJOB.format(name="a", runtime="mine"),
                     "elsewhere/runtime.yaml": RUNTIME + "---\n" + SECRET,
                     "elsewhere/job.yaml": TRAINJOB.format(name="theirs", runtime="mine")})
    for command in ("build", "validate"):
        result = run(tmp_path, monkeypatch, command, "app", "--runtimes", "elsewhere")
        assert result.exit_code == 0, result.stderr
        assert "CANARY" not in result.stdout and "other-apps-secret" not in result.output
        assert "notice: elsewhere/job.yaml:2:7: a TrainJob under --runtimes, not a runtime: ignored" in result.stderr
        assert "notice: elsewhere/runtime.yaml:19:7: a Secret under --runtimes, not a runtime: ignored" in result.stderr
    result = run(tmp_path, monkeypatch, "build", "app", "--runtimes", "elsewhere")
    assert identities(result.stdout) == {("JobSet", "a")}
