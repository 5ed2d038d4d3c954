"""[JS] The JobSet webhook's update rules (ValidateUpdate) on the JobSet a TrainJob update re-renders (`--previous`).

A GitOps tool re-applies the rendered JobSet over the one in the cluster, and the
JobSet webhook refuses any change to its replicated jobs, except the pod
templates' labels, annotations, nodeSelector, tolerations and schedulingGates
(what Kueue sets) while the JobSet is suspended before or after the update; and
any change of managedBy. The JobSet in the cluster is the one the previous
TrainJob compiles to, with the previous runtimes (those the previous version
holds, else the current ones), at the Trainer release it was rendered at (`Previous.release`:
an upgrade of the release re-renders every JobSet). A previous TrainJob that does not compile has no
JobSet to compare with.

Kueue's own JobSet webhook (jobframework's update validation) refuses a change
of the `kueue.x-k8s.io/queue-name` label while the new JobSet is not suspended.
A JobSet Kueue manages (it carries that label) is live-suspended only until
Kueue admits it, whatever git says (Kueue's defaulting suspends it at creation;
the README's Argo CD setup ignores /spec/suspend): what either webhook lets
through only while it is suspended is, for it, allowed only until admission
(`once_admitted`, for `trainc diff`'s verdict).
"""

from __future__ import annotations

import copy

from ..compiler import emit, pipeline
from ..compiler.ir import Unit, ensure_pod_template, pod_template
from ..errors import InputError, Origin, caught, render_path
from ..formats.position import locate
from ..k8s.treediff import first_change
from ..trainer import catalog
from ..trainer.previous import Previous, key

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
_QUEUE_PATH = ("metadata", "labels", QUEUE_LABEL)
_KUEUE_METADATA = ("labels", "annotations")
_KUEUE_SPEC = ("nodeSelector", "tolerations", "schedulingGates")


def check(unit: Unit, previous: Previous, ctx, runtimes: list) -> list[InputError]:
    old_trainjob = previous.objects.get(key(unit.trainjob))
    if old_trainjob is None:
        return []
    old_runtimes = previous.runtimes_then(runtimes)
    old_ctx = ctx._replace(
        catalog=catalog.build(old_runtimes, old_trainjob.namespace),
        provenance=None,
        release=previous.release or ctx.release,
    )  # the release it was rendered at
    old_unit, problems = caught(pipeline.run, Unit(trainjob=old_trainjob), old_ctx)
    if problems or old_unit is None:
        return []
    return refusals(unit.trainjob.origin, unit.name, emit.jobset(unit), emit.jobset(old_unit))


def refusals(origin: Origin | None, name: str, new_jobset: dict, old_jobset: dict) -> list[InputError]:
    """Why the JobSet webhook (and Kueue's) refuse `old_jobset` updated to `new_jobset`, at the TrainJob
    (`origin`) they are rendered from: what refuses an update trainc renders, since the cluster never sees
    a TrainJob of trainc's (`trainc diff` gives these reasons)."""
    new, old = new_jobset["spec"], old_jobset["spec"]
    where = f"the JobSet webhook refuses this update of JobSet {name!r}"
    mark = locate(origin, ("spec",)) if origin is not None else None
    found = []
    if _queue(new_jobset) != _queue(old_jobset) and not (
        new.get("suspend") or old.get("suspend") or _queue(old_jobset)
    ):  # running, not by Kueue's leave
        found.append(
            InputError(
                origin,
                _QUEUE_PATH,
                (
                    f"Kueue's webhook refuses this update of JobSet {name!r}: must not update queue name when job is "
                    "unsuspended (the JobSet runs: it is not suspended)"
                ),
            )
        )
    jobs = _kueue_changes_allowed(new, old) if new.get("suspend") or old.get("suspend") else new.get("replicatedJobs")
    changed = first_change(old.get("replicatedJobs") or [], jobs or [], ("spec", "replicatedJobs"))
    if changed is not None:
        found.append(
            InputError(
                origin,
                (),
                (
                    f"{where}: spec.replicatedJobs: field is immutable ({render_path(changed)} changed; only pod labels, "
                    "annotations, nodeSelector, tolerations and schedulingGates may change, and only while the TrainJob is "
                    "suspended before or after the update)"
                ),
                mark=mark,
            )
        )
    if new.get("managedBy") != old.get("managedBy"):
        found.append(InputError(origin, (), f"{where}: spec.managedBy: field is immutable", mark=mark))
    return found


def once_admitted(origin: Origin | None, new: dict, old: dict) -> list[InputError]:
    """Why the cluster refuses an update of rendered JobSet `old` to `new` that the checks above let through,
    once Kueue has admitted it and it runs unsuspended; empty when Kueue does not manage it."""
    if _queue(old) is None:
        return []
    found = []
    name = (new.get("metadata") or {}).get("name")
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    if old_spec.get("suspend") or spec.get("suspend"):  # else `check` refused any change already
        changed = first_change(
            old_spec.get("replicatedJobs") or [], spec.get("replicatedJobs") or [], ("spec", "replicatedJobs")
        )
        if changed is not None:
            found.append(
                InputError(
                    origin,
                    (),
                    (
                        f"once Kueue admits JobSet {name!r} it runs unsuspended, whatever git says, and the JobSet webhook "
                        f"refuses this update: spec.replicatedJobs: field is immutable ({render_path(changed)} changed; "
                        "pod labels, annotations, nodeSelector, tolerations and schedulingGates only while suspended)"
                    ),
                    mark=locate(origin, ("spec",)) if origin is not None else None,
                )
            )
    if _queue(new) != _queue(old):
        found.append(
            InputError(
                origin,
                _QUEUE_PATH,
                (
                    f"once Kueue admits JobSet {name!r} it runs unsuspended, and Kueue's webhook refuses this update: must "
                    "not update queue name when job is unsuspended"
                ),
            )
        )
    return found


def _queue(jobset: dict) -> str | None:
    return ((jobset.get("metadata") or {}).get("labels") or {}).get(QUEUE_LABEL)


def _kueue_changes_allowed(new: dict, old: dict) -> list:
    """The new replicated jobs with what a suspended JobSet may change taken from the old ones."""
    old_jobs = {job["name"]: job for job in old.get("replicatedJobs") or ()}
    jobs = copy.deepcopy(new.get("replicatedJobs") or [])
    for job in jobs:
        before = old_jobs.get(job["name"])
        if before is None:
            continue
        for part, fields in (("metadata", _KUEUE_METADATA), ("spec", _KUEUE_SPEC)):
            target = ensure_pod_template(job).setdefault(part, {})
            source = pod_template(before).get(part) or {}
            for name in fields:
                target.pop(name, None)
                if name in source:
                    target[name] = source[name]
    return jobs
