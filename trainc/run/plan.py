"""The JobSet's pods as local processes: names, labels, env, argv, files and mounts, all before anything starts.

The JobSet controller makes `replicas` Jobs per replicated job, each an Indexed
Job of `completions` pods; a pod's hostname is `<jobset>-<job>-<jobIndex>-<podIndex>`
and it carries the labels and annotations fieldRefs read (the completion index,
the JobSet's job labels). Volumes become directories under the pod's work
directory and every mount path is rewritten to its directory in argv and env
(images are not pulled, so there is no container file system to mount into).
Every problem that would stop a pod from starting is collected into one PlanError.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass, field

from ..compiler.ir import job_spec, pod_spec, pod_template
from ..k8s import kubelet
from .loopback import Loopback, hostfile

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
MAX_PODS = 64  # pods started here at most unless --max-pods raises it: each is at least one process on this machine
JOBSET_LABELS = "jobset.sigs.k8s.io/"


class PlanError(Exception):
    """Pods that cannot start; each line says which pod, container and field."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Container:
    """One process: an init container (run to completion first, in order), a sidecar, or a main container."""

    name: str
    argv: list[str]
    env: dict[str, str]  # what the pod spec sets, resolved; the process also inherits this environment
    cwd: str
    kind: str  # "init", "sidecar" or "main"
    shown_argv: list[str] = field(default_factory=list)  # argv and env as printed: secret values hidden
    shown_env: dict[str, str] = field(default_factory=dict)


@dataclass
class Pod:
    name: str
    job: str
    job_index: int
    index: int
    workdir: str
    containers: list[Container] = field(default_factory=list)
    files: dict[str, tuple[bytes, int]] = field(default_factory=dict)  # local path: (content, mode)
    dirs: list[str] = field(default_factory=list)
    mounts: list[tuple[str, str, str, str]] = field(default_factory=list)  # (container, mountPath, local, source)

    @property
    def tmpdir(self) -> str:
        return os.path.join(self.workdir, "tmp")


@dataclass
class Job:
    """A replicated job: its Jobs (one list of pods each) and what must hold before they start."""

    name: str
    parallelism: int
    depends_on: list[tuple[str, str]]  # (replicated job, "Ready" or "Complete")
    jobs: list[list[Pod]]

    @property
    def pods(self) -> list[Pod]:
        return [pod for job in self.jobs for pod in job]


@dataclass
class Plan:
    jobset: dict
    jobs: list[Job]
    ports: dict[int, int]  # declared port: local port


def plan(
    objects: list[dict],
    workdir: str,
    *,
    env_file: dict | None = None,
    volumes: dict | None = None,
    max_pods: int = MAX_PODS,
) -> Plan:
    """The pods of the one JobSet among `objects` (the rendered objects, plus ConfigMaps and Secrets it may read);
    more than `max_pods` pods is a PlanError, counted before any pod is listed."""
    jobset = next(obj for obj in objects if obj.get("kind") == "JobSet")
    meta, spec = jobset["metadata"], jobset["spec"]
    namespace = meta.get("namespace", "default")
    store = kubelet.Store(objects, namespace)
    rjobs = spec.get("replicatedJobs") or []
    counts = [(rjob["name"], rjob.get("replicas", 1), _completions(rjob)) for rjob in rjobs]
    total = sum(replicas * completions for _, replicas, completions in counts)
    if total > max_pods:
        sizes = ", ".join(f"{name} {replicas} × {completions}" for name, replicas, completions in counts)
        raise PlanError(
            [
                f"the JobSet has {total} pods ({sizes}): trainc run starts at most {max_pods} pods here, "
                "one process or more each (--max-pods N raises the cap)"
            ]
        )
    network = spec.get("network") or {}
    hostnames = [_hostname(meta["name"], rjob, j, p) for rjob in rjobs for j, p in _indexes(rjob)]
    ports = {
        port["containerPort"] for rjob in rjobs for c in _containers(pod_spec(rjob)) for port in c.get("ports") or ()
    }
    loopback = Loopback(hostnames, network.get("subdomain") or meta["name"], namespace, ports)
    problems: list[str] = list(store.problems)
    jobs = []
    in_order = (spec.get("startupPolicy") or {}).get("startupPolicyOrder") == "InOrder"
    for position, rjob in enumerate(rjobs):
        depends = [(d["name"], d["status"]) for d in rjob.get("dependsOn") or ()]
        if in_order and position:
            depends.append((rjobs[position - 1]["name"], "Ready"))
        pods = [[] for _ in range(rjob.get("replicas", 1))]
        for j, p in _indexes(rjob):
            pods[j].append(_pod(jobset, rjob, j, p, workdir, store, loopback, env_file or {}, volumes or {}, problems))
        jobs.append(Job(rjob["name"], job_spec(rjob).get("parallelism", 1), depends, pods))
    problems += [problem for job in jobs for pod in job.pods for problem in _unstartable(pod)]
    if problems:
        raise PlanError(problems)
    return Plan(jobset, jobs, loopback.ports)


def _containers(spec: dict) -> list[dict]:
    return [*(spec.get("initContainers") or ()), *(spec.get("containers") or ())]


def _completions(rjob: dict) -> int:
    job = job_spec(rjob)
    return job.get("completions", job.get("parallelism", 1))


def _indexes(rjob: dict):
    return [(j, p) for j in range(rjob.get("replicas", 1)) for p in range(_completions(rjob))]


def _hostname(jobset: str, rjob: dict, job_index: int, index: int) -> str:
    return f"{jobset}-{rjob['name']}-{job_index}-{index}"


def _metadata(jobset: dict, rjob: dict, job_index: int, index: int) -> tuple[dict, dict]:
    """The pod's labels and annotations: the template's plus what the JobSet and Job controllers add."""
    name, namespace = jobset["metadata"]["name"], jobset["metadata"].get("namespace", "default")
    job = f"{name}-{rjob['name']}-{job_index}"
    rjobs = jobset["spec"]["replicatedJobs"]
    before = sum(r.get("replicas", 1) for r in rjobs[: rjobs.index(rjob)])
    added = {
        JOBSET_LABELS + "jobset-name": name,
        JOBSET_LABELS + "replicatedjob-name": rjob["name"],
        JOBSET_LABELS + "replicatedjob-replicas": str(rjob.get("replicas", 1)),
        JOBSET_LABELS + "job-index": str(job_index),
        JOBSET_LABELS + "job-global-index": str(before + job_index),
        JOBSET_LABELS + "restart-attempt": "0",
        JOBSET_LABELS + "job-key": hashlib.sha1(f"{namespace}/{job}".encode()).hexdigest(),
        "batch.kubernetes.io/job-name": job,
        "job-name": job,
        COMPLETION_INDEX: str(index),
    }
    template = pod_template(rjob).get("metadata") or {}
    return {**(template.get("labels") or {}), **added}, {**(template.get("annotations") or {}), **added}


def _pod(jobset, rjob, job_index, index, workdir, store, loopback, env_file, volumes, problems) -> Pod:
    name = _hostname(jobset["metadata"]["name"], rjob, job_index, index)
    spec = pod_spec(rjob)
    labels, annotations = _metadata(jobset, rjob, job_index, index)
    pod = Pod(name, rjob["name"], job_index, index, os.path.join(workdir, name))
    source = kubelet.Pod(name, jobset["metadata"].get("namespace", "default"), labels, annotations, spec)
    local = _volumes(pod, spec, store, loopback, volumes, problems)
    for kind, container in [
        *(("sidecar" if c.get("restartPolicy") == "Always" else "init", c) for c in spec.get("initContainers") or ()),
        *(("main", c) for c in spec.get("containers") or ()),
    ]:
        where = f"pod {name}, container {container['name']}"
        mounts = {}
        for mount in container.get("volumeMounts") or ():
            if mount["name"] not in local:
                problems.append(f"{where}: volumeMount {mount['mountPath']}: no volume {mount['name']!r} in the pod")
                continue
            directory = local[mount["name"]][0]
            mounts[mount["mountPath"]] = (
                os.path.join(directory, mount["subPath"]) if mount.get("subPath") else directory
            )
            pod.mounts.append(
                (container["name"], mount["mountPath"], mounts[mount["mountPath"]], local[mount["name"]][1])
            )
        rewrite = _mount_rewriter(mounts)
        shown: dict[str, str] = {}
        env = kubelet.env(container, source, store, env_file, problems, where, shown)
        env.setdefault("JOB_COMPLETION_INDEX", str(index))  # the Job controller adds it to Indexed jobs' containers
        shown.setdefault("JOB_COMPLETION_INDEX", str(index))
        env = {key: rewrite(loopback.env_value(value)) for key, value in env.items()}
        shown = {key: rewrite(loopback.env_value(value)) for key, value in shown.items()}
        # the literal text is rewritten before expansion, so values (already rewritten) are not rewritten twice
        parts = [
            rewrite(loopback.text(part)) for part in [*(container.get("command") or ()), *(container.get("args") or ())]
        ]
        argv = [kubelet.expand(part, env) for part in parts]
        shown_argv = [kubelet.expand(part, shown) for part in parts]
        cwd = rewrite(container["workingDir"]) if container.get("workingDir") else os.getcwd()
        full = {**env_file, **env}
        _check(where, container, argv, cwd, full, pod, problems, shown_argv)
        pod.containers.append(
            Container(
                container["name"],
                argv,
                full,
                cwd,
                kind,
                shown_argv,
                {**dict.fromkeys(env_file, kubelet.HIDDEN), **shown},
            )
        )
    return pod


def _unstartable(pod: Pod) -> list[str]:
    """What no process can be given (a NUL in its text, an env name holding `=`: Popen would raise in the pod's
    thread), and a file or directory of the pod outside its directory."""
    problems = []
    for container in pod.containers:
        where = f"pod {pod.name}, container {container.name}"
        for key, value in container.env.items():
            if not key or "=" in key or "\0" in key:
                problems.append(
                    f"{where}: env {key!r}: not a name a process environment can hold (empty, or holding '=' or a NUL)"
                )
            elif "\0" in value:
                problems.append(
                    f"{where}: env {key}: its value holds a NUL character, which no process environment can hold"
                )
        if "\0" in container.cwd or any("\0" in part for part in container.argv):
            problems.append(f"{where}: command, args or workingDir hold a NUL character, which no process can be given")
    logs = [os.path.join(pod.workdir, f"{container.name}.log") for container in pod.containers]
    return problems + [
        f"pod {pod.name}: {path} is outside the pod's directory: trainc run writes only under it"
        for path in [*pod.files, *pod.dirs, *logs]
        if not inside(path, pod.workdir)
    ]


def inside(path: str, root: str) -> bool:
    """`path`, normalised, is `root` or below it (admission refuses `..` and absolute item paths; this holds
    whatever reaches here)."""
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(os.path.join(root, ""))


def _volumes(pod: Pod, spec: dict, store, loopback, volumes: dict, problems: list) -> dict[str, tuple[str, str]]:
    """{volume: (local directory, what it is)}, with the files to write recorded on the pod."""
    local = {}
    for volume in spec.get("volumes") or ():
        name, kind = volume["name"], kubelet.volume_source(volume)
        if name in volumes:
            local[name] = (os.path.abspath(volumes[name]), f"--mount {name}")
            continue
        directory = os.path.join(pod.workdir, "volumes", name)
        if kind == "emptyDir":
            pod.dirs.append(directory)
            local[name] = (directory, "emptyDir")
            continue
        if kind not in ("configMap", "secret"):
            problems.append(
                f"pod {pod.name}: volume {name!r} ({kind}) cannot be mounted here: "
                f"map it to a local directory with --mount {name}=DIR"
            )
            continue
        files = kubelet.volume_files(volume, store)
        ref = volume[kind].get("name") or volume[kind].get("secretName")
        what = f"{'ConfigMap' if kind == 'configMap' else 'Secret'} {ref}"
        if files is None:
            problems.append(f"pod {pod.name}: volume {name!r}: {what} is not among the rendered objects or the inputs")
            continue
        pod.dirs.append(directory)
        for path, (content, mode) in files.items():
            pod.files[os.path.join(directory, path)] = (_rewrite_file(content, loopback), mode)
        local[name] = (directory, what)
    return local


def _rewrite_file(content: bytes, loopback: Loopback) -> bytes:
    """Pod names in a mounted text file point here (a hostfile's loopback lines merged)."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return content
    rewritten = loopback.text(text)
    return content if rewritten == text else hostfile(rewritten).encode("utf-8")


def _mount_rewriter(mounts: dict[str, str]):
    """Replace each mount path (as a whole path prefix) by its local directory, longest first."""
    if not mounts:
        return lambda text: text
    paths = sorted(mounts, key=len, reverse=True)
    pattern = re.compile(
        r"(?<![\w./-])(" + "|".join(re.escape(p.rstrip("/") or "/") for p in paths) + r")(?=/|$|[^\w.-])"
    )
    by_path = {p.rstrip("/") or "/": mounts[p] for p in paths}
    return lambda text: pattern.sub(lambda m: by_path[m[1]], text)


def _check(
    where: str, container: dict, argv: list[str], cwd: str, env: dict, pod: Pod, problems: list, shown_argv: list[str]
) -> None:
    """What would keep the container from starting here: no command to run, or none found (named as printed:
    a command expanded from a secret is not)."""
    if not cwd.startswith(pod.workdir + os.sep) and not os.path.isdir(cwd):
        problems.append(f"{where}: workingDir {cwd} does not exist here")
    if not container.get("command"):
        problems.append(
            f"{where}: no command: the image's entrypoint is not known here (images are not pulled); "
            "set command in the runtime or the TrainJob"
        )
        return
    program = argv[0]
    if "/" not in program:
        found = shutil.which(program, path=env.get("PATH", os.environ.get("PATH"))) is not None
    elif os.path.join(cwd, program).startswith(pod.workdir + os.sep):  # a file from a mounted ConfigMap or Secret
        mounted = pod.files.get(os.path.join(cwd, program))
        found = mounted is not None and bool(mounted[1] & 0o111)
    else:
        path = os.path.join(cwd, program)
        found = os.path.isfile(path) and os.access(path, os.X_OK)
    if not found:
        problems.append(
            f"{where}: command {shown_argv[0]!r} not found (images are not pulled: commands run in this "
            f"environment{', on its PATH' if '/' not in program else ''})"
        )
