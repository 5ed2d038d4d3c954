"""What every admission rule shares: the error shape and upstream's RuntimeInfo.

Errors carry the field path upstream reports (e.g. `spec.runtimePatches`, which
names no index) while the file:line:col points at the node that triggered the
rule, so the message matches the API server and the position is still useful.
"""

from __future__ import annotations

import re

from ..compiler import pipeline
from ..compiler.ir import Unit, pod_spec
from ..errors import InputError, Origin, Path
from ..formats.yamltext import locate
from ..trainer.api import DNS_SUBDOMAIN, DNS_SUBDOMAIN_MESSAGE, TrainJob

_HTTP_PATH = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"


def domain_prefixed_path(value: str) -> list[str]:
    """apimachinery's IsDomainPrefixedPath messages (callers bound the length)."""
    host, slash, path = value.partition("/")
    if not (slash and host and path):
        return ['must be a domain-prefixed path (such as "acme.io/foo")']
    messages = []
    if not re.fullmatch(DNS_SUBDOMAIN, host):
        messages.append(DNS_SUBDOMAIN_MESSAGE)
    if not re.fullmatch(_HTTP_PATH, path):
        messages.append(f"Invalid path (regex used for validation is '{_HTTP_PATH}')")
    return messages


def error(origin: Origin | None, path: Path, message: str, at: Path | None = None) -> InputError:
    """An error reported at upstream's `path`, positioned at `at` (default: `path`)."""
    mark = locate(origin, at) if at is not None and origin is not None else None
    return InputError(origin, path, message, mark=mark)


def info(trainjob: TrainJob, ctx) -> Unit:
    """Upstream's RuntimeInfo as the webhook builds it: the runtime resolved and patched, no plugin run.

    These are the pipeline's FRONT passes, so the webhook sees exactly the
    template the compiler starts from (and the build goes on from this unit).
    """
    return pipeline.run(Unit(trainjob=trainjob), ctx, pipeline.FRONT)


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
