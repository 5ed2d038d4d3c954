"""How long the cluster lets a rendered JobSet's pods run: its Jobs' `activeDeadlineSeconds` across the JobSet's
restarts, for whatever prices or reports a bounded run (docs/reference/differences.md#activedeadlineseconds).

The Job controller fails a Job once it has been active `activeDeadlineSeconds` since its `status.startTime`, and a
Job resumed from suspension gets a new startTime. A failed Job fails the JobSet, unless its `failurePolicy`
restarts it: the first rule matching the Job's failure reason (and replicated job) decides, no rule means
`RestartJobSet`, and a restart recreates every Job, each with a new clock. `RestartJobSet` counts toward
`maxRestarts`; `RestartJobSetAndIgnoreMaxRestarts` does not, so a JobSet with such a rule may run without end
whatever its deadlines. Without a failurePolicy the first failed Job fails the JobSet.
"""

from __future__ import annotations

UNCOUNTED_RESTART = "RestartJobSetAndIgnoreMaxRestarts"


def job_deadline(rjob: dict) -> int | None:
    """The `activeDeadlineSeconds` of a replicated job's Job template, or None when it has none."""
    seconds = ((rjob.get("template") or {}).get("spec") or {}).get("activeDeadlineSeconds")
    return seconds if isinstance(seconds, int) and not isinstance(seconds, bool) and seconds > 0 else None


def attempts(jobset: dict) -> int | None:
    """How many times the JobSet's Jobs may be created: 1 + maxRestarts, None when a failure policy rule restarts
    without counting (no end)."""
    policy = (jobset.get("spec") or {}).get("failurePolicy")
    if not isinstance(policy, dict):
        return 1
    if any(isinstance(rule, dict) and rule.get("action") == UNCOUNTED_RESTART for rule in policy.get("rules") or ()):
        return None
    restarts = policy.get("maxRestarts", 0)
    return 1 + (restarts if isinstance(restarts, int) and restarts > 0 else 0)


def enforced_bound(jobset: dict) -> int | None:
    """The most seconds any pod of the JobSet runs, per admission: the longest Job deadline × (1 + maxRestarts);
    None (unbounded) when a replicated job has no deadline or the JobSet may restart without end.

    A pod runs only while its Job is active, so this bounds each pod's running time (what a cost rate is
    multiplied by); the JobSet's wall time can be longer when its Jobs start one after another (dependsOn,
    startupPolicy InOrder), each with its own clock. A suspension (Kueue preempting or evicting the workload)
    restarts the clocks when the JobSet is resumed."""
    rjobs = (jobset.get("spec") or {}).get("replicatedJobs") or []
    deadlines = [job_deadline(rjob) if isinstance(rjob, dict) else None for rjob in rjobs]
    times = attempts(jobset)
    if not deadlines or None in deadlines or times is None:
        return None
    return max(deadlines) * times
