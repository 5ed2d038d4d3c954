"""components: the objects plugins build beside the JobSet (upstream ComponentBuilder).

Runs last, on the finished unit, so builders see final counts and endpoints.
"""

from __future__ import annotations

from ..ir import Unit
from ..plugins.registry import PLUGINS


def components(unit: Unit, ctx) -> Unit:
    for plugin in PLUGINS:
        if plugin.build is not None:
            unit = plugin.build(unit, ctx)
    return unit
