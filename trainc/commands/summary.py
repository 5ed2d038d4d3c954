"""`trainc summary`: what the TrainJobs ask of the cluster, for a reviewer: nodes, processes, GPUs, CPUs and
memory per TrainJob, Kueue queue and namespace, and with a base what a change adds or frees on each queue.

Amounts are requests as Kueue counts them (`validation/requests.py`), so the totals are what the queue's quota
is charged. The base is read as `trainc diff` reads it (`inputs.read_previous`: a directory, or PATHS at a git
revision) and compiled the same way.
"""

from __future__ import annotations

import json

import click

from ..errors import InputErrors, TraincError
from ..formats.table import aligned
from ..formats.table import markdown as table
from ..validation.requests import (
    NO_QUEUE,
    Job,
    amount,
    delta,
    delta_markdown,
    delta_text,
    flavor_names,
    gpus,
    jobs,
    queue_name,
    signed,
    totals,
)
from . import fail, write_out


def _resources(amounts: dict) -> str:
    return ", ".join(f"{amount(resource, value)} {resource}" for resource, value in sorted(amounts.items())) or "none"


def _job_rows(found: list[Job]) -> list[tuple]:
    live = any(job.standing is not None for job in found)  # --cluster-state: where each job stands now
    header = (
        "TRAINJOB",
        "QUEUE",
        "FLAVOR",
        *(("KUEUE NOW",) if live else ()),
        "NODES×PROCS",
        "GPUS/NODE",
        "CPUS/NODE",
        "MEMORY/NODE",
        "GPUS",
        "CPUS",
        "MEMORY",
    )
    rows = [header]
    for job in found:
        now = ((job.standing.state if job.standing is not None else NO_QUEUE),) if live else ()
        rows.append(
            (
                f"{job.namespace}/{job.name}",
                job.queue or NO_QUEUE,
                flavor_names(job),
                *now,
                f"{job.nodes}×{job.processes}",
                str(gpus(job.per_node)),
                amount("cpu", job.per_node.get("cpu", 0)),
                amount("memory", job.per_node.get("memory", 0)),
                str(gpus(job.total)),
                amount("cpu", job.total.get("cpu", 0)),
                amount("memory", job.total.get("memory", 0)),
            )
        )
    return rows


def _standing_lines(found: list[Job]) -> list[str]:
    """`team-a/eval: admissible now in ClusterQueue 'team-a-gpu' on a100`, one a job the cluster state places."""
    return [f"{job.namespace}/{job.name}: {job.standing.words()}" for job in found if job.standing is not None]


def _total_rows(found: list[Job]) -> tuple[list[tuple], list[tuple]]:
    queues = [("QUEUE", "TRAINJOBS", "REQUESTS")]
    for queue, amounts in sorted(totals(found, lambda job: job.queue_key).items()):
        queues.append((queue_name(queue), str(sum(job.queue_key == queue for job in found)), _resources(amounts)))
    namespaces = [("NAMESPACE", "TRAINJOBS", "REQUESTS")]
    for namespace, amounts in sorted(totals(found, lambda job: job.namespace).items()):
        namespaces.append((namespace, str(sum(job.namespace == namespace for job in found)), _resources(amounts)))
    return queues, namespaces


def text(found: list[Job], changes=None) -> str:
    """Aligned tables: one row per TrainJob, then the totals per queue and per namespace, then the delta."""
    if not found:
        out = "no TrainJobs\n"
    else:
        queues, namespaces = _total_rows(found)
        out = aligned(_job_rows(found)) + "\n" + aligned(queues) + "\n" + aligned(namespaces)
        standing = _standing_lines(found)
        if standing:
            out += "\nKueue on the cluster state:\n" + "".join(f"  {line}\n" for line in standing)
    return out + ("" if changes is None else "\n" + delta_text(changes))


def markdown(found: list[Job], changes=None) -> str:
    """Tables for a pull-request comment: TrainJobs, per queue, per namespace (and the delta)."""
    out = [
        "**trainc summary**: " + (f"{len(found)} TrainJob{'s' if len(found) != 1 else ''}" if found else "no TrainJobs")
    ]
    if found:
        queues, namespaces = _total_rows(found)
        out += [
            "",
            *table(_job_rows(found)),
            "",
            "Per queue:",
            "",
            *table(queues),
            "",
            "Per namespace:",
            "",
            *table(namespaces),
        ]
        standing = _standing_lines(found)
        if standing:
            out += ["", "**Kueue** on the cluster state:", "", *(f"- {line}" for line in standing)]
    text = "\n".join(out) + "\n"
    return text + ("" if changes is None else "\n" + delta_markdown(changes))


def as_json(found: list[Job], changes=None) -> str:
    def shown(amounts: dict) -> dict:
        return {resource: amount(resource, value) for resource, value in sorted(amounts.items())}

    data = {
        "trainJobs": [
            {
                "namespace": job.namespace,
                "name": job.name,
                "queue": job.queue,
                "clusterQueue": job.cluster_queue,
                "nodes": job.nodes,
                "processesPerNode": job.processes,
                "perNode": shown(job.per_node),
                "total": shown(job.total),
                "podSets": [
                    {"name": pod_set.name, "count": pod_set.count, "flavors": dict(sorted(pod_set.flavors.items()))}
                    for pod_set in job.pod_sets
                ],
                **({"kueue": _standing_json(job.standing)} if job.standing is not None else {}),
            }
            for job in found
        ],
        "queues": [
            {"namespace": namespace, "queue": queue or None, "total": shown(amounts)}
            for (namespace, queue), amounts in sorted(totals(found, lambda job: job.queue_key).items())
        ],
        "namespaces": [
            {"namespace": namespace, "total": shown(amounts)}
            for namespace, amounts in sorted(totals(found, lambda job: job.namespace).items())
        ],
    }
    if changes is not None:
        data["delta"] = [
            {"namespace": namespace, "queue": queue or None, "resource": resource, "change": signed(resource, change)}
            for (namespace, queue), resource, change in changes
        ]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _standing_json(standing) -> dict:
    return {
        "state": standing.state,
        "message": standing.words(),
        "pendingAhead": standing.ahead,
        "queueingStrategy": standing.strategy,
        "priority": standing.priority,
        "preempts": [
            {
                "namespace": each.namespace,
                "name": each.name,
                "clusterQueue": each.cluster_queue,
                "priority": each.priority,
            }
            for each in standing.targets
        ],
        "waitsFor": [
            {"flavor": flavor, "resource": resource, "amount": amount(resource, value)}
            for flavor, resource, value in standing.short
        ],
    }


def main(paths, options, output_format) -> None:
    """`trainc summary`: what the TrainJobs ask of the cluster, and with a base (`options.previous`) what the
    change adds or frees, from one run (`trainc.engine`): an update's refusals are `trainc diff`'s to show."""
    from .. import engine
    from ..errors import PreviousError

    if options.previous is not None and "-" in paths:
        raise click.BadParameter("stdin (-) cannot be compared: pass files or directories", param_hint="PATHS")
    try:
        result = engine.run(engine.Inputs(tuple(paths)), options).checked(refusals=False)
        found = jobs(result)
        changes = before = None
        if options.previous is not None:
            if result.base is None:
                raise InputErrors(result.base_problems)
            before = jobs(result.base, result.base_queues())
            changes = delta(before, found)
    except PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--base") from None
    except TraincError as error:
        fail(error)
    shown = {id(notice) for notice in [*result.standing_notices, *result.cost_notices]}  # on stdout, in tables
    for notice in result.notices:  # Kueue's borrowing among them
        if id(notice) not in shown:
            click.echo(notice, err=True)
    from ..review import report

    if output_format == "html":  # one self-contained page, for a CI artifact
        from ..review import page

        write_out(page.summary(found, result, before))
        return
    render = {"text": text, "markdown": markdown, "json": as_json}[output_format]
    write_out(report.summary(output_format, render(found, changes), found, result, before))
