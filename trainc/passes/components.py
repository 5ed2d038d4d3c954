"""components: the objects plugins build beside the JobSet (upstream ComponentBuilder).

Runs last, on the finished unit, so builders see final counts and endpoints.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import Unit
from ..plugins.registry import PLUGINS


def components(unit: Unit, ctx) -> Unit:
    built = list(unit.objects)
    for plugin in PLUGINS:
        if plugin.build is not None:
            built.extend(plugin.build(unit, ctx))
    return replace(unit, objects=tuple(built))
