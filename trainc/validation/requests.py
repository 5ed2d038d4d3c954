"""Kueue request accounting: what each compiled TrainJob's workload charges its queue (nodes, processes and
requests per node and in total), the totals per queue, and what a change adds or frees on each queue, for
`trainc summary` and `trainc diff`.

Amounts are requests as Kueue counts them (`kueue.pod_sets`: every pod of every replicated job, limits
standing in for missing requests, init containers by max, overhead), so the totals are what the queue's quota
is charged.
"""

from __future__ import annotations

from ..compiler.ir import NODE, TRAINER, pod_spec, step_of
from ..errors import Record
from ..formats.table import markdown
from . import kueue

PROCESS_ENV = ("PET_NPROC_PER_NODE", "OMPI_MCA_orte_set_default_slots", "I_MPI_PERHOST")  # torch, then MPI slots
BINARY = ("memory", "ephemeral-storage")  # shown with binary suffixes (`256Gi`), as they are usually written
NO_QUEUE = "-"


class Usage(Record):
    """One pod set of a job as Kueue charges it: its pods, its requests over every pod, and the flavor Kueue's
    flavor assigner picks for each resource its ClusterQueue covers (none when nothing places it)."""

    name: str
    count: int
    total: dict  # resource -> Kueue's integer, every pod of the pod set
    flavors: dict  # resource -> ResourceFlavor name


class Job(Record):
    namespace: str
    name: str
    queue: str | None  # the Kueue LocalQueue, None when Kueue does not manage it
    nodes: int
    processes: str
    per_node: dict  # resource -> Kueue's integer, one trainer pod
    total: dict  # resource -> Kueue's integer, every pod
    pod_sets: tuple = ()  # Usage, one per replicated job, in order
    cluster_queue: str | None = None  # the LocalQueue's ClusterQueue, when the inputs hold it
    standing: object = None  # clusterstate.Standing on the cluster of --cluster-state (None without one)
    placement: object = None  # kueue.Placement on an empty cluster (None when Kueue does not manage it)

    @property
    def queue_key(self) -> tuple:
        return (self.namespace, self.queue or "")


def queue_name(key: tuple) -> str:
    """`team-a/team-a-gpu`, or `team-a (no queue)` for the TrainJobs Kueue does not manage."""
    namespace, queue = key
    return f"{namespace}/{queue}" if queue else f"{namespace} (no queue)"


def jobs(output, others=None) -> list[Job]:
    """A Job per compiled TrainJob of `output` (a build.Output, or the run's Result with the platform's Kueue
    objects and each job's standing on --cluster-state), in output order; `others` are the documents beside them
    (the output's own by default), for LimitRanges and `default` LocalQueues, read in the run's namespace."""
    return [job for job, _ in each_job(output, others)]


def placed_on(output, others=None) -> tuple:
    """(the Kueue queues `jobs` reads, the placements found on them already) for `output` and `others` as `jobs`
    takes them."""
    placements, queues = {}, None
    if others is None:  # a run's Result: the queues its Kueue check read (the cluster's, --kueue's), and placed on
        others = getattr(output, "kueue_documents", None) or output.others
        placements, queues = getattr(output, "placements", {}), getattr(output, "queues", None)
    if queues is None:
        queues, _ = kueue.read(others, output.namespace)
    return queues, placements


def each_job(output, others=None, jobs=None, placed=None):
    """`jobs`, each Job with its JobSet: what else is asked of it is asked with its objects read once (a large
    build holds them as bytes); of `jobs` only (some of the output's, in its order) when given, on the queues
    `placed` (`placed_on`'s answer, read once for several calls) when given."""
    placed = placed if placed is not None else placed_on(output, others)
    for charge in charges(output, output.jobs if jobs is None else jobs, placed):
        trainjob, objects, jobset, work, placement, standing, usage = charge
        trainer = _trainer(jobset, work.pod_sets)
        total: dict = {}
        for pod_set in usage:
            for resource, amount in pod_set.total.items():
                total[resource] = total.get(resource, 0) + amount
        per_node = {
            resource: max(0, kueue.value(resource, amount))
            for resource, amount in (trainer.requests if trainer else {}).items()
        }
        nodes = _mpi_hosts(trainjob.name, objects)
        yield (
            Job(
                trainjob.namespace,
                trainjob.name,
                work.queue,
                nodes if nodes is not None else trainer.count if trainer else 0,
                _processes(jobset, trainjob),
                per_node,
                total,
                usage,
                placement.cluster_queue,
                standing,
                placement if work.queue is not None else None,
            ),
            jobset,
        )


def charges(output, jobs, placed: tuple):
    """(trainjob, its objects, its JobSet, kueue.Workload, kueue.Placement on an empty cluster, its standing on
    the cluster state or None, a Usage per pod set) of each of `jobs` (some of `output`'s) that renders a JobSet, on
    the queues `placed` (`placed_on`'s answer): what it charges its queue, on the flavors it runs on now (its
    standing, unless waiting), else on those its placement picks."""
    queues, placements = placed
    standings = getattr(output, "standings", {})
    for trainjob, objects in jobs:
        objects = list(objects)
        jobset = next((obj for obj in objects if obj.get("kind") == "JobSet"), None)
        if jobset is None:
            continue
        work = kueue.workload(trainjob.namespace, trainjob.name, jobset, queues)
        placement = placements.get((work.namespace, work.name))
        if placement is None:
            placement = kueue.place(work, queues) if work.queue is not None else kueue.Placement()
        standing = standings.get((trainjob.namespace, trainjob.name))
        flavors = placement.flavors or ({},) * len(work.pod_sets)
        if standing is not None and standing.state != "waiting" and standing.flavors:
            flavors = standing.flavors
        usage = tuple(
            Usage(
                pod_set.name,
                pod_set.count,
                {resource: pod_set.total(resource) for resource in pod_set.requests},
                dict(chosen),
            )
            for pod_set, chosen in zip(work.pod_sets, flavors)
        )
        yield trainjob, objects, jobset, work, placement, standing, usage


def flavor_names(job: Job) -> str:
    """Where Kueue places the job's pods: `a100`, or `launcher: cpu-pool; node: a100` when its pod sets differ;
    NO_QUEUE when nothing places it (no ClusterQueue among the inputs, or it can never be admitted)."""
    return _names([(pod_set.name, pod_set.flavors) for pod_set in job.pod_sets])


def _names(pod_sets) -> str:
    names = [", ".join(sorted(set(flavors.values()))) or NO_QUEUE for _, flavors in pod_sets]
    if not any(name != NO_QUEUE for name in names):
        return NO_QUEUE
    if len(set(names)) == 1:
        return names[0]
    return "; ".join(f"{pod_set}: {name}" for (pod_set, _), name in zip(pod_sets, names))


def flavor_moves(before: list[Job], after: list[Job]) -> dict:
    """{(namespace, name): (flavors before, flavors after)} for each job of both sides that Kueue's flavor
    assigner places elsewhere after the change (both on an empty cluster, so only the change moves it)."""

    def placed(job: Job) -> str:
        flavors = job.placement.flavors if job.placement is not None else ()
        return _names(list(zip((pod_set.name for pod_set in job.pod_sets), flavors)))

    old = {(job.namespace, job.name): placed(job) for job in before}
    moves = {}
    for job in after:
        was, now = old.get((job.namespace, job.name)), placed(job)
        if was is not None and was != now and NO_QUEUE not in (was, now):
            moves[(job.namespace, job.name)] = (was, now)
    return moves


def _mpi_hosts(name: str, objects) -> int | None:
    """An MPI job's nodes are the hosts mpirun runs on: the lines of its hostfile, which hold the launcher too
    when it runs as a node (`runLauncherAsNode`); None for a job without a hostfile."""
    for obj in objects:
        if obj.get("kind") == "ConfigMap" and (obj.get("metadata") or {}).get("name") == f"{name}-mpi-hostfile":
            hostfile = (obj.get("data") or {}).get("hostfile")
            if isinstance(hostfile, str):
                return sum(1 for line in hostfile.splitlines() if line.strip())
    return None


def _trainer(jobset: dict, pod_sets) -> kueue.PodSet | None:
    """The pod set of the training nodes: `node` (an MPI launcher carries the trainer step label too), else the
    replicated job of the trainer step, else the first."""
    node = next((each for each in pod_sets if each.name == NODE), None)
    if node is not None:
        return node
    rjobs = (jobset.get("spec") or {}).get("replicatedJobs") or []
    for rjob, pod_set in zip(rjobs, pod_sets):
        if step_of(rjob) == TRAINER:
            return pod_set
    return pod_sets[0] if pod_sets else None


def _processes(jobset: dict, trainjob) -> str:
    """Processes per node: what the rendered env tells torchrun or mpirun, else the TrainJob's numProcPerNode."""
    for rjob in (jobset.get("spec") or {}).get("replicatedJobs") or ():
        spec = pod_spec(rjob)
        for container in spec.get("containers") or ():
            for variable in container.get("env") or ():
                if variable.get("name") in PROCESS_ENV and variable.get("value"):
                    return str(variable["value"])
    trainer = getattr(getattr(trainjob, "spec", None), "trainer", None)
    procs = getattr(trainer, "num_proc_per_node", None)
    return str(procs) if procs is not None else "1"


def gpus(amounts: dict) -> int:
    """GPUs of any vendor: every resource whose name holds `gpu`, as Trainer counts them."""
    return sum(amount for resource, amount in amounts.items() if "gpu" in resource.lower())


def amount(resource: str, value: int) -> str:
    return kueue.show(resource, value, resource in BINARY or resource.startswith("hugepages-"))


def totals(found: list[Job], key) -> dict:
    """{key(job): {resource: total}} over `found`."""
    out: dict = {}
    for job in found:
        into = out.setdefault(key(job), {})
        for resource, value in job.total.items():
            into[resource] = into.get(resource, 0) + value
    return out


def delta(before: list[Job], after: list[Job]) -> list[tuple[str, str, int]]:
    """(queue, resource, change) for every queue whose totals change, sorted."""
    old, new = totals(before, lambda job: job.queue_key), totals(after, lambda job: job.queue_key)
    changes = []
    for queue in sorted(old.keys() | new.keys()):
        was, now = old.get(queue, {}), new.get(queue, {})
        for resource in sorted(was.keys() | now.keys()):
            change = now.get(resource, 0) - was.get(resource, 0)
            if change:
                changes.append((queue, resource, change))
    return changes


def delta_lines(changes) -> list[str]:
    """`+32 nvidia.com/gpu on team-a/team-a-gpu`, one a change."""
    return [f"{signed(resource, change)} {resource} on {queue_name(queue)}" for queue, resource, change in changes]


def signed(resource: str, change: int) -> str:
    return f"{'+' if change > 0 else '-'}{amount(resource, abs(change))}"


def delta_text(changes) -> str:
    lines = delta_lines(changes)
    return (
        "".join(f"{line}\n" for line in ["requests change since the base:", *("  " + each for each in lines)])
        if lines
        else "requests unchanged since the base\n"
    )


def delta_markdown(changes) -> str:
    if not changes:
        return "**Requests** unchanged since the base\n"
    rows = [("Queue", "Resource", "Change")]
    rows += [(queue_name(queue), resource, signed(resource, change)) for queue, resource, change in changes]
    return "\n".join(["**Requests** since the base:", "", *markdown(rows)]) + "\n"
