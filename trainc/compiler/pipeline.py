"""The ordered passes, and the driver that threads one TrainJob through them.

Order follows upstream's build: the runtime is resolved and its runtimePatches
applied, before any plugin; ML-policy plugins run next and own the
env order they produce (R, T, then PET_* for Torch); the Trainer overlay comes
after the plugins so the user's env wins and the torchtune rewrite is applied,
and the initializer overlay touches only the initializer containers;
gang scheduling and the network sync read the final pod counts; the TrainJob's deadline goes on every Job
(trainc's, `passes/deadline.py`) once the runtime's Jobs are final; components
(Secrets, ConfigMaps, PodGroups) are built last, from the finished unit.
"""

from __future__ import annotations

from ..errors import Record
from ..trainer import releases
from ..trainer.catalog import RUNTIMES_WORDS, Catalog
from .ir import Unit
from .passes.components import components
from .passes.deadline import deadline
from .passes.initializers import initializers
from .passes.mlpolicy import mlpolicy
from .passes.network import network
from .passes.override import override
from .passes.patch import patch
from .passes.podgroup import podgroup
from .passes.resolve import resolve
from .provenance import Provenance

# What the admission webhooks see: upstream's RuntimeInfo before any plugin runs.
FRONT = (resolve, patch)
PASSES = FRONT + (
    mlpolicy,
    override,
    # upstream overlays the initializers before the trainer; they touch different containers
    initializers,
    podgroup,
    network,
    deadline,
    components,
)


class Context(Record):
    """Read-only inputs every pass may consult."""

    catalog: Catalog
    ssh_key_seed: bytes | None = None
    runtime_snapshot: bool = False  # also emit upstream's <trainjob>-runtime-snapshot ConfigMap
    provenance: Provenance | None = None  # where each field came from, recorded only for `trainc explain`
    plugins: tuple = ()  # installed plugins every TrainJob runs (entrypoints.for_unit), by name
    release: releases.Release = releases.DEFAULT  # the Kubeflow Trainer release rendered for (trainer-version)
    runtimes_words: str = RUNTIMES_WORDS  # how "runtime not found" names where runtimes come from (catalog.not_found)


def run(unit: Unit, ctx: Context, passes=PASSES) -> Unit:
    for each in passes:
        unit = each(unit, ctx)
    return unit


def finish(front: Unit, ctx: Context) -> Unit:
    """Compile a unit that has been through FRONT already (as admission checks leave it)."""
    return run(front, ctx, PASSES[len(FRONT) :])
