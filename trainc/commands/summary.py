"""`trainc summary`: what the TrainJobs ask of the cluster, for a reviewer: nodes, processes, GPUs, CPUs and
memory per TrainJob, Kueue queue and namespace, and with a base what a change adds or frees on each queue.

Amounts are requests as Kueue counts them (`kueue.pod_sets`: every pod of every replicated job, limits
standing in for missing requests, init containers by max, overhead), so the totals are what the queue's quota
is charged. The base is read as `trainc diff` reads it (`trainer.previous`: a directory, or PATHS at a git
revision) and compiled the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import click

from .. import build
from ..compiler.ir import NODE, TRAINER, pod_spec, step_of
from ..errors import TraincError
from ..validation import kueue
from . import fail, write_out

PROCESS_ENV = ("PET_NPROC_PER_NODE", "OMPI_MCA_orte_set_default_slots", "I_MPI_PERHOST")  # torch, then MPI slots
BINARY = ("memory", "ephemeral-storage")  # shown with binary suffixes (`256Gi`), as they are usually written
NO_QUEUE = "-"


@dataclass(frozen=True)
class Job:
    namespace: str
    name: str
    queue: str | None  # the Kueue LocalQueue, None when Kueue does not manage it
    nodes: int
    processes: str
    per_node: dict  # resource -> Kueue's integer, one trainer pod
    total: dict  # resource -> Kueue's integer, every pod

    @property
    def queue_key(self) -> tuple:
        return (self.namespace, self.queue or "")


def queue_name(key: tuple) -> str:
    """`team-a/team-a-gpu`, or `team-a (no queue)` for the TrainJobs Kueue does not manage."""
    namespace, queue = key
    return f"{namespace}/{queue}" if queue else f"{namespace} (no queue)"


def jobs(output: build.Output, others=None) -> list[Job]:
    """A Job per compiled TrainJob, in output order; `others` are the documents beside them (the output's own
    by default), for LimitRanges and `default` LocalQueues."""
    queues, _ = kueue.read(output.others if others is None else others)
    found = []
    for trainjob, objects in output.jobs:
        jobset = next((obj for obj in objects if obj.get("kind") == "JobSet"), None)
        if jobset is None:
            continue
        work = kueue.workload(trainjob.namespace, trainjob.name, jobset, queues)
        trainer = _trainer(jobset, work.pod_sets)
        total: dict = {}
        for pod_set in work.pod_sets:
            for resource in pod_set.requests:
                total[resource] = total.get(resource, 0) + pod_set.total(resource)
        per_node = {resource: max(0, kueue.value(resource, amount))
                    for resource, amount in (trainer.requests if trainer else {}).items()}
        nodes = _mpi_hosts(trainjob.name, objects)
        found.append(Job(trainjob.namespace, trainjob.name, work.queue,
                         nodes if nodes is not None else trainer.count if trainer else 0,
                         _processes(jobset, trainjob), per_node, total))
    return found


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
    return [f"{_signed(resource, change)} {resource} on {queue_name(queue)}" for queue, resource, change in changes]


def _signed(resource: str, change: int) -> str:
    return f"{'+' if change > 0 else '-'}{amount(resource, abs(change))}"


def _resources(amounts: dict) -> str:
    return ", ".join(f"{amount(resource, value)} {resource}" for resource, value in sorted(amounts.items())) or "none"


def _job_rows(found: list[Job]) -> list[tuple]:
    header = ("TRAINJOB", "QUEUE", "NODES×PROCS", "GPUS/NODE", "CPUS/NODE", "MEMORY/NODE", "GPUS", "CPUS", "MEMORY")
    rows = [header]
    for job in found:
        rows.append((f"{job.namespace}/{job.name}", job.queue or NO_QUEUE, f"{job.nodes}×{job.processes}",
                     str(gpus(job.per_node)), amount("cpu", job.per_node.get("cpu", 0)),
                     amount("memory", job.per_node.get("memory", 0)), str(gpus(job.total)),
                     amount("cpu", job.total.get("cpu", 0)), amount("memory", job.total.get("memory", 0))))
    return rows


def _total_rows(found: list[Job]) -> tuple[list[tuple], list[tuple]]:
    queues = [("QUEUE", "TRAINJOBS", "REQUESTS")]
    for queue, amounts in sorted(totals(found, lambda job: job.queue_key).items()):
        queues.append((queue_name(queue), str(sum(job.queue_key == queue for job in found)), _resources(amounts)))
    namespaces = [("NAMESPACE", "TRAINJOBS", "REQUESTS")]
    for namespace, amounts in sorted(totals(found, lambda job: job.namespace).items()):
        namespaces.append((namespace, str(sum(job.namespace == namespace for job in found)), _resources(amounts)))
    return queues, namespaces


def _aligned(rows: list[tuple]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join("   ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n" for row in rows)


def text(found: list[Job], changes=None) -> str:
    """Aligned tables: one row per TrainJob, then the totals per queue and per namespace, then the delta."""
    if not found:
        out = "no TrainJobs\n"
    else:
        queues, namespaces = _total_rows(found)
        out = _aligned(_job_rows(found)) + "\n" + _aligned(queues) + "\n" + _aligned(namespaces)
    return out + ("" if changes is None else "\n" + delta_text(changes))


def delta_text(changes) -> str:
    lines = delta_lines(changes)
    return "".join(f"{line}\n" for line in ["requests change since the base:", *("  " + each for each in lines)]) \
        if lines else "requests unchanged since the base\n"


def _table(rows: list[tuple]) -> list[str]:
    """A GitHub Markdown table; cells escaped so a name cannot break it."""
    cells = [[cell.replace("|", "\\|") for cell in row] for row in rows]
    return [f"| {' | '.join(cells[0])} |", f"|{'|'.join(' --- ' for _ in cells[0])}|",
            *(f"| {' | '.join(row)} |" for row in cells[1:])]


def markdown(found: list[Job], changes=None) -> str:
    """Tables for a pull-request comment: TrainJobs, per queue, per namespace (and the delta)."""
    out = ["**trainc summary**: " + (f"{len(found)} TrainJob{'s' if len(found) != 1 else ''}" if found
                                     else "no TrainJobs")]
    if found:
        queues, namespaces = _total_rows(found)
        out += ["", *_table(_job_rows(found)), "", "Per queue:", "", *_table(queues), "", "Per namespace:", "",
                *_table(namespaces)]
    text = "\n".join(out) + "\n"
    return text + ("" if changes is None else "\n" + delta_markdown(changes))


def delta_markdown(changes) -> str:
    if not changes:
        return "**Requests** unchanged since the base\n"
    rows = [("Queue", "Resource", "Change")]
    rows += [(queue_name(queue), resource, _signed(resource, change)) for queue, resource, change in changes]
    return "\n".join(["**Requests** since the base:", "", *_table(rows)]) + "\n"


def as_json(found: list[Job], changes=None) -> str:
    def shown(amounts: dict) -> dict:
        return {resource: amount(resource, value) for resource, value in sorted(amounts.items())}

    data = {
        "trainJobs": [{"namespace": job.namespace, "name": job.name, "queue": job.queue, "nodes": job.nodes,
                       "processesPerNode": job.processes, "perNode": shown(job.per_node), "total": shown(job.total)}
                      for job in found],
        "queues": [{"namespace": namespace, "queue": queue or None, "total": shown(amounts)}
                   for (namespace, queue), amounts in sorted(totals(found, lambda job: job.queue_key).items())],
        "namespaces": [{"namespace": namespace, "total": shown(amounts)}
                       for namespace, amounts in sorted(totals(found, lambda job: job.namespace).items())],
    }
    if changes is not None:
        data["delta"] = [{"namespace": namespace, "queue": queue or None, "resource": resource,
                          "change": _signed(resource, change)} for (namespace, queue), resource, change in changes]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def base_jobs(base: str, paths, runtime_paths, namespace: str, ssh_key_seed) -> list[Job]:
    """The TrainJobs of PATHS at `base`, compiled as `trainc diff` compiles its base (`diff.compile_base`: with
    their own runtimes, else the current ones; those that do not compile there left out). Raises PreviousError
    for a base that is neither a directory nor a revision."""
    from ..trainer import previous as previous_versions
    from .diff import compile_base

    before = previous_versions.load(base, paths, namespace, runtime_paths)
    current_runtimes = build.load(paths, runtime_paths, namespace)[1]
    old = compile_base([obj for obj in before.objects.values() if obj.kind == "TrainJob"],
                       before.runtimes_then(current_runtimes), namespace, ssh_key_seed)[0]
    return jobs(old, before.others)


def main(paths, runtime_paths, namespace, base, output_format) -> None:
    """`trainc summary`: what the TrainJobs ask of the cluster, and with --base what the change adds or frees."""
    from ..compiler import sshkeys
    from ..trainer.previous import PreviousError

    if base is not None and "-" in paths:
        raise click.BadParameter("stdin (-) cannot be compared: pass files or directories", param_hint="PATHS")
    seed = bytes(sshkeys.MIN_SEED_BYTES)  # keys do not count: a throwaway seed, no random key, no notice
    try:
        output = build.build(paths, runtime_paths, namespace=namespace, ssh_key_seed=seed)
        found = jobs(output)
        changes = None if base is None else delta(
            base_jobs(base, paths, runtime_paths, namespace, seed), found)
    except PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--base") from None
    except TraincError as error:
        fail(error)
    for notice in output.notices:  # Kueue's borrowing among them
        click.echo(notice, err=True)
    render = {"text": text, "markdown": markdown, "json": as_json}[output_format]
    write_out(render(found, changes))
