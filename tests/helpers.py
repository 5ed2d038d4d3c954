"""What the test modules share, in one place: they import it from here, never from each other.

The CLI as a user runs it (`run`, in a subprocess) on files written for the test (`write`) from one TrainJob
(`trainjob`) and one ClusterTrainingRuntime (`RUNTIME`); the golden cases' inputs; the environment `trainc run`'s
pods need; the Argo CD cmp-server as it runs the shipped plugin.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
from pathlib import Path

import yaml
from conftest import GOLDEN, GOLDEN_SEED, ROOT, need

# --- the CLI and its inputs ---------------------------------------------------------------------------------------

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: {namespace}
spec:
  runtimeRef:
    name: {runtime}
{extra}"""


def trainjob(name="demo", namespace="team-a", runtime="torch-distributed", extra="  trainer:\n    numNodes: 2\n"):
    return TRAINJOB.format(name=name, namespace=namespace, runtime=runtime, extra=extra)


RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: {name}
spec:
  mlPolicy: {{{policy}}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template: {{spec: {{template: {{spec: {{containers: [{{name: node, image: i}}]}}}}}}}}
"""


def run(*args, cwd=None, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return name


def tree(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- golden cases -------------------------------------------------------------------------------------------------


def build(paths, runtime_paths=(), **options):
    """The run of `paths` (`trainc.engine`) as `trainc build` runs it, with `options` (engine.Options); raises
    InputErrors for its errors, as the command fails."""
    from trainc import engine

    settings = engine.Options(runtime_paths=tuple(runtime_paths), **options)
    return engine.run(engine.Inputs(tuple(paths)), settings).checked()


GOLDEN_CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def golden_inputs(case: str) -> list[str]:
    """The case's *.yaml and *.json inputs (JSON as the Kubeflow SDK sends it, see tools/golden/sdk-generate.py)."""
    found = [*(GOLDEN / case).glob("*.yaml"), *(GOLDEN / case).glob("*.json")]
    return sorted(str(p) for p in found if not p.name.endswith(".out.yaml"))


def key_settings(case: str):
    """The seed, and the --ssh-keys mode a case's `ssh-keys` file names (with the certificate beside it)."""
    from trainc.compiler.sshkeys import SeedFile

    mode = GOLDEN / case / "ssh-keys"
    if not mode.exists():
        return GOLDEN_SEED
    return SeedFile(
        None, _seed=GOLDEN_SEED, mode=mode.read_text().strip(), cert=str(GOLDEN / case / "sealed-secrets-cert.pem")
    )


def golden_release(case: str) -> str | None:
    """The Trainer release a case renders for (engine.Options.trainer_version): its `trainer-version` file (as
    --trainer-version), else None, the newest. Cases named <case>-v2.3 pin the older release where it renders
    differently."""
    pin = GOLDEN / case / "trainer-version"
    return pin.read_text().strip() if pin.exists() else None


# --- trainc run ---------------------------------------------------------------------------------------------------

BIN = os.path.dirname(sys.executable)


def has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


@functools.cache
def python_bin() -> str:
    """A directory whose `python` is this interpreter: its own (a virtualenv's), or one with a `python` link to it
    (pods run `python`; a system install may name it python3 only)."""
    if os.path.exists(os.path.join(BIN, "python")):
        return BIN
    directory = tempfile.mkdtemp(prefix="trainc-test-python-")
    os.symlink(sys.executable, os.path.join(directory, "python"))
    return directory


def environment() -> dict:
    return {**os.environ, "PATH": os.pathsep.join([python_bin(), BIN, os.environ.get("PATH", "")])}


def status_of(stdout: str) -> dict:
    """The TrainJob status document at the end of the output."""
    return yaml.safe_load(stdout[stdout.rindex("---\napiVersion: trainer.kubeflow.org/v1alpha1") :])["status"]


# --- Argo CD's cmp-server running the plugin ------------------------------------------------------------------------

ARGOCD = ROOT / "examples" / "argocd"
PLUGIN = yaml.safe_load((ARGOCD / "plugin.yaml").read_text())


MPI_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ds
spec:
  runtimeRef:
    name: deepspeed-distributed
  trainer:
    numNodes: 2
"""


def parameter_env(parameters: list[dict]) -> dict[str, str]:
    """The environment Argo CD makes of an Application's plugin parameters
    (ApplicationSourcePluginParameters.Environ in pkg/apis/application/v1alpha1/types.go)."""

    def escaped(name: str) -> str:
        return re.sub("[^A-Z0-9_]", "_", name.upper())

    env = {"ARGOCD_APP_PARAMETERS": json.dumps(parameters or None, separators=(",", ":"))}  # Go's nil: null
    for parameter in parameters:
        base = "PARAM_" + escaped(parameter["name"])
        if "string" in parameter:
            env[base] = parameter["string"]
        for key, value in parameter.get("map", {}).items():
            env[f"{base}_{escaped(key)}"] = value
        for index, value in enumerate(parameter.get("array", [])):
            env[f"{base}_{index}"] = value
    return env


def cmp_env(tmp_path, *, namespace="team-a", plugin_env=(), parameters=(), sidecar=None) -> dict[str, str]:
    """What cmp-server gives the plugin's commands: its own environment (the sidecar's) plus the build
    environment (reposerver/repository/repository.go newEnv, getPluginEnvs), the Application's plugin env
    as ARGOCD_ENV_* and its parameters as PARAM_*."""
    scripts = sysconfig.get_path("scripts")
    need(Path(scripts, "trainc").exists(), f"trainc is not installed in {scripts}")
    revision = "4f0c1d2e3b4a5968778695a4b3c2d1e0f9a8b7c6"
    env = {"PATH": f"{scripts}:/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path), **(sidecar or {})}
    env.update(
        {
            "ARGOCD_APP_NAME": "training",
            "ARGOCD_APP_NAMESPACE": namespace,
            "ARGOCD_APP_PROJECT_NAME": "default",
            "ARGOCD_APP_REVISION": revision,
            "ARGOCD_APP_REVISION_SHORT": revision[:7],
            "ARGOCD_APP_REVISION_SHORT_8": revision[:8],
            "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/ml/training.git",
            "ARGOCD_APP_SOURCE_PATH": "apps/training",
            "ARGOCD_APP_SOURCE_TARGET_REVISION": "HEAD",
            "KUBE_VERSION": "1.32.0",
            "KUBE_API_VERSIONS": "v1,apps/v1,batch/v1,jobset.x-k8s.io/v1alpha2,trainer.kubeflow.org/v1alpha1",
        }
    )
    env.update({f"ARGOCD_ENV_{name}": value for name, value in plugin_env})
    env.update(parameter_env(list(parameters)))
    return env


def checkout(tmp_path, files: dict[str, str], name="repo") -> Path:
    """A fresh copy of the repository as cmp-server unpacks it for each request (file modes reset), and the
    app's directory in it (ARGOCD_APP_SOURCE_PATH), where it runs every command."""
    source = tmp_path / "source"
    for path, text in files.items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_text(text)
    (source / "apps" / "training").mkdir(parents=True, exist_ok=True)
    work = tmp_path / name
    shutil.copytree(source, work, copy_function=shutil.copyfile)
    shutil.rmtree(source)
    return work / "apps" / "training"


def cmp_run(command: dict, app: Path, env: dict) -> subprocess.CompletedProcess:
    """cmp-server's runCommand: exec(command[0], command[1:] + args) in the app's directory."""
    argv = [*command["command"], *command.get("args", [])]
    return subprocess.run(argv, cwd=app, env=env, capture_output=True, text=True, timeout=120)


def generate(app: Path, env: dict) -> subprocess.CompletedProcess:
    return cmp_run(PLUGIN["spec"]["generate"], app, env)


def rendered(result: subprocess.CompletedProcess) -> list[dict]:
    assert result.returncode == 0, result.stderr
    return [document for document in yaml.safe_load_all(result.stdout) if document is not None]


# --- one TrainJob through compiler passes ---------------------------------------------------------------------------

STEP_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: {name}
spec:
  mlPolicy: {{{policy}}}
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 1
          template:
            metadata:
              labels: {{trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
            spec:
              template:
                spec:
                  containers: [{{name: node, image: runtime/image:1, env: [{{name: FROM_RUNTIME, value: r}}]}}]
"""


def through(
    passes,
    job: str,
    runtime: str = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1"),
    *,
    snapshot: bool = False,
):
    """The unit of the TrainJob `job` (YAML text) after `passes` (from compiler/pipeline.py), its runtime the
    ClusterTrainingRuntime `runtime` (YAML text; none of the bundled ones)."""
    from trainc.compiler.ir import Unit
    from trainc.compiler.pipeline import Context, run
    from trainc.errors import Origin
    from trainc.trainer import api, catalog

    trainjob = api.parse(Origin("trainjob.yaml", 0, job), yaml.safe_load(job), "team-a")
    found = api.parse(Origin("runtime.yaml", 0, runtime), yaml.safe_load(runtime), "team-a")
    ctx = Context(catalog.build([found], "team-a", include_bundled=False), bytes(32), runtime_snapshot=snapshot)
    return run(Unit(trainjob=trainjob), ctx, passes)


# --- admission: a runtime and a TrainJob built, their errors rendered ---------------------------------------------

STEP = "trainer.kubeflow.org/trainjob-ancestor-step"


def job_template(name: str, step: str | None = None, containers=("node",), init_containers=(), mounts=()) -> dict:
    """A replicated job; `mounts` are volume names mounted by every container."""
    pod = {
        "containers": [
            {
                "name": c,
                "image": "img",
                **({"volumeMounts": [{"name": v, "mountPath": f"/{v}"} for v in mounts]} if mounts else {}),
            }
            for c in containers
        ]
    }
    if init_containers:
        pod["initContainers"] = [{"name": c, "image": "img"} for c in init_containers]
    template = {"spec": {"template": {"spec": pod}}}
    if step:
        template["metadata"] = {"labels": {STEP: step}}
    return {"name": name, "template": template}


def runtime(*jobs: dict, ml_policy=None, annotations=None, pod_group_policy=None, name="rt") -> str:
    spec = {"template": {"spec": {"replicatedJobs": list(jobs)}}}
    if annotations:
        spec["template"]["metadata"] = {"annotations": annotations}
    if ml_policy is not None:
        spec["mlPolicy"] = ml_policy
    if pod_group_policy is not None:
        spec["podGroupPolicy"] = pod_group_policy
    return yaml.safe_dump(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainingRuntime",
            "metadata": {"name": name},
            "spec": spec,
        },
        sort_keys=False,
    )


TRAINER_ONLY = runtime(job_template("node", "trainer"))

# The TrainJob header every test shares: lines 1-8, `spec` children at column 3.
HEAD = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: rt
    kind: TrainingRuntime
"""


def errors(
    tmp_path, job: str, runtime_text: str | None = TRAINER_ONLY, previous=None, trainer_version: str | None = None
) -> list[str]:
    """The rendered errors of building job.yaml (+ runtime.yaml) for `trainer_version` (None: the newest), paths
    relative to tmp_path."""
    import textwrap

    from trainc.errors import InputErrors

    paths = []
    if runtime_text is not None:
        (tmp_path / "runtime.yaml").write_text(runtime_text)
        paths.append(str(tmp_path / "runtime.yaml"))
    (tmp_path / "job.yaml").write_text(textwrap.dedent(job))
    paths.append(str(tmp_path / "job.yaml"))
    try:
        build(paths, ssh_key_seed=GOLDEN_SEED, previous=previous, trainer_version=trainer_version)
    except InputErrors as caught:
        return [e.render().replace(f"{tmp_path}/", "") for e in caught.errors]
    return []


# --- Sealed Secrets: what the controller makes of a SealedSecret, with the tests' key ---------------------------

CERT_KEY = ROOT / "tests" / "sealed-secrets-key.pem"


def _golden_keys():
    from trainc.compiler import sshkeys

    return sshkeys.derive_keypair(GOLDEN_SEED, "team-a", "ds")


KEYS = _golden_keys()  # the MPI keys of golden/mpi-sealed-secrets (team-a/ds)


def unseal(sealed: dict) -> dict[str, bytes]:
    """The Secret data the controller makes of a strict-scope SealedSecret."""
    import base64

    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key = serialization.load_pem_private_key(CERT_KEY.read_bytes(), None)
    label = f"{sealed['metadata']['namespace']}/{sealed['metadata']['name']}".encode()
    data = {}
    for name, blob in sealed["spec"]["encryptedData"].items():
        raw = base64.b64decode(blob, validate=True)
        size = int.from_bytes(raw[:2], "big")
        session = key.decrypt(raw[2 : 2 + size], padding.OAEP(padding.MGF1(hashes.SHA256()), hashes.SHA256(), label))
        data[name] = AESGCM(session).decrypt(bytes(12), raw[2 + size :], None)
    return data


# --- Kueue: two flavors (one tainted), two ClusterQueues of one cohort, team-a's LocalQueue ---------------------

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
spec:
  nodeLabels:
    gpu: a100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: h100
spec:
  nodeLabels:
    gpu: h100
  nodeTaints:
  - key: gpu
    value: h100
    effect: NoSchedule
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a-gpu
spec:
  cohortName: research
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: a100
      resources:
      - {name: cpu, nominalQuota: "256"}
      - {name: memory, nominalQuota: 2Ti}
      - {name: nvidia.com/gpu, nominalQuota: 16, borrowingLimit: 8}
    - name: h100
      resources:
      - {name: cpu, nominalQuota: "256"}
      - {name: memory, nominalQuota: 2Ti}
      - {name: nvidia.com/gpu, nominalQuota: 16}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-b-gpu
spec:
  cohortName: research
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: a100
      resources:
      - {name: cpu, nominalQuota: "0"}
      - {name: memory, nominalQuota: "0"}
      - {name: nvidia.com/gpu, nominalQuota: 32, lendingLimit: 12}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: team-a-gpu
  namespace: team-a
spec:
  clusterQueue: team-a-gpu
"""

QUEUED_TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: {queue}
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: {nodes}
    resourcesPerNode:
      {resources}
"""


def ends(pid: int, seconds: float = 5) -> bool:
    """Whether process `pid` ends within `seconds`: gone, or a zombie (the kernel ended it as its parent ended,
    and whoever adopts it reaps it)."""
    for _ in range(int(seconds / 0.05)):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def bounded(body: str, prelude: str = "", **env) -> subprocess.CompletedProcess:
    """`body` (Python statements) run under `bounds.supervised` in a fresh interpreter, as the console script
    runs a command, after `prelude` (statements at module level); `env` added to the environment."""
    program = (
        "import os, signal, sys, time\nfrom trainc import bounds\n"
        + prelude
        + "def run():\n"
        + textwrap.indent(body, "    ")
        + "\nbounds.supervised(run)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )


# --- a repository that turns on every check after the build ------------------------------------------------------

CHECKED_PLATFORM = """\
prices:
  currency: USD
  default: {cpu: 0.5, memory: 0.01}
kueue-paths: [queues.yaml]
policies:
  - name: cost-cap
    match: {kinds: [JobSet]}
    rule: "!has(cost.hourly) || cost.hourly <= CAP"
    message: too dear
"""
CHECKED_QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: cpu}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: batch}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: cpu
      resources:
      - {name: cpu, nominalQuota: QUOTA}
      - {name: memory, nominalQuota: 100Gi}
"""


def checked_repository(root, cap: str, quota: str):
    """TrainJobs under every check a platform turns on after the build (Kueue's queues, prices, a house rule on
    cost), every other file starting with a comment, so that its TrainJob is not on the first line."""
    (root / "jobs").mkdir(parents=True)
    (root / ".trainc.yaml").write_text(CHECKED_PLATFORM.replace("CAP", cap))
    (root / "queues.yaml").write_text(CHECKED_QUEUES.replace("QUOTA", quota))
    (root / "jobs" / "0-queue.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: batch}\nspec: {clusterQueue: batch}\n"
    )
    for index in range(12):
        labels = "  labels: {kueue.x-k8s.io/queue-name: batch}\n" if index % 3 else ""
        (root / "jobs" / f"job-{index:02d}.yaml").write_text(
            ("# a comment first\n\n" if index % 2 else "")
            + f"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job-{index:02d}\n{labels}"
            + "spec:\n  runtimeRef: {name: torch-distributed}\n  trainer:\n    numNodes: "
            + f"{index % 4 + 1}\n    resourcesPerNode:\n      requests: {{cpu: '{index + 1}', memory: 2Gi}}\n"
        )
