"""One host for every pod: pod DNS names become 127.0.0.1, declared ports become free local ports.

In the cluster each pod has its own address, so every pod of a job may listen on
29500. Here they share one, so each containerPort the JobSet declares is moved to
a free port, the same for every pod, and text naming it is rewritten: an env
value that is exactly the port, and `<pod name>:<port>`. Pod names are the
JobSet's DNS names, `<jobset>-<job>-<jobIndex>-<podIndex>[.<subdomain>[.<ns>[.svc[.cluster.local]]]]`.

An MPI hostfile then lists 127.0.0.1 once per node, which Open MPI refuses
("multiple definitions of the slot count"): `hostfile` merges those lines into
one holding every slot, so mpirun starts every rank here.
"""

from __future__ import annotations

import re
import socket

LOOPBACK = "127.0.0.1"
_OPENMPI_LINE = re.compile(r"(\S+)\s+slots=(\d+)\s*")
_HYDRA_LINE = re.compile(r"([^\s:]+):(\d+)\s*")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


class Loopback:
    """Rewrites pod names and fixed ports in the text a pod gets."""

    def __init__(self, hostnames: list[str], subdomain: str, namespace: str, ports: set[int]):
        self.ports = {port: free_port() for port in sorted(ports)}
        suffix = rf"\.{re.escape(subdomain)}(?:\.{re.escape(namespace)}(?:\.svc(?:\.cluster\.local)?)?)?"
        names = "|".join(re.escape(name) for name in sorted(hostnames, key=len, reverse=True))
        self._host = re.compile(rf"(?<![\w.-])(?:{names}){suffix}(?::(\d+))?(?![\w-])") if names else None

    def _replace(self, match: re.Match) -> str:
        port = match[1]
        if port is None:
            return LOOPBACK
        return f"{LOOPBACK}:{self.ports.get(int(port), port)}"

    def text(self, value: str) -> str:
        return self._host.sub(self._replace, value) if self._host is not None else value

    def env_value(self, value: str) -> str:
        if value.isdigit() and int(value) in self.ports:
            return str(self.ports[int(value)])
        return self.text(value)


def hostfile(text: str) -> str:
    """An MPI hostfile (Open MPI `host slots=N` or Hydra `host:N`) with the loopback lines merged into one."""
    lines = text.splitlines()
    for pattern, shape in ((_OPENMPI_LINE, "{} slots={}"), (_HYDRA_LINE, "{}:{}")):
        matches = [pattern.fullmatch(line) for line in lines if line.strip()]
        if not matches or not all(matches) or sum(m[1] == LOOPBACK for m in matches) < 2:
            continue
        slots = sum(int(m[2]) for m in matches if m[1] == LOOPBACK)
        merged, done = [], False
        for match in matches:
            if match[1] != LOOPBACK:
                merged.append(match[0].rstrip())
            elif not done:
                merged.append(shape.format(LOOPBACK, slots))
                done = True
        return "\n".join(merged) + "\n"
    return text
