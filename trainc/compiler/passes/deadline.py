"""deadline: the TrainJob's `spec.activeDeadlineSeconds` as each Job's, so the cluster enforces it (a difference
from upstream, docs/reference/differences.md#activedeadlineseconds).

Upstream's TrainJob controller times the TrainJob and deletes its JobSet when the deadline passes; rendered ahead
of time there is no TrainJob in the cluster, and a deleted JobSet would be created again by the GitOps tool. So
every replicated job's Job template gets `activeDeadlineSeconds`: the Job controller fails a Job past it (reason
DeadlineExceeded), the JobSet reacts as its failurePolicy says (fails, or restarts with fresh Jobs), and a failed
JobSet stays in the cluster, finished. A runtime that gives a Job a shorter deadline keeps it (the TrainJob asks
for at most its deadline, the runtime's author for less). The field is written after `completions`, where the
Job API declares it.
"""

from __future__ import annotations

from .. import provenance
from ..ir import Unit

FIELD = "activeDeadlineSeconds"


def deadline(unit: Unit, ctx) -> Unit:
    seconds = unit.trainjob.spec.active_deadline_seconds
    if seconds is None:
        return unit
    for rjob in unit.replicated_jobs:
        job_spec = rjob.setdefault("template", {}).setdefault("spec", {})
        own = job_spec.get(FIELD)
        if isinstance(own, int) and not isinstance(own, bool) and 0 < own <= seconds:
            continue
        if FIELD in job_spec:
            job_spec[FIELD] = seconds
        else:
            _insert_after(job_spec, "completions", seconds)
        if ctx.provenance is not None:
            ctx.provenance.record(job_spec, FIELD, provenance.trainjob(unit, "deadline pass", "spec", FIELD))
    return unit


def _insert_after(job_spec: dict, key: str, seconds: int) -> None:
    """The field placed after `key` (the network pass puts parallelism and completions first)."""
    items = list(job_spec.items())
    at = next((index + 1 for index, (name, _) in enumerate(items) if name == key), 0)
    items.insert(at, (FIELD, seconds))
    job_spec.clear()
    job_spec.update(items)
