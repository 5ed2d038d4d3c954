"""Every plugin, in the one order trainc runs them (upstream runs them in Go map order).

A plugin implements only the extension points it needs: `enforce` mutates the
unit for its policy (EnforceMLPolicy / EnforcePodGroupPolicy) and is a no-op when
its policy is absent; `build` appends the objects it emits beside the JobSet
to `unit.objects` (and any notice to `unit.notices`). Both take the unit and the
pipeline Context (whose `provenance`, when set, they tell what they wrote) and return a Unit.
`check(unit, objects)` returns messages about the rendered objects, each an error (a house rule); only
installed plugins (`trainc.compiler.plugins.entrypoints`) use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import coscheduling, flux, jax, mpi, plainml, torch, volcano, xgboost


@dataclass(frozen=True)
class Plugin:
    name: str
    enforce: Callable | None = None
    build: Callable | None = None
    check: Callable | None = None


ML_POLICIES = (
    Plugin("plainml", enforce=plainml.enforce),
    Plugin("torch", enforce=torch.enforce),
    Plugin("mpi", enforce=mpi.enforce, build=mpi.build),
    Plugin("jax", enforce=jax.enforce),
    Plugin("xgboost", enforce=xgboost.enforce),
    Plugin("flux", enforce=flux.enforce, build=flux.build),
)
GANG_SCHEDULERS = (
    Plugin("coscheduling", enforce=coscheduling.enforce, build=coscheduling.build),
    Plugin("volcano", enforce=volcano.enforce, build=volcano.build),
)
PLUGINS = ML_POLICIES + GANG_SCHEDULERS  # builders run in this order: dependents before the JobSet
