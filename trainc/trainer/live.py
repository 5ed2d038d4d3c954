"""The live JobSets `trainc gc` ages: what `kubectl get jobsets -A -o json` prints (a List), untrusted.

Each JobSet's state is the one `trainc status` derives (`status.py`: Failed, then Complete, from the JobSet's
first `Failed` / `Completed` condition when True); a finished one finished at that condition's
`lastTransitionTime`, which must then be an RFC 3339 time (metav1.Time). A JobSet is known by namespace and
name, as trainc renders it from its TrainJob: a JobSet without a namespace, or listed twice, is an error at its
place, as is every other problem of the input (read within the run's input bound).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..errors import InputError, InputErrors
from . import status

# the TrainJob's condition (status.state) -> the JobSet's condition it is copied from
FINISHED = {"Complete": "Completed", "Failed": "Failed"}
_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d{1,9})?(Z|[+-]\d{2}:\d{2})", re.ASCII)


@dataclass(frozen=True)
class JobSet:
    """A live JobSet as gc sees it."""

    namespace: str
    name: str
    state: str  # status.state's word: Failed, Complete, Suspended, Running or Created
    reason: str | None  # of the condition behind the state
    finished: int | None  # Unix seconds of the Completed / Failed condition, when finished


def read(path: str, limit: int | None = None) -> dict[tuple[str, str], JobSet]:
    """The JobSets of the file (`-`: stdin, read within `limit` bytes) by (namespace, name); raises InputErrors,
    positioned."""
    found: dict = {}
    where: dict = {}
    errors: list = []
    for origin, prefix, jobset in status.jobsets(path, limit):
        metadata = jobset["metadata"]
        if "namespace" not in metadata:
            errors.append(
                InputError(
                    origin,
                    (*prefix, "metadata"),
                    "metadata.namespace is required: a live JobSet "
                    "is matched to its TrainJob by namespace and name (kubectl get jobsets -A "
                    "-o json prints both)",
                )
            )
            continue
        key = (metadata["namespace"], metadata["name"])
        at = InputError(origin, (*prefix, "metadata", "name"), "")
        if key in where:
            file, line, column = where[key].position()
            errors.append(
                InputError(
                    origin, at.path, f"JobSet {key[0]}/{key[1]} is listed twice (first at {file}:{line}:{column})"
                )
            )
            continue
        where[key] = at
        word, condition = status.state(status.derive(jobset))
        finished = None
        if word in FINISHED:
            finished, problem = _finished(origin, prefix, jobset, FINISHED[word])
            if problem is not None:
                errors.append(problem)
                continue
        found[key] = JobSet(*key, word, (condition or {}).get("reason"), finished)
    if errors:
        raise InputErrors(errors)
    return found


def _finished(origin, prefix: tuple, jobset: dict, kind: str) -> tuple[int | None, InputError | None]:
    """When the JobSet's first condition of `kind` (the one status copies) changed, in Unix seconds."""
    conditions = jobset["status"]["conditions"]
    index = next(i for i, condition in enumerate(conditions) if condition["type"] == kind)
    path = (*prefix, "status", "conditions", index)
    stamp = conditions[index].get("lastTransitionTime")
    if stamp is None:
        return None, InputError(
            origin, path, f"a {kind} condition needs lastTransitionTime: gc ages a finished JobSet from it"
        )
    seconds = parse_time(stamp)
    if seconds is None:
        return None, InputError(
            origin, (*path, "lastTransitionTime"), f"{stamp!r} is not an RFC 3339 time (e.g. 2026-01-02T15:04:05Z)"
        )
    return seconds, None


def parse_time(stamp: str) -> int | None:
    """Unix seconds of an RFC 3339 time as Go's time.RFC3339 reads it (fractions of a second dropped), or None."""
    match = _TIME.fullmatch(stamp)
    if match is None:
        return None
    zone = "+00:00" if match.group(2) == "Z" else match.group(2)
    try:
        return int(datetime.fromisoformat(match.group(1) + zone).timestamp())
    except ValueError:  # a day or hour that does not exist
        return None
