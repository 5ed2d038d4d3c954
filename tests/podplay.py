"""Plays a rendered MPI JobSet on one machine, each pod a host of its own, to see where the ranks really run.

What a cluster gives a pod, reproduced with namespaces (the test runs as root):
- network: one fresh network namespace for the whole play (loopback and a veth pair inside
  it: nothing leaves it), every pod an address of its own on 127.0.0.0/8. The launcher gets
  127.0.0.1, an interface's address, the node pods addresses no interface has (loopback
  answers them all): as in a cluster, the launcher sees its own address as local and no
  node's (Open MPI and MPICH compare addresses).
- host: a UTS and mount namespace per pod, with the pod's hostname (`<jobset>-<job>-<i>-<j>`)
  and its own /etc/hosts holding what cluster DNS answers that pod: the kubelet's line for
  itself, and every name that reaches a pod record `<host>.<subdomain>.<ns>.svc.cluster.local`
  through the pod's search list (`<ns>.svc.cluster.local svc.cluster.local cluster.local`
  plus its rendered `dnsConfig.searches`). /etc/resolv.conf points at nothing, so no name
  resolves by any other way.
- volumes: the rendered Secret and ConfigMap items at their rendered mountPaths with their
  rendered modes, owned root:<fsGroup> (a missing mount point outside /home, such as
  /etc/mpi, is left behind empty on the machine); a /tmp of its own; the process runs as
  the container's runAsUser.
- processes: node pods run their rendered command (sshd); the launcher runs its rendered
  command and args with its rendered env and nothing else but the image's PATH and HOME.
  Everything runs in one PID namespace killed at the end, and its holder exits by itself
  after HOLD_SECONDS: no process outlives the play.

The "image" is mpi-operator's base image (what the deepspeed runtime's image follows): a
user `mpiuser` (1000), sshd and ssh on port 2222 without host key checking, StrictModes
off, and the MPI under test first on PATH (also for ssh sessions).
"""

from __future__ import annotations

import base64
import collections
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

HOLD_SECONDS = 120
READY_SECONDS = 20
RUN_SECONDS = 60
SSH_PORT = 2222
# An interface besides loopback, as a pod has: Open MPI 5's daemons open no TCP channel without one.
# Its address is no pod's, so it makes no pod's name local; the veth pair stays inside the namespace.
INTERFACE = (
    "ip link add eth0 type veth peer name eth0-peer && ip addr add 10.244.0.1/32 dev eth0 && "
    "ip link set eth0 up && ip link set eth0-peer up"
)
CLUSTER_DOMAIN = "cluster.local"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
REPORT = "rank-on"
LAUNCHER = "launcher-runs"
# What each rank runs: its host as its own UTS namespace names it.
REPORTER = ["sh", "-c", f'echo "{REPORT} $(hostname)"']
_OPENMPI_LINE = re.compile(r"^(\S+)\s+slots=(\d+)$")
_HYDRA_LINE = re.compile(r"^([^\s:]+):(\d+)$")

SSH_CONFIG = f"""\
Host *
    Port {SSH_PORT}
    StrictHostKeyChecking no
    UserKnownHostsFile /dev/null
    LogLevel ERROR
    ConnectTimeout 5
"""
SSHD_CONFIG = """\
Port {port}
ListenAddress {address}
HostKey {home}/.ssh_host_key
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile .ssh/authorized_keys
SetEnv {env}
LogLevel ERROR
"""


@dataclass
class Pod:
    hostname: str
    job: str
    subdomain: str
    namespace: str
    address: str
    spec: dict

    @property
    def fqdn(self) -> str:
        return f"{self.hostname}.{self.subdomain}.{self.namespace}.svc.{CLUSTER_DOMAIN}"

    @property
    def container(self) -> dict:
        return next(c for c in self.spec["containers"] if c["name"] == "node")

    def searches(self) -> list[str]:
        """The kubelet's search list for dnsPolicy ClusterFirst, the pod's dnsConfig.searches appended."""
        own = [f"{self.namespace}.svc.{CLUSTER_DOMAIN}", f"svc.{CLUSTER_DOMAIN}", CLUSTER_DOMAIN]
        extra = (self.spec.get("dnsConfig") or {}).get("searches") or []
        return list(dict.fromkeys(own + extra))


@dataclass
class Result:
    returncode: int
    output: str
    placement: collections.Counter = field(default_factory=collections.Counter)
    launcher: str = ""  # the program the launcher's command named, as its PATH resolved it


def pods(jobset: dict) -> list[Pod]:
    """The JobSet's pods as the JobSet controller names them; the launcher first at 127.0.0.1."""
    name, namespace = jobset["metadata"]["name"], jobset["metadata"].get("namespace", "default")
    subdomain = (jobset["spec"].get("network") or {}).get("subdomain") or name
    found = []
    for rjob in jobset["spec"]["replicatedJobs"]:
        template = rjob["template"]["spec"]
        for index in range(rjob.get("replicas", 1)):
            for pod in range(template.get("parallelism", 1)):
                found.append((rjob["name"], f"{name}-{rjob['name']}-{index}-{pod}", template["template"]["spec"]))
    found.sort(key=lambda item: item[0] != "launcher")
    return [
        Pod(hostname, job, subdomain, namespace, f"127.0.0.{number}", spec)
        for number, (job, hostname, spec) in enumerate(found, start=1)
    ]


def hosts_file(pod: Pod, everyone: list[Pod]) -> str:
    """The kubelet's /etc/hosts for `pod`, then each name cluster DNS resolves for it, as a hosts line."""
    lines = ["127.0.0.1\tlocalhost", f"{pod.address}\t{pod.fqdn} {pod.hostname}"]
    for other in everyone:
        names = [other.fqdn] + [
            other.fqdn[: -len(search) - 1] for search in pod.searches() if other.fqdn.endswith("." + search)
        ]
        if other is pod:
            names = [n for n in names if n not in (pod.fqdn, pod.hostname)]
        if names:
            lines.append(f"{other.address}\t{' '.join(dict.fromkeys(names))}")
    return "\n".join(lines) + "\n"


def expected_placement(hostfile: str) -> collections.Counter:
    """Ranks per pod hostname as the hostfile asks: each line's host (its first label) gets its slots."""
    placement = collections.Counter()
    for line in hostfile.splitlines():
        match = _OPENMPI_LINE.match(line) or _HYDRA_LINE.match(line)
        assert match, f"not a hostfile line: {line!r}"
        placement[match[1].split(".")[0]] += int(match[2])
    return placement


def check(result: Result, hostfile: str) -> list[str]:
    """What is wrong with a play: a failed launcher, or ranks elsewhere than the hostfile puts them."""
    problems = []
    if result.returncode != 0:
        problems.append(f"the launcher exited {result.returncode}")
    expected = expected_placement(hostfile)
    if result.placement != expected:
        problems.append(
            f"ranks ran on {dict(sorted(result.placement.items()))}, the hostfile puts them on "
            f"{dict(sorted(expected.items()))}"
        )
    return problems


def _without_id(path: str, number: str = "1000") -> str:
    """The machine's passwd or group file without the entry the image's mpiuser takes."""
    return "".join(
        line for line in Path(path).read_text().splitlines(keepends=True) if line.split(":")[2:3] != [number]
    )


def _secret_files(volume: dict, objects: dict) -> dict[str, tuple[bytes, int]]:
    source = volume["secret"]
    data = objects["Secret"]["data"]
    return {
        item["path"]: (base64.b64decode(data[item["key"]]), item.get("mode", source.get("defaultMode", 0o644)))
        for item in source["items"]
    }


def _config_map_files(volume: dict, objects: dict) -> dict[str, tuple[bytes, int]]:
    source = volume["configMap"]
    data = objects["ConfigMap"]["data"]
    return {
        item["path"]: (data[item["key"]].encode(), item.get("mode", source.get("defaultMode", 0o644)))
        for item in source["items"]
    }


class Play:
    """One play of a JobSet; a context manager that tears every process down on exit."""

    def __init__(self, objects: dict, workdir: Path, mpi_bin: str):
        self.objects = objects
        self.workdir = workdir
        self.image_env = {"PATH": f"{mpi_bin}:{SYSTEM_PATH}"}  # for the launcher and ssh sessions: its MPI first
        self.pods = pods(objects["JobSet"])
        self.holder: subprocess.Popen | None = None
        self.namespace_pid = 0

    def __enter__(self) -> Self:
        self.holder = subprocess.Popen(
            [
                "unshare",
                "--net",
                "--pid",
                "--fork",
                "--kill-child",
                "--",
                "sh",
                "-c",
                f"ip link set lo up && {INTERFACE} && echo up && exec sleep {HOLD_SECONDS}",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.holder.stdout.readline().strip() == "up", "no network namespace"
        children = Path(f"/proc/{self.holder.pid}/task/{self.holder.pid}/children").read_text().split()
        self.namespace_pid = int(children[0])
        return self

    def __exit__(self, *exc) -> None:
        self.holder.kill()  # --kill-child: the namespace's init dies, and with it every process of the play
        self.holder.wait(timeout=10)

    def _enter(self, pod: Pod) -> list[str]:
        """The command prefix running a command as `pod`: its namespaces, mounts and user."""
        root = self.workdir / pod.hostname
        home = root / "home"
        etc = root / "etc"
        etc.mkdir(parents=True)
        user = (pod.container.get("securityContext") or {}).get("runAsUser", 0)
        group = (pod.spec.get("securityContext") or {}).get("fsGroup", user)
        (etc / "hosts").write_text(hosts_file(pod, self.pods))
        (etc / "resolv.conf").write_text("nameserver 127.0.0.53\noptions attempts:1 timeout:1\n")
        (etc / "passwd").write_text(_without_id("/etc/passwd") + "mpiuser:x:1000:1000::/home/mpiuser:/bin/sh\n")
        (etc / "group").write_text(_without_id("/etc/group") + "mpiuser:x:1000:\n")
        (etc / "ssh_config").write_text(SSH_CONFIG)
        user_home = home / "mpiuser"
        user_home.mkdir(parents=True)
        (user_home / ".sshd_config").write_text(
            SSHD_CONFIG.format(
                port=SSH_PORT,
                address=pod.address,
                home="/home/mpiuser",
                env=" ".join(f"{k}={v}" for k, v in self.image_env.items()),
            )
        )
        shutil.copy(self.workdir / "host_key", user_home / ".ssh_host_key")
        os.chown(user_home, 1000, 1000)
        os.chown(user_home / ".ssh_host_key", 1000, 1000)
        binds = [(etc / name, f"/etc/{name}") for name in ("hosts", "resolv.conf", "passwd", "group")]
        binds += [(etc / "ssh_config", "/etc/ssh/ssh_config"), (home, "/home")]
        volumes = {volume["name"]: volume for volume in pod.spec.get("volumes", [])}
        for mount in pod.container.get("volumeMounts", []):
            volume = volumes[mount["name"]]
            files = (
                _secret_files(volume, self.objects) if "secret" in volume else _config_map_files(volume, self.objects)
            )
            source = root / "volumes" / mount["name"]
            source.mkdir(parents=True)
            for name, (content, mode) in files.items():
                (source / name).write_bytes(content)
                os.chown(source / name, 0, group)
                os.chmod(source / name, mode)
            binds.append((source, mount["mountPath"]))
        tmp = root / "tmp"  # last: it hides the play's own files, which live under /tmp
        tmp.mkdir()
        os.chmod(tmp, 0o1777)
        binds.append((tmp, "/tmp"))
        script = [f"hostname {shlex.quote(pod.hostname)}"]
        for source, target in binds:  # a missing mount point is made, as the container runtime does
            target = shlex.quote(target)
            script.append(
                f"{{ [ -e {target} ] || mkdir -p {target}; }} && mount --bind {shlex.quote(str(source))} {target}"
            )
        script.append(f"cd {'/home/mpiuser' if user == 1000 else '/'}")
        script.append(f'exec setpriv --reuid={user} --regid={group} --groups={group} -- "$@"')
        return [
            "nsenter",
            f"--net=/proc/{self.namespace_pid}/ns/net",
            f"--pid=/proc/{self.namespace_pid}/ns/pid",
            "--",
            "unshare",
            "--uts",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-ec",
            " && ".join(script),
            pod.hostname,
        ]

    def _command(self, pod: Pod) -> list[str]:
        container = pod.container
        return [*container.get("command", []), *container.get("args", [])]

    def run(self) -> Result:
        """Starts the node pods' sshd, waits for them, runs the launcher; the ranks' report, by host."""
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.workdir / "host_key")],
            check=True,
            timeout=30,
        )
        launcher = next(pod for pod in self.pods if pod.job == "launcher")
        nodes = [pod for pod in self.pods if pod is not launcher]
        for pod in nodes:
            with open(self.workdir / f"{pod.hostname}.log", "wb") as log:
                subprocess.Popen([*self._enter(pod), *self._command(pod)], stdout=log, stderr=subprocess.STDOUT)
        self._wait_for_sshd(nodes)
        env = {**self.image_env, "HOME": "/home/mpiuser", "USER": "mpiuser"}
        env.update({var["name"]: var["value"] for var in launcher.container.get("env", [])})
        command = [
            *self._enter(launcher),
            "env",
            "-i",
            *(f"{k}={v}" for k, v in env.items()),
            "sh",
            "-c",
            f'echo "{LAUNCHER} $(command -v "$1")" && exec "$@"',
            "sh",
            *self._command(launcher),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_SECONDS, check=False)
        except subprocess.TimeoutExpired as timeout:
            output = (timeout.stdout or b"").decode() + (timeout.stderr or b"").decode()
            return Result(-1, output + f"\n(timed out after {RUN_SECONDS}s)")
        lines = [line.split(maxsplit=1) for line in done.stdout.splitlines()]
        lines = [line for line in lines if len(line) == 2]
        placement = collections.Counter(line[1] for line in lines if line[0] == REPORT)
        program = next((line[1] for line in lines if line[0] == LAUNCHER), "")
        return Result(done.returncode, done.stdout + done.stderr, placement, program)

    def _wait_for_sshd(self, nodes: list[Pod]) -> None:
        """As the launcher's dependsOn (node Ready) does: every node's port 2222 accepts connections."""
        probe = (
            "import socket, sys, time\n"
            f"deadline = time.monotonic() + {READY_SECONDS}\n"
            "for address in sys.argv[1:]:\n"
            "    while True:\n"
            "        try:\n"
            f"            socket.create_connection((address, {SSH_PORT}), timeout=1).close(); break\n"
            "        except OSError:\n"
            "            if time.monotonic() > deadline: sys.exit(f'no sshd on {address}')\n"
            "            time.sleep(0.05)\n"
        )
        ready = subprocess.run(
            [
                "nsenter",
                f"--net=/proc/{self.namespace_pid}/ns/net",
                sys.executable,
                "-c",
                probe,
                *(pod.address for pod in nodes),
            ],
            capture_output=True,
            text=True,
            timeout=READY_SECONDS + 5,
            check=False,
        )
        logs = "".join(f"{pod.hostname}: {(self.workdir / f'{pod.hostname}.log').read_text()}" for pod in nodes)
        assert ready.returncode == 0, ready.stderr + logs
