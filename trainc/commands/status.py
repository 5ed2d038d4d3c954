"""`trainc status`: the TrainJob status Trainer's controller derives from its JobSet (`trainer/status.py`), as YAML
or a table."""

from __future__ import annotations

from ..errors import TraincError
from ..formats.table import aligned
from ..trainer import status
from . import fail, write_out


def table(trainjobs: list[dict]) -> str:
    """Two aligned tables: one row per TrainJob, then one per replicated job."""
    summary = [("NAMESPACE", "NAME", "STATE", "REASON", "MESSAGE")]
    jobs = [("NAMESPACE", "TRAINJOB", "JOB", *(c.upper() for c in status.COUNTERS))]
    for trainjob in trainjobs:
        namespace, name = trainjob["metadata"].get("namespace", "-"), trainjob["metadata"]["name"]
        word, condition = status.state(trainjob)
        condition = condition or {}
        summary.append((namespace, name, word, condition.get("reason") or "-", condition.get("message") or "-"))
        for job in trainjob["status"].get("jobsStatus") or ():
            jobs.append((namespace, name, job["name"], *(str(job[c]) for c in status.COUNTERS)))
    out = aligned(summary)
    if len(jobs) > 1:
        out += "\n" + aligned(jobs)
    return out


def main(file, output_format, limit: int | None = None) -> None:
    """`trainc status`: the TrainJob statuses of the JobSets in FILE (read within `limit` bytes), as YAML or a
    table."""
    from ..formats.serialize import dump_all

    try:
        statuses = status.read(file, limit)
    except TraincError as error:
        fail(error)
    write_out(table(statuses) if output_format == "table" else dump_all(statuses))
