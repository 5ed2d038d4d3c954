"""The TrainJob status Trainer's controller derives from its JobSet (spec §9), for `trainc status` and `trainc run`.

Upstream (TrainJob controller and the JobSet plugin's Status):
- `Suspended`: True, reason `Suspended`, while `spec.suspend` is set (it is
  copied to the JobSet); False, reason `Resumed`, once unsuspended after a
  suspension; absent if never suspended. The JobSet tells which through its own
  `Suspended` condition, which also gives the transition time (upstream stamps
  its reconcile time; a JobSet created suspended and not yet reconciled gives
  its creationTimestamp).
- `Complete` / `Failed`: the JobSet's first `Completed` / `Failed` condition,
  copied when True (reason, message, times kept).
- `jobsStatus`: one entry per `status.replicatedJobsStatus` item, absent when
  the JobSet reports none.
Conditions are listed in the order the controller first adds them. When the
JobSet gives no time for a condition (not yet reconciled, no creationTimestamp),
its lastTransitionTime is now, as upstream's SetStatusCondition stamps it
(`SOURCE_DATE_EPOCH` pins "now" for reproducible output). What needs the TrainJob
itself (unsupported runtime, activeDeadlineSeconds) is out of reach.
"""

from __future__ import annotations

import os
import time

from ..errors import InputError, InputErrors, Origin, TraincError
from ..formats import source
from ..k8s import openapi

JOBSET_GROUP = "jobset.x-k8s.io"
TRAINJOB_API_VERSION = "trainer.kubeflow.org/v1alpha1"
COUNTERS = ("ready", "succeeded", "failed", "active", "suspended")
_PRESERVE = {"x-kubernetes-preserve-unknown-fields": True}
_STRING = {"type": "string"}
_CONDITION = {
    "type": "object",
    **_PRESERVE,
    "required": ["type", "status"],
    "properties": {
        "type": _STRING,
        "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
        "observedGeneration": {"type": "integer", "format": "int64"},
        "lastTransitionTime": _STRING,
        "reason": _STRING,
        "message": _STRING,
    },
}
_JOB_STATUS = {
    "type": "object",
    **_PRESERVE,
    "required": ["name"],
    "properties": {"name": _STRING, **{c: {"type": "integer", "format": "int32", "minimum": 0} for c in COUNTERS}},
}
# Only what the status is derived from; everything else in a JobSet passes unchecked.
_JOBSET = {
    "type": "object",
    **_PRESERVE,
    "required": ["apiVersion", "kind", "metadata"],
    "properties": {
        "apiVersion": _STRING,
        "kind": _STRING,
        "metadata": {
            "type": "object",
            **_PRESERVE,
            "required": ["name"],
            "properties": {"name": _STRING, "namespace": _STRING, "creationTimestamp": _STRING},
        },
        "spec": {"type": "object", **_PRESERVE, "properties": {"suspend": {"type": "boolean"}}},
        "status": {
            "type": "object",
            **_PRESERVE,
            "properties": {
                "conditions": {"type": "array", "items": _CONDITION},
                "replicatedJobsStatus": {"type": "array", "items": _JOB_STATUS},
            },
        },
    },
}


def read(path: str, limit: int | None = None) -> list[dict]:
    """The derived TrainJob (metadata and status) of every JobSet in the file, in input order; the file read
    within `limit` bytes (--max-input-bytes)."""
    return [derive(jobset) for _, _, jobset in jobsets(path, limit)]


def jobsets(path: str, limit: int | None = None) -> list[tuple[Origin, tuple, dict]]:
    """Every JobSet in the file (or stdin, `-`), read within `limit` bytes, with where it is: its document's
    origin and its path in that document (`()`, or `("items", i)` in a List); raises InputErrors for what is
    not a JobSet status can be derived from."""
    text = source.read(path, source.Budget(limit))
    found, errors = [], []
    for origin, document in source.load_text(text, source.name(path)):
        for prefix, jobset in _jobsets(origin, document, errors):
            problems = _violations(origin, prefix, jobset)
            if problems:
                errors += problems
            else:
                found.append((origin, prefix, jobset))
    if errors:
        raise InputErrors(errors)
    return found


def _jobsets(origin: Origin, document, errors: list):
    """(path prefix, JobSet) of a document: itself, or the items of a List."""
    if isinstance(document, dict) and str(document.get("kind", "")).endswith("List") and "items" in document:
        items = document["items"]
        if not isinstance(items, list):
            errors.append(InputError(origin, ("items",), "must be a list"))
            return
        for index, item in enumerate(items):
            yield ("items", index), item
        return
    yield (), document


def _violations(origin: Origin, prefix: tuple, jobset) -> list[InputError]:
    if not isinstance(jobset, dict):
        return [InputError(origin, prefix, "a JobSet must be a mapping")]
    _, violations = openapi.validate(jobset, _JOBSET)
    if violations:
        return [InputError(origin, prefix + path, message, key=key) for path, message, key in violations]
    group, kind = jobset["apiVersion"].partition("/")[0], jobset["kind"]
    if group != JOBSET_GROUP or kind != "JobSet":
        message = f"expected a JobSet ({JOBSET_GROUP}), not {jobset['apiVersion']} {kind}"
        return [InputError(origin, prefix + ("kind",), message)]
    return []


def derive(jobset: dict) -> dict:
    """The TrainJob named like the JobSet, with the status upstream derives (metadata and status only)."""
    metadata, status = jobset["metadata"], jobset.get("status") or {}
    found = {}
    for condition in status.get("conditions") or ():
        found.setdefault(condition["type"], condition)  # upstream's FindStatusCondition: the first one
    conditions = []
    suspended = found.get("Suspended")
    if (jobset.get("spec") or {}).get("suspend"):
        since = suspended if suspended is not None and suspended["status"] == "True" else {}
        stamp = since.get("lastTransitionTime", metadata.get("creationTimestamp"))
        conditions.append(_condition("Suspended", "True", "Suspended", "TrainJob is suspended", stamp))
    elif suspended is not None:
        stamp = suspended.get("lastTransitionTime") if suspended["status"] == "False" else None
        conditions.append(_condition("Suspended", "False", "Resumed", "TrainJob is resumed", stamp))
    for jobset_type, trainjob_type in (("Completed", "Complete"), ("Failed", "Failed")):
        condition = found.get(jobset_type)
        if condition is not None and condition["status"] == "True":
            conditions.append(_copy(condition, trainjob_type))
    derived = {}
    if conditions:
        derived["conditions"] = conditions
    jobs = [
        {"name": job["name"], **{c: job.get(c, 0) for c in COUNTERS}}
        for job in status.get("replicatedJobsStatus") or ()
    ]
    if jobs:
        derived["jobsStatus"] = jobs
    name = {"name": metadata["name"], **({"namespace": metadata["namespace"]} if "namespace" in metadata else {})}
    return {"apiVersion": TRAINJOB_API_VERSION, "kind": "TrainJob", "metadata": name, "status": derived}


def _condition(kind: str, status: str, reason: str, message: str, stamp: str | None) -> dict:
    return {"type": kind, "status": status, "lastTransitionTime": stamp or _now(), "reason": reason, "message": message}


_LAST_SECOND = 253402300799  # 9999-12-31T23:59:59Z


def _now() -> str:
    """metav1.Now() as RFC 3339 seconds in UTC."""
    return stamp(now())


def stamp(seconds: int) -> str:
    """Unix seconds as metav1.Time writes them: RFC 3339, UTC."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def now() -> int:
    """The time now, in Unix seconds; SOURCE_DATE_EPOCH (reproducible builds) pins it."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not (epoch and epoch.isascii() and epoch.isdigit()):
        seconds = int(time.time())
    elif len(epoch) > len(str(_LAST_SECOND)) or int(epoch) > _LAST_SECOND:  # metav1.Time has 4-digit years only
        raise TraincError(
            f"Error: SOURCE_DATE_EPOCH={epoch[:40]}: after 9999-12-31T23:59:59Z, the last time an "
            "RFC 3339 timestamp holds"
        )
    else:
        seconds = int(epoch)
    return seconds


def _copy(condition: dict, kind: str) -> dict:
    """metav1.Condition's fields, in its order, with the TrainJob's type."""
    fields = ("status", "observedGeneration", "lastTransitionTime", "reason", "message")
    return {"type": kind, **{f: condition[f] for f in fields if f in condition}}


def state(trainjob: dict) -> tuple[str, dict | None]:
    """A one-word summary for people (not an upstream field) and the condition behind it."""
    conditions = {c["type"]: c for c in trainjob["status"].get("conditions") or ()}
    for kind in ("Failed", "Complete", "Suspended"):
        if kind in conditions and conditions[kind]["status"] == "True":
            return kind, conditions[kind]
    jobs = trainjob["status"].get("jobsStatus") or ()
    return ("Running" if any(job["active"] for job in jobs) else "Created"), None
