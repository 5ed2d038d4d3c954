"""The Argo CD integration in examples/argocd/: the shipped plugin.yaml run as cmp-server runs it, the JobSet
health check run by a Lua 5.1 interpreter as Argo CD runs it, and the sidecar image's Dockerfile."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import GOLDEN_SEED, ROOT, need
from helpers import ARGOCD, MPI_JOB, PLUGIN, checkout, cmp_env, cmp_run, generate, rendered

HEALTH = ARGOCD / "health" / "jobset.x-k8s.io" / "JobSet"
DEFAULT_SEED = "/var/run/trainc/seed"

TORCH_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: NAME
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: my/img:1
"""
CONFIGMAP = """\
# settings the training reads
apiVersion: v1
kind: ConfigMap
metadata:
  name: train-settings
data:
  epochs: "3"
"""
PVC = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: checkpoints
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 10Gi
"""


# --- cmp-server -----------------------------------------------------------------------------------------------


def discovers(app: Path, env: dict) -> bool:
    """cmp-server's matchRepository with find.command: a match is exit 0 and something on stdout."""
    result = cmp_run(PLUGIN["spec"]["discover"]["find"], app, env)
    assert result.returncode == 0, result.stderr
    return result.stdout.removesuffix("\n") != ""


def kinds(documents: list[dict]) -> dict[tuple[str, str], str | None]:
    return {(d["kind"], d["metadata"]["name"]): d["metadata"].get("namespace") for d in documents}


def test_plugin_config_is_what_cmp_server_accepts():
    """cmpserver/plugin/config.go ValidatePluginConfig, and the parameter names the commands read."""
    assert PLUGIN["apiVersion"] == "argoproj.io/v1alpha1" and PLUGIN["kind"] == "ConfigManagementPlugin"
    assert PLUGIN["metadata"]["name"] == "trainc" and PLUGIN["spec"]["version"] == "v1"
    assert PLUGIN["spec"]["generate"]["command"] == ["sh", "-c"]
    assert not PLUGIN["spec"].get("preserveFileMode") and not PLUGIN["spec"].get("provideGitCreds")
    # cmp-server ignores fields it does not know (PluginConfigSpec, repoclient.ParameterAnnouncement): no typos
    assert set(PLUGIN["spec"]) <= {
        "version",
        "init",
        "generate",
        "discover",
        "parameters",
        "preserveFileMode",
        "provideGitCreds",
    }
    assert set(PLUGIN["spec"]["discover"]) <= {"fileName", "find"}
    assert set(PLUGIN["spec"]["discover"]["find"]) <= {"command", "args", "glob"}
    for parameter in PLUGIN["spec"]["parameters"]["static"]:
        assert set(parameter) <= {
            "name",
            "title",
            "tooltip",
            "required",
            "itemType",
            "collectionType",
            "string",
            "array",
            "map",
        }
    announced = {parameter["name"]: parameter for parameter in PLUGIN["spec"]["parameters"]["static"]}
    assert set(announced) == {
        "namespace",
        "runtimes",
        "ssh-key-seed-file",
        "ssh-keys",
        "sealed-secrets-cert",
        "trainer-version",
        "cluster-state",
        "allow-empty",
    }
    assert announced["runtimes"]["collectionType"] == "array"
    assert announced["ssh-key-seed-file"]["string"] == Path(DEFAULT_SEED).name  # a name in the seed directory
    script = PLUGIN["spec"]["generate"]["args"][0]
    assert "TRAINC_ROUTE=argocd" in script  # trainc.settings reads the namespace and runtimes parameters
    readers = script + (ROOT / "trainc" / "settings.py").read_text()
    for name in announced:
        assert "PARAM_" + name.upper().replace("-", "_") in readers


@pytest.mark.parametrize(
    "text",
    [
        TORCH_JOB,
        TORCH_JOB.replace("kind: TrainJob", 'kind: "TrainJob"'),
        TORCH_JOB.replace("kind: TrainJob", "kind: 'TrainJob'  # quoted"),
        TORCH_JOB.replace("kind: TrainJob", '"kind" : TrainJob'),
        "---\n{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob,"
        " metadata: {name: NAME}, spec: {runtimeRef: {name: torch-distributed}}}\n",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
        "  metadata: {name: NAME}\n  spec: {runtimeRef: {name: torch-distributed}}\n",
        TORCH_JOB.replace("\n", "\r\n"),
    ],
    ids=["plain", "double-quoted", "single-quoted", "quoted-key", "flow-mapping", "list-item", "crlf"],
)
@pytest.mark.parametrize("path", ["NAME.yaml", "jobs/team/NAME.yml"])
def test_discover_finds_every_trainjob_trainc_reads(tmp_path, text, path):
    app = checkout(tmp_path, {f"apps/training/{path.replace('NAME', 'job')}": text.replace("NAME", "job")})
    assert discovers(app, cmp_env(tmp_path))
    assert ("JobSet", "job") in kinds(rendered(generate(app, cmp_env(tmp_path))))  # trainc reads it too


@pytest.mark.parametrize(
    "text",
    [
        '{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"job"},'
        '"spec":{"runtimeRef":{"name":"torch-distributed"}}}',
        '{\n  "apiVersion": "trainer.kubeflow.org/v1alpha1",\n  "kind"  :  "TrainJob",\n  "metadata": {"name": "job"},\n'
        '  "spec": {"runtimeRef": {"name": "torch-distributed"}}\n}\n',
    ],
    ids=["compact", "spaced"],
)
def test_discover_finds_json_trainjobs(tmp_path, text):
    app = checkout(tmp_path, {"apps/training/nested/job.json": text})
    assert discovers(app, cmp_env(tmp_path))
    assert ("JobSet", "job") in kinds(rendered(generate(app, cmp_env(tmp_path))))


@pytest.mark.parametrize(
    "files",
    [
        {"apps/training/settings.yaml": CONFIGMAP},
        {
            "apps/training/job.yaml.txt": TORCH_JOB,
            "apps/training/notes.md": "kind: TrainJob\n",
            "apps/training/.yaml": TORCH_JOB,
            "apps/training/.team/job.yaml": TORCH_JOB,
            "apps/training/.argocd-source-training.yaml": TORCH_JOB,
        },
        {"apps/training/template.yaml": TORCH_JOB.replace("kind: TrainJob", "kind: TrainJobTemplate")},
        {"apps/other/job.yaml": TORCH_JOB},
        {},
    ],
    ids=["configmap-only", "files-trainc-does-not-read", "other-kind", "trainjob-outside-the-app", "empty"],
)
def test_discover_passes_apps_without_a_trainjob(tmp_path, files):
    app = checkout(tmp_path, {path: text.replace("NAME", "job") for path, text in files.items()})
    assert not discovers(app, cmp_env(tmp_path))


def test_allow_empty_claims_an_app_without_trainjob(tmp_path):
    app = checkout(tmp_path, {"apps/training/settings.yaml": CONFIGMAP})
    assert discovers(app, cmp_env(tmp_path, parameters=[{"name": "allow-empty", "string": "true"}]))
    assert discovers(app, cmp_env(tmp_path, plugin_env=[("TRAINC_ALLOW_EMPTY", "true")]))


def test_generate_renders_into_the_destination_namespace_and_passes_other_documents_through(tmp_path):
    app = checkout(
        tmp_path,
        {
            "apps/training/jobs/demo.yaml": TORCH_JOB.replace("NAME", "demo"),
            "apps/training/settings.yaml": CONFIGMAP,
            "apps/training/storage/pvc.yml": PVC,
        },
    )
    assert discovers(app, cmp_env(tmp_path))
    result = generate(app, cmp_env(tmp_path, namespace="team-a"))
    documents = kinds(rendered(result))
    assert documents[("JobSet", "demo")] == "team-a"
    # what sets no namespace lands beside the JobSet, as Argo CD's destination would place it
    assert documents[("ConfigMap", "train-settings")] == documents[("PersistentVolumeClaim", "checkpoints")] == "team-a"
    assert ("TrainJob", "demo") not in documents
    assert "# settings the training reads" in result.stdout  # passed through as written


@pytest.mark.parametrize(
    "override, origin",
    [
        (
            {"parameters": [{"name": "namespace", "string": "team-b"}]},
            "PARAM_NAMESPACE (the plugin parameter namespace)",
        ),
        (
            {"plugin_env": [("TRAINC_NAMESPACE", "team-b")]},
            "ARGOCD_ENV_TRAINC_NAMESPACE (the Application's plugin env TRAINC_NAMESPACE)",
        ),
        ({"files": {".trainc.yaml": "namespace: team-b\n"}}, "../../.trainc.yaml:1:12: namespace"),
    ],
    ids=["parameter", "plugin-env", "project-config"],
)
def test_a_namespace_other_than_the_destination_is_an_error_naming_both(tmp_path, override, origin):
    """Argo CD puts the app's objects that set no namespace (the ConfigMap) in the destination: rendering the
    JobSet elsewhere would split the app, so the conflict fails the sync, naming both sources."""
    override = json.loads(json.dumps(override))  # a copy: the parameters are shared by the parametrized runs
    files = {
        "apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo"),
        "apps/training/cm.yaml": CONFIGMAP,
        **override.pop("files", {}),
    }
    app = checkout(tmp_path, files)
    result = generate(app, cmp_env(tmp_path, namespace="team-a", **override))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"{origin}: namespace 'team-b' differs from ARGOCD_APP_NAMESPACE (the Application's "
        "destination namespace), 'team-a': Argo CD puts the app's objects that set no namespace "
        "in the destination, so the TrainJobs' objects would be split from them; set the "
        "destination namespace, or make both the same\n"
    )
    agreeing = generate(app, cmp_env(tmp_path, namespace="team-b", **override))
    assert kinds(rendered(agreeing))[("JobSet", "demo")] == "team-b"


def test_the_trainer_version_parameter_overrides_the_repositorys_pin(tmp_path):
    """The repository pins v2.3 (no PRTE env on the MPI launcher); an Application's trainer-version wins."""
    app = checkout(tmp_path, {".trainc.yaml": "trainer-version: v2.3\n", "apps/training/ds.yaml": MPI_JOB})
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    pinned = generate(app, cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_FILE": str(seed)}))
    assert pinned.returncode == 0, pinned.stderr
    assert "OMPI_MCA_orte_default_hostfile" in pinned.stdout and "PRTE_MCA_" not in pinned.stdout
    newest = generate(
        app,
        cmp_env(
            tmp_path,
            sidecar={"TRAINC_SSH_KEY_SEED_FILE": str(seed)},
            parameters=[{"name": "trainer-version", "string": "v2.4"}],
        ),
    )
    assert newest.returncode == 0, newest.stderr
    assert "PRTE_MCA_prte_default_hostfile" in newest.stdout


def test_the_namespace_parameter_serves_an_application_without_a_destination_namespace(tmp_path):
    app = checkout(tmp_path, {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo")})
    result = generate(app, cmp_env(tmp_path, namespace="", parameters=[{"name": "namespace", "string": "team-b"}]))
    assert kinds(rendered(result))[("JobSet", "demo")] == "team-b"


def test_the_repositorys_output_dir_does_not_silence_the_plugin(tmp_path):
    """A project config's output-dir (for CI) must not make the plugin print nothing: Argo CD would prune the
    whole app. The plugin asks for stdout (-o yaml) and writes nothing into the checkout."""
    app = checkout(
        tmp_path,
        {".trainc.yaml": "output-dir: rendered\n", "apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo")},
    )
    documents = kinds(rendered(generate(app, cmp_env(tmp_path))))
    assert documents[("JobSet", "demo")] == "team-a"
    assert not (app.parent.parent / "rendered").exists()


@pytest.mark.parametrize(
    "override, origin",
    [
        (
            {"parameters": [{"name": "runtimes", "array": ["../../platform", "OUTSIDE"]}]},
            "PARAM_RUNTIMES_1 (the plugin parameter runtimes)",
        ),
        ({"parameters": [{"name": "runtimes", "string": "OUTSIDE"}]}, "PARAM_RUNTIMES (the plugin parameter runtimes)"),
        (
            {"plugin_env": [("TRAINC_RUNTIMES", "../../platform:OUTSIDE")]},
            "ARGOCD_ENV_TRAINC_RUNTIMES (the Application's plugin env TRAINC_RUNTIMES)",
        ),
        ({"files": {".trainc.yaml": "runtimes: [platform, OUTSIDE]\n"}}, "../../.trainc.yaml:1:22: runtimes[1]"),
    ],
    ids=["array-parameter", "string-parameter", "plugin-env", "project-config"],
)
@pytest.mark.parametrize("how", ["absolute", "dot-dot", "symlink"])
def test_paths_from_the_repository_or_the_application_stay_in_the_repository(tmp_path, override, origin, how):
    """Another app's checkout in cmp-server's /tmp (here a Secret beside the repository) is never read: a
    runtimes path from a parameter, the Application's env or the project config that resolves outside the
    repository is an error naming it and where it came from (issue 15: CVE-2022-24348's class)."""
    override = json.loads(json.dumps(override))  # a copy: the parameters are shared by the parametrized runs
    other = tmp_path / "other"
    other.mkdir()
    (other / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: theirs\nstringData:\n  password: CANARY\n"
    )
    outside = {"absolute": str(other), "dot-dot": "../../../other", "symlink": "platform/link"}[how]
    if how == "dot-dot" and "files" in override:
        outside = "../other"  # the config's paths are relative to the config, at the repository's root
    files = {
        "apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo"),
        "platform/runtimes.yaml": RUNTIME,
        **{name: text.replace("OUTSIDE", outside) for name, text in override.pop("files", {}).items()},
    }
    app = checkout(tmp_path, files)
    (app.parent.parent / "platform" / "link").symlink_to(other)
    override = json.loads(json.dumps(override).replace("OUTSIDE", outside))
    if how == "symlink" and "files" not in override:
        override = json.loads(json.dumps(override).replace("platform/link", "../../platform/link"))
    result = generate(app, cmp_env(tmp_path, **override))
    assert (result.returncode, result.stdout) == (1, ""), result.stdout
    assert result.stderr.startswith(f"{origin}: "), result.stderr
    assert f"outside the repository being rendered ({app.parent.parent}, the root from TRAINC_ROOT)" in result.stderr
    assert "CANARY" not in result.stderr and f"{other}/" not in result.stderr


def test_the_sidecars_own_runtimes_may_be_anywhere(tmp_path):
    platform = tmp_path / "sidecar-runtimes"
    platform.mkdir()
    (platform / "torch.yaml").write_text(RUNTIME)
    app = checkout(
        tmp_path, {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo").replace("    image: my/img:1\n", "")}
    )
    documents = rendered(generate(app, cmp_env(tmp_path, sidecar={"TRAINC_RUNTIMES": str(platform)})))
    jobset = next(d for d in documents if d["kind"] == "JobSet")
    assert (
        jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
        == PINNED_IMAGE
    )


def test_a_runtime_not_found_names_the_plugins_parameter(tmp_path):
    app = checkout(
        tmp_path,
        {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo").replace("torch-distributed", "torch-pinned")},
    )
    result = generate(app, cmp_env(tmp_path))
    assert result.returncode == 1
    assert (
        'ClusterTrainingRuntime "torch-pinned" not found; looked in the inputs, the plugin parameter runtimes '
        "(or the sidecar's TRAINC_RUNTIMES) and the bundled runtimes"
    ) in result.stderr
    assert "--runtimes" not in result.stderr


def test_a_bad_runtimes_path_is_named_as_the_application_gave_it(tmp_path):
    app = checkout(tmp_path, {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo")})
    result = generate(app, cmp_env(tmp_path, plugin_env=[("TRAINC_RUNTIMES", "../../nowhere")]))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "ARGOCD_ENV_TRAINC_RUNTIMES (the Application's plugin env TRAINC_RUNTIMES): "
        "../../nowhere: no such file or directory\n"
    )


PINNED_IMAGE = "registry.example.com/pinned/torch:2.13"
# The bundled torch-distributed runtime with its image pinned, as a platform team keeps it beside the apps.
RUNTIME = re.sub(r"image: \S+", f"image: {PINNED_IMAGE}", (ROOT / "runtimes" / "torch-distributed.yaml").read_text())


@pytest.mark.parametrize(
    "override",
    [
        {"parameters": [{"name": "runtimes", "array": ["../../platform/runtimes"]}]},
        {"plugin_env": [("TRAINC_RUNTIMES", "../../platform/runtimes")]},
        {"sidecar": {"TRAINC_RUNTIMES": "../../platform/runtimes"}},
    ],
    ids=["parameter", "plugin-env", "sidecar-env"],
)
def test_runtimes_beside_the_app_replace_the_bundled_ones(tmp_path, override):
    app = checkout(
        tmp_path,
        {
            "apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo").replace("    image: my/img:1\n", ""),
            "platform/runtimes/torch.yaml": RUNTIME,
        },
    )
    documents = rendered(generate(app, cmp_env(tmp_path, **override)))
    jobset = next(d for d in documents if d["kind"] == "JobSet")
    container = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == PINNED_IMAGE


def test_an_app_without_documents_fails_unless_allowed(tmp_path):
    app = checkout(tmp_path, {"apps/training/README.md": "nothing to deploy yet\n"})
    result = generate(app, cmp_env(tmp_path))
    assert result.returncode != 0 and result.stdout == ""
    assert 'set the plugin parameter allow-empty to "true" (env TRAINC_ALLOW_EMPTY)' in result.stderr
    allowed = generate(app, cmp_env(tmp_path, parameters=[{"name": "allow-empty", "string": "true"}]))
    assert allowed.returncode == 0 and allowed.stdout.strip() == "", allowed.stderr


def test_allow_empty_must_be_true_or_false(tmp_path):
    app = checkout(tmp_path, {"apps/training/settings.yaml": CONFIGMAP})
    # discover claims the app, so that generate says what is wrong rather than Argo CD "no plugin found"
    assert discovers(app, cmp_env(tmp_path, parameters=[{"name": "allow-empty", "string": "yes"}]))
    assert not discovers(app, cmp_env(tmp_path, parameters=[{"name": "allow-empty", "string": "false"}]))
    result = generate(app, cmp_env(tmp_path, parameters=[{"name": "allow-empty", "string": "yes"}]))
    assert result.returncode == 1 and result.stdout == ""
    assert 'allow-empty (env TRAINC_ALLOW_EMPTY) is "yes", not true or false' in result.stderr


def test_an_invalid_trainjob_fails_with_the_users_file_line_and_column(tmp_path):
    app = checkout(
        tmp_path,
        {
            "apps/training/jobs/good.yaml": TORCH_JOB.replace("NAME", "good"),
            "apps/training/jobs/bad.yaml": TORCH_JOB.replace("NAME", "bad").replace("numNodes: 2", "numNodes: -2"),
        },
    )
    result = generate(app, cmp_env(tmp_path))
    assert result.returncode == 1 and result.stdout == ""
    assert "jobs/bad.yaml:9:15: spec.trainer.numNodes: " in result.stderr
    assert "trainc plugin:" not in result.stderr  # no hint about a seed or an empty app that is not the problem


def test_a_job_without_mpi_needs_no_seed(tmp_path):
    app = checkout(tmp_path, {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo")})
    assert not Path(DEFAULT_SEED).exists()
    assert ("JobSet", "demo") in kinds(rendered(generate(app, cmp_env(tmp_path))))


def test_an_mpi_job_without_the_seed_names_the_variable_and_the_secret(tmp_path):
    app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB})
    assert not Path(DEFAULT_SEED).exists()
    result = generate(app, cmp_env(tmp_path))
    assert result.returncode == 1 and result.stdout == ""
    assert DEFAULT_SEED in result.stderr and "TRAINC_SSH_KEY_SEED_FILE" in result.stderr
    assert "Secret trainc-ssh-key-seed" in result.stderr and "ssh-key-seed-file" in result.stderr


@pytest.mark.parametrize("how", ["parameter", "absolute-parameter", "seed-dir", "sidecar-env"])
def test_an_mpi_job_with_the_seed_renders_the_same_every_time(tmp_path, how):
    seed = tmp_path / "mounted" / "seed"
    seed.parent.mkdir()
    seed.write_bytes(GOLDEN_SEED)
    in_dir = {"TRAINC_SSH_KEY_SEED_DIR": str(seed.parent)}
    options = {
        "parameter": {"parameters": [{"name": "ssh-key-seed-file", "string": "seed"}], "sidecar": in_dir},
        "absolute-parameter": {"parameters": [{"name": "ssh-key-seed-file", "string": str(seed)}], "sidecar": in_dir},
        "seed-dir": {"sidecar": in_dir},
        "sidecar-env": {"sidecar": {"TRAINC_SSH_KEY_SEED_FILE": str(seed)}},
    }[how]
    outputs = []
    for attempt in ("first", "second"):
        app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB}, name=attempt)
        result = generate(app, cmp_env(tmp_path, **options))
        documents = kinds(rendered(result))
        assert documents[("Secret", "ds-mpi-ssh-auth")] == "team-a" and ("JobSet", "ds") in documents
        assert "random" not in result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


# --- what an Application may name (issue 22, finding 6) -----------------------------------------------------

SEED_REFUSED = (
    "{origin}: {name}: not a seed of this app: an Application names a seed file of its seed directory "
    "{folder} (TRAINC_SSH_KEY_SEED_DIR (the sidecar's seed directory)), by its name there; files "
    "elsewhere are never read\n"
)


def seeds(tmp_path) -> Path:
    """The operator's seed directory keyed by AppProject: a seed for the project `default` and one for team-b."""
    top = tmp_path / "seeds"
    for project, byte in (("default", b"a"), ("team-b", b"b")):
        (top / project).mkdir(parents=True)
        (top / project / "seed").write_bytes(byte * 64)
    return top


def seed_parameter(name: str, how: str) -> dict:
    if how == "parameter":
        return {"parameters": [{"name": "ssh-key-seed-file", "string": name}]}
    return {"plugin_env": [("TRAINC_SSH_KEY_SEED_FILE", name)]}


SEED_ORIGINS = {
    "parameter": "PARAM_SSH_KEY_SEED_FILE (the plugin parameter ssh-key-seed-file)",
    "plugin-env": "ARGOCD_ENV_TRAINC_SSH_KEY_SEED_FILE (the Application's plugin env TRAINC_SSH_KEY_SEED_FILE)",
}


@pytest.mark.parametrize("how", ["parameter", "plugin-env"])
@pytest.mark.parametrize(
    "name",
    ["/etc/passwd", "../team-b/seed", "TEAM_B_ABSOLUTE", "../../../../../../etc/passwd", "REPOSITORY_FILE", "..", "."],
)
def test_an_application_names_only_a_seed_of_its_own_seed_directory(tmp_path, how, name):
    """/etc/passwd, another project's seed, a `..` escape or a file of the repository is never the seed: the
    sync fails before anything reads it, and nothing is rendered (today /etc/passwd renders with exit 0)."""
    top = seeds(tmp_path)
    app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB, "apps/training/seed.bin": "x" * 64})
    name = name.replace("TEAM_B_ABSOLUTE", str(top / "team-b" / "seed")).replace(
        "REPOSITORY_FILE", str(app / "seed.bin")
    )
    sidecar = {"TRAINC_SSH_KEY_SEED_DIR": f"{top}/{{project}}"}
    result = generate(app, cmp_env(tmp_path, sidecar=sidecar, **seed_parameter(name, how)))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == SEED_REFUSED.format(origin=SEED_ORIGINS[how], name=name, folder=top / "default")


def test_each_project_renders_with_its_own_seed(tmp_path):
    top = seeds(tmp_path)
    sidecar = {"TRAINC_SSH_KEY_SEED_DIR": f"{top}/{{project}}"}
    keys = {}
    for project in ("default", "team-b"):
        app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB}, name=project)
        env = {
            **cmp_env(tmp_path, sidecar=sidecar, parameters=[{"name": "ssh-key-seed-file", "string": "seed"}]),
            "ARGOCD_APP_PROJECT_NAME": project,
        }
        (secret,) = [d for d in rendered(generate(app, env)) if d["kind"] == "Secret"]
        keys[project] = secret["data"]["ssh-privatekey"]
    assert keys["default"] != keys["team-b"]


def test_a_seed_directory_keyed_by_project_needs_the_project(tmp_path):
    top = seeds(tmp_path)
    app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB})
    env = cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_DIR": f"{top}/{{project}}"})
    del env["ARGOCD_APP_PROJECT_NAME"]  # Argo CD before 3.0
    result = generate(app, env)
    assert (result.returncode, result.stdout) == (1, "")
    assert (
        "TRAINC_SSH_KEY_SEED_DIR is keyed by AppProject ({project}), but Argo CD set no usable "
        "ARGOCD_APP_PROJECT_NAME" in result.stderr
    )


def test_a_relative_seed_directory_would_be_the_repositorys(tmp_path):
    app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB, "apps/training/seeds/seed": "x" * 64})
    result = generate(app, cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_DIR": "seeds"}))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "TRAINC_SSH_KEY_SEED_DIR: 'seeds' is not an absolute path: the seed directory is the "
        "sidecar's, never the repository's\n"
    )


def test_the_repositorys_config_does_not_choose_the_seed_under_the_plugin(tmp_path):
    """A repository's `ssh-key-seed` is for its own CI: under the plugin the seed is the sidecar's."""
    top = seeds(tmp_path)
    app = checkout(
        tmp_path, {".trainc.yaml": "ssh-key-seed: repo-seed\n", "repo-seed": "r" * 64, "apps/training/ds.yaml": MPI_JOB}
    )
    env = cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_DIR": str(top / "team-b")})
    (secret,) = [d for d in rendered(generate(app, env)) if d["kind"] == "Secret"]
    from trainc.compiler import sshkeys

    expected = sshkeys.derive_keypair(b"b" * 64, "team-a", "ds").private_pem
    assert secret["data"]["ssh-privatekey"] == __import__("base64").b64encode(expected).decode()


TARGETS = {  # what a refused path may name in the sidecar: none of it may show in the message
    "missing": lambda path: None,
    "file": lambda path: path.write_text(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: theirs}\nstringData: {password: CANARY}\n"
    ),
    "directory": lambda path: path.mkdir(),
    "empty-file": lambda path: path.write_text(""),
    "link": lambda path: path.symlink_to("/etc/passwd"),
    "fifo": lambda path: __import__("os").mkfifo(path),
}


@pytest.mark.parametrize(
    "setting",
    ["seed-parameter", "seed-plugin-env", "runtimes", "cert", "config-runtimes", "config-policies", "config-cert"],
)
def test_a_refused_path_says_nothing_about_its_file(tmp_path, setting):
    """The same message, byte for byte, whether the file named outside exists, is a directory, a FIFO, a link
    or empty: an app cannot probe the sidecar's files through the plugin's errors."""
    top = seeds(tmp_path)
    outcomes = {}
    for kind, make in TARGETS.items():
        target = tmp_path / "sidecar" / "target.yaml"
        if target.parent.exists():
            shutil.rmtree(target.parent)
        target.parent.mkdir()
        make(target)
        files = {"apps/training/ds.yaml": MPI_JOB}
        options = {"sidecar": {"TRAINC_SSH_KEY_SEED_DIR": str(top / "default")}}
        if setting.startswith("seed-"):
            options.update(seed_parameter(str(target), setting.removeprefix("seed-")))
        elif setting == "runtimes":
            options["parameters"] = [{"name": "runtimes", "array": [str(target)]}]
        elif setting == "cert":
            options["parameters"] = [
                {"name": "ssh-keys", "string": "sealed-secrets"},
                {"name": "sealed-secrets-cert", "string": str(target)},
            ]
        else:
            key = {
                "config-runtimes": "runtimes: [TARGET]",
                "config-policies": "policy-paths: [TARGET]",
                "config-cert": "sealed-secrets-cert: TARGET\nssh-keys: sealed-secrets",
            }[setting]
            files[".trainc.yaml"] = key.replace("TARGET", str(target)) + "\n"
        app = checkout(tmp_path, files, name=f"repo-{kind}")
        result = generate(app, cmp_env(tmp_path, **options))
        assert (result.returncode, result.stdout) == (1, ""), kind
        outcomes[kind] = result.stderr.replace(str(app.parent.parent), "ROOT")
    assert len(set(outcomes.values())) == 1, outcomes
    assert "CANARY" not in outcomes["file"] and "/etc/passwd" not in outcomes["link"]


@pytest.mark.parametrize("target", ["file", "missing", "directory"])
def test_a_link_in_the_app_to_another_checkout_is_refused(tmp_path, target):
    """A symlinked manifest in the app's path leading to another app's checkout in cmp-server's /tmp is an
    error naming the link, whatever it leads to; the other app's Secret is never passed through."""
    other = tmp_path / "other"
    other.mkdir()
    TARGETS[target](other / "secret.yaml")
    app = checkout(tmp_path, {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo")})
    (app / "theirs.yaml").symlink_to(other / "secret.yaml")
    result = generate(app, cmp_env(tmp_path))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"theirs.yaml:1:1: a symbolic link to outside the repository being rendered "
        f"({app.parent.parent}): trainc reads only the repository's own files\n"
    )


def test_a_link_inside_the_repository_is_read(tmp_path):
    app = checkout(
        tmp_path, {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo"), "shared/settings.yaml": CONFIGMAP}
    )
    (app / "settings.yaml").symlink_to(app.parent.parent / "shared" / "settings.yaml")
    assert ("ConfigMap", "train-settings") in kinds(rendered(generate(app, cmp_env(tmp_path))))


# --- who applies, for admission policies (issue 22, findings 12 and 13) ------------------------------------

CONTROLLER = "system:serviceaccount:argocd:argocd-application-controller"
POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: gitops-only
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [jobset.x-k8s.io]
        apiVersions: ["*"]
        operations: [CREATE]
        resources: [jobsets]
  validations:
    - expression: EXPRESSION
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: gitops-only
spec:
  policyName: gitops-only
  validationActions: [Deny]
"""
ONLY_CONTROLLER = POLICY.replace("EXPRESSION", f"request.userInfo.username == '{CONTROLLER}'")
MAY_CREATE = POLICY.replace("EXPRESSION", "authorizer.requestResource.check('create').allowed()")
CONTROLLER_RBAC = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: jobsets
rules:
  - apiGroups: [jobset.x-k8s.io]
    resources: [jobsets]
    verbs: [create]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: controller-jobsets
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: jobsets}
subjects:
  - {kind: ServiceAccount, name: argocd-application-controller, namespace: argocd}
"""


@pytest.mark.parametrize(
    "setup, status",
    [
        ({}, 0),
        ({"files": {".trainc.yaml": "as: someone\n"}}, 0),  # the repository does not say who applies it
        ({"sidecar": {"TRAINC_AS": "system:serviceaccount:gitops:flux"}}, 1),  # the operator does
    ],
    ids=["controller", "repository-config", "sidecar"],
)
def test_policies_see_the_application_controller_apply(tmp_path, setup, status):
    """'Only the GitOps controller creates JobSets' denied every sync: userInfo was empty."""
    app = checkout(
        tmp_path,
        {
            "apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo"),
            "apps/training/policy.yaml": ONLY_CONTROLLER,
            **setup.get("files", {}),
        },
    )
    result = generate(app, cmp_env(tmp_path, sidecar=setup.get("sidecar")))
    assert result.returncode == status, result.stderr
    if status:
        assert "denied request: failed expression: request.userInfo.username" in result.stderr


def test_an_authorizer_policy_renders_and_is_answered_by_the_apps_rbac(tmp_path):
    """A policy using authorizer failed every sync as 'compilation failed'. Without RBAC objects the check is a
    notice (in the sidecar's log) and the app renders; with them it is answered for the controller."""
    files = {"apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo"), "apps/training/policy.yaml": MAY_CREATE}
    result = generate(checkout(tmp_path, files, name="bare"), cmp_env(tmp_path))
    assert ("JobSet", "demo") in kinds(rendered(result))
    assert (
        "notice: policy.yaml:14:19: spec.validations[0].expression: ValidatingAdmissionPolicy 'gitops-only': not "
        "evaluated: its authorizer check needs the RBAC objects" in result.stderr
    )
    granted = generate(
        checkout(tmp_path, {**files, "apps/training/rbac.yaml": CONTROLLER_RBAC}, name="granted"), cmp_env(tmp_path)
    )
    assert ("RoleBinding", "controller-jobsets") in kinds(rendered(granted)) and "not evaluated" not in granted.stderr
    other = CONTROLLER_RBAC.replace("argocd-application-controller", "someone-else")
    denied = generate(checkout(tmp_path, {**files, "apps/training/rbac.yaml": other}, name="denied"), cmp_env(tmp_path))
    assert (denied.returncode, denied.stdout) == (1, "")
    assert (
        "ValidatingAdmissionPolicy 'gitops-only' with binding 'gitops-only' denied request: failed expression: "
        "authorizer.requestResource.check('create').allowed()" in denied.stderr
    )


# --- health check ---------------------------------------------------------------------------------------------

HEALTH_CASES = yaml.safe_load((HEALTH / "health_test.yaml").read_text())["tests"]
VALID_STATUSES = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}
# Argo CD's VM without useOpenLibs (util/lua/lua.go runLua): the base library, table, and a safe os.
BASE_FUNCTIONS = (
    "assert",
    "error",
    "getmetatable",
    "ipairs",
    "next",
    "pairs",
    "pcall",
    "print",
    "rawequal",
    "rawget",
    "rawset",
    "select",
    "setmetatable",
    "tonumber",
    "tostring",
    "type",
    "unpack",
    "xpcall",
    "_VERSION",
)


def luajit():
    """lupa's LuaJIT 2.1: Lua 5.1, the language gopher-lua implements."""
    need(importlib.util.find_spec("lupa") is not None, "lupa is not installed (pip install lupa)")
    need(importlib.util.find_spec("lupa.luajit21") is not None, "this lupa has no LuaJIT 2.1")
    import lupa.luajit21

    return lupa.luajit21


def to_lua(runtime, value):
    """The Go value Argo CD decodes into Lua (decodeValue): numbers as floats, arrays 1-based, nulls absent."""
    if isinstance(value, dict):
        return runtime.table_from({k: to_lua(runtime, v) for k, v in value.items() if v is not None})
    if isinstance(value, list):
        return runtime.table_from([to_lua(runtime, item) for item in value])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def evaluate(script: str, obj: dict, *, open_libs: bool) -> dict:
    """ExecuteHealthLua: run the script with the global `obj`, read the returned table's status and message."""
    lua = luajit()
    runtime = lua.LuaRuntime(unpack_returned_tuples=False)
    assert runtime.eval("_VERSION") == "Lua 5.1"
    load = runtime.eval("""function(source, base, open_libs)
        local chunk = assert(loadstring(source, "=health.lua"))
        if not open_libs then
            local env = {table = table, os = {time = os.time, date = os.date}}
            for _, name in ipairs(base) do env[name] = _G[name] end
            env._G = env
            setfenv(chunk, env)
            debug.setmetatable("", nil)  -- without the string library strings have no methods
        end
        return chunk, getfenv(chunk)
    end""")
    chunk, env = load(script, runtime.table_from(list(BASE_FUNCTIONS)), open_libs)
    env.obj = to_lua(runtime, obj)
    result = chunk()
    if result is None:
        return {"status": "", "message": ""}
    assert lua.lua_type(result) == "table"
    status, message = result["status"] or "", result["message"] or ""
    if status not in VALID_STATUSES:
        return {"status": "Unknown", "message": "Lua returned an invalid health status"}
    return {"status": status, "message": message}


@pytest.mark.parametrize("open_libs", [False, True], ids=["default-libs", "open-libs"])
@pytest.mark.parametrize("case", HEALTH_CASES, ids=[Path(case["inputPath"]).stem for case in HEALTH_CASES])
def test_jobset_health(case, open_libs):
    obj = yaml.safe_load((HEALTH / case["inputPath"]).read_text())
    expected = {"status": case["healthStatus"]["status"], "message": case["healthStatus"].get("message", "")}
    assert evaluate((HEALTH / "health.lua").read_text(), obj, open_libs=open_libs) == expected


def test_health_cases_cover_every_status_and_file():
    assert {case["healthStatus"]["status"] for case in HEALTH_CASES} == {
        "Healthy",
        "Progressing",
        "Degraded",
        "Suspended",
    }
    assert {Path(case["inputPath"]).name for case in HEALTH_CASES} == {p.name for p in (HEALTH / "testdata").iterdir()}


def test_the_sandbox_refuses_string_methods():
    """The default-libs runs above mean something only if a script using the string library fails there."""
    with pytest.raises(Exception, match="string"):
        evaluate('return {status = ("x"):upper()}', {}, open_libs=False)
    assert evaluate('return {status = ("healthy"):gsub("^h", "H")}', {}, open_libs=True)["status"] == "Healthy"


# --- sidecar image --------------------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of examples/argocd/Dockerfile, continuation lines joined, comments dropped."""
    lines, joined = [], ""
    for line in (ARGOCD / "Dockerfile").read_text().splitlines():
        if line.lstrip().startswith("#") and not joined:
            continue
        joined += line.rstrip("\\").strip() + " " if line.endswith("\\") else line.strip()
        if not line.endswith("\\"):
            if joined:
                lines.append(joined)
            joined = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def copies() -> list[tuple[list[str], str]]:
    """COPY instructions from the build context (not --from another stage): (sources, destination)."""
    found = []
    for instruction, arguments in dockerfile_instructions():
        words = arguments.split()
        if instruction == "COPY" and not any(word.startswith("--from") for word in words):
            words = [word for word in words if not word.startswith("--")]
            found.append((words[:-1], words[-1]))
    return found


def test_dockerfile_runs_cmp_server_as_999_with_the_plugin_config():
    instructions = dockerfile_instructions()
    assert [a for i, a in instructions if i == "USER"][-1] == "999"
    assert [a for i, a in instructions if i == "ENTRYPOINT"][-1] == '["/var/run/argocd/argocd-cmp-server"]'
    assert (["examples/argocd/plugin.yaml"], "/home/argocd/cmp-server/config/plugin.yaml") in copies()


def test_dockerfile_copies_what_the_package_is_built_from(tmp_path):
    """Every COPY source exists in the build context (the repository), and the files it copies are enough to
    build trainc: staged as the image stages them, they install into a working `trainc build`."""
    staged = tmp_path / "context"
    for sources, destination in copies():
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
            if destination.startswith("/src/"):
                target = staged / destination.removeprefix("/src/")
                if destination.endswith("/"):
                    target = target / Path(source).name
                if (ROOT / source).is_dir():
                    shutil.copytree(ROOT / source, target)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(ROOT / source, target)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = project["tool"]["setuptools"]
    needed = {
        project["project"]["readme"],
        "pyproject.toml",
        *setuptools["package-dir"].values(),
        *(package for package in setuptools["packages"] if "." not in package),
    }
    assert {path for path in needed if not (staged / path).exists()} == set()

    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(staged),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    program = (
        "import sys, trainc.cli; print(trainc.cli.__file__, file=sys.stderr);"
        "sys.argv = ['trainc', 'build', sys.argv[1]]; trainc.cli.main()"
    )
    result = subprocess.run(
        [sys.executable, "-c", program, str(ROOT / "examples" / "torch-ddp.yaml")],
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith(str(target))
    assert "kind: JobSet" in result.stdout


# --- installing it --------------------------------------------------------------------------------------------

UPSTREAM_INSTALL = "https://raw.githubusercontent.com/argoproj/argo-cd/stable/manifests/install.yaml"
# The parts of Argo CD's install that the overlay changes, as manifests/base ships them: the repo-server's
# copyutil init container fills var-files with argocd-cmp-server, and sidecars announce themselves in plugins.
ARGOCD_INSTALL = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  labels: {app.kubernetes.io/name: argocd-cm, app.kubernetes.io/part-of: argocd}
data:
  timeout.reconciliation: 180s
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: argocd-repo-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: argocd-repo-server}
    spec:
      initContainers:
        - name: copyutil
          image: quay.io/argoproj/argocd:latest
          command: [sh, -c]
          args:
            - >-
              /bin/cp /usr/local/bin/argocd /var/run/argocd/argocd &&
              /bin/ln -sf /var/run/argocd/argocd /var/run/argocd/argocd-cmp-server
          volumeMounts:
            - {mountPath: /var/run/argocd, name: var-files}
      containers:
        - name: argocd-repo-server
          image: quay.io/argoproj/argocd:latest
          volumeMounts:
            - {mountPath: /tmp, name: tmp}
            - {mountPath: /home/argocd/cmp-server/plugins, name: plugins}
      volumes:
        - {name: tmp, emptyDir: {}}
        - {name: var-files, emptyDir: {}}
        - {name: plugins, emptyDir: {}}
"""


def test_the_install_overlay_adds_the_sidecar_and_the_health_check(tmp_path):
    """kustomization.yaml built by the real `kubectl kustomize`, on a local stand-in for Argo CD's install."""
    kubectl = shutil.which("kubectl")
    need(kubectl is not None, "kubectl not found")
    overlay = tmp_path / "argocd"
    shutil.copytree(ARGOCD, overlay)
    kustomization = yaml.safe_load((overlay / "kustomization.yaml").read_text())
    assert kustomization["resources"] == [UPSTREAM_INSTALL]
    (overlay / "install.yaml").write_text(ARGOCD_INSTALL)
    (overlay / "kustomization.yaml").write_text(
        (overlay / "kustomization.yaml").read_text().replace(UPSTREAM_INSTALL, "install.yaml")
    )
    result = subprocess.run([kubectl, "kustomize", str(overlay)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    objects = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(result.stdout)}
    assert {o["metadata"]["namespace"] for o in objects.values()} == {"argocd"}

    data = objects[("ConfigMap", "argocd-cm")]["data"]
    assert data["timeout.reconciliation"] == "180s"
    assert data["resource.customizations.health.jobset.x-k8s.io_JobSet"] == (HEALTH / "health.lua").read_text()

    pod = objects[("Deployment", "argocd-repo-server")]["spec"]["template"]["spec"]
    sidecar = {c["name"]: c for c in pod["containers"]}["trainc"]
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert sidecar["securityContext"]["runAsUser"] == 999 and sidecar["securityContext"]["runAsNonRoot"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in sidecar["volumeMounts"]}
    assert set(mounts.values()) <= set(volumes)
    assert mounts["/var/run/argocd"] == "var-files" and mounts["/home/argocd/cmp-server/plugins"] == "plugins"
    assert mounts["/tmp"] != "tmp"  # its own /tmp, as Argo CD asks
    seed = volumes[mounts[str(Path(DEFAULT_SEED).parent)]]
    # root's read-only Secret files, readable by the sidecar's group and no one else: trainc does not warn
    assert seed["secret"] == {"secretName": "trainc-ssh-key-seed", "defaultMode": 0o440, "optional": True}
    assert pod["securityContext"]["fsGroup"] == sidecar["securityContext"]["runAsUser"]


def test_the_example_application_renders_with_its_plugin_settings(tmp_path):
    application = yaml.safe_load((ARGOCD / "application.yaml").read_text())["spec"]
    plugin = application["source"]["plugin"]
    assert plugin["name"] == f"{PLUGIN['metadata']['name']}-{PLUGIN['spec']['version']}"
    announced = {parameter["name"] for parameter in PLUGIN["spec"]["parameters"]["static"]}
    assert {parameter["name"] for parameter in plugin["parameters"]} <= announced
    assert {"group": "jobset.x-k8s.io", "kind": "JobSet", "jsonPointers": ["/spec/suspend"]} in application[
        "ignoreDifferences"
    ]
    assert "RespectIgnoreDifferences=true" in application["syncPolicy"]["syncOptions"]

    assert application["source"]["path"] == "apps/training"
    app = checkout(
        tmp_path,
        {
            "apps/training/demo.yaml": TORCH_JOB.replace("NAME", "demo").replace("    image: my/img:1\n", ""),
            "platform/runtimes/torch.yaml": RUNTIME,
        },
    )
    env = cmp_env(
        tmp_path,
        namespace=application["destination"]["namespace"],
        parameters=plugin["parameters"],
        plugin_env=[(entry["name"], entry["value"]) for entry in plugin.get("env", [])],
    )
    assert discovers(app, env)
    (jobset,) = [d for d in rendered(generate(app, env)) if d["kind"] == "JobSet"]
    assert jobset["metadata"]["namespace"] == "team-a"
    container = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == PINNED_IMAGE


@pytest.mark.parametrize("name", ["application.yaml", "repo-server-patch.yaml"])
def test_the_docs_show_the_tested_files(name):
    """The Argo CD page includes the files themselves (pymdownx.snippets), never a copy that could go stale."""
    assert f'```yaml\n--8<-- "examples/argocd/{name}"\n```\n' in (ROOT / "docs" / "routes" / "argocd.md").read_text()


TOOL_FILES = {  # YAML that is not manifests, where a repository keeps it (issue 14, item 5)
    ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks: []\n",
    ".github/workflows/ci.yaml": "on: [push]\njobs: {}\n",
    "apps/training/.argocd-source.yaml": "plugin:\n  parameters:\n  - name: namespace\n    string: team-a\n",
    "apps/training/.argocd-source-training.yaml": "plugin:\n  env: []\n",
    "apps/training/.github/workflows/render.yml": "on: [pull_request]\n",
}


def test_tool_files_in_the_app_are_not_manifests(tmp_path):
    """Argo CD's own parameter override files (also written by Argo CD Image Updater) and CI configs beside
    the TrainJobs failed every sync: names starting with `.` are not read, by discover nor generate."""
    app = checkout(tmp_path, {**TOOL_FILES, "apps/training/job.yaml": TORCH_JOB.replace("NAME", "job")})
    assert discovers(app, cmp_env(tmp_path))
    documents = kinds(rendered(generate(app, cmp_env(tmp_path))))
    assert set(documents) == {("JobSet", "job")}


@pytest.mark.parametrize(
    "parameters, message",
    [
        (
            [{"name": "ssh-keys", "string": "sealed"}],
            "PARAM_SSH_KEYS (the plugin parameter ssh-keys): 'sealed' is not one of seed, external-secrets, sealed-secrets",
        ),
        (
            [
                {"name": "ssh-keys", "string": "sealed-secrets"},
                {"name": "sealed-secrets-cert", "string": "certs/cert.pem"},
            ],
            "PARAM_SEALED_SECRETS_CERT (the plugin parameter sealed-secrets-cert): certs/cert.pem: no such file (the path "
            "is relative to the app's folder, apps/training in the repository)",
        ),
    ],
    ids=["ssh-keys", "sealed-secrets-cert"],
)
def test_a_bad_key_parameter_is_named_as_the_parameter(tmp_path, parameters, message):
    """Under the plugin, a bad ssh-keys or sealed-secrets-cert is the Application's parameter, never a
    `--ssh-keys` usage error of a flag the user never typed (issue 20)."""
    app = checkout(tmp_path, {"apps/training/ds.yaml": MPI_JOB, "cert.pem": "at the root, not in the app"})
    result = generate(app, cmp_env(tmp_path, parameters=parameters))
    assert (result.returncode, result.stdout) == (1, "")
    assert message in result.stderr and "--ssh-keys" not in result.stderr and "Usage" not in result.stderr, (
        result.stderr
    )


def test_a_kustomization_or_helm_values_in_the_app_say_what_they_are(tmp_path):
    """A kustomization.yaml or values.yaml beside the TrainJobs: the error says what the file is and what to do,
    not only `metadata: required for kubectl apply` (issue 20)."""
    app = checkout(
        tmp_path,
        {
            "apps/training/job.yaml": TORCH_JOB.replace("NAME", "job"),
            "apps/training/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\n"
            "kind: Kustomization\nresources: [job.yaml]\n",
            "apps/training/values.yaml": "replicas: 3\n",
        },
    )
    result = generate(app, cmp_env(tmp_path))
    assert (result.returncode, result.stdout) == (1, "")
    assert (
        "kustomization.yaml:1:1: metadata: required for kubectl apply: a mapping with the object's name; this "
        "file is a kustomization, not a Kubernetes object: render the folder with `kubectl kustomize`"
    ) in result.stderr
    assert (
        "values.yaml:1:1: apiVersion: required for kubectl apply: a non-empty string; this file is a Helm "
        "chart's file" in result.stderr
    )


def test_the_cluster_state_parameter_gives_each_queued_job_a_notice(tmp_path):
    """An Application's cluster-state (a file of the repository a job refreshes) reaches the run: the queued
    TrainJob's standing is a notice in the sync's output, the manifests unchanged; a path outside the repository
    is refused in the parameter's words."""
    case = ROOT / "golden" / "kueue-placement"
    app = checkout(
        tmp_path,
        {
            "apps/training/queues.yaml": (case / "queues.yaml").read_text(),
            "apps/training/jobs.yaml": (case / "trainjobs.yaml").read_text(),
            "cluster/state.json": (case / "cluster" / "state.json").read_text(),
        },
    )
    plain = generate(app, cmp_env(tmp_path, namespace=""))
    result = generate(
        app,
        cmp_env(tmp_path, namespace="", parameters=[{"name": "cluster-state", "string": "../../cluster/state.json"}]),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == plain.stdout
    assert (
        "team-b/sweep: Kueue: waiting in ClusterQueue 'team-b-gpu' until it has 8 nvidia.com/gpu more in "
        "flavor 'a100' unused" in result.stderr
    )
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    refused = generate(
        app, cmp_env(tmp_path, namespace="", parameters=[{"name": "cluster-state", "string": str(outside)}])
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("PARAM_CLUSTER_STATE (the plugin parameter cluster-state): ")
    assert "outside the repository being rendered" in refused.stderr


def test_the_sidecar_keeps_compiled_policies_on_its_writable_volume(tmp_path):
    """The example sidecar's root filesystem is read-only: its CEL compile cache (TRAINC_CACHE_DIR) is on a volume
    it may write, and the plugin's renders fill it there, never in HOME, each render the same."""
    patch = yaml.safe_load((ARGOCD / "repo-server-patch.yaml").read_text())
    sidecar = next(c for c in patch["spec"]["template"]["spec"]["containers"] if c["name"] == "trainc")
    assert sidecar["securityContext"]["readOnlyRootFilesystem"] is True
    cache = {entry["name"]: entry["value"] for entry in sidecar["env"]}["TRAINC_CACHE_DIR"]
    writable = [mount["mountPath"] for mount in sidecar["volumeMounts"] if not mount.get("readOnly")]
    volume = next(mount for mount in writable if cache.startswith(mount.rstrip("/") + "/"))
    config = (
        "policies:\n  - name: gpu-cap\n    match: {kinds: [JobSet]}\n"
        "    rule: object.spec.replicatedJobs.all(j, j.replicas <= 8)\n"
    )
    app = checkout(tmp_path, {".trainc.yaml": config, "apps/training/job.yaml": TORCH_JOB.replace("NAME", "job")})
    mounted = tmp_path / volume.strip("/")  # the sidecar's volume, here
    env = cmp_env(tmp_path, sidecar={"TRAINC_CACHE_DIR": str(mounted / cache[len(volume) :].strip("/"))})
    env["HOME"] = str(tmp_path / "home")
    first, second = generate(app, env), generate(app, env)
    assert rendered(first) == rendered(second) and first.stderr == second.stderr
    assert [path for path in mounted.rglob("*") if path.is_file()]  # the rule's program, and the CRDs' rules
    assert not (tmp_path / "home").exists()
