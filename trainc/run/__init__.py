"""`trainc run`: compile a TrainJob as `build` does, then run its JobSet's pods here as processes.

The loop this closes: a wrong env var, a rendezvous that never forms or a
hostfile mpirun cannot read shows up on the laptop, not after the GitOps sync.
Images are not pulled: each container's command runs in the current environment
(`plan` resolves it as the kubelet would; `loopback` puts every pod on one host;
`execute` starts and stops them). The result is the TrainJob status the
controller would derive from the JobSet (`trainc status`).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass, field

from ..trainer import status
from ..errors import InputError, InputErrors
from ..formats.serialize import dump_all
from .plan import MAX_PODS, PlanError, plan

EXIT_INTERRUPTED = 130


@dataclass
class Options:
    paths: tuple
    run: object = None  # the run's engine.Options (its settings); its seed is replaced by a random one
    job: str | None = None  # NS/NAME or NAME
    timeout: float | None = None
    keep: str | None = None
    dry_run: bool = False
    env_file: dict = field(default_factory=dict)
    mounts: dict = field(default_factory=dict)
    max_pods: int = MAX_PODS


class Usage(Exception):
    """A usage error (exit 2): e.g. several TrainJobs and no --job."""


def run(options: Options) -> tuple[int, str]:
    """(exit status, text for stdout): 0 and the pods' descriptions for --dry-run; else 0 when the JobSet would
    be Complete, 1 otherwise (130 on Ctrl-C), and the TrainJob status. Raises TraincError (bad input, pods that
    cannot start) before anything starts; the pods' output goes to stdout as they run."""
    from .. import engine

    settings = options.run or engine.Options()  # a local run needs a working key, not a stable one
    output = engine.run(engine.Inputs(tuple(options.paths)), settings._replace(ssh_key_seed=os.urandom(64))).checked()
    for notice in output.notices:
        print(notice, file=sys.stderr)
    trainjob, objects = _select(output.jobs, options)
    workdir = os.path.abspath(options.keep) if options.keep else tempfile.mkdtemp(prefix="trainc-run-")
    try:
        try:
            pods = plan(
                [*objects, *_config(output)],
                workdir,
                env_file=options.env_file,
                volumes=options.mounts,
                max_pods=options.max_pods,
            )
        except PlanError as error:
            raise InputErrors([InputError(trainjob.origin, (), problem) for problem in error.problems]) from None
        if options.dry_run:
            return 0, dump_all(_describe(pods))
        from .execute import Runner

        outcome = Runner(pods, keep_logs=options.keep is not None).run(options.timeout)
    finally:
        if options.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    code = {"Complete": 0, "Interrupted": EXIT_INTERRUPTED}.get(outcome.state, 1)
    return code, dump_all([status.derive(outcome.jobset)])


def _select(jobs: list, options: Options):
    """The TrainJob --job names, or the only one."""
    if options.job is None:
        if len(jobs) == 1:
            return jobs[0]
        names = ", ".join(f"{t.namespace}/{t.name}" for t, _ in jobs) or "none"
        raise Usage(f"PATHS hold {len(jobs)} TrainJobs to run ({names}): choose one with --job NS/NAME")
    namespace, _, name = options.job.rpartition("/")
    for trainjob, objects in jobs:
        if trainjob.name == name and trainjob.namespace == (namespace or _namespace(options)):
            return trainjob, objects
    raise Usage(f"no TrainJob {namespace or _namespace(options)}/{name} in PATHS")


def _namespace(options: Options) -> str:
    return options.run.namespace if options.run is not None else "default"


def _config(output) -> list[dict]:
    """ConfigMaps and Secrets among the inputs (as build read them): a pod may read them as the cluster's would."""
    return [obj for _, obj in output.others if isinstance(obj, dict) and obj.get("kind") in ("ConfigMap", "Secret")]


def _describe(pods) -> list[dict]:
    """--dry-run: per pod, in start order, what would run (the env the pod spec sets, on top of this one), with
    values from Secrets and --env-file, and what is expanded from them, as (hidden)."""
    described = []
    for job in pods.jobs:
        for pod in job.pods:
            entry = {"pod": pod.name, "job": job.name}
            if job.depends_on:
                entry["after"] = [f"{name} {status}" for name, status in job.depends_on]
            entry["containers"] = [
                {"name": c.name, "kind": c.kind, "command": c.shown_argv, "workingDir": c.cwd, "env": c.shown_env}
                for c in pod.containers
            ]
            if pod.mounts:
                entry["mounts"] = [
                    {"container": c, "mountPath": path, "local": local, "from": what}
                    for c, path, local, what in pod.mounts
                ]
            described.append(entry)
    if pods.ports:
        described.append({"ports": {str(port): local for port, local in pods.ports.items()}})
    return described


def read_env_file(path: str, limit: int) -> dict[str, str]:
    """KEY=VALUE lines (`export ` and one pair of surrounding quotes allowed; `#` comments), read within the
    run's input bound (`limit` bytes); raises Usage."""
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise Usage(f"{path}: not a regular file")
            data = handle.read(limit + 1)
    except OSError as exc:
        raise Usage(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise Usage(f"{path}: larger than the input bound ({limit} bytes, --max-input-bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise Usage(f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x})") from None
    variables = {}
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.removeprefix("export ").partition("=")
        if not equals or not key.strip():
            raise Usage(f"{path}:{number}: expected KEY=VALUE")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        variables[key.strip()] = value
    return variables
