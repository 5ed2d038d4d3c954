"""components: the objects built beside the JobSet (upstream ComponentBuilder), in emission order.

Runs last, on the finished unit, so builders see final counts and endpoints.
With `--runtime-snapshot`, upstream's `<trainjob>-runtime-snapshot` ConfigMap
comes first: `data.runtime` holds the runtime the TrainJob was compiled from,
as defaulted (upstream stores it so a live TrainJob keeps its runtime; no
controller reads it ahead of time, so it is opt-in).
"""

from __future__ import annotations

from dataclasses import replace

from .. import emit
from ..ir import Unit
from ..plugins.registry import PLUGINS
from ..serialize import dump_all


def components(unit: Unit, ctx) -> Unit:
    if ctx.runtime_snapshot:
        unit = replace(unit, objects=unit.objects + (_snapshot(unit),))
    for plugin in PLUGINS:
        if plugin.build is not None:
            unit = plugin.build(unit, ctx)
    return unit


def _snapshot(unit: Unit) -> dict:
    runtime = dump_all([unit.runtime.document]).removeprefix("---\n")
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": emit.metadata(unit, f"{unit.name}-runtime-snapshot"),
        "data": {"runtime": runtime},
    }
