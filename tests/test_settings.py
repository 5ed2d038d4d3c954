"""trainc.settings: one resolution of flags, environment, project config and route, with origins; `trainc
config`; settings reported in their own terms; paths confined to the repository (--root)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT
from helpers import RUNTIME, trainjob, write

MPI_CASE = ROOT / "golden" / "mpi-env-order"


def repository(tmp_path, config: str = ""):
    """A git repository with a TrainJob without a namespace and runtimes outside its folder."""
    (tmp_path / ".git").mkdir(parents=True)
    write(tmp_path, "platform/runtimes.yaml", RUNTIME.format(name="mine", policy="torch: {}"))
    write(tmp_path, "jobs/job.yaml", trainjob(runtime="mine").replace("  namespace: team-a\n", ""))
    if config:
        write(tmp_path, ".trainc.yaml", config)
    return tmp_path


def run_env(*args, cwd, **variables):
    """`trainc ARGS` with these environment variables, and none of trainc's own otherwise."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("TRAINC_", "ARGOCD_", "PARAM_"))}
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env={**env, "PYTHONPATH": str(ROOT), **variables},
    )


# --- trainc config ---------------------------------------------------------------------------------------------


def test_config_shows_each_value_and_where_it_came_from(tmp_path):
    repo = repository(tmp_path, "runtimes: [platform]\nnamespace: team-a\noutput-dir: rendered\n")
    result = run_env("config", cwd=repo / "jobs")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        f"default (the git repository's root)\troot={repo}\n"
        "../.trainc.yaml\tconfig=../.trainc.yaml\n"
        "../.trainc.yaml:1:12\truntimes=../platform\n"
        "../.trainc.yaml:2:12\tnamespace=team-a\n"
        "../.trainc.yaml:3:13\toutput-dir=../rendered\n"
        "default\tssh-keys=seed\n"
        "default\ttrainer-version=v2.4\n"
        "trainc\ttrainer-versions=v2.3,v2.4\n"
    )


def test_config_flags_and_environment_win_and_say_so(tmp_path):
    repo = repository(tmp_path, "namespace: team-a\nruntimes: [platform]\n")
    result = run_env("config", "-n", "team-b", "--ssh-key-seed", "seed", cwd=repo, TRAINC_RUNTIMES="jobs:platform")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[2:-2] == [
        "TRAINC_RUNTIMES\truntimes=jobs",
        "TRAINC_RUNTIMES\truntimes=platform",
        "--namespace\tnamespace=team-b",
        "--ssh-key-seed\tssh-key-seed=seed",
        "default\tssh-keys=seed",
    ]
    bare = run_env("config", cwd=repo)
    assert ".trainc.yaml:1:12\tnamespace=team-a" in bare.stdout and "runtimes=platform" in bare.stdout


def test_config_under_the_argocd_route_names_the_applications_parameters(tmp_path):
    repo = repository(tmp_path)
    result = run_env(
        "config",
        cwd=repo / "jobs",
        TRAINC_ROUTE="argocd",
        TRAINC_ROOT=str(repo),
        ARGOCD_APP_NAMESPACE="team-a",
        PARAM_RUNTIMES_0="../platform",
        PARAM_TRAINER_VERSION="v2.3",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"TRAINC_ROOT\troot={repo}",
        "PARAM_RUNTIMES_0 (the plugin parameter runtimes)\truntimes=../platform",
        "ARGOCD_APP_NAMESPACE (the Application's destination namespace)\tnamespace=team-a",
        "the seed 'seed' in the sidecar's seed directory /var/run/trainc (the default of TRAINC_SSH_KEY_SEED_DIR)"
        "\tssh-key-seed=/var/run/trainc/seed",
        "default\tssh-keys=seed",
        "PARAM_TRAINER_VERSION (the plugin parameter trainer-version)\ttrainer-version=v2.3",
        "default under the Argo CD plugin (its application controller)"
        "\tas=system:serviceaccount:argocd:argocd-application-controller",
        "trainc\ttrainer-versions=v2.3,v2.4",
    ]


def test_trainer_version_is_pinned_by_the_project_and_overridden_by_flag_and_environment(tmp_path):
    """The project's pin renders its MPI launcher without the v2.4 PRTE env; the environment and the flag win over
    it, and `trainc version` says which release is in effect and where it was set."""
    repo = repository(tmp_path, "trainer-version: v2.3\n")
    write(
        repo,
        "jobs/mpi.yaml",
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: ds\n"
        "spec:\n  runtimeRef:\n    name: deepspeed-distributed\n  trainer:\n    numNodes: 2\n",
    )
    pinned = run_env("build", "mpi.yaml", cwd=repo / "jobs")
    assert pinned.returncode == 0, pinned.stderr
    assert "OMPI_MCA_orte_default_hostfile" in pinned.stdout and "PRTE_MCA" not in pinned.stdout
    for override in (
        run_env("build", "--trainer-version", "v2.4", "mpi.yaml", cwd=repo / "jobs"),
        run_env("build", "mpi.yaml", cwd=repo / "jobs", TRAINC_TRAINER_VERSION="v2.4"),
    ):
        assert override.returncode == 0, override.stderr
        assert "PRTE_MCA_prte_keep_fqdn_hostnames" in override.stdout
    assert "../.trainc.yaml:1:18\ttrainer-version=v2.3" in run_env("config", cwd=repo / "jobs").stdout
    version = run_env("version", cwd=repo / "jobs").stdout
    assert (
        "Kubeflow Trainer releases v2.3, v2.4; rendering for v2.3 (../.trainc.yaml:1:18: trainer-version)\n" in version
    )


def test_a_trainer_version_trainc_does_not_render_is_an_error_where_it_is_written(tmp_path):
    repo = repository(tmp_path, "namespace: team-a\ntrainer-version: v2.5\n")
    result = run_env("build", "job.yaml", cwd=repo / "jobs")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "../.trainc.yaml:2:18: trainer-version: 'v2.5' is not a Kubeflow Trainer release trainc "
        "renders for (supported: v2.3, v2.4)\n"
    )
    plugin = run_env(
        "config", cwd=repo / "jobs", TRAINC_ROUTE="argocd", TRAINC_ROOT=str(repo), PARAM_TRAINER_VERSION="2.4"
    )
    assert plugin.returncode == 1
    assert plugin.stderr.startswith("PARAM_TRAINER_VERSION (the plugin parameter trainer-version): '2.4' is not")


def test_an_unknown_route_is_an_error(tmp_path):
    result = run_env("config", cwd=tmp_path, TRAINC_ROUTE="flux")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "TRAINC_ROUTE: 'flux' is not a route trainc knows (known: argocd, kustomize)\n"


# --- settings reported in their own terms ----------------------------------------------------------------------


def test_a_bad_runtimes_path_is_named_where_it_was_set(tmp_path):
    repo = repository(tmp_path, "runtimes: [platform, nowhere]\n")
    result = run_env("build", "jobs", cwd=repo)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ".trainc.yaml:1:22: runtimes[1]: nowhere: no such file or directory\n"
    (repo / ".trainc.yaml").unlink()
    result = run_env("validate", "jobs", cwd=repo, TRAINC_RUNTIMES="platform:nowhere")
    assert (result.returncode, result.stderr) == (1, "TRAINC_RUNTIMES: nowhere: no such file or directory\n")
    result = run_env("build", "--runtimes", "nowhere", "jobs", cwd=repo)
    assert (result.returncode, result.stderr) == (1, "--runtimes: nowhere: no such file or directory\n")


@pytest.mark.parametrize("key", ["runtimes", "ssh-key-seed", "output-dir"])
def test_a_path_holding_nul_is_an_error_not_a_traceback(tmp_path, key):
    value = '["a\\0b"]' if key == "runtimes" else '"a\\0b"'
    write(tmp_path, ".trainc.yaml", f"{key}: {value}\n")
    result = run_env("config", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert (
        result.stderr.endswith(": a\\x00b: a path cannot hold a NUL character\n") and "Traceback" not in result.stderr
    )


def test_a_runtime_not_found_names_the_configs_runtimes(tmp_path):
    """As pre-commit runs trainc: no flags, the runtimes come from the project config."""
    repo = repository(tmp_path, "runtimes: [jobs]\n")
    result = run_env("validate", "jobs/job.yaml", cwd=repo)
    assert result.returncode == 1
    assert (
        'ClusterTrainingRuntime "mine" not found; looked in the inputs, runtimes in .trainc.yaml and the '
        "bundled runtimes"
    ) in result.stderr


def test_an_invalid_namespace_is_named_where_it_was_set(tmp_path):
    """-n is given to passed-through objects too: checked even for inputs without a TrainJob."""
    write(tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n")
    pattern = "must match the pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n"
    assert run_env("build", "-n", "Team", "cm.yaml", cwd=tmp_path).stderr == f'--namespace: "Team" {pattern}'
    assert (
        run_env("build", "cm.yaml", cwd=tmp_path, TRAINC_NAMESPACE="a b").stderr == f'TRAINC_NAMESPACE: "a b" {pattern}'
    )
    write(tmp_path, ".trainc.yaml", "namespace: x_y\n")
    result = run_env("build", "cm.yaml", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        f'.trainc.yaml:1:12: namespace: "x_y" {pattern}',
    )


@pytest.mark.parametrize("how", ["env", "config", "flag"])
def test_a_seed_path_that_is_a_directory_fails_only_an_mpi_job_naming_its_origin(tmp_path, how):
    (tmp_path / ".git").mkdir()
    (tmp_path / "mounted").mkdir()
    write(tmp_path, "torch.yaml", trainjob())
    for name in ("trainjob.yaml", "runtime.yaml"):
        write(tmp_path, f"mpi/{name}", (MPI_CASE / name).read_text())
    args, variables = [], {}
    if how == "env":
        variables["TRAINC_SSH_KEY_SEED_FILE"] = "mounted"
    elif how == "config":
        write(tmp_path, ".trainc.yaml", "ssh-key-seed: mounted\n")
    else:
        args = ["--ssh-key-seed", "mounted"]
    assert run_env("build", *args, "torch.yaml", cwd=tmp_path, **variables).returncode == 0
    result = run_env("build", *args, "mpi", cwd=tmp_path, **variables)
    assert (result.returncode, result.stdout) == (1, "")
    origin = {"env": "TRAINC_SSH_KEY_SEED_FILE", "config": ".trainc.yaml:1:15: ssh-key-seed", "flag": "--ssh-key-seed"}[
        how
    ]
    assert f"MPI SSH keys need the seed, and mounted (from {origin}) cannot be read: Is a directory" in result.stderr
    assert "Usage:" not in result.stderr and "Invalid value" not in result.stderr


@pytest.mark.parametrize(
    "text, line",
    [
        (b"tool = 5\n", "pyproject.toml:1:1: tool: must be a table (as [tool.trainc])"),
        (b'[project]\nname = "x"\n\ntool = "trainc"\n', None),  # [project].tool: not the top-level key
        (b'tool = "trainc"\n', "pyproject.toml:1:1: tool: must be a table (as [tool.trainc])"),
        (b"[tool]\ntrainc = 5\n", "pyproject.toml:2:1: tool.trainc: must be a mapping of trainc settings"),
        (b'[tool.trainc]\nnamespace = "caf\xe9"\n', "pyproject.toml:2:17: invalid TOML: not UTF-8 text"),
    ],
    ids=["tool-number", "project-tool", "tool-string", "trainc-number", "latin-1"],
)
def test_a_broken_pyproject_is_a_positioned_error(tmp_path, text, line):
    (tmp_path / "pyproject.toml").write_bytes(text)
    write(tmp_path, "job.yaml", trainjob())
    result = run_env("build", "job.yaml", cwd=tmp_path)
    if line is None:
        assert result.returncode == 0, result.stderr
        return
    assert (result.returncode, result.stdout, result.stderr) == (1, "", line + "\n")
    assert run_env("version", cwd=tmp_path).returncode == 0  # read only by commands that take its settings


# --- output-dir: stdout when stdout is asked for ---------------------------------------------------------------


def test_the_configs_output_dir_gives_way_to_an_explicit_o(tmp_path):
    repo = repository(tmp_path, "runtimes: [platform]\noutput-dir: rendered\n")
    result = run_env("build", "jobs", "-o", "yaml", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert [d["kind"] for d in yaml.safe_load_all(result.stdout)] == ["JobSet"]
    assert not (repo / "rendered").exists()
    listed = run_env("build", "jobs", "-o", "json", cwd=repo)
    assert listed.returncode == 0 and '"kind": "List"' in listed.stdout
    written = run_env("build", "jobs", cwd=repo)  # without -o, the config's output-dir applies, as in CI
    assert (written.returncode, written.stdout) == (0, "")
    assert (repo / "rendered" / "default" / "demo.yaml").is_file()


# --- paths confined to the repository --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key, value",
    [
        ("runtimes", "[../outside]"),
        ("runtimes", "[/etc]"),
        ("ssh-key-seed", "../outside/seed"),
        ("output-dir", "../outside"),
        ("runtimes", "[link]"),
    ],
)
def test_the_configs_paths_stay_in_the_repository(tmp_path, key, value):
    repo = repository(tmp_path / "repo", f"{key}: {value}\n")
    (tmp_path / "outside").mkdir()
    (repo / "link").symlink_to(tmp_path / "outside")
    result = run_env("build", "jobs", cwd=repo)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f".trainc.yaml:1:{len(key) + 3 + (key == 'runtimes')}: {key}")
    assert (
        f"outside the repository being rendered ({repo}, the root from default (the git repository's root))"
        in result.stderr
    )
    assert list((tmp_path / "outside").iterdir()) == []  # no output-dir written there


def test_with_root_command_line_paths_stay_inside_and_the_environment_may_not(tmp_path):
    repo = repository(tmp_path / "repo")
    (tmp_path / "elsewhere").mkdir()
    write(tmp_path, "elsewhere/runtimes.yaml", RUNTIME.format(name="mine", policy="torch: {}"))
    refused = run_env("--root", str(repo), "build", "--runtimes", "../elsewhere", "jobs", cwd=repo)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.startswith(
        f"--runtimes: ../elsewhere: outside the repository being rendered ({repo}, the root from --root)"
    )
    outside_path = run_env("--root", str(repo / "jobs"), "build", "platform", cwd=repo)
    assert outside_path.returncode == 1 and outside_path.stderr.startswith("PATHS: platform: outside the repository ")
    # the operator's environment is not the repository's word
    allowed = run_env("--root", str(repo), "build", "jobs", cwd=repo, TRAINC_RUNTIMES=str(tmp_path / "elsewhere"))
    assert allowed.returncode == 0, allowed.stderr
    # without --root, the command line is the user's own
    assert run_env("build", "--runtimes", "../elsewhere", "jobs", cwd=repo).returncode == 0


def test_root_bounds_the_config_lookup(tmp_path):
    """cmp-server's checkout has no .git: without a root, a config at the repository's root is not found from
    the app's folder; with TRAINC_ROOT it is, and none above the root is ever read."""
    write(tmp_path, ".trainc.yaml", "namespace: above\n")
    repo = tmp_path / "repo"
    write(repo, ".trainc.yaml", "namespace: team-r\n")
    write(repo, "apps/app/job.yaml", trainjob().replace("  namespace: team-a\n", ""))
    result = run_env("config", cwd=repo / "apps" / "app", TRAINC_ROOT=str(repo))
    assert "../../.trainc.yaml:1:12\tnamespace=team-r" in result.stdout
    assert run_env("config", cwd=repo / "apps" / "app", TRAINC_ROOT=str(repo / "apps")).stdout.splitlines()[1:] == [
        "default\tnamespace=default",
        "default\tssh-keys=seed",
        "default\ttrainer-version=v2.4",
        "trainc\ttrainer-versions=v2.3,v2.4",
    ]
    missing = run_env("--root", str(tmp_path / "nowhere"), "config", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (1, f"--root: {tmp_path / 'nowhere'}: not a directory\n")


# --- explain --job NAME --------------------------------------------------------------------------------------


def test_explain_job_takes_a_name_in_the_namespace_of_n(tmp_path):
    write(tmp_path, "job.yaml", trainjob().replace("  namespace: team-a\n", ""))
    named = run_env("explain", "-n", "team-b", "--job", "demo", "job.yaml", cwd=tmp_path)
    assert named.returncode == 0, named.stderr
    assert named.stdout.startswith("JobSet team-b/demo\n")
    assert named.stdout == run_env("explain", "-n", "team-b", "--job", "team-b/demo", "job.yaml", cwd=tmp_path).stdout
    write(tmp_path, "job.yaml", trainjob())  # in team-a
    assert run_env("explain", "-n", "team-a", "--job", "demo", "job.yaml", cwd=tmp_path).returncode == 0
    wrong = run_env("explain", "--job", "demo", "job.yaml", cwd=tmp_path)
    assert wrong.returncode == 2 and "no TrainJob default/demo is rendered from the inputs" in wrong.stderr


# --- the seed's mode on a Secret volume ------------------------------------------------------------------------


def _status(mode: int, uid: int, gid: int) -> os.stat_result:
    return os.stat_result((stat.S_IFREG | mode, 0, 0, 1, uid, gid, 64, 0, 0, 0))


def test_a_secret_volume_seed_mounted_for_this_group_is_not_warned_about():
    from trainc.compiler.sshkeys import _exposed

    me, group, someone = os.geteuid(), os.getegid(), os.geteuid() + 1
    assert _exposed(_status(0o600, me, group)) is None
    assert _exposed(_status(0o644, me, group)) == "chmod 600 {}"
    # root's file on a Secret volume: defaultMode 0440, the pod's fsGroup is this process's group
    assert _exposed(_status(0o440, someone, group)) is None
    # the volume's default mode 0644: anyone may read it, and chmod cannot help on a read-only mount
    assert "defaultMode: 0440" in _exposed(_status(0o644, someone, group))
    assert "fsGroup" in _exposed(_status(0o440, someone, group + 1))


def test_the_repo_server_patch_mounts_the_seed_for_the_sidecars_group():
    patch = yaml.safe_load((ROOT / "examples" / "argocd" / "repo-server-patch.yaml").read_text())
    spec = patch["spec"]["template"]["spec"]
    sidecar = next(c for c in spec["containers"] if c["name"] == "trainc")
    volume = next(v for v in spec["volumes"] if v["name"] == "trainc-ssh-key-seed")
    assert volume["secret"]["defaultMode"] == 0o440
    assert spec["securityContext"]["fsGroup"] == sidecar["securityContext"]["runAsUser"] == 999


def test_config_shows_the_key_and_policy_settings_and_takes_their_flags(tmp_path):
    """`trainc config` lists ssh-keys, sealed-secrets-cert, policy-paths and the house rules (`policies`), and
    takes --ssh-keys and --policies as the compiling commands do (issue 20)."""
    (tmp_path / "policies").mkdir()
    (tmp_path / "cert.pem").write_text("")
    (tmp_path / ".trainc.yaml").write_text(
        "ssh-keys: sealed-secrets\nsealed-secrets-cert: cert.pem\npolicy-paths: [policies]\npolicies:\n"
        '  - name: gpu-cap\n    match: {kinds: [JobSet]}\n    rule: "true"\n'
    )
    shown = run_env("config", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-6:] == [
        ".trainc.yaml:3:16\tpolicy-paths=policies",
        ".trainc.yaml:1:11\tssh-keys=sealed-secrets",
        ".trainc.yaml:2:22\tsealed-secrets-cert=cert.pem",
        "default\ttrainer-version=v2.4",
        ".trainc.yaml\tpolicies=gpu-cap",
        "trainc\ttrainer-versions=v2.3,v2.4",
    ]
    flagged = run_env("config", "--ssh-keys", "external-secrets", "--policies", "policies", cwd=tmp_path)
    assert flagged.returncode == 0, flagged.stderr
    assert "--ssh-keys\tssh-keys=external-secrets\n" in flagged.stdout
    assert "--policies\tpolicy-paths=policies\n" in flagged.stdout
