"""`trainc gc`: the input files whose TrainJobs finished in the cluster more than a while ago, and with `--apply`
their removal, so that a commit of it makes the GitOps tool prune their objects (docs/commands/gc.md).

PATHS are read and compiled by the one run (`engine.run`), as `trainc build` reads them; each rendered JobSet is
looked up among the live ones (`trainer/live.py`) by its namespace and name. A file goes only when every object
it holds is a TrainJob whose JobSet finished (Complete or Failed, as `trainc status` says) more than --older-than
ago: that is checked on the file as it is just before it is removed, never taken from the run alone, so a
file holding anything else is reported and left as it is.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

import click

from ..errors import TraincError, plural
from ..trainer import live
from . import fail, write_out

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(?:[0-9]{1,9}[smhd])+")


def duration(text: str) -> int:
    """Seconds of a duration such as `7d`, `36h` or `1d12h` (units s, m, h, d); raises ValueError."""
    if not _DURATION.fullmatch(text):
        raise ValueError(f"{text!r} is not a duration such as 7d, 36h, 90m or 1d12h")
    return sum(int(number) * UNITS[unit] for number, unit in re.findall(r"([0-9]+)([smhd])", text))


@dataclass
class Leaving:
    """A finished TrainJob, and the rendered objects that leave the cluster with it."""

    namespace: str
    name: str
    state: str
    reason: str | None
    finished: int
    objects: list  # (apiVersion, kind, namespace, name)


@dataclass
class File:
    """An input file holding finished TrainJobs: removed, unless it holds anything else (`others`)."""

    path: str
    trainjobs: list = field(default_factory=list)  # [Leaving]
    others: list = field(default_factory=list)  # what else it holds, described
    removed: bool = False

    @property
    def removable(self) -> bool:
        return not self.others


def collect(result, jobsets: dict, now: int, older_than: int, namespace: str, limit: int | None = None) -> list[File]:
    """The files holding a TrainJob whose live JobSet finished more than `older_than` seconds before `now`, each
    with what else it holds now, sorted by path."""
    files: dict = {}
    states = {}
    for trainjob, objects in result.jobs:
        jobset = next((obj for obj in objects if obj.get("kind") == "JobSet"), None)
        if jobset is None:
            continue
        key = (jobset["metadata"].get("namespace", namespace), jobset["metadata"]["name"])
        found = jobsets.get(key)
        states[trainjob.namespace, trainjob.name] = _described_state(found, now, older_than)
        if found is None or found.finished is None or now - found.finished <= older_than:
            continue
        leaving = Leaving(
            *key,
            found.state,
            found.reason,
            found.finished,
            [
                (obj.get("apiVersion"), obj.get("kind"), obj["metadata"].get("namespace"), obj["metadata"].get("name"))
                for obj in objects
            ],
        )
        files.setdefault(trainjob.origin.file, File(trainjob.origin.file)).trainjobs.append(leaving)
    for file in files.values():
        file.others = _others(file, states, namespace, limit)
    return [files[path] for path in sorted(files)]


def _described_state(found, now: int, older_than: int) -> str:
    if found is None:
        return "no JobSet in the cluster"
    if found.finished is None:
        return found.state
    return f"{found.state} {_age(now - found.finished)} ago, not more than {_age(older_than)}"


def _others(file: File, states: dict, namespace: str, limit: int | None) -> list[str]:
    """What the file holds now besides its finished TrainJobs, read again as the run reads inputs."""
    from ..errors import InputError
    from ..formats import source
    from ..inputs import documents

    leaving = {(job.namespace, job.name) for job in file.trainjobs}
    errors: list = []
    found = documents([(file.path, lambda: source.read(file.path, source.Budget(limit)))], errors)
    if errors:
        return [f"cannot be read again: {errors[0].message}"]
    others = []
    for origin, document in found:
        meta = document.get("metadata") if isinstance(document, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        kind = document.get("kind") if isinstance(document, dict) else None
        key = (meta.get("namespace") or namespace, meta.get("name"))
        if (
            kind == "TrainJob"
            and str(document.get("apiVersion", "")).startswith("trainer.kubeflow.org/")
            and key in leaving
        ):
            continue
        named = isinstance(kind, str) and isinstance(key[1], str)
        _, line, _ = InputError(origin, ("metadata", "name") if named else (), "").position()
        space = f"{key[0]}/" if kind == "TrainJob" or isinstance(meta.get("namespace"), str) else ""
        what = f"{kind} {space}{key[1]}" if named else "a document"
        state = states.get(key) if kind == "TrainJob" else None
        others.append(f"{what} (line {line}{', ' + state if state else ''})")
    return others


def _age(seconds: int) -> str:
    days, rest = divmod(max(seconds, 0), 86400)
    hours, rest = divmod(rest, 3600)
    if days:
        return f"{days}d{hours}h" if hours else f"{days}d"
    return f"{hours}h{rest // 60}m" if hours else f"{rest // 60}m{rest % 60}s" if rest >= 60 else f"{rest}s"


def text(files: list[File], now: int, older_than: int, applied: bool) -> str:
    """One block per file: removed (or to remove) with its TrainJobs and their objects, or kept and why."""
    from ..trainer.status import stamp

    removable = sum(file.removable for file in files)
    out = [
        f"{plural(removable, 'file')} {'removed' if applied else 'to remove'}, "
        f"{plural(len(files) - removable, 'file')} kept: TrainJobs whose JobSet finished more than "
        f"{_age(older_than)} before {stamp(now)}"
    ]
    for file in files:
        verb = (
            ("removed" if file.removed else "not removed")
            if applied and file.removable
            else "remove"
            if file.removable
            else "keep"
        )
        out.append(f"{verb} {file.path}" + ("" if file.removable else ": it also holds " + ", ".join(file.others)))
        for job in file.trainjobs:
            reason = f" ({job.reason})" if job.reason else ""
            out.append(
                f"  TrainJob {job.namespace}/{job.name}: {job.state}{reason} at {stamp(job.finished)}, "
                f"{_age(now - job.finished)} ago"
            )
            out += [f"    {kind} {namespace}/{name}" for _, kind, namespace, name in job.objects]
    return "\n".join(out) + "\n"


def as_json(files: list[File], now: int, older_than: int, applied: bool) -> str:
    from ..trainer.status import stamp

    data = {
        "now": stamp(now),
        "olderThanSeconds": older_than,
        "applied": applied,
        "files": [
            {
                "file": file.path,
                "remove": file.removable,
                "removed": file.removed,
                "alsoHolds": file.others,
                "trainJobs": [
                    {
                        "namespace": job.namespace,
                        "name": job.name,
                        "state": job.state,
                        "reason": job.reason,
                        "finished": stamp(job.finished),
                        "objects": [
                            {"apiVersion": api_version, "kind": kind, "namespace": namespace, "name": name}
                            for api_version, kind, namespace, name in job.objects
                        ],
                    }
                    for job in file.trainjobs
                ],
            }
            for file in files
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main(paths, options, live_path: str, older_than: str, apply: bool, output_format: str) -> None:
    """`trainc gc`: the files to remove (and with `apply`, removed), from one run (`trainc.engine`) and the live
    JobSets in `live_path`."""
    from .. import engine
    from ..trainer.status import now as clock

    if "-" in paths:
        raise click.BadParameter("gc removes input files: pass files or directories, not stdin (-)", param_hint="PATHS")
    try:
        seconds = duration(older_than)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--older-than") from None
    try:
        jobsets = live.read(live_path, options.max_input_bytes)
        result = engine.run(engine.Inputs(tuple(paths) or (".",)), options).checked()
        now = clock()
        files = collect(result, jobsets, now, seconds, options.namespace, options.max_input_bytes)
    except TraincError as error:
        fail(error)
    for notice in result.notices:
        click.echo(notice, err=True)
    failed = []
    for file in files if apply else ():
        if file.removable:
            try:
                os.remove(file.path)
                file.removed = True
            except OSError as exc:
                failed.append(f"Error: cannot remove {file.path}: {exc.strerror or exc}")
    render = {"text": text, "json": as_json}[output_format]
    write_out(render(files, now, seconds, apply))
    if failed:
        fail(TraincError("\n".join(failed)))
