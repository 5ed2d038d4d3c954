"""What `trainc summary` and `trainc diff` add to their own output for a reviewer: the cost tables (with a
price table) and, in Markdown, the charts (quota use per ClusterQueue and flavor, base against the change; the
hourly cost per queue). The commands call `summary` and `diff` once, after what they print themselves."""

from __future__ import annotations

import json

from . import charts, costs


def _charts(after: list, result, before: list | None, changed_only: bool = False) -> str:
    """The Mermaid blocks; `changed_only`: none unless a chart's base differs from this side (a diff that
    changes no request or cost has nothing to picture)."""
    drawn = charts.quota(after, before)
    if result.prices is not None:
        rate = charts.cost(
            after, result.costs, result.prices.currency, before, result.base_costs if before is not None else None
        )
        drawn += [rate] if rate is not None else []
    if changed_only and all(chart.bars == chart.line for chart in drawn):
        return ""
    return "".join("\n" + charts.mermaid(chart) for chart in drawn)


def summary(output_format: str, rendered: str, found: list, result, before: list | None = None) -> str:
    """`rendered` (summary's own output) with the costs, and in Markdown the charts; `before`: the base's jobs."""
    if output_format == "json":
        cost = costs.summary_json(found, result, before)
        if cost is None:
            return rendered
        return json.dumps({**json.loads(rendered), "cost": cost}, indent=2, ensure_ascii=False) + "\n"
    if output_format == "markdown":
        out = rendered + costs.summary_markdown(found, result)
        if before is not None and result.prices is not None:
            out += "\n" + costs.delta_markdown(before, found, result)
        return out + _charts(found, result, before)
    out = rendered + costs.summary_text(found, result)
    return out + ("\n" + costs.delta_text(before, found, result) if before is not None and result.prices else "")


def diff(output_format: str, before: list, after: list, result) -> str:
    """What `trainc diff` ends with: the change's cost (per queue, namespace and in total), and in Markdown the
    charts of quota use and cost, base against the change."""
    if output_format == "markdown":
        pictured = _charts(after, result, before, changed_only=True)
        return ("\n" + costs.delta_markdown(before, after, result) if result.prices is not None else "") + pictured
    return ("\n" + costs.delta_text(before, after, result)) if result.prices is not None else ""
