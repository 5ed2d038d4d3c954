"""Charts as data, drawn two ways: Mermaid `xychart-beta` for a Markdown comment (GitHub renders it) and inline
SVG for the HTML page (no script, nothing fetched).

A Chart is categories (a ClusterQueue and flavor, or a queue) with this side's values as bars and, with a base,
the base's as a line (Mermaid's xychart draws no legend and overlays bar series, so the title says which is
which). Quota use is what the jobs placed on each ClusterQueue and flavor charge it (`requests.Usage`); the
cost chart is each queue's hourly rate (`validation.cost`). At most MAX_CATEGORIES categories are drawn, the
rest summed into one, so a chart's size is bounded whatever the pull request holds.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from fractions import Fraction

from ..formats import prices
from ..validation import cost as costing
from ..validation.requests import queue_name

MAX_CATEGORIES = 20
_RESOURCES = ("cpu", "memory")  # charted beside every GPU resource, when jobs use them


@dataclass(frozen=True)
class Chart:
    title: str
    unit: str  # of the values: GPUs, CPUs, GiB, USD per hour
    categories: tuple
    bars: tuple  # this side's values (Fractions)
    line: tuple | None = None  # the base's, None without a base


def _bounded(title: str, unit: str, after: dict, before: dict | None) -> Chart:
    """The chart of {category: value} (and the base's), categories by name, past MAX_CATEGORIES summed."""
    names = sorted(after.keys() | (before or {}).keys())
    if len(names) > MAX_CATEGORIES:
        kept, rest = names[: MAX_CATEGORIES - 1], names[MAX_CATEGORIES - 1 :]
        fold = lambda values: {
            **{name: values.get(name, 0) for name in kept},
            f"{len(rest)} others": sum(values.get(name, 0) for name in rest),
        }
        after, before = fold(after), None if before is None else fold(before)
        names = [*kept, f"{len(rest)} others"]
    return Chart(
        title,
        unit,
        tuple(names),
        tuple(Fraction(after.get(name, 0)) for name in names),
        None if before is None else tuple(Fraction(before.get(name, 0)) for name in names),
    )


def _use(found: list) -> dict:
    """{resource: {"ClusterQueue/flavor": amount in the resource's unit}} of the placed pod sets."""
    out: dict = {}
    for job in found:
        if job.cluster_queue is None:
            continue
        for pod_set in job.pod_sets:
            for resource, flavor in pod_set.flavors.items():
                amount = Fraction(pod_set.total.get(resource, 0), prices.unit(resource))
                into = out.setdefault(resource, {})
                key = f"{job.cluster_queue}/{flavor}"
                into[key] = into.get(key, 0) + amount
    return out


def quota(after: list, before: list | None = None) -> list[Chart]:
    """Quota use per ClusterQueue and flavor: one chart per GPU resource, then CPU and memory, of those used."""
    now, was = _use(after), None if before is None else _use(before)
    used = sorted({*now, *(was or {})})
    order = [resource for resource in used if "gpu" in resource.lower()] + [r for r in _RESOURCES if r in used]
    side = "bars: this change, line: the base" if before is not None else "bars: these TrainJobs"
    return [
        _bounded(
            f"{resource} per ClusterQueue/flavor ({side})",
            prices.unit_name(resource),
            now.get(resource, {}),
            None if was is None else was.get(resource, {}),
        )
        for resource in order
    ]


def cost(
    after: list, costs: dict, currency: str, before: list | None = None, base_costs: dict | None = None
) -> Chart | None:
    """The hourly rate per queue (and the base's), None without priced jobs."""

    def rates(found, priced) -> dict:
        return {
            queue_name(key): total.hourly
            for key, total in costing.totals(found, priced, lambda job: job.queue_key).items()
        }

    now = rates(after, costs)
    was = None if before is None else rates(before, base_costs or {})
    if not now and not was:
        return None
    side = "bars: this change, line: the base" if before is not None else "bars: these TrainJobs"
    return _bounded(f"{currency} per hour per queue ({side})", f"{currency}/h", now, was)


def number(value: Fraction) -> str:
    """A value as charts print it: at most two decimals, no trailing zeros."""
    shown = costing.cents(value)
    return shown.rstrip("0").rstrip(".") if "." in shown else shown


def _label(text: str) -> str:
    """A label inside Mermaid's double quotes: no quote, backslash or line break can end it early."""
    return "".join(" " if ch in '"\\`' or not ch.isprintable() else ch for ch in text)[:100]


def mermaid(chart: Chart) -> str:
    """A fenced Mermaid block GitHub renders as the chart."""
    axis = ", ".join(f'"{_label(name)}"' for name in chart.categories)
    top = max([*chart.bars, *(chart.line or ()), Fraction(1)])
    lines = [
        "```mermaid",
        "xychart-beta",
        f'    title "{_label(chart.title)}"',
        f"    x-axis [{axis}]",
        f'    y-axis "{_label(chart.unit)}" 0 --> {number(top * Fraction(11, 10))}',
        f"    bar [{', '.join(number(value) for value in chart.bars)}]",
    ]
    if chart.line is not None:
        lines.append(f"    line [{', '.join(number(value) for value in chart.line)}]")
    return "\n".join([*lines, "```"]) + "\n"


# --- SVG: elements as data, (tag, {attribute: value}, [children or text]), serialized with every value escaped

_WIDTH, _LABELS, _ROW, _TOP = 820, 230, 24, 52
BAR, BASE = "#2f6fde", "#222222"


def _element(tag: str, attributes: dict, children=()) -> tuple:
    return (tag, attributes, list(children))


def _serialize(node) -> str:
    if isinstance(node, str):
        return html.escape(node, quote=False)
    tag, attributes, children = node
    attrs = "".join(f' {name}="{html.escape(str(value), quote=True)}"' for name, value in attributes.items())
    return f"<{tag}{attrs}>{''.join(_serialize(child) for child in children)}</{tag}>"


def svg(chart: Chart) -> str:
    """The chart as horizontal bars (and the base as a dashed mark on each), one row a category."""
    height = _TOP + _ROW * len(chart.categories) + 12
    top = max([*chart.bars, *(chart.line or ()), Fraction(1)])
    span = _WIDTH - _LABELS - 200

    def x(value: Fraction) -> str:
        return number(_LABELS + value * span / top)

    legend = [
        _element("rect", {"x": _LABELS, "y": 28, "width": 12, "height": 12, "fill": BAR}),
        _element(
            "text", {"x": _LABELS + 18, "y": 39}, ["this change" if chart.line is not None else "these TrainJobs"]
        ),
    ]
    if chart.line is not None:
        legend += [
            _element(
                "line",
                {
                    "x1": _LABELS + 130,
                    "x2": _LABELS + 130,
                    "y1": 26,
                    "y2": 42,
                    "stroke": BASE,
                    "stroke-width": 3,
                    "stroke-dasharray": "3 2",
                },
            ),
            _element("text", {"x": _LABELS + 138, "y": 39}, ["the base"]),
        ]
    rows = []
    for index, (name, value) in enumerate(zip(chart.categories, chart.bars)):
        y = _TOP + index * _ROW
        rows.append(_element("text", {"x": _LABELS - 8, "y": y + 16, "text-anchor": "end"}, [name[:40]]))
        rows.append(
            _element(
                "rect",
                {
                    "class": "bar",
                    "x": _LABELS,
                    "y": y + 4,
                    "width": number(value * span / top),
                    "height": _ROW - 8,
                    "fill": BAR,
                },
                [_element("title", {}, [f"{name}: {number(value)}"])],
            )
        )
        shown = f"{number(value)} {chart.unit}"
        if chart.line is not None:
            base = chart.line[index]
            rows.append(
                _element(
                    "line",
                    {
                        "class": "base",
                        "x1": x(base),
                        "x2": x(base),
                        "y1": y + 1,
                        "y2": y + _ROW - 1,
                        "stroke": BASE,
                        "stroke-width": 3,
                        "stroke-dasharray": "3 2",
                    },
                )
            )
            shown += f" (base {number(base)})"
        rows.append(
            _element(
                "text", {"x": x(max(value, chart.line[index] if chart.line else value)), "dx": 6, "y": y + 16}, [shown]
            )
        )
    root = _element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "class": "chart",
            "role": "img",
            "width": _WIDTH,
            "height": height,
            "viewBox": f"0 0 {_WIDTH} {height}",
            "aria-label": chart.title,
        },
        [
            _element("title", {}, [chart.title]),
            _element("text", {"x": 8, "y": 18, "class": "chart-title"}, [chart.title]),
            *legend,
            *rows,
        ],
    )
    return _serialize(root)
