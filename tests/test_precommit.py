"""The pre-commit hooks, run by the real pre-commit: `try-repo` for trainc-validate, a config for
trainc-build-check (whose paths are the user's `args`). Both install trainc from a copy of this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, need
from helpers import RUNTIME, trainjob


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def commit(repo: Path) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "snapshot", "--allow-empty")
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    git(path, "config", "user.email", "ci@example.com")
    git(path, "config", "user.name", "CI")
    return path


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """A git repository holding this checkout as it is (committed or not), and a shared pre-commit home."""
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        need(False, "pre-commit is not installed (pip install '.[test]')")
    need(shutil.which("git") is not None, "git is not installed")
    base = tmp_path_factory.mktemp("precommit")
    repo = new_repo(base / "hooks")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not name.startswith(("golden/", "tests/", "bench/")):
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    return repo, commit(repo), base / "home"


def pre_commit(cwd: Path, home: Path, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PYTHONPATH": ""}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=240
    )


def project(base: Path) -> Path:
    """A user's repository: jobs, runtimes outside them (found through .trainc.yaml), a rendered tree."""
    repo = new_repo(base)
    (repo / ".trainc.yaml").write_text("runtimes: [platform]\noutput-dir: rendered\n")
    (repo / "platform").mkdir()
    (repo / "platform" / "runtime.yaml").write_text(RUNTIME.format(name="mine", policy="torch: {}"))
    (repo / "jobs").mkdir()
    (repo / "jobs" / "job.yaml").write_text(trainjob(runtime="mine"))
    (repo / "ci.yaml").write_text("on: push\nkey: 1\nkey: 2\n")  # no Trainer object, and not even valid for kubectl
    return repo


def test_validate_hook(hooks, tmp_path):
    hook_repo, _, home = hooks
    repo = project(tmp_path / "user")
    commit(repo)
    result = pre_commit(
        repo, home, "try-repo", str(hook_repo), "trainc-validate", "--files", "jobs/job.yaml", "ci.yaml"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "trainc validate" in result.stdout and "Passed" in result.stdout
    # trainc's input rule: a name starting with `.` holds no manifest (here a workflow that would not read as one)
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "render.yaml").write_text(
        "# renders trainer.kubeflow.org TrainJobs\nkey: 1\nkey: 2\n"
    )
    result = pre_commit(
        repo,
        home,
        "try-repo",
        str(hook_repo),
        "trainc-validate",
        "--files",
        "jobs/job.yaml",
        ".github/workflows/render.yaml",
        ".trainc.yaml",
    )
    assert result.returncode == 0 and "Passed" in result.stdout, result.stdout + result.stderr
    (repo / "jobs" / "job.yaml").write_text(trainjob(runtime="mine", extra="  trainer:\n    numNode: 2\n"))
    result = pre_commit(repo, home, "try-repo", str(hook_repo), "trainc-validate", "--files", "jobs/job.yaml")
    assert result.returncode == 1
    assert 'jobs/job.yaml:10:5: spec.trainer.numNode: unknown field (did you mean "numNodes"?)' in result.stdout


def test_build_check_hook(hooks, tmp_path):
    hook_repo, rev, home = hooks
    repo = project(tmp_path / "user")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo}\n    rev: {rev}\n    hooks:\n      - id: trainc-build-check\n"
        "        args: [jobs]\n"
    )
    rendered = subprocess.run(
        [sys.executable, "-m", "trainc", "build", "jobs"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert rendered.returncode == 0, rendered.stderr
    commit(repo)
    result = pre_commit(repo, home, "run", "trainc-build-check", "--all-files")
    assert result.returncode == 0, result.stdout + result.stderr
    (repo / "jobs" / "job.yaml").write_text(trainjob(name="renamed", runtime="mine"))
    commit(repo)
    result = pre_commit(repo, home, "run", "trainc-build-check", "--all-files")
    assert result.returncode == 1
    assert (
        "rendered/team-a/demo.yaml: left over (the build would remove it)\n"
        "rendered/team-a/renamed.yaml: missing\n"
        "rendered is out of date: 2 files (re-run the build without --check)\n"
    ) in result.stdout
    assert sorted(p.name for p in (repo / "rendered" / "team-a").iterdir()) == ["demo.yaml"]  # nothing written


def test_a_runtime_not_found_names_the_configs_runtimes(hooks, tmp_path):
    """The hook passes no --runtimes: the message names where its runtimes came from, the project config."""
    hook_repo, _, home = hooks
    repo = project(tmp_path / "user")
    (repo / "jobs" / "job.yaml").write_text(trainjob(runtime="mien"))
    commit(repo)
    result = pre_commit(repo, home, "try-repo", str(hook_repo), "trainc-validate", "--files", "jobs/job.yaml")
    assert result.returncode == 1
    assert (
        'ClusterTrainingRuntime "mien" not found; looked in the inputs, runtimes in .trainc.yaml and the bundled '
        "runtimes"
    ) in result.stdout
    assert "--runtimes" not in result.stdout
