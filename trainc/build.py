"""Load inputs, register runtimes, compile every TrainJob: the `trainc build` job.

All inputs are read and every error is collected before anything is written,
so bad input never yields partial output.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from . import inputs as inputset
from . import validation
from .compiler import emit, pipeline
from .compiler.plugins import entrypoints
from .compiler.provenance import Provenance
from .errors import InputError, InputErrors, Notice, TraincError, caught, defined_twice
from .trainer import api, catalog, unresolved
from .validation import kueue


@dataclass
class Output:
    """Rendered objects per TrainJob, in output order, plus notices for stderr and what passes through."""

    jobs: list = field(default_factory=list)  # [(TrainJob, [objects])]
    notices: list = field(default_factory=list)
    trainjobs: int = 0  # how many TrainJobs and user runtimes were checked
    runtimes: int = 0
    files: int = 0  # how many input files (PATHS) were read, and documents found in them
    inputs: int = 0
    others: list = field(default_factory=list)  # (origin, object) of other API groups, in input order
    uncompiled: list = field(default_factory=list)  # (origin, object) of Trainer kinds trainc does not compile
    runtime_inputs: list = field(default_factory=list)  # (origin, object) of the runtimes among PATHS

    def documents(self) -> list[dict]:
        return [obj for _, objs in self.jobs for obj in objs]


@dataclass
class _Inputs:
    trainjobs: list = field(default_factory=list)
    runtimes: list = field(default_factory=list)
    others: list = field(default_factory=list)
    uncompiled: list = field(default_factory=list)
    runtime_inputs: list = field(default_factory=list)  # the runtimes among PATHS, as written (parsing defaults them)
    unparsed: list = field(default_factory=list)  # (origin, data, errors) of Trainer documents not read as objects
    unread: bool = False  # a file could not be read at all: a runtime may be missing for that reason alone
    notices: list = field(default_factory=list)  # what --runtimes held besides runtimes, ignored


def _parse(documents, namespace: str, errors, inputs: _Inputs, collect: bool = False, keep_runtimes: bool = False):
    """Typed TrainJobs and runtimes; Trainer documents that fail go to `inputs.unparsed` (their errors to
    `errors`). With `collect`, other objects go to `inputs` (else uncompiled Trainer kinds are errors), and
    with `keep_runtimes` the runtimes as written."""
    for origin, data in documents:
        if collect and api.uncompiled(data):
            inputs.uncompiled.append((origin, data))
            continue
        written = None
        if keep_runtimes and isinstance(data, dict) and data.get("kind") in api.RUNTIME_KINDS:
            written = copy.deepcopy(data)
        parsed, problems = caught(api.parse, origin, data, namespace)
        errors.extend(problems)
        if problems:
            inputs.unparsed.append((origin, data, problems))
        if parsed is not None:
            if written is not None:
                inputs.runtime_inputs.append((origin, written))
            yield parsed
        elif collect and not problems:
            inputs.others.append((origin, data))


def load(paths, runtime_paths=(), namespace: str = "default",
         reader: inputset.Reader | None = None) -> tuple[list, list]:
    """TrainJobs and user runtimes from the inputs, read as `build` reads them (by `reader`, the run's, when
    given); raises InputErrors listing every problem."""
    errors: list[InputError] = []
    found, reader = inputset.files(paths, runtime_paths), reader or inputset.Reader()
    inputs = _load(reader.documents(found.inputs, errors), reader.documents(found.runtimes, errors), namespace, errors,
                   passing=True)
    if errors:
        raise InputErrors(sorted(errors, key=error_place))
    return inputs.trainjobs, inputs.runtimes


def runtimes_in(paths, namespace: str = "default") -> list:
    """The runtimes among `paths`, TrainJobs left unread (`trainc runtimes`); raises InputErrors."""
    errors: list[InputError] = []
    documents = [(origin, data) for origin, data in inputset.Reader().documents(inputset.listed(paths), errors)
                 if not (isinstance(data, dict) and data.get("kind") == "TrainJob")]
    runtimes = _load(documents, (), namespace, errors, passing=True).runtimes
    if errors:
        raise InputErrors(sorted(errors, key=error_place))
    return runtimes


def _load(documents, runtime_documents, namespace: str, errors: list, passing: bool = False) -> _Inputs:
    """What the inputs hold; with `passing`, also what passes through (else a Trainer kind trainc does not
    compile is an error, as for callers that pass other objects on themselves)."""
    inputs = _Inputs(unread=bool(errors))
    for parsed in _parse(documents, namespace, errors, inputs, collect=passing, keep_runtimes=passing):
        (inputs.trainjobs if parsed.kind == "TrainJob" else inputs.runtimes).append(parsed)
    inputs.runtimes += _parse(inputset.runtimes_only(runtime_documents, inputs.notices), namespace, errors, inputs)
    return inputs


def build(paths, runtime_paths=(), *, namespace: str = "default", ssh_key_seed=None,
          previous: validation.Previous | None = None, runtime_snapshot: bool = False,
          output_dir: str | None = None, provenance: Provenance | None = None, keep=None,
          reader: inputset.Reader | None = None) -> Output:
    """Compile every TrainJob; `previous` holds the versions being updated, for the update rules;
    `provenance`, when given, records where every field came from (`trainc explain`).

    `ssh_key_seed` is the seed's bytes, or a `sshkeys.SeedFile` read only if an MPI job needs it. Files
    under `output_dir` (a rendered tree inside PATHS) are not inputs. `keep(objects)` is what `Output.jobs`
    holds of each TrainJob's objects (the objects themselves by default); `reader` is the run's, when it reads
    the inputs more than once. Every independent problem is reported in one InputErrors, sorted by file, line
    and column: a document that cannot be read stops only itself (and the TrainJobs whose runtime it may be).
    """
    errors: list[InputError] = []
    found, reader = inputset.files(paths, runtime_paths, output_dir), reader or inputset.Reader()
    documents = reader.documents(found.inputs, errors)
    inputs = _load(documents, reader.documents(found.runtimes, errors), namespace, errors, passing=True)
    output = _build(inputs, namespace, errors, previous, keep, ssh_key_seed=ssh_key_seed,
                    runtime_snapshot=runtime_snapshot, provenance=provenance)
    output.files, output.inputs = len(found.inputs), len(documents)
    output.others, output.uncompiled = inputs.others, inputs.uncompiled
    output.runtime_inputs = inputs.runtime_inputs
    admission(output, namespace)
    return output


def admission(output: Output, namespace: str, documents=()) -> None:
    """Whether Kueue would ever admit the rendered JobSets, on the queues among the inputs and `documents`
    ((origin, object) pairs): its refusals raised as the build's errors, its notices added (kueue.py)."""
    errors, notices = kueue.check(output.jobs, [*output.others, *documents], namespace)
    if errors:
        raise InputErrors(sorted(errors, key=error_place), notices=output.notices)
    output.notices.extend(notices)


def build_objects(documents, runtime_paths=(), *, namespace: str = "default", ssh_key_seed=None) -> Output:
    """Compile (origin, object) pairs already read, e.g. the items of a KRM ResourceList, with the runtimes
    of `runtime_paths` read as build reads --runtimes."""
    errors: list[InputError] = []
    runtime_documents = inputset.Reader().documents(inputset.listed(runtime_paths), errors)
    inputs = _load(documents, runtime_documents, namespace, errors)
    return _build(inputs, namespace, errors, None, ssh_key_seed=ssh_key_seed)


def _build(inputs: _Inputs, namespace: str, errors: list, previous, keep=None, **context) -> Output:
    runtimes, problems = catalog.collect(inputs.runtimes, namespace)
    errors.extend(problems)
    ctx = pipeline.Context(runtimes, **context)
    doubtful = unresolved.doubtful(inputs, namespace)
    errors.extend(unresolved.runtimes_of_unparsed(inputs.unparsed, runtimes, doubtful, namespace))
    output = _compile(inputs.trainjobs, inputs.runtimes, ctx, previous, errors, doubtful, keep)
    output.notices[:0] = inputs.notices
    if errors:
        raise InputErrors(sorted(errors, key=error_place), notices=output.notices)
    return output


def error_place(error: InputError) -> tuple:
    return error.position() or ("", 0, 0)


def build_parsed(trainjobs, runtimes, *, namespace: str = "default", ssh_key_seed=None) -> Output:
    """Compile TrainJobs and runtimes already parsed, e.g. the previous versions `trainc diff` compares with."""
    return _build(_Inputs(trainjobs=list(trainjobs), runtimes=list(runtimes)), namespace, [], None,
                  ssh_key_seed=ssh_key_seed)


def sort_key(trainjob) -> tuple:
    """Output order: by namespace and name; the input's place breaks ties, so a TrainJob defined twice
    is reported the same way in any file order."""
    origin = trainjob.origin
    return (trainjob.namespace, trainjob.name, origin.file, origin.index, origin.base)


def in_order(keys) -> list[tuple[int, int | None]]:
    """(index into `keys`, index of the first definition when it is a repeat, else None) in output order."""
    seen, out = {}, []
    for index in sorted(range(len(keys)), key=keys.__getitem__):
        namespace, name = keys[index][:2]
        out.append((index, seen.get((namespace, name))))
        seen.setdefault((namespace, name), index)
    return out


def check_runtimes(runtimes, previous, output: Output, errors: list) -> None:
    for runtime in runtimes:
        problems, warnings = validation.check_runtime(runtime, previous)
        errors.extend(problems)
        output.notices.extend(warnings)


def compile_one(trainjob, first, ctx, previous, runtimes) -> tuple[list, list, list | None]:
    """(errors, notices, objects or None) for one TrainJob; `first` is the TrainJob of the same name before it,
    if there is one."""
    key = (trainjob.namespace, trainjob.name)
    if first is not None:
        message = defined_twice(api.described("TrainJob", *key), first.origin)
        return [InputError(trainjob.origin, ("metadata", "name"), message)], [], None
    admission, problems = caught(validation.check_trainjob, trainjob, ctx, previous)
    problems, admitted = admission if admission is not None else (problems, None)
    if problems:  # what the API server and the TrainJob webhook would refuse (spec §10)
        return problems, [], None
    if trainjob.spec.managed_by == api.KUEUE_MULTIKUEUE:
        return [], [Notice("notice", trainjob.origin, (), f"{key[0]}/{key[1]}: managedBy {api.KUEUE_MULTIKUEUE}: "
                           "MultiKueue runs this TrainJob on a worker cluster, so no objects are rendered for it",
                           at=("spec", "managedBy"))], None
    unit, problems = caught(pipeline.finish, admitted, ctx)
    problems = problems or validation.check_jobset(unit, ctx, previous, runtimes)
    if problems:
        return problems, [], None
    notices = [*unit.notices, *validation.trainjob_warnings(trainjob)]
    if trainjob.spec.active_deadline_seconds is not None:
        notices.append(Notice(
            "notice", trainjob.origin, (), f"{key[0]}/{key[1]}: spec.activeDeadlineSeconds is enforced by the "
            "TrainJob controller, not by the JobSet (as upstream); with no TrainJob in the cluster nothing enforces it",
            at=("spec", "activeDeadlineSeconds"),
        ))
    objects = emit.objects(unit)
    problems = entrypoints.check(unit, objects)  # house rules of installed plugins
    if problems:
        return problems, [], None
    ttl = objects[-1]["spec"].get("ttlSecondsAfterFinished")
    if ttl is not None:
        notices.append(Notice(
            "notice", trainjob.origin, (), f"{key[0]}/{key[1]}: the JobSet deletes itself {ttl}s after it finishes "
            "(ttlSecondsAfterFinished); a GitOps tool that still finds it in git (Argo CD, Flux) "
            "then creates it again and the training runs again: see "
            "docs/routes/ci.md#self-deleting-jobsets-under-gitops"
        ))
    return [], notices, objects


def _compile(trainjobs, runtimes, ctx, previous, errors: list, doubtful=None, keep=None) -> Output:
    """Every TrainJob compiled in output order, its problems added to `errors`; a TrainJob whose runtime is
    `doubtful` (among the documents that could not be read) is left alone."""
    output = Output(trainjobs=len(trainjobs), runtimes=len(runtimes))
    check_runtimes(runtimes, previous, output, errors)
    for index, first in in_order([sort_key(trainjob) for trainjob in trainjobs]):
        trainjob, first = trainjobs[index], None if first is None else trainjobs[first]
        if first is None and doubtful is not None and doubtful(trainjob.spec.runtime_ref, trainjob.namespace,
                                                               ctx.catalog):
            continue
        problems, notices, objects = compile_one(trainjob, first, ctx, previous, runtimes)
        errors.extend(problems)
        output.notices.extend(notices)
        if objects is not None and not errors:
            output.jobs.append((trainjob, objects if keep is None else keep(objects)))
    return output


__all__ = ["Output", "build", "load", "TraincError"]
