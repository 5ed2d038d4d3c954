"""Real tools accept what the MPI plugin emits: ssh-keygen reads the key pair, mpirun the hostfile and env.

The hostfile names pods that only exist in a cluster, so the one node's name is
rewritten to `localhost`; the rest of the line (` slots=N`) is mpirun's to parse.
Slots are 3: mpirun must start 3 processes without --oversubscribe and refuse a
4th, which only holds if it read the slot count (its default is the core count).
The sshd login with these keys is tested in test_sshkeys.py.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess

import pytest
from conftest import GOLDEN_SEED, need

from helpers import build

TIMEOUT = 60
SLOTS = 3
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: mpi-one-node
  namespace: default
spec:
  mlPolicy:
    mpi: {}
  template:
    spec:
      replicatedJobs:
        - name: launcher
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: test:launcher
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: test:node
"""
TRAINJOB = f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: real
  namespace: default
spec:
  runtimeRef:
    kind: TrainingRuntime
    name: mpi-one-node
  trainer:
    numNodes: 1
    numProcPerNode: {SLOTS}
"""
ENDPOINT = "real-node-0-0.real"


def rendered(tmp_path, seed=GOLDEN_SEED) -> dict:
    """The emitted objects of the TrainJob, by kind."""
    (tmp_path / "runtime.yaml").write_text(RUNTIME)
    (tmp_path / "trainjob.yaml").write_text(TRAINJOB)
    output = build([str(tmp_path / "runtime.yaml"), str(tmp_path / "trainjob.yaml")], ssh_key_seed=seed)
    return {obj["kind"]: obj for obj in output.documents()}


def tool(name: str, package: str) -> str:
    path = shutil.which(name, path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"]))
    need(path is not None, f"{name} not found (Debian: apt-get install {package})")
    return path


@pytest.mark.parametrize("seed", [GOLDEN_SEED, None], ids=["seeded", "random"])
def test_ssh_keygen_derives_the_emitted_public_key(tmp_path, seed):
    keygen = tool("ssh-keygen", "openssh-client")
    data = rendered(tmp_path, seed)["Secret"]["data"]
    key = tmp_path / "id_rsa"
    fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(base64.b64decode(data["ssh-privatekey"]))
    result = subprocess.run([keygen, "-y", "-f", str(key)], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    public = base64.b64decode(data["ssh-publickey"]).decode()
    assert public.startswith("ecdsa-sha2-nistp521 ")
    assert result.stdout.split()[:2] == public.split()


def mpirun(tmp_path, processes: int, args=(), env=None) -> subprocess.CompletedProcess:
    """mpirun with a bare argv[0]: from an absolute one Open MPI derives an install prefix (`/` for /bin/mpirun)."""
    executable = tool("mpirun", "openmpi-bin")
    command = ["mpirun", "--allow-run-as-root", *args, "-np", str(processes), "hostname"]
    environment = {**os.environ, **(env or {}), "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    return subprocess.run(
        command, executable=executable, capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path, env=environment
    )


def local_hostfile(tmp_path, objects: dict):
    hostfile = objects["ConfigMap"]["data"]["hostfile"]
    assert hostfile == f"{ENDPOINT} slots={SLOTS}\n"
    path = tmp_path / "hostfile"
    path.write_text(hostfile.replace(ENDPOINT, "localhost"))
    return path


def test_mpirun_accepts_the_hostfile(tmp_path):
    hostfile = local_hostfile(tmp_path, rendered(tmp_path))
    result = mpirun(tmp_path, SLOTS, ["--hostfile", str(hostfile)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(result.stdout.splitlines()) == SLOTS
    result = mpirun(tmp_path, SLOTS + 1, ["--hostfile", str(hostfile)])
    assert result.returncode != 0 and "not enough slots" in result.stdout + result.stderr


def test_mpirun_reads_the_hostfile_from_the_launcher_env(tmp_path):
    """The launcher's OMPI_* env as emitted, with /etc/mpi/hostfile moved to the local copy."""
    objects = rendered(tmp_path)
    hostfile = local_hostfile(tmp_path, objects)
    launcher = objects["JobSet"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    env = {var["name"]: var["value"] for var in launcher["containers"][0]["env"]}
    assert env["OMPI_MCA_orte_default_hostfile"] == "/etc/mpi/hostfile"
    env["OMPI_MCA_orte_default_hostfile"] = str(hostfile)
    result = mpirun(tmp_path, SLOTS, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(result.stdout.splitlines()) == SLOTS
    result = mpirun(tmp_path, SLOTS + 1, env=env)
    assert result.returncode != 0 and "not enough slots" in result.stdout + result.stderr
