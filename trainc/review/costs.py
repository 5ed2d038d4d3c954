"""The cost tables of `trainc summary` (per TrainJob, queue and namespace) and the cost delta `trainc diff` ends
with (per queue, per namespace and in total), in text, Markdown and JSON, from the run's price table and costs.
Amounts are exact until shown (`validation.cost.money`: cents, half up), the currency named."""

from __future__ import annotations

from ..formats.table import aligned
from ..formats.table import markdown as table
from ..validation import cost as costing
from ..validation.requests import NO_QUEUE, queue_name

MAX_ROWS = 200  # TrainJob rows of a Markdown table: more are counted, so a comment stays within GitHub's bound


def _placed(job) -> str:
    flavors = sorted({flavor for pod_set in job.pod_sets for flavor in pod_set.flavors.values()})
    return ",".join(flavors) or "-"


def job_rows(found: list, priced: dict, currency: str, limit: int | None = None) -> list[tuple]:
    rows = [("TRAINJOB", "QUEUE", "FLAVORS", "PER HOUR", "RUNS AT MOST", "COSTS AT MOST", "UNPRICED")]
    shown = [job for job in found if (job.namespace, job.name) in priced]
    for job in shown[:limit]:
        cost = priced[(job.namespace, job.name)]
        rows.append(
            (
                f"{job.namespace}/{job.name}",
                job.queue or NO_QUEUE,
                _placed(job),
                costing.money(cost.hourly, currency),
                costing.duration(cost.seconds),
                costing.money(cost.bounded, currency),
                ",".join(cost.unpriced) or "-",
            )
        )
    if limit is not None and len(shown) > limit:
        rows.append((f"… {len(shown) - limit} more", "", "", "", "", "", ""))
    return rows


def total_rows(found: list, priced: dict, currency: str) -> tuple[list[tuple], list[tuple]]:
    queues = [("QUEUE", "TRAINJOBS", "PER HOUR", "COSTS AT MOST")]
    for key, total in sorted(costing.totals(found, priced, lambda job: job.queue_key).items()):
        queues.append(
            (
                queue_name(key),
                str(total.jobs),
                costing.money(total.hourly, currency),
                costing.money(total.bounded, currency),
            )
        )
    namespaces = [("NAMESPACE", "TRAINJOBS", "PER HOUR", "COSTS AT MOST")]
    for key, total in sorted(costing.totals(found, priced, lambda job: job.namespace).items()):
        namespaces.append(
            (key, str(total.jobs), costing.money(total.hourly, currency), costing.money(total.bounded, currency))
        )
    return queues, namespaces


def _heading(table_) -> str:
    return (
        f"cost ({table_.currency} per hour, and at most: the rate × the deadline the cluster enforces × (1 + "
        f"the JobSet's maxRestarts); prices from {table_.where})"
    )


def summary_text(found: list, result) -> str:
    if result.prices is None or not found:
        return ""
    queues, namespaces = total_rows(found, result.costs, result.prices.currency)
    return (
        "\n"
        + _heading(result.prices)
        + ":\n"
        + aligned(job_rows(found, result.costs, result.prices.currency))
        + "\n"
        + aligned(queues)
        + "\n"
        + aligned(namespaces)
    )


def summary_markdown(found: list, result) -> str:
    if result.prices is None or not found:
        return ""
    currency = result.prices.currency
    queues, namespaces = total_rows(found, result.costs, currency)
    out = [
        "",
        f"**Cost** in {currency}: per hour, and at most (the rate × the deadline the cluster enforces × "
        "(1 + the JobSet's maxRestarts)), or **unbounded** when nothing stops the job:",
        "",
        *table(job_rows(found, result.costs, currency, MAX_ROWS)),
        "",
        "Cost per queue:",
        "",
        *table(queues),
        "",
        "Cost per namespace:",
        "",
        *table(namespaces),
    ]
    return "\n".join(out) + "\n"


def summary_json(found: list, result, before: list | None = None) -> dict | None:
    """The `cost` of `summary -o json`: amounts as strings of two decimals, `null` for unbounded; with the base's
    jobs (`before`), the `delta`."""
    if result.prices is None:
        return None
    currency, priced = result.prices.currency, result.costs

    def amount(value):
        return None if value is None else costing.cents(value)

    def totals(key) -> list:
        return [
            {"key": name, "trainJobs": total.jobs, "hourly": amount(total.hourly), "bounded": amount(total.bounded)}
            for name, total in sorted(costing.totals(found, priced, key).items())
        ]

    jobs = []
    for job in found:
        cost = priced.get((job.namespace, job.name))
        if cost is not None:
            jobs.append(
                {
                    "namespace": job.namespace,
                    "name": job.name,
                    "hourly": amount(cost.hourly),
                    "seconds": cost.seconds,
                    "bounded": amount(cost.bounded),
                    "unpriced": list(cost.unpriced),
                }
            )
    queues = [
        {"namespace": each["key"][0], "queue": each["key"][1] or None, **{k: v for k, v in each.items() if k != "key"}}
        for each in totals(lambda job: job.queue_key)
    ]
    namespaces = [{"namespace": each.pop("key"), **each} for each in totals(lambda job: job.namespace)]
    out = {
        "currency": currency,
        "prices": result.prices.where,
        "trainJobs": jobs,
        "queues": queues,
        "namespaces": namespaces,
    }
    if before is not None:  # the change since the base: amounts as above, the changes signed
        out["delta"] = [
            {
                "scope": scope,
                "name": name,
                "hourlyBase": amount(was.hourly),
                "hourly": amount(now.hourly),
                "hourlyChange": costing.signed_money(now.hourly - was.hourly, "").strip(),
                "boundedBase": amount(was.bounded),
                "bounded": amount(now.bounded),
                "boundedChange": None
                if was.bounded is None or now.bounded is None
                else costing.signed_money(now.bounded - was.bounded, "").strip(),
            }
            for scope, name, was, now in changes(before, found, result.base_costs, priced)
        ]
    return out


def changes(before: list, after: list, base_costs: dict, costs: dict) -> list[tuple]:
    """(scope, name, base Total, new Total) per queue, namespace and in total, for every one whose cost changes."""
    found = []
    for scope, key, name in (
        ("queue", lambda job: job.queue_key, queue_name),
        ("namespace", lambda job: job.namespace, str),
        ("total", lambda job: "", lambda _: "all"),
    ):
        old, new = costing.totals(before, base_costs, key), costing.totals(after, costs, key)
        found += [(scope, name(each), was, now) for each, was, now in costing.delta(old, new)]
    return found


def delta_rows(before: list, after: list, base_costs: dict, costs: dict, currency: str) -> list[tuple]:
    """(scope, name, base hourly, new hourly, change, base bound, new bound, change) as shown, one a `changes`."""
    return [
        (
            scope,
            name,
            costing.money(was.hourly, currency),
            costing.money(now.hourly, currency),
            costing.signed_money(now.hourly - was.hourly, currency),
            costing.money(was.bounded, currency),
            costing.money(now.bounded, currency),
            costing.change(was.bounded, now.bounded, currency),
        )
        for scope, name, was, now in changes(before, after, base_costs, costs)
    ]


def delta_text(before: list, after: list, result) -> str:
    if result.prices is None:
        return ""
    rows = delta_rows(before, after, result.base_costs, result.costs, result.prices.currency)
    if not rows:
        return f"cost unchanged since the base ({result.prices.currency})\n"
    header = ("", "", "PER HOUR (BASE)", "PER HOUR", "CHANGE", "AT MOST (BASE)", "AT MOST", "CHANGE")
    return "cost change since the base:\n" + aligned([header, *rows])


def delta_markdown(before: list, after: list, result) -> str:
    if result.prices is None:
        return ""
    rows = delta_rows(before, after, result.base_costs, result.costs, result.prices.currency)
    if not rows:
        return f"**Cost** unchanged since the base ({result.prices.currency})\n"
    header = ("", "", "Per hour (base)", "Per hour", "Change", "At most (base)", "At most", "Change")
    return (
        "\n".join(
            [
                f"**Cost** since the base ({result.prices.currency}; at most: the rate × the enforced deadline "
                "× (1 + maxRestarts)):",
                "",
                *table([header, *rows]),
            ]
        )
        + "\n"
    )
