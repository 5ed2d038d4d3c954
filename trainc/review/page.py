"""`--format html` of `trainc summary` and `trainc diff`: one self-contained page for a CI artifact, with the
TrainJobs and where Kueue places them, the quota they use per ClusterQueue and flavor against its nominal quota,
the cost, and for a diff every object's change with the cluster's verdict.

Nothing is fetched: the style is inline, there is no script, and the charts are inline SVG drawn here
(`charts.svg`). The page is text from the shipped template `templates/review.html.j2`, rendered by Jinja2 in a
sandbox that fails on undefined names and escapes every value; only the SVG trainc serializes itself (every
value escaped there) is inserted as markup. Nothing in it depends on the clock or the machine.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from ..validation import cost as costing
from ..validation import kueue
from ..validation.requests import NO_QUEUE, amount, gpus
from . import charts, costs


@cache
def _environment():
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    from ..shipped import data_dir

    return SandboxedEnvironment(
        loader=FileSystemLoader(data_dir("templates")),
        undefined=StrictUndefined,
        autoescape=True,
        keep_trailing_newline=True,
    )


def _render(**values) -> str:
    return _environment().get_template("review.html.j2").render(**values)


def _jobs(found: list, result) -> list[dict]:
    priced, currency = result.costs, result.prices.currency if result.prices else ""
    rows = []
    for job in found:
        cost = priced.get((job.namespace, job.name))
        placement = "; ".join(
            f"{pod_set.name}: {', '.join(sorted(set(pod_set.flavors.values()))) or '-'}" for pod_set in job.pod_sets
        )
        rows.append(
            {
                "name": f"{job.namespace}/{job.name}",
                "queue": job.queue or NO_QUEUE,
                "cluster_queue": job.cluster_queue or "-",
                "placement": placement or "-",
                "nodes": f"{job.nodes}×{job.processes}",
                "gpus": str(gpus(job.total)),
                "cpus": amount("cpu", job.total.get("cpu", 0)),
                "memory": amount("memory", job.total.get("memory", 0)),
                "hourly": "-" if cost is None else costs.costing.money(cost.hourly, currency),
                "runs": "-" if cost is None else costing.duration(cost.seconds),
                "bounded": "-" if cost is None else costs.costing.money(cost.bounded, currency),
            }
        )
    return rows


def _capacity(found: list, result, before: list | None) -> list[dict]:
    """Per ClusterQueue, flavor and resource: what the jobs here (and at the base) use, and its nominal quota
    where the ClusterQueue is among the inputs."""
    queues, _ = kueue.read(result.others, result.namespace)

    def use(jobs) -> dict:
        out: dict = {}
        for job in jobs or ():
            if job.cluster_queue is None:
                continue
            for pod_set in job.pod_sets:
                for resource, flavor in pod_set.flavors.items():
                    key = (job.cluster_queue, flavor, resource)
                    out[key] = out.get(key, 0) + pod_set.total.get(resource, 0)
        return out

    now, was = use(found), use(before)
    rows = []
    for key in sorted(now.keys() | was.keys()):
        cq, flavor, resource = key
        node = queues.cluster_queues.get(cq)
        quota = node.quotas.get((flavor, resource)) if node is not None else None
        binary = resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")
        shown = lambda value: kueue.show(resource, value, binary)
        share = (
            ""
            if quota is None or not quota.nominal
            else f"{charts.number(Fraction(now.get(key, 0) * 100, quota.nominal))}%"
        )
        rows.append(
            {
                "cluster_queue": cq,
                "flavor": flavor,
                "resource": resource,
                "use": shown(now.get(key, 0)),
                "base": shown(was.get(key, 0)) if before is not None else "",
                "nominal": shown(quota.nominal) if quota is not None else "-",
                "share": share,
            }
        )
    return rows


def _cost(found: list, result, before: list | None) -> dict | None:
    if result.prices is None:
        return None
    currency = result.prices.currency
    queues, namespaces = costs.total_rows(found, result.costs, currency)
    delta = costs.delta_rows(before, found, result.base_costs, result.costs, currency) if before is not None else None
    return {
        "currency": currency,
        "where": result.prices.where,
        "queues": queues,
        "namespaces": namespaces,
        "delta": delta,
    }


def _charts(found: list, result, before: list | None) -> list:
    from markupsafe import Markup

    drawn = charts.quota(found, before)
    if result.prices is not None:
        rate = charts.cost(
            found, result.costs, result.prices.currency, before, result.base_costs if before is not None else None
        )
        drawn += [rate] if rate is not None else []
    return [Markup(charts.svg(chart)) for chart in drawn]  # serialized by charts.svg, every value escaped


def summary(found: list, result, before: list | None = None) -> str:
    """The page of `trainc summary` (`before`: the base's jobs, with --base)."""
    return _render(
        title="trainc summary",
        heading=f"{len(found)} TrainJob{'s' if len(found) != 1 else ''}",
        jobs=_jobs(found, result),
        capacity=_capacity(found, result, before),
        base=before is not None,
        charts=_charts(found, result, before),
        cost=_cost(found, result, before),
        diff=None,
        notices=_notices(result),
    )


def _notices(result) -> list[str]:
    """The run's notices but those the page's tables already say (each job's cost and standing)."""
    shown = {id(notice) for notice in [*result.cost_notices, *result.standing_notices]}
    return [str(notice) for notice in result.notices if id(notice) not in shown]


def diff(diffs: list, line: str, heading: str, before: list, found: list, result, notices: list, hunk_lines) -> str:
    """The page of `trainc diff`: `diffs` (commands.diff.ObjectDiff, their lines by `hunk_lines`), `line` its
    one-line summary, then the page of summary with the base."""
    objects = [
        {
            "title": each.title,
            "change": each.change,
            "effect": each.effect,
            "reasons": [*each.reasons, *each.until_admitted, *each.waiting],
            "lines": [{"style": style, "text": text} for hunk in each.hunks for style, text in hunk_lines(hunk)],
        }
        for each in diffs
    ]
    title = f"trainc diff ({heading})" if heading else "trainc diff"
    return _render(
        title=title,
        heading=line,
        jobs=_jobs(found, result),
        capacity=_capacity(found, result, before),
        base=True,
        charts=_charts(found, result, before),
        cost=_cost(found, result, before),
        diff=objects,
        notices=[*notices, *_notices(result)],
    )
