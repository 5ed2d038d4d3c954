"""mlpolicy: count pods per replicated job, then let each ML-policy plugin enforce its policy.

Initial counts follow upstream's PodSet construction: a job's parallelism
(default 1), or for the trainer step of a runtime with an mlPolicy,
`mlPolicy.numNodes` (default 1); never below 1 here.
"""

from __future__ import annotations


from ..ir import TRAINER, Unit, job_spec, step_of
from ..plugins import entrypoints
from ..plugins.registry import ML_POLICIES


def mlpolicy(unit: Unit, ctx) -> Unit:
    policy = unit.ml_policy
    counts = {}
    for rjob in unit.replicated_jobs:
        count = job_spec(rjob).get("parallelism", 1)
        if policy is not None and step_of(rjob, unit.kep) == TRAINER:
            count = policy.num_nodes if policy.num_nodes is not None else 1
        counts[rjob["name"]] = max(count, 1)
    unit = unit.replace(counts=counts)
    for plugin in ML_POLICIES:
        if plugin.runs(unit):
            unit = plugin.enforce(unit, ctx)
    return entrypoints.enforce(unit, ctx)
