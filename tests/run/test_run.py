"""`trainc run` with the real runtimes: torchrun trains, mpirun reads the rendered hostfile, pods fail and stop.

Every run is the CLI in a subprocess, as a user runs it, with this interpreter's
bin directory first on PATH (torchrun, python). Pods are checked to be gone
after a failure, a timeout and Ctrl-C: each test's pods carry a marker in their
argv and no process holding it may remain.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import yaml
from conftest import ROOT, need
from helpers import environment, has_torch, status_of

TIMEOUT = 120


def trainc_run(*args, cwd=None, timeout=TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trainc", "run", *map(str, args)],
        capture_output=True,
        text=True,
        env=environment(),
        cwd=cwd,
        timeout=timeout,
    )


def condition(status: dict) -> tuple[str, str]:
    [found] = status["conditions"]
    return found["type"], found["reason"]


def processes_with(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if entry.name.isdigit() and marker.encode() in cmdline:
            found.append(entry.name + ": " + cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return found


def runtime(name: str, jobs: list, policy: dict | None = None, **template_spec) -> str:
    """A TrainingRuntime in the default namespace, as YAML text (JSON is YAML)."""
    spec = {"mlPolicy": policy} if policy else {}
    spec["template"] = {"spec": {**template_spec, "replicatedJobs": jobs}}
    return json.dumps(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainingRuntime",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        }
    )


def replicated_job(name: str, pod_spec: dict, step: str | None = None, **fields) -> dict:
    """A replicated job whose Job template has the ancestor `step` label (the trainer's, say) if given."""
    template = {"spec": {"template": {"spec": pod_spec}}}
    if step is not None:
        template["metadata"] = {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": step}}
    return {"name": name, **fields, "template": template}


def trainjob(
    tmp_path, name: str, trainer: str, runtime: str = "torch-distributed", kind: str = "ClusterTrainingRuntime"
) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    kind: {kind}
    name: {runtime}
  trainer:
{trainer}
""")
    return path


def test_torch_example_trains_on_cpus(tmp_path):
    """The README's example: 2 nodes x 2 processes, gloo, real torchrun; every rank ends with the same loss."""
    need(has_torch(), "torch not installed (pip install torch==2.13.0)")
    result = trainc_run(ROOT / "examples" / "torch-cpu.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if ": 30 steps, loss " in line]
    ranks = sorted((line.split(" | ")[0].strip(), line.split(" | ")[1].split(":")[0]) for line in lines)
    assert ranks == [
        ("cpu-demo-node-0-0", "rank 0 of 4"),
        ("cpu-demo-node-0-0", "rank 1 of 4"),
        ("cpu-demo-node-0-1", "rank 2 of 4"),
        ("cpu-demo-node-0-1", "rank 3 of 4"),
    ]
    losses = {line.rpartition("loss ")[2] for line in lines}
    assert len(losses) == 1 and float(losses.pop()) < 0.01  # DDP kept the replicas in step, and it learned
    status = status_of(result.stdout)
    assert condition(status) == ("Complete", "AllJobsCompleted")
    assert status["jobsStatus"] == [
        {"name": "node", "ready": 0, "succeeded": 1, "failed": 0, "active": 0, "suspended": 0}
    ]
    assert "pod cpu-demo-node-0-1 started" in result.stderr
    # the quick start installs numpy with torch: without it every rank warns "Failed to initialize NumPy"
    assert "pip install torch==2.13.0 numpy " in (ROOT / "README.md").read_text()
    assert "NumPy" not in result.stdout + result.stderr


def mpi_runtime(marker: str) -> str:
    """Nodes that idle (in the cluster they run sshd) and a launcher that starts once they run, as the bundled
    MPI runtimes; the launcher's success completes the JobSet."""
    return runtime(
        "mpi-local",
        [
            replicated_job(
                "node",
                {
                    "containers": [
                        {
                            "name": "node",
                            "image": "mpi-runtime",
                            "command": ["python", "-c", "import time; time.sleep(300)", marker],
                        }
                    ]
                },
            ),
            replicated_job(
                "launcher",
                {"containers": [{"name": "node", "image": "mpi-runtime"}]},
                "trainer",
                dependsOn=[{"name": "node", "status": "Ready"}],
            ),
        ],
        {
            "numNodes": 1,
            "mpi": {"numProcPerNode": 2, "mpiImplementation": "OpenMPI", "sshAuthMountPath": "/home/mpiuser/.ssh"},
        },
        successPolicy={"operator": "All", "targetReplicatedJobs": ["launcher"]},
    )


def test_mpirun_runs_over_the_rendered_hostfile(tmp_path):
    """The launcher starts once both node pods run; mpirun reads the hostfile through OMPI_MCA_* (no -np: one rank
    per slot, 2 nodes x 2 slots), its ranks run; the launcher's success completes the JobSet and stops the nodes."""
    mpirun = shutil.which("mpirun")
    need(mpirun is not None, "mpirun not found (Debian: apt-get install openmpi-bin)")
    marker = f"trainc-test-{uuid.uuid4().hex}"
    (tmp_path / "runtime.yaml").write_text(mpi_runtime(marker))
    rank = "import os; os.write(1, b'rank %s of %s\\\\n' % (os.environb[b'OMPI_COMM_WORLD_RANK'], os.environb[b'OMPI_COMM_WORLD_SIZE']))"  # one write: whole lines
    job = trainjob(
        tmp_path,
        "mpi",
        f"""\
    numNodes: 2
    command: [mpirun, --hostfile, /etc/mpi/hostfile, python, -c, "{rank}"]""",
        "mpi-local",
        "TrainingRuntime",
    )
    env_file = tmp_path / "root.env"  # Open MPI refuses to run as root without these
    env_file.write_text("OMPI_ALLOW_RUN_AS_ROOT=1\nOMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n")
    result = trainc_run(job, tmp_path / "runtime.yaml", "--env-file", env_file, "--keep", tmp_path / "pods")
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = sorted(line.split(" | ")[1] for line in result.stdout.splitlines() if " | rank " in line)
    assert ranks == [f"rank {r} of 4" for r in range(4)]
    assert all(line.startswith("mpi-launcher-0-0 | ") for line in result.stdout.splitlines() if " | rank " in line)
    hostfile = tmp_path / "pods" / "mpi-launcher-0-0" / "volumes" / "mpi-hostfile" / "hostfile"
    assert hostfile.read_text() == "127.0.0.1 slots=4\n"
    started = [line for line in result.stderr.splitlines() if " started " in line]
    assert started[-1].startswith("trainc run: pod mpi-launcher-0-0 started")  # after both nodes ran
    status = status_of(result.stdout)
    assert condition(status) == ("Complete", "AllJobsCompleted")
    assert [(job["name"], job["succeeded"]) for job in status["jobsStatus"]] == [("node", 0), ("launcher", 1)]
    assert processes_with(marker) == []


def test_a_failing_pod_fails_the_run(tmp_path):
    """Node 1 exits 3: the JobSet fails at once, node 0 (asleep) is stopped, exit 1 with the Failed status."""
    marker = f"trainc-test-{uuid.uuid4().hex}"
    script = "import os, sys, time; sys.exit(3) if os.environ['PET_NODE_RANK'] == '1' else time.sleep(300)"
    job = trainjob(
        tmp_path,
        "fails",
        f"""\
    numNodes: 2
    command: [python, -c, "{script}", {marker}]""",
    )
    started = time.monotonic()
    result = trainc_run(job)
    assert result.returncode == 1, result.stdout + result.stderr
    assert time.monotonic() - started < 60
    assert "pod fails-node-0-1 node exited 3" in result.stderr
    status = status_of(result.stdout)
    assert condition(status) == ("Failed", "FailedJobs")
    assert status["jobsStatus"][0]["failed"] == 1
    assert processes_with(marker) == []


def test_each_pod_has_its_own_tmp_removed_with_the_run(tmp_path):
    """TMPDIR is the pod's own directory (a container's /tmp): what torchrun or pip leave there goes with the run."""
    scratch = tmp_path / "system-tmp"
    scratch.mkdir()
    script = "import os, tempfile; open(os.path.join(tempfile.gettempdir(), 'left'), 'w'); print(tempfile.gettempdir())"
    job = trainjob(
        tmp_path,
        "tmps",
        f"""\
    numNodes: 2
    command: [python, -c, "{script}"]""",
    )
    env = {**environment(), "TMPDIR": str(scratch)}
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "run", str(job)], capture_output=True, text=True, env=env, timeout=TIMEOUT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    used = sorted(line.split(" | ")[1] for line in result.stdout.splitlines() if " | " in line)
    assert [os.path.basename(os.path.dirname(path)) for path in used] == ["tmps-node-0-0", "tmps-node-0-1"]
    assert all(not os.path.exists(path) for path in used)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("trainc-run-")] == []
    assert not any(p.name == "left" for p in scratch.rglob("*"))


LEAVES_A_CHILD = (
    "import subprocess, sys, time; "
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', sys.argv[1]]); "
    "print('up', flush=True); time.sleep(300)"
)
STUBBORN = "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); " + LEAVES_A_CHILD


def test_timeout_stops_every_process(tmp_path):
    """A pod that ignores SIGTERM and leaves a child behind: --timeout kills its whole process group."""
    marker = f"trainc-test-{uuid.uuid4().hex}"
    job = trainjob(
        tmp_path,
        "slow",
        f"""\
    numNodes: 2
    command: [python, -c, "{STUBBORN}", {marker}]""",
    )
    started = time.monotonic()
    result = trainc_run(job, "--timeout", "3")
    assert result.returncode == 1, result.stdout + result.stderr
    assert time.monotonic() - started < 30
    assert "timed out after 3s: stopping every pod" in result.stderr
    assert result.stdout.count(" | up") == 2
    status = status_of(result.stdout)
    assert "conditions" not in status and status["jobsStatus"][0]["active"] == 1
    assert processes_with(marker) == []


def test_ctrl_c_stops_every_process(tmp_path):
    marker = f"trainc-test-{uuid.uuid4().hex}"
    job = trainjob(
        tmp_path,
        "stopped",
        f"""\
    numNodes: 1
    command: [python, -c, "{LEAVES_A_CHILD}", {marker}]""",
    )
    run = subprocess.Popen(
        [sys.executable, "-m", "trainc", "run", str(job)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    try:
        assert run.stdout.readline().endswith("| up\n")
        for _ in range(100):  # the pod and the child it left behind
            if len(processes_with(marker)) == 2:
                break
            time.sleep(0.1)
        assert len(processes_with(marker)) == 2
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=TIMEOUT)
    finally:
        run.kill()
    assert run.returncode == 130, stderr
    assert "interrupted: stopping every pod" in stderr
    assert processes_with(marker) == []


def test_a_sidecar_is_stopped_when_the_pod_s_main_container_ends(tmp_path):
    """A native sidecar (an init container that restarts Always) runs beside the trainer; once the trainer exits,
    the sidecar's group gets SIGTERM, then SIGKILL past the grace period (this one ignores SIGTERM and leaves a
    child): the pod succeeds and nothing of it is left."""
    marker = f"trainc-test-{uuid.uuid4().hex}"
    sidecar = {"name": "logs", "image": "img", "restartPolicy": "Always", "command": ["python", "-c", STUBBORN, marker]}
    main = {"name": "node", "image": "img", "command": ["python", "-c", "import time; time.sleep(1); print('done')"]}
    pod = {"initContainers": [sidecar], "containers": [main]}
    (tmp_path / "runtime.yaml").write_text(runtime("with-sidecar", [replicated_job("node", pod, "trainer")]))
    job = trainjob(tmp_path, "side", "    numNodes: 1", "with-sidecar", "TrainingRuntime")
    started = time.monotonic()
    result = trainc_run(job, tmp_path / "runtime.yaml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert time.monotonic() - started < 60
    logs = {tuple(part.strip() for part in line.split(" | ")) for line in result.stdout.split("---")[0].splitlines()}
    assert logs == {("side-node-0-0/logs", "up"), ("side-node-0-0", "done")}
    assert condition(status_of(result.stdout)) == ("Complete", "AllJobsCompleted")
    assert processes_with(marker) == []


def test_bad_input_is_refused_before_anything_starts(tmp_path):
    """A missing Secret, a PVC with no --mount and a command not on PATH: all reported, nothing run."""
    marker = tmp_path / "ran"
    (tmp_path / "runtime.yaml").write_text(
        runtime(
            "with-pvc",
            [
                replicated_job(
                    "node",
                    {
                        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "datasets"}}],
                        "initContainers": [{"name": "prepare", "image": "busybox", "command": ["touch", str(marker)]}],
                        "containers": [
                            {
                                "name": "node",
                                "image": "trainer",
                                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                            }
                        ],
                    },
                    "trainer",
                )
            ],
            {"torch": {}},
        )
    )
    job = trainjob(
        tmp_path,
        "bad",
        """\
    command: [no-such-trainer-command, /data/train.csv]
    env:
      - name: HF_TOKEN
        valueFrom:
          secretKeyRef:
            name: hf-token
            key: token""",
        "with-pvc",
        "TrainingRuntime",
    )
    result = trainc_run(job, tmp_path / "runtime.yaml")
    assert result.returncode == 1
    assert result.stdout == ""
    assert not marker.exists()
    assert result.stderr.splitlines() == [
        f"{job}:1:1: pod bad-node-0-0: volume 'data' (persistentVolumeClaim) cannot be mounted here: "
        "map it to a local directory with --mount data=DIR",
        f"{job}:1:1: pod bad-node-0-0, container node: volumeMount /data: no volume 'data' in the pod",
        f"{job}:1:1: pod bad-node-0-0, container node: env HF_TOKEN: Secret 'hf-token' is not among the rendered "
        "objects or the inputs (pass it as an input, or HF_TOKEN with --env-file)",
        f"{job}:1:1: pod bad-node-0-0, container node: command 'no-such-trainer-command' not found (images are not "
        "pulled: commands run in this environment, on its PATH)",
    ]
    # --mount and --env-file supply what was missing: the dry run shows the resolved pod
    (tmp_path / "data").mkdir()
    (tmp_path / "token.env").write_text("HF_TOKEN='s3cret'\n")
    result = trainc_run(
        job,
        tmp_path / "runtime.yaml",
        "--mount",
        f"data={tmp_path / 'data'}",
        "--env-file",
        tmp_path / "token.env",
        "--dry-run",
    )
    assert result.returncode == 1 and "no-such-trainer-command" in result.stderr
    assert "PVC" not in result.stderr and "HF_TOKEN" not in result.stderr


DRY_RUN_INPUTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  lr: "0.1"
  peers: "kube-node-0-1.kube:29500 kube-node-0-0.kube.default.svc.cluster.local"
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  USER: ada
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: kube
  namespace: default
spec:
  mlPolicy:
    numNodes: 2
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                metadata:
                  labels:
                    team: a
                spec:
                  volumes:
                    - name: settings
                      configMap:
                        name: settings
                    - name: scratch
                      emptyDir: {}
                  containers:
                    - name: node
                      image: trainer
                      command: [python, /etc/settings/../settings/lr, "$(LR)", "$$(LR)", "$(NOPE)", /scratch/out]
                      args: ["--port=$(PET_MASTER_PORT)", "$(OUT)"]
                      envFrom:
                        - secretRef:
                            name: creds
                          prefix: DB_
                      env:
                        - name: LR
                          valueFrom:
                            configMapKeyRef:
                              name: settings
                              key: lr
                        - name: GREETING
                          value: "hi $(DB_USER) on $(POD) $(LATER)"
                        - name: POD
                          valueFrom:
                            fieldRef:
                              fieldPath: metadata.name
                        - name: TEAM
                          valueFrom:
                            fieldRef:
                              fieldPath: metadata.labels['team']
                        - name: JOBSET
                          valueFrom:
                            fieldRef:
                              fieldPath: metadata.labels['jobset.sigs.k8s.io/jobset-name']
                        - name: PEERS
                          valueFrom:
                            configMapKeyRef:
                              name: settings
                              key: peers
                        - name: LATER
                          value: later
                        - name: OUT
                          value: /scratch/result
                      volumeMounts:
                        - name: settings
                          mountPath: /etc/settings
                        - name: scratch
                          mountPath: /scratch
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: kube
spec:
  runtimeRef:
    kind: TrainingRuntime
    name: kube
  trainer:
    numNodes: 2
"""


def test_dry_run_resolves_env_as_the_kubelet(tmp_path):
    """envFrom with a prefix, $(VAR) only of variables defined before, $$ escapes, fieldRefs of pod and JobSet
    labels, ConfigMap keys from the inputs; pod names on loopback, the declared port moved, mounts redirected."""
    (tmp_path / "all.yaml").write_text(DRY_RUN_INPUTS)
    result = trainc_run(tmp_path / "all.yaml", "--dry-run", "--keep", tmp_path / "pods", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    *pods, ports = yaml.safe_load_all(result.stdout)
    assert [pod["pod"] for pod in pods] == ["kube-node-0-0", "kube-node-0-1"]
    port = ports["ports"]["29500"]
    assert port != 29500
    [container] = pods[1]["containers"]
    local = tmp_path / "pods" / "kube-node-0-1" / "volumes"
    assert container["command"] == [
        "python",
        f"{local}/settings/../settings/lr",
        "0.1",
        "$(LR)",
        "$(NOPE)",
        f"{local}/scratch/out",
        f"--port={port}",
        f"{local}/scratch/result",
    ]
    assert container["env"] == {
        "DB_USER": "(hidden)",
        "LR": "0.1",
        "GREETING": "hi (hidden) on $(POD) $(LATER)",
        "POD": "kube-node-0-1",
        "TEAM": "a",
        "JOBSET": "kube",
        "PEERS": f"127.0.0.1:{port} 127.0.0.1",
        "LATER": "later",
        "OUT": f"{local}/scratch/result",
        "PET_NNODES": "2",
        "PET_NPROC_PER_NODE": "1",
        "PET_NODE_RANK": "1",
        "PET_MASTER_ADDR": "127.0.0.1",
        "PET_MASTER_PORT": str(port),
        "JOB_COMPLETION_INDEX": "1",
    }
    assert pods[1]["mounts"] == [
        {"container": "node", "mountPath": "/etc/settings", "local": f"{local}/settings", "from": "ConfigMap settings"},
        {"container": "node", "mountPath": "/scratch", "local": f"{local}/scratch", "from": "emptyDir"},
    ]
    assert not (tmp_path / "pods" / "kube-node-0-1").exists()  # a dry run writes nothing


def test_several_trainjobs_need_job(tmp_path):
    trainjob(tmp_path, "one", "    command: [python, -c, pass]")
    trainjob(tmp_path, "two", "    command: [python, -c, pass]")
    result = trainc_run(tmp_path, "--dry-run")
    assert result.returncode == 2
    assert "PATHS hold 2 TrainJobs to run (default/one, default/two): choose one with --job NS/NAME" in result.stderr
    result = trainc_run(tmp_path, "--dry-run", "--job", "default/two")
    assert result.returncode == 0 and "pod: two-node-0-0" in result.stdout


def initializer_runtime() -> str:
    """A dataset initializer writing into the volume the trainer reads (a PVC in the cluster)."""
    volumes = [{"name": "workspace", "persistentVolumeClaim": {"claimName": "workspace"}}]

    def python(name: str, code: str) -> dict:
        return {
            "name": name,
            "image": "img",
            "command": ["python", "-c", code],
            "volumeMounts": [{"name": "workspace", "mountPath": "/workspace"}],
        }

    return runtime(
        "with-initializer",
        [
            replicated_job(
                "dataset-initializer",
                {
                    "volumes": volumes,
                    "containers": [
                        python(
                            "dataset-initializer",
                            "import time; time.sleep(1); open('/workspace/data.txt', 'w').write('ok')",
                        )
                    ],
                },
                "dataset-initializer",
            ),
            replicated_job(
                "node",
                {
                    "volumes": volumes,
                    "initContainers": [python("check", "print('init sees', open('/workspace/data.txt').read())")],
                    "containers": [python("node", "print('trainer sees', open('/workspace/data.txt').read())")],
                },
                "trainer",
                dependsOn=[{"name": "dataset-initializer", "status": "Complete"}],
            ),
        ],
    )


def test_initializer_completes_before_the_trainer_starts(tmp_path):
    """dependsOn Complete: the trainer pod (its init container first) starts after the initializer wrote the
    dataset into the volume both mount (a PVC in the cluster, --mount here)."""
    (tmp_path / "runtime.yaml").write_text(initializer_runtime())
    job = trainjob(tmp_path, "init", "    numNodes: 1", "with-initializer", "TrainingRuntime")
    (tmp_path / "pvc").mkdir()
    result = trainc_run(job, tmp_path / "runtime.yaml", "--mount", f"workspace={tmp_path / 'pvc'}")
    assert result.returncode == 0, result.stdout + result.stderr
    logs = [tuple(part.strip() for part in line.split(" | ")) for line in result.stdout.splitlines()[:2]]
    assert logs == [("init-node-0-0/check", "init sees ok"), ("init-node-0-0", "trainer sees ok")]
    progress = result.stderr.splitlines()
    assert progress[0].startswith("trainc run: pod init-dataset-initializer-0-0 started")
    assert progress[1] == "trainc run: pod init-dataset-initializer-0-0 succeeded (exit 0)"
    status = status_of(result.stdout)
    assert [(job["name"], job["succeeded"]) for job in status["jobsStatus"]] == [
        ("dataset-initializer", 1),
        ("node", 1),
    ]


def test_dry_run_hides_secret_and_env_file_values_as_diff_does(tmp_path):
    """Values from a Secret (envFrom, secretKeyRef) or --env-file, and what is expanded from them (another
    variable, an argument, the command itself), print as (hidden); the run itself gets them."""
    canary = "c4nary-s3cret"
    (tmp_path / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n"
        f"data:\n  token: {base64.b64encode(canary.encode()).decode()}\nstringData:\n  PROG: python\n"
    )
    (tmp_path / "local.env").write_text(f"FROM_FILE={canary}-file\n")
    job = trainjob(
        tmp_path,
        "masked",
        """\
    command: [$(DB_PROG), -c, "import os, sys; sys.exit(os.environ['TOKEN'] != sys.argv[1])", "$(TOKEN)"]
    env:
      - name: TOKEN
        valueFrom:
          secretKeyRef:
            name: creds
            key: token
      - name: URL
        value: https://u:$(TOKEN)@example.com
      - name: PLAIN
        value: shown""",
        "python-job",
        "TrainingRuntime",
    )
    (tmp_path / "runtime.yaml").write_text(
        runtime(
            "python-job",
            [
                replicated_job(
                    "node",
                    {
                        "containers": [
                            {
                                "name": "node",
                                "image": "trainer",
                                "envFrom": [{"secretRef": {"name": "creds"}, "prefix": "DB_"}],
                            }
                        ],
                    },
                    "trainer",
                )
            ],
            {"numNodes": 1, "torch": {}},
        )
    )
    inputs = (job, tmp_path / "runtime.yaml", tmp_path / "secret.yaml", "--env-file", tmp_path / "local.env")
    result = trainc_run(*inputs, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert canary not in result.stdout + result.stderr
    [pod, _] = yaml.safe_load_all(result.stdout)
    [container] = pod["containers"]
    assert container["command"] == [
        "(hidden)",
        "-c",
        "import os, sys; sys.exit(os.environ['TOKEN'] != sys.argv[1])",
        "(hidden)",
    ]
    env = container["env"]
    assert (env["TOKEN"], env["URL"], env["DB_PROG"], env["DB_token"], env["FROM_FILE"], env["PLAIN"]) == (
        "(hidden)",
        "https://u:(hidden)@example.com",
        "(hidden)",
        "(hidden)",
        "(hidden)",
        "shown",
    )
    ran = trainc_run(*inputs)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert canary not in ran.stdout + ran.stderr
