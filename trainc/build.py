"""Load inputs, register runtimes, compile every TrainJob: the `trainc build` job.

All inputs are read and every error is collected before anything is written,
so bad input never yields partial output.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import api, catalog, emit, pipeline, source, validation
from .errors import InputError, InputErrors, TraincError, caught


@dataclass
class Output:
    """Rendered objects per TrainJob, in output order, plus notices for stderr."""

    jobs: list = field(default_factory=list)  # [(TrainJob, [objects])]
    notices: list = field(default_factory=list)
    trainjobs: int = 0  # how many TrainJobs and user runtimes were checked
    runtimes: int = 0

    def documents(self) -> list[dict]:
        return [obj for _, objs in self.jobs for obj in objs]


def _documents(paths, errors) -> list:
    """(origin, object) for every object in the files under `paths`, `List`s expanded."""
    found = []
    for path in source.iter_files(list(paths)):
        documents, problems = caught(lambda: list(source.load_text(source.read(path), path)))
        errors.extend(problems)
        for origin, document in documents or ():
            found.extend(source.items(origin, document))
    return found


def _parse(documents, namespace: str, errors):
    for origin, data in documents:
        parsed, problems = caught(api.parse, origin, data, namespace)
        errors.extend(problems)
        if parsed is not None:
            yield parsed


def load(paths, runtime_paths=(), namespace: str = "default") -> tuple[list, list]:
    """TrainJobs and user runtimes from the inputs; raises InputErrors listing every problem."""
    errors: list[InputError] = []
    return _load(_documents(paths, errors), _documents(runtime_paths, errors), namespace, errors)


def _load(documents, runtime_documents, namespace: str, errors: list) -> tuple[list, list]:
    trainjobs, runtimes = [], []
    for parsed in _parse(documents, namespace, errors):
        (trainjobs if parsed.kind == "TrainJob" else runtimes).append(parsed)
    for parsed in _parse(runtime_documents, namespace, errors):
        if parsed.kind == "TrainJob":
            errors.append(InputError(parsed.origin, ("kind",), "--runtimes takes runtimes only; pass TrainJobs as inputs"))
        else:
            runtimes.append(parsed)
    if errors:
        raise InputErrors(errors)
    return trainjobs, runtimes


def build(paths, runtime_paths=(), *, namespace: str = "default", ssh_key_seed: bytes | None = None,
          previous: validation.Previous | None = None, runtime_snapshot: bool = False, sink=None) -> Output:
    """Compile every TrainJob; `previous` holds the versions being updated, for the update rules.

    `sink(trainjob, objects)` takes each TrainJob's objects in output order instead of `Output.jobs`
    (so a large build need not hold them all); it may get some before an error is raised.
    """
    trainjobs, runtimes = load(paths, runtime_paths, namespace)
    ctx = pipeline.Context(catalog.build(runtimes, namespace), ssh_key_seed, runtime_snapshot)
    return _compile(trainjobs, runtimes, ctx, previous, sink)


def build_objects(documents, *, namespace: str = "default", ssh_key_seed: bytes | None = None) -> Output:
    """Compile (origin, object) pairs already read, e.g. the items of a KRM ResourceList."""
    trainjobs, runtimes = _load(documents, (), namespace, [])
    return _compile(trainjobs, runtimes, pipeline.Context(catalog.build(runtimes, namespace), ssh_key_seed), None)


def sort_key(trainjob) -> tuple:
    """Output order: by namespace and name; the input's place breaks ties, so a TrainJob defined twice
    is reported the same way in any file order."""
    origin = trainjob.origin
    return (trainjob.namespace, trainjob.name, origin.file, origin.index, origin.base)


def in_order(keys) -> list[tuple[int, str | None]]:
    """(index into `keys`, file of the first definition when it is a repeat, else None) in output order."""
    seen, out = {}, []
    for index in sorted(range(len(keys)), key=keys.__getitem__):
        namespace, name, file = keys[index][:3]
        out.append((index, seen.get((namespace, name))))
        seen.setdefault((namespace, name), file)
    return out


def check_runtimes(runtimes, previous, output: Output, errors: list) -> None:
    for runtime in runtimes:
        problems, warnings = validation.check_runtime(runtime, previous)
        errors.extend(problems)
        output.notices.extend(warnings)


def compile_one(trainjob, first: str | None, ctx, previous, runtimes) -> tuple[list, list, list | None]:
    """(errors, notices, objects or None) for one TrainJob; `first` is where it was defined before, if it was."""
    key = (trainjob.namespace, trainjob.name)
    if first is not None:
        return [InputError(trainjob.origin, ("metadata", "name"),
                           f"TrainJob {key[0]}/{key[1]} is defined twice (first in {first})")], [], None
    admission, problems = caught(validation.check_trainjob, trainjob, ctx, previous)
    problems, admitted = admission if admission is not None else (problems, None)
    if problems:  # what the API server and the TrainJob webhook would refuse (spec §10)
        return problems, [], None
    if trainjob.spec.managed_by == api.KUEUE_MULTIKUEUE:
        return [], [f"notice: {key[0]}/{key[1]}: managedBy {api.KUEUE_MULTIKUEUE}: MultiKueue runs this TrainJob "
                    "on a worker cluster, so no objects are rendered for it"], None
    unit, problems = caught(pipeline.finish, admitted, ctx)
    problems = problems or validation.check_jobset(unit, ctx, previous, runtimes)
    if problems:
        return problems, [], None
    notices = list(unit.notices)
    if trainjob.spec.active_deadline_seconds is not None:
        notices.append(
            f"notice: {key[0]}/{key[1]}: spec.activeDeadlineSeconds is enforced by the TrainJob controller, "
            "not by the JobSet (as upstream); with no TrainJob in the cluster nothing enforces it"
        )
    return [], notices, emit.objects(unit)


def _compile(trainjobs, runtimes, ctx, previous, sink=None) -> Output:
    output, errors = Output(trainjobs=len(trainjobs), runtimes=len(runtimes)), []
    check_runtimes(runtimes, previous, output, errors)
    for index, first in in_order([sort_key(trainjob) for trainjob in trainjobs]):
        problems, notices, objects = compile_one(trainjobs[index], first, ctx, previous, runtimes)
        errors.extend(problems)
        output.notices.extend(notices)
        if objects is not None and not errors:
            if sink is None:
                output.jobs.append((trainjobs[index], objects))
            else:
                sink(trainjobs[index], objects)
    if errors:
        raise InputErrors(errors)
    return output


__all__ = ["Output", "build", "load", "TraincError"]
