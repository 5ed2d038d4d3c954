"""[TJ] Flux policy rule (upstream Flux plugin Validate): the `node` job must not already have the
`flux-installer` init container the plugin adds.

Upstream reports it at `spec.trainer.initContainers`; trainc points at the
runtimePatch that adds it, else at the runtime reference.
"""

from __future__ import annotations

from ..compiler.ir import NODE, Unit, pod_spec
from ..compiler.plugins.flux import INSTALLER
from ..errors import InputError
from .base import error, patch_path, patch_specs


def check(unit: Unit, change) -> list[InputError]:
    policy = unit.ml_policy
    if policy is None or policy.flux is None:
        return []
    return [
        error(unit.trainjob.origin, ("spec", "trainer", "initContainers"), "InitContainer 'flux-installer' is reserved",
              at=_where(unit))
        for rjob in unit.replicated_jobs
        if rjob.get("name") == NODE
        for container in pod_spec(rjob).get("initContainers") or ()
        if container.get("name") == INSTALLER
    ]


def _where(unit: Unit) -> tuple:
    for index, spec in patch_specs(unit.trainjob):
        for j, rjob in enumerate(spec.get("replicatedJobs") or ()):
            names = [c.get("name") for c in pod_spec(rjob).get("initContainers") or ()]
            if rjob.get("name") == NODE and INSTALLER in names:
                return patch_path(index, "replicatedJobs", j, "template", "spec", "template", "spec",
                                  "initContainers", names.index(INSTALLER))
    return ("spec", "runtimeRef")
