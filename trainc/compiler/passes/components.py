"""components: the objects built beside the JobSet (upstream ComponentBuilder), in emission order.

Runs last, on the finished unit, so builders see final counts and endpoints.
With `--runtime-snapshot`, upstream's `<trainjob>-runtime-snapshot` ConfigMap
comes first: `data.runtime` holds the runtime the TrainJob was compiled from,
as defaulted (upstream stores it so a live TrainJob keeps its runtime; no
controller reads it ahead of time, so it is opt-in).
"""

from __future__ import annotations


from ...errors import InputError
from ...formats.serialize import dump_all
from .. import emit, provenance
from ..ir import Unit
from ..plugins import entrypoints
from ..plugins.registry import PLUGINS


def components(unit: Unit, ctx) -> Unit:
    if ctx.runtime_snapshot:
        unit = unit.replace(objects=unit.objects + (_snapshot(unit),))
        if ctx.provenance is not None:
            ctx.provenance.record(unit.objects[-1], None, provenance.runtime(unit, "runtime snapshot"))
    installed = entrypoints.for_unit(unit, ctx.plugins)  # their objects come after the built-ins'
    for plugin in (*PLUGINS, *installed):
        if plugin.build is not None and plugin.runs(unit):
            built = len(unit.objects)
            unit = entrypoints.call(plugin, plugin.build, unit, ctx) if plugin in installed else plugin.build(unit, ctx)
            if ctx.provenance is not None:
                for obj in unit.objects[built:]:
                    ctx.provenance.record(obj, None, provenance.trainjob(unit, f"{plugin.name} plugin"))
    if ctx.provenance is not None:
        ctx.provenance.finish(unit)
    return unit


def _snapshot(unit: Unit) -> dict:
    data = {"runtime": dump_all([unit.runtime.document]).removeprefix("---\n")}
    if not emit.config_map_fits(data):  # upstream's controller fails to create it, and the TrainJob with it
        raise InputError(
            unit.runtime.origin,
            (),
            (
                f"{unit.runtime.kind} {unit.runtime.name!r} is too large for the --runtime-snapshot ConfigMap "
                f"({emit.CONFIG_MAP_BYTES} bytes of data at most)"
            ),
        )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": emit.metadata(unit, f"{unit.name}-runtime-snapshot"),
        "data": data,
    }
