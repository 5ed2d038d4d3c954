"""What every admission rule shares, the plugins' own (`validate`) and trainc.validation's: the error shape,
read-only reads of the runtime template and its patches, and the reserved-env rule.

It sits in the compiler layer because a plugin's record holds its webhook rules (as upstream's plugin holds
its Validate), and plugins may not import trainc.validation, which is above them.

Errors carry the field path upstream reports (e.g. `spec.runtimePatches`, which
names no index) while the file:line:col points at the node that triggered the
rule, so the message matches the API server and the position is still useful.
"""

from __future__ import annotations

from ..errors import InputError, Origin, Path
from ..trainer.api import TrainJob
from .ir import Unit, pod_spec


def error(origin: Origin | None, path: Path, message: str, at: Path | None = None) -> InputError:
    """An error reported at upstream's `path`, positioned at `at` (default: `path`)."""
    from ..formats.position import locate  # and YAML with it: only for an error

    mark = locate(origin, at) if at is not None and origin is not None else None
    return InputError(origin, path, message, mark=mark)


def container_names(rjob: dict) -> set:
    spec = pod_spec(rjob)
    return {c.get("name") for group in ("initContainers", "containers") for c in spec.get(group) or ()}


def patch_specs(trainjob: TrainJob):
    """(index, patch template spec) for every runtimePatch that has one."""
    for index, entry in enumerate(trainjob.spec.runtime_patches):
        spec = ((entry.get("trainingRuntimeSpec") or {}).get("template") or {}).get("spec")
        if spec is not None:
            yield index, spec


def patch_path(index: int, *rest) -> Path:
    return ("spec", "runtimePatches", index, "trainingRuntimeSpec", "template", "spec", *rest)


def reserved_env(unit: Unit, reserved) -> list[InputError]:
    """Torch's and MPI's shared rule: one error at `spec.trainer.env` listing the reserved names used, sorted."""
    env = unit.trainer.env if unit.trainer is not None else None
    hits = [index for index, variable in enumerate(env or ()) if variable["name"] in reserved]
    if not hits:
        return []
    names = " ".join(sorted({env[index]["name"] for index in hits}))
    message = f"must not have reserved envs, invalid envs configured: [{names}]"
    at = ("spec", "trainer", "env", hits[0], "name")
    return [error(unit.trainjob.origin, ("spec", "trainer", "env"), message, at=at)]
