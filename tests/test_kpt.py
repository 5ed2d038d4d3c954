"""`trainc fn` driven by the real kpt: `kpt fn eval --exec` and `kpt fn render` with a Kptfile pipeline,
on a copy of the example package examples/kpt/ plus a runtime and a ConfigMap that must come back as written
(given the package's namespace, as build places it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, need

FUNCTION = "trainc fn"
EXAMPLE = ROOT / "examples" / "kpt"
SETTINGS = """\
# the app's settings: kpt must give this file back byte for byte
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings # trailing comment
data:
  on: yes
  mode: 0644
  version: 1.0
  "quoted": 'single'
  flow: {a: [1, 2]}
"""
# given the package's namespace (kpt writes it after the name), the rest byte for byte
PLACED = SETTINGS.replace("# trailing comment\n", "# trailing comment\n  namespace: team-a\n")
TRAINJOB = (
    (EXAMPLE / "jobs/demo.yaml")
    .read_text()
    .replace("name: torch-distributed", "name: my-torch\n    kind: TrainingRuntime")
)
RUNTIME = (
    (ROOT / "runtimes/torch-simple.yaml")
    .read_text()
    .replace(
        "kind: ClusterTrainingRuntime\nmetadata:\n  name: torch-simple",
        "kind: TrainingRuntime\nmetadata:\n  name: my-torch\n  namespace: team-a",
    )
)
KPTFILE = (EXAMPLE / "Kptfile").read_text()


@pytest.fixture
def package(tmp_path) -> Path:
    need(shutil.which("kpt") is not None, "kpt is not installed")
    root = tmp_path / "training"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    for path, text in {
        "jobs/demo.yaml": TRAINJOB,
        "runtimes/my-torch.yaml": RUNTIME,
        "config/settings.yaml": SETTINGS,
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def _files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def _kpt(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """kpt runs `trainc` from PATH: this interpreter's."""
    env = {**os.environ, **env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["kpt", "fn", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def _local_config(text: str) -> str:
    return yaml.safe_load(text)["metadata"]["annotations"]["config.kubernetes.io/local-config"]


def _check_hydrated(before: dict[str, str], after: dict[str, str]) -> None:
    assert after["config/settings.yaml"] == PLACED and after["Kptfile"] == KPTFILE
    assert _local_config(after["jobs/demo.yaml"]) == _local_config(after["runtimes/my-torch.yaml"]) == "true"
    assert after["jobs/demo.yaml"].startswith(TRAINJOB.split("metadata:")[0])  # its comments kept
    rendered = list(yaml.safe_load_all(after["jobs/rendered/team-a/demo.yaml"]))
    assert [(d["kind"], d["metadata"]["namespace"], d["metadata"]["annotations"]) for d in rendered] == [
        ("JobSet", "team-a", {"trainc.kubeflow.org/rendered-from": "team-a/demo"})
    ]
    assert rendered[0]["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2
    assert set(after) == set(before) | {"jobs/rendered/team-a/demo.yaml"}


def test_kpt_fn_eval_renders_beside_the_trainjob_and_a_second_run_changes_nothing(package):
    before = _files(package)
    first = _kpt("eval", "--exec", FUNCTION, cwd=package)
    assert first.returncode == 0, first.stderr
    hydrated = _files(package)
    _check_hydrated(before, hydrated)
    second = _kpt("eval", str(package), "--exec", FUNCTION, cwd=package.parent)
    assert second.returncode == 0, second.stderr
    assert _files(package) == hydrated


def test_kpt_fn_render_runs_the_kptfile_pipeline(package):
    before = _files(package)
    refused = _kpt("render", str(package), cwd=package.parent)
    assert refused.returncode != 0 and "--allow-exec" in refused.stderr and _files(package) == before
    first = _kpt("render", str(package), "--allow-exec", cwd=package.parent)
    assert first.returncode == 0, first.stderr
    hydrated = _files(package)
    _check_hydrated(before, hydrated)
    second = _kpt("render", str(package), "--allow-exec", cwd=package.parent)
    assert second.returncode == 0, second.stderr
    assert _files(package) == hydrated


def test_a_deleted_trainjob_takes_its_rendered_file_with_it(package):
    assert _kpt("eval", "--exec", FUNCTION, cwd=package).returncode == 0
    (package / "jobs/demo.yaml").unlink()
    assert _kpt("eval", "--exec", FUNCTION, cwd=package).returncode == 0
    assert set(_files(package)) == {"Kptfile", "config/settings.yaml", "runtimes/my-torch.yaml"}


@pytest.mark.parametrize("command", ["eval", "eval from the parent", "render"])
def test_an_invalid_trainjob_fails_at_the_users_line_and_leaves_the_package_alone(package, command):
    (package / "jobs/demo.yaml").write_text(TRAINJOB.replace("numNodes: 2", "numNodes: two"))
    before = _files(package)
    if command == "eval":  # from the package directory, where the function can read the user's file
        result = _kpt("eval", "--exec", FUNCTION, cwd=package)
        where = "jobs/demo.yaml:13:15"
    elif command == "eval from the parent":  # the package is a subdirectory of the current directory
        result = _kpt("eval", "training", "--exec", FUNCTION, cwd=package.parent)
        where = "training/jobs/demo.yaml:13:15"
    else:  # `kpt fn render` tells the function where the package is
        result = _kpt("render", str(package), "--allow-exec", cwd=package.parent)
        where = "training/jobs/demo.yaml:13:15"
    assert result.returncode == 1
    assert f"{where}: spec.trainer.numNodes: must be an integer, not string" in result.stderr
    assert "[error] trainer.kubeflow.org/v1alpha1/TrainJob/team-a/demo spec.trainer.numNodes" in result.stderr
    assert _files(package) == before


def test_an_mpi_job_renders_all_its_objects_into_one_file_stable_with_a_seed(package):
    for name in ("trainjob.yaml", "runtime.yaml"):
        shutil.copy(ROOT / "golden" / "mpi-env-order" / name, package / "jobs" / f"mpi-{name}")
    seed = {"TRAINC_SSH_KEY_SEED_FILE": str(ROOT / "tests" / "golden-ssh-seed")}  # kpt passes its environment on
    assert _kpt("eval", "--exec", FUNCTION, cwd=package, **seed).returncode == 0
    hydrated = _files(package)
    assert [d["kind"] for d in yaml.safe_load_all(hydrated["jobs/rendered/default/env.yaml"])] == [
        "Secret",
        "ConfigMap",
        "JobSet",
    ]
    assert hydrated["jobs/rendered/default/env.yaml"] == (
        ROOT / "golden" / "mpi-env-order" / "expected.out.yaml"
    ).read_text().replace(
        "  labels:\n    trainer.kubeflow.org/trainjob-name: env\n",
        "  labels:\n    trainer.kubeflow.org/trainjob-name: env\n"
        "  annotations:\n    trainc.kubeflow.org/rendered-from: default/env\n",
    ).removeprefix("---\n")
    assert _kpt("eval", "--exec", FUNCTION, cwd=package, **seed).returncode == 0
    assert _files(package) == hydrated


def test_the_namespace_comes_from_the_function_config_and_unknown_keys_fail(package):
    (package / "jobs/demo.yaml").write_text(TRAINJOB.replace("  namespace: team-a\n", ""))
    before = _files(package)
    wrong = _kpt("eval", "--exec", FUNCTION, "--", "nmespace=team-b", cwd=package)
    assert wrong.returncode == 1 and _files(package) == before
    assert "functionConfig.data.nmespace: unknown setting: trainc fn takes only namespace" in wrong.stderr
    result = _kpt("eval", "--exec", FUNCTION, "--", "namespace=team-b", cwd=package)
    assert result.returncode == 1  # the TrainingRuntime is in team-a
    assert 'TrainingRuntime "my-torch" not found in namespace "team-b"' in result.stderr
    (package / "runtimes/my-torch.yaml").write_text(RUNTIME.replace("  namespace: team-a\n", ""))
    result = _kpt("eval", "--exec", FUNCTION, "--", "namespace=team-b", cwd=package)
    assert result.returncode == 0, result.stderr
    assert yaml.safe_load((package / "jobs/rendered/team-b/demo.yaml").read_text())["metadata"]["namespace"] == "team-b"


def test_the_example_package_renders_as_the_readme_says(tmp_path):
    need(shutil.which("kpt") is not None, "kpt is not installed")
    shutil.copytree(EXAMPLE, tmp_path / "kpt")
    result = _kpt("render", "kpt", "--allow-exec", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rendered = yaml.safe_load((tmp_path / "kpt/jobs/rendered/team-a/demo.yaml").read_text())
    assert rendered["kind"] == "JobSet" and _local_config((tmp_path / "kpt/jobs/demo.yaml").read_text()) == "true"


@pytest.mark.parametrize("mode, kind", [("sealed-secrets", "SealedSecret"), ("external-secrets", "ExternalSecret")])
def test_kpt_keeps_an_mpi_key_out_of_the_package_and_a_second_render_changes_nothing(package, tmp_path, mode, kind):
    """--ssh-keys through kpt's environment: the package holds no private key, and the sealed blob stays put."""
    from conftest import GOLDEN, GOLDEN_SEED

    (package / "jobs" / "ds.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "metadata:\n  name: ds\n  namespace: team-a\nspec:\n  runtimeRef:\n"
        "    name: deepspeed-distributed\n"
    )
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(0o600)
    env = {
        "TRAINC_SSH_KEYS": mode,
        "TRAINC_SSH_KEY_SEED_FILE": str(seed),
        "TRAINC_SEALED_SECRETS_CERT": str(GOLDEN / "mpi-sealed-secrets" / "sealed-secrets-cert.pem"),
    }
    first = _kpt("render", "--allow-exec", cwd=package, **env)
    assert first.returncode == 0, first.stderr
    hydrated = _files(package)
    rendered = hydrated["jobs/rendered/team-a/ds.yaml"]
    assert f"kind: {kind}" in rendered and "kind: Secret" not in rendered
    assert not any("PRIVATE KEY" in text for text in hydrated.values())
    again = _kpt("render", "--allow-exec", cwd=package, **env)
    assert again.returncode == 0, again.stderr
    assert _files(package) == hydrated


def test_kpt_fn_eval_takes_the_namespace_the_kptfile_gives_trainc(package):
    """`kpt fn eval` passes no functionConfig without `-- namespace=`, but it passes the package's Kptfile among
    the items: its `exec: trainc fn` mutator's configMap is the package's namespace, so eval renders as render."""
    (package / "jobs/demo.yaml").write_text(TRAINJOB.replace("  namespace: team-a\n", ""))
    evaluated = _kpt("eval", "--exec", FUNCTION, cwd=package)
    assert evaluated.returncode == 0, evaluated.stderr
    assert yaml.safe_load((package / "jobs/rendered/team-a/demo.yaml").read_text())["metadata"]["namespace"] == "team-a"
    (package / "Kptfile").write_text(KPTFILE.replace("namespace: team-a", "namespace: Team_A"))
    refused = _kpt("eval", "--exec", FUNCTION, cwd=package)
    assert refused.returncode == 1
    assert (
        "Kptfile:9:18: pipeline.mutators[0].configMap.namespace: the default namespace must be a DNS-1123"
        in refused.stderr
    )


def test_a_bad_function_config_points_at_the_kptfile_not_at_stdin(package):
    (package / "Kptfile").write_text(
        KPTFILE.replace("      namespace: team-a\n", "      namespace: team-a\n      nmespace: team-b\n")
    )
    before = _files(package)
    result = _kpt("render", ".", "--allow-exec", cwd=package)
    assert result.returncode == 1 and _files(package) == before
    assert (
        "Kptfile:10:7: pipeline.mutators[0].configMap.nmespace: unknown setting: trainc fn takes only namespace"
        in result.stderr
    )
    assert "<stdin>" not in result.stderr
    evaluated = _kpt("eval", "--exec", FUNCTION, "--", "nmespace=team-b", cwd=package)
    assert "<stdin>" not in evaluated.stderr and "functionConfig.data.nmespace: unknown setting" in evaluated.stderr


def test_kpt_runs_trainc_fn_with_the_project_configs_runtimes(tmp_path):
    """kpt runs an exec function in kpt's own working directory with kpt's environment (kpt's
    internal/fnruntime/exec.go sets no Dir): `trainc fn` finds the project config from there, as build does,
    and reads its `runtimes` (relative to the config, inside the root) besides the package's items."""
    need(shutil.which("kpt") is not None, "kpt is not installed")
    repo = tmp_path / "repo"
    package = repo / "apps" / "training"
    shutil.copytree(EXAMPLE, package, ignore=shutil.ignore_patterns("README.md"))
    (package / "jobs/demo.yaml").write_text(TRAINJOB)
    (repo / "platform/runtimes").mkdir(parents=True)
    (repo / "platform/runtimes/my-torch.yaml").write_text(RUNTIME)
    (repo / ".trainc.yaml").write_text("runtimes: [platform/runtimes]\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rendered = package / "jobs/rendered/team-a/demo.yaml"
    result = _kpt("render", "apps/training", "--allow-exec", cwd=repo)  # from the root
    assert result.returncode == 0, result.stderr
    first = rendered.read_text()
    rendered.unlink()
    result = _kpt("eval", "--exec", FUNCTION, cwd=package)  # from the package: the config is the repository's
    assert result.returncode == 0, result.stderr
    assert rendered.read_text() == first and yaml.safe_load(first)["kind"] == "JobSet"
    (repo / ".trainc.yaml").write_text("runtimes: [../outside]\n")  # a repository names only its own files
    (tmp_path / "outside").mkdir()
    refused = _kpt("eval", "--exec", FUNCTION, cwd=package)
    assert (
        refused.returncode == 1
        and ".trainc.yaml:1:12: runtimes[0]: ../../../outside: outside the repository" in refused.stderr
    )
    (repo / ".trainc.yaml").unlink()
    missing = _kpt("eval", "--exec", FUNCTION, cwd=package)
    assert missing.returncode == 1 and 'TrainingRuntime \\"my-torch\\" not found in namespace' in missing.stderr
    environment = _kpt("eval", "--exec", FUNCTION, cwd=package, TRAINC_RUNTIMES=str(repo / "platform/runtimes"))
    assert environment.returncode == 0, environment.stderr
    assert rendered.read_text() == first


def test_a_package_at_the_root_reads_the_configs_runtimes_once(tmp_path):
    """A Kptfile at the repository root makes the config's runtimes items too: each file is read once (not
    'defined twice'), under render (kpt gives the package path) and eval from the package."""
    need(shutil.which("kpt") is not None, "kpt is not installed")
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns("README.md"))
    (repo / "jobs/demo.yaml").write_text(TRAINJOB)
    (repo / "platform/runtimes").mkdir(parents=True)
    (repo / "platform/runtimes/my-torch.yaml").write_text(RUNTIME)
    (repo / ".trainc.yaml").write_text("runtimes: [platform/runtimes]\n")
    (repo / ".krmignore").write_text(".trainc.yaml\n")  # kpt refuses a package file that is no KRM resource
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    rendered = repo / "jobs/rendered/team-a/demo.yaml"
    result = _kpt("render", ".", "--allow-exec", cwd=repo)  # kpt's directory: the config applies
    assert result.returncode == 0, result.stderr
    first = rendered.read_text()
    rendered.unlink()
    result = _kpt("eval", "--exec", FUNCTION, cwd=repo)
    assert result.returncode == 0, result.stderr
    assert rendered.read_text() == first


def test_a_hydrated_package_builds_as_before_its_render_through_build_and_the_argocd_plugin(package, tmp_path):
    """A package with `kpt fn render`'s files committed (issue 20): trainc's own rendered objects (marked
    rendered-from) are recognised as its output, not inputs, so `build` and the Argo CD plugin render it as
    they rendered it before hydration instead of failing with "also rendered"."""
    from helpers import cmp_env, generate
    from helpers import run

    before = run("build", str(package), "-o", "yaml", cwd=tmp_path)
    assert before.returncode == 0, before.stderr
    assert _kpt("render", str(package), "--allow-exec", cwd=package.parent).returncode == 0
    assert (package / "jobs/rendered/team-a/demo.yaml").is_file()
    after = run("build", str(package), "-o", "yaml", cwd=tmp_path)
    assert (after.returncode, after.stderr) == (0, "")
    assert [(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(after.stdout)] == [
        (d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(before.stdout)
    ]
    app = tmp_path / "repo" / "apps" / "training"
    shutil.copytree(package, app)
    plugin = generate(app, cmp_env(tmp_path))
    assert plugin.returncode == 0, plugin.stderr
    assert "kind: JobSet" in plugin.stdout and "rendered-from" not in plugin.stdout
