"""examples/kustomize: trainc as a kustomize exec generator plugin, run by the real `kubectl kustomize`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, need

EXAMPLE = ROOT / "examples" / "kustomize"


@pytest.fixture
def kubectl() -> str:
    path = shutil.which("kubectl")
    need(path is not None, "kubectl (with kustomize) is not installed")
    return path


def _env() -> dict[str, str]:
    """The plugin runs `trainc` from PATH: this interpreter's."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def _build(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(EXAMPLE / "build.sh"), *args], capture_output=True, text=True, cwd=cwd, env=_env(), timeout=120
    )


def test_build_sh_renders_the_trainjob_and_keeps_the_other_resources(kubectl):
    result = _build()
    assert result.returncode == 0, result.stderr
    documents = list(yaml.safe_load_all(result.stdout))
    assert [(d["kind"], d["metadata"]["name"]) for d in documents] == [("ConfigMap", "settings"), ("JobSet", "demo")]
    assert documents[1]["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2
    direct = subprocess.run(
        [sys.executable, "-m", "trainc", "build", str(EXAMPLE / "app" / "jobs")],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert documents[1] == yaml.safe_load(direct.stdout)


def test_an_invalid_trainjob_fails_the_build_at_its_line(kubectl, tmp_path):
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE / "app", app)
    demo = app / "jobs" / "demo.yaml"
    demo.write_text(demo.read_text().replace("numNodes: 2", "numNodes: two"))
    result = _build(str(app), cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    # paths are relative to the kustomization's directory, where kustomize runs the plugin
    assert "jobs/demo.yaml:12:15: spec.trainer.numNodes: must be an integer, not string" in result.stderr


def test_without_alpha_plugins_kubectl_refuses_the_generator(kubectl):
    result = subprocess.run(
        [kubectl, "kustomize", str(EXAMPLE / "app")],
        capture_output=True,
        text=True,
        env={**_env(), "KUSTOMIZE_PLUGIN_HOME": str(EXAMPLE / "plugin")},
        timeout=120,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert "external plugins disabled; unable to load external plugin 'TrainJobGenerator'" in result.stderr


def test_kubectl_kustomize_skips_a_krm_exec_function_and_emits_the_raw_trainjob(kubectl, tmp_path):
    """The hazard the README warns about: kubectl's kustomize has no --enable-exec, and with
    --enable-alpha-plugins it drops an exec KRM function silently, exit 0."""
    shutil.copy(EXAMPLE / "app" / "jobs" / "demo.yaml", tmp_path / "demo.yaml")
    (tmp_path / "kustomization.yaml").write_text("resources:\n- demo.yaml\ntransformers:\n- trainc.yaml\n")
    (tmp_path / "trainc.yaml").write_text(
        "apiVersion: trainc.kubeflow.org/v1alpha1\nkind: TrainJobRenderer\nmetadata:\n  name: trainc\n  annotations:\n"
        "    config.kubernetes.io/function: |\n      exec:\n        path: trainc-fn\n"
    )
    result = subprocess.run(
        [kubectl, "kustomize", "--enable-alpha-plugins", str(tmp_path)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert result.returncode == 0
    assert [d["kind"] for d in yaml.safe_load_all(result.stdout)] == ["TrainJob"]
    refused = subprocess.run(
        [kubectl, "kustomize", "--enable-alpha-plugins", "--enable-exec", str(tmp_path)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert refused.returncode == 1 and "unknown flag: --enable-exec" in refused.stderr


def test_name_prefixes_do_not_follow_into_the_jobset(kubectl, tmp_path):
    """What the README warns about: kustomize renames the MPI Secret but not the JobSet's reference to it."""
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE / "app", app)
    for name in ("trainjob.yaml", "runtime.yaml"):
        shutil.copy(ROOT / "golden" / "mpi-env-order" / name, app / "jobs" / f"mpi-{name}")
    with open(app / "kustomization.yaml", "a") as kustomization:
        kustomization.write("namePrefix: x-\n")
    result = _build(str(app), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    documents = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(result.stdout)}
    assert ("Secret", "x-env-mpi-ssh-auth") in documents
    assert "secretName: env-mpi-ssh-auth" in yaml.safe_dump(documents["JobSet", "x-env"])


def test_kustomize_drops_what_trainc_fn_marks_local_config(kubectl, tmp_path):
    """The standalone-kustomize KRM route cannot run here (kubectl's kustomize has no --enable-exec); this
    checks the half kubectl can: fed `trainc fn`'s output items, kustomize drops the local-config TrainJob
    and strips the config.kubernetes.io/path annotations, leaving the JobSet."""
    trainjob = (EXAMPLE / "app" / "jobs" / "demo.yaml").read_text()
    resource_list = "kind: ResourceList\nitems:\n- " + trainjob.replace("\n", "\n  ").rstrip() + "\n"
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "fn"],
        input=resource_list,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    (tmp_path / "fn-output.yaml").write_text(yaml.safe_dump_all(yaml.safe_load(result.stdout)["items"]))
    (tmp_path / "kustomization.yaml").write_text("resources:\n- fn-output.yaml\n")
    built = subprocess.run([kubectl, "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    documents = list(yaml.safe_load_all(built.stdout))
    assert [d["kind"] for d in documents] == ["JobSet"]
    assert documents[0]["metadata"]["annotations"] == {"trainc.kubeflow.org/rendered-from": "team-a/demo"}


@pytest.mark.parametrize(
    "mode, kinds", [("sealed-secrets", ["SealedSecret"]), ("external-secrets", ["SSHKey", "ExternalSecret"])]
)
def test_the_generator_takes_ssh_keys_and_renders_no_private_key(kubectl, tmp_path, monkeypatch, mode, kinds):
    """`--ssh-keys` in argsOneLiner, through the real kustomize: the key stays out of its output, byte-stable."""
    from conftest import GOLDEN, GOLDEN_SEED

    app = tmp_path / "app"
    shutil.copytree(EXAMPLE / "app", app)
    (app / "jobs" / "ds.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        "  name: ds\n  namespace: team-a\nspec:\n  runtimeRef:\n"
        "    name: deepspeed-distributed\n"
    )
    shutil.copy(GOLDEN / "mpi-sealed-secrets" / "sealed-secrets-cert.pem", app / "cert.pem")
    (tmp_path / "seed").write_bytes(GOLDEN_SEED)
    (tmp_path / "seed").chmod(0o600)
    generator = app / "trainjobs.yaml"
    generator.write_text(
        generator.read_text().replace(
            "argsOneLiner: jobs/", f"argsOneLiner: jobs/ --ssh-keys {mode} --sealed-secrets-cert cert.pem"
        )
    )
    # the seed is the operator's (the environment), outside the repository its arguments are confined to
    monkeypatch.setenv("TRAINC_SSH_KEY_SEED_FILE", str(tmp_path / "seed"))
    first, second = _build(str(app), cwd=tmp_path), _build(str(app), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    found = [d["kind"] for d in yaml.safe_load_all(first.stdout)]
    assert all(kind in found for kind in kinds) and "Secret" not in found
    assert "PRIVATE KEY" not in first.stdout and second.stdout == first.stdout


def _repository(tmp_path: Path, args: str, config: str = "") -> Path:
    """A git repository holding the example app (its generator given `args`) and, at its root, a project
    config; a Secret beside the repository stands for what the machine holds outside it."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "app", repo / "apps" / "app")
    need(shutil.which("git") is not None, "git is not installed")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    (repo / "apps" / "app" / "trainjobs.yaml").write_text(
        "apiVersion: trainc.kubeflow.org/v1alpha1\nkind: TrainJobGenerator\nmetadata:\n  name: trainjobs\n"
        f"argsOneLiner: {args}\n"
    )
    if config:
        (repo / ".trainc.yaml").write_text(config)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: theirs\nstringData:\n  password: CANARY\n"
    )
    return repo


def test_the_generator_prints_whatever_output_dir_the_project_config_sets(kubectl, tmp_path):
    """kustomize reads the generator's stdout: a config's output-dir (for CI) must not drop the JobSet."""
    repo = _repository(tmp_path, "jobs/", "output-dir: rendered\n")
    result = _build(str(repo / "apps" / "app"), cwd=repo)
    assert result.returncode == 0, result.stderr
    assert [d["kind"] for d in yaml.safe_load_all(result.stdout)] == ["ConfigMap", "JobSet"]
    assert not (repo / "rendered").exists()


@pytest.mark.parametrize(
    "args, config, origin",
    [
        ("jobs/ --runtimes ../../../outside", "", "--runtimes: ../../../outside"),
        ("jobs/ ../../../outside", "", "PATHS: ../../../outside"),
        ("jobs/", "runtimes: [../outside]\n", "../../.trainc.yaml:1:12: runtimes[0]: ../../../outside"),
    ],
    ids=["runtimes-flag", "paths", "project-config"],
)
def test_the_generator_reads_nothing_outside_the_repository(kubectl, tmp_path, args, config, origin):
    repo = _repository(tmp_path, args, config)
    result = _build(str(repo / "apps" / "app"), cwd=repo / "apps" / "app")
    assert result.returncode == 1 and result.stdout == ""
    assert f"{origin}: outside the repository being rendered ({repo}, the root from TRAINC_ROOT)" in result.stderr
    assert "CANARY" not in result.stderr


def test_outside_a_git_repository_the_kustomization_is_the_root(kubectl, tmp_path):
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE / "app", app)
    (tmp_path / "platform").mkdir()
    (app / "trainjobs.yaml").write_text(
        (app / "trainjobs.yaml")
        .read_text()
        .replace("argsOneLiner: jobs/", "argsOneLiner: jobs/ --runtimes ../platform")
    )
    result = _build(str(app), cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert (
        f"--runtimes: ../platform: outside the repository being rendered ({app}, the root from TRAINC_ROOT)"
        in result.stderr
    )


def _sealed_app(tmp_path: Path, monkeypatch, namespace_line: str, args: str) -> Path:
    """The example app with an MPI TrainJob (its metadata's last line `namespace_line`), sealed-secrets mode, and
    `args` after the generator's own."""
    from conftest import GOLDEN, GOLDEN_SEED

    app = tmp_path / "app"
    shutil.copytree(EXAMPLE / "app", app)
    (app / "jobs" / "ds.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        f"  name: ds\n{namespace_line}spec:\n  runtimeRef:\n"
        "    name: deepspeed-distributed\n"
    )
    shutil.copy(GOLDEN / "mpi-sealed-secrets" / "sealed-secrets-cert.pem", app / "cert.pem")
    (tmp_path / "seed").write_bytes(GOLDEN_SEED)
    (tmp_path / "seed").chmod(0o600)
    generator = app / "trainjobs.yaml"
    generator.write_text(
        generator.read_text().replace(
            "argsOneLiner: jobs/", f"argsOneLiner: jobs/ --ssh-keys sealed-secrets --sealed-secrets-cert cert.pem{args}"
        )
    )
    monkeypatch.setenv("TRAINC_SSH_KEY_SEED_FILE", str(tmp_path / "seed"))
    return app


def test_sealed_secrets_are_sealed_for_the_kustomizations_namespace(kubectl, tmp_path, monkeypatch):
    """Issue 20, finding 5: the kustomization's own `namespace:` moves every generated object; the SealedSecret
    is sealed for that namespace (the controller unseals it there), not for `default`."""
    from helpers import KEYS, unseal

    app = _sealed_app(tmp_path, monkeypatch, "", "")
    with open(app / "kustomization.yaml", "a") as kustomization:
        kustomization.write("namespace: team-a\n")
    result = _build(str(app), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    documents = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(result.stdout)}
    sealed = documents["SealedSecret", "ds-mpi-ssh-auth"]
    assert sealed["metadata"]["namespace"] == documents["JobSet", "ds"]["metadata"]["namespace"] == "team-a"
    assert unseal(sealed) == {"ssh-privatekey": KEYS.private_pem, "ssh-publickey": KEYS.public_line}


@pytest.mark.parametrize(
    "namespace_line, args, kustomization, message",
    [
        (
            "  namespace: team-b\n",
            "",
            "namespace: team-a\n",
            "jobs/ds.yaml:5:14: metadata.namespace: team-b/ds-mpi-ssh-auth: --ssh-keys sealed-secrets seals it for namespace "
            "'team-b', but kustomize moves it to the kustomization's namespace 'team-a', where the controller can never "
            "unseal it",
        ),
        (
            "",
            "",
            "",
            "jobs/ds.yaml:4:3: metadata.namespace: default/ds-mpi-ssh-auth: --ssh-keys sealed-secrets seals for "
            "one namespace, and under the kustomize generator none is known",
        ),
        (
            "",
            " -n team-b",
            "namespace: team-a\n",
            "--namespace: namespace 'team-b' differs from the kustomization's namespace 'team-a' (kustomization.yaml:",
        ),
    ],
    ids=["trainjob-elsewhere", "no-namespace-known", "flag-elsewhere"],
)
def test_a_sealed_secret_kustomize_would_move_is_refused(
    kubectl, tmp_path, monkeypatch, namespace_line, args, kustomization, message
):
    app = _sealed_app(tmp_path, monkeypatch, namespace_line, args)
    with open(app / "kustomization.yaml", "a") as written:
        written.write(kustomization)
    result = _build(str(app), cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert message in result.stderr, result.stderr


def test_a_namespace_in_args_or_the_trainjob_is_enough_without_the_kustomizations(kubectl, tmp_path, monkeypatch):
    for namespace_line, args in (("", " -n team-a"), ("  namespace: team-a\n", "")):
        app = _sealed_app(tmp_path, monkeypatch, namespace_line, args)
        result = _build(str(app), cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        kinds = {(d["kind"], d["metadata"]["namespace"]) for d in yaml.safe_load_all(result.stdout)}
        assert ("SealedSecret", "team-a") in kinds
        shutil.rmtree(app)
