"""[TJ] runtimePatches rules of upstream's JobSet plugin Validate (spec §10).

- `manager` must be a domain-prefixed path (apimachinery IsDomainPrefixedPath);
- a patched replicated job must exist in the runtime, and a patched container
  or init container must be a container or init container of that job;
- patched `node`, `dataset-initializer` and `model-initializer` containers may
  not set env.

The name checks use the runtime as written, before any patch: upstream runs
them on the already-patched template, where the patch has just added the
names it should be checked for, so they never fire there (spec §10 quirk).

On update, the patches may change only when the TrainJob is suspended before
or after (so Kueue can patch and unsuspend in one request). Upstream also
refuses a change while the live JobSet still has active jobs; that needs the
cluster, so trainc does not check it.
"""

from __future__ import annotations

from ..compiler.admission import container_names, error, patch_path, patch_specs
from ..compiler.ir import DATASET_INITIALIZER, MODEL_INITIALIZER, NODE, Unit, pod_spec
from ..errors import InputError
from .base import domain_prefixed_path

PATH = ("spec", "runtimePatches")
_NO_ENV = (DATASET_INITIALIZER, MODEL_INITIALIZER, NODE)
# The Go map fields a patch can hold: equality.Semantic takes an empty map for an absent one.
_GO_MAPS = frozenset({"labels", "annotations", "nodeSelector", "volumeAttributes", "options", "limits", "requests"})


def check(unit: Unit, change) -> list[InputError]:
    trainjob = unit.trainjob
    errors = _update(trainjob, change) if change is not None else []
    runtime_jobs = {rjob.get("name"): rjob for rjob in unit.runtime.spec.template.spec.get("replicatedJobs") or ()}
    specs = dict(patch_specs(trainjob))
    for index, entry in enumerate(trainjob.spec.runtime_patches):
        errors += [
            error(trainjob.origin, PATH + ("manager",), message, at=PATH + (index, "manager"))
            for message in domain_prefixed_path(entry["manager"])
        ]
        for j, rjob in enumerate((specs.get(index) or {}).get("replicatedJobs") or ()):
            errors += _job(trainjob.origin, index, j, rjob, runtime_jobs)
    return errors


def _job(origin, index: int, j: int, rjob: dict, runtime_jobs: dict) -> list[InputError]:
    """The rules for the j-th replicated job of the index-th patch."""
    name = rjob.get("name")
    if name not in runtime_jobs:
        message = "must not have replicated job that doesn't exist in the runtime job template"
        return [error(origin, PATH, message, at=patch_path(index, "replicatedJobs", j, "name"))]
    known = container_names(runtime_jobs[name])
    at = patch_path(index, "replicatedJobs", j, "template", "spec", "template", "spec")
    pod = pod_spec(rjob)
    errors = [
        error(
            origin,
            PATH,
            f"must not have initContainer that doesn't exist in the runtime job {name}",
            at=at + ("initContainers", k, "name"),
        )
        for k, container in enumerate(pod.get("initContainers") or ())
        if container["name"] not in known
    ]
    for k, container in enumerate(pod.get("containers") or ()):
        if container["name"] not in known:
            message = f"must not have container that doesn't exist in the runtime job {name}"
            errors.append(error(origin, PATH, message, at=at + ("containers", k, "name")))
        elif container.get("env") and container["name"] in _NO_ENV:
            message = f"must not have envs for the {', '.join(_NO_ENV)} containers"
            errors.append(error(origin, PATH, message, at=at + ("containers", k, "env")))
    return errors


def _update(trainjob, change) -> list[InputError]:
    """The suspend rule for an update, on the defaulted new and old TrainJob documents."""
    new, old = change
    if _patches(new) == _patches(old) or old["spec"].get("suspend") or new["spec"].get("suspend"):
        return []
    message = "RuntimePatches can only be modified when the TrainJob is suspended before or after the update"
    return [error(trainjob.origin, PATH, message)]


def _patches(tree: dict) -> list:
    """The patches as upstream compares them (equality.Semantic on Go types).

    `time` never counts: the defaulting webhook keeps the old stamp on an
    unchanged patch. An empty list or Go map equals an absent one.
    """
    entries = (tree.get("spec") or {}).get("runtimePatches") or ()
    return [_semantic({k: v for k, v in entry.items() if k != "time"}) for entry in entries]


def _semantic(value):
    if isinstance(value, dict):
        return {
            key: _semantic(item) for key, item in value.items() if not (item == [] or (item == {} and key in _GO_MAPS))
        }
    if isinstance(value, list):
        return [_semantic(item) for item in value]
    return value
