"""`trainc build` on several cores, with the output and errors of a one-core build, byte for byte.

Reading, checking and compiling TrainJobs is independent work, but the order of the output, the
runtimes a TrainJob may use and which TrainJob is a repeat depend on all the inputs. So the input
files are cut into contiguous slices, one per process: the parent reads the first itself while each
worker (a forked process: it starts with trainc already imported) reads another and sends back its
errors, runtimes and the sort keys of its TrainJobs; the parent orders them all as a one-core build
does and hands each worker back the TrainJobs it holds, with their output positions and every
runtime; every process compiles its share and renders its YAML, and a worker sends back that text,
the marshalled objects and only the names and file of each TrainJob, which the parent puts in output
order. Errors come back as objects and are reported in one-core order; what passes through comes
back in input order. Small builds stay in one process: forking and the exchange cost about as much as
compiling a few dozen TrainJobs.
"""

from __future__ import annotations

import marshal
import os
import signal
import sys
from collections.abc import Sequence
from contextlib import nullcontext, suppress

from . import bounds
from . import build as builder
from . import inputs as inputset
from .compiler import pipeline
from .errors import Notice, Origin, Record, locator
from .formats import blockyaml, limits, source
from .formats.serialize import dump_all
from .k8s.identity import rendered_identity
from .trainer import catalog

MIN_FILES = 64  # fewer input files than this are built in one process (TRAINC_PARALLEL_MIN_FILES)
# Where the run's later stages point in every TrainJob: Kueue's verdict and standing (its queue label, else its
# metadata), its cost, a policy's or house rule's verdict on what it renders (the TrainJob). A worker finds them
# while it holds the text (`Placed.marks`): the parent would read every file again to place those messages.
ANCHORS = (("metadata", "labels", "kueue.x-k8s.io/queue-name"), ("metadata",), ())


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def build(
    found: inputset.Files,
    *,
    workers: int,
    namespace: str,
    limit: int = limits.MAX_INPUT_BYTES,
    anchored: bool = False,
    previous=None,
    **context,
) -> builder.Output | None:
    """The compiled inputs `found` on up to `workers` processes (each TrainJob's objects held as marshal bytes),
    the same Output a one-process build gives; None when the build is one process's to do: too few files,
    stdin, no fork, or problems reading the inputs (which the one-process build weighs against each other).
    `limit` is the run's byte bound, shared out among the processes; with `anchored` (checks after the build that
    speak of TrainJobs), or when objects pass through (Kueue's queues, policies), each TrainJob carries ANCHORS'
    places; `previous` (previous_versions.Previous, read before the workers fork: each holds it) makes every
    TrainJob an update of its previous version, as in one process; `context` is what pipeline.Context takes
    besides the catalog."""
    if workers <= 1 or "-" in found.inputs or not _can_fork():
        return None
    slices = _slices(found, workers, limit)
    if slices is None:
        return None
    try:
        output = _build(slices, _Compiling(namespace, context, previous), anchored)
    except _ReadProblems:
        return None
    output.files = len(found.inputs)
    return output


def marshalled(objects: list) -> _Marshalled:
    """A TrainJob's objects as a parallel build holds them (`build.compile_all`'s `keep`)."""
    return _Marshalled(marshal.dumps(objects), len(objects))


def _can_fork() -> bool:
    return hasattr(os, "fork")


def _slices(found: inputset.Files, workers: int, limit: int) -> list[_Slice] | None:
    """Contiguous slices of the input files of about equal size in bytes, one per process, each with its share
    of the run's bound (the parent's slice also holds the runtime files, which it reads); None when too few
    files, or more bytes than the bound (which the one-process build reports)."""
    files = found.inputs
    if len(files) < max(workers, int(os.environ.get("TRAINC_PARALLEL_MIN_FILES", MIN_FILES))):
        return None
    known = found.sizes or {}
    sizes = [_size(file, known) for file in files]
    runtimes = sum(_size(file, known) for file in found.runtimes)
    inputs = sum(sizes)
    if inputs + runtimes > limit:
        return None
    bounds, done = [0], 0
    for end, size in enumerate(sizes, 1):
        done += size
        if done * workers >= inputs * len(bounds) and len(bounds) < workers:
            bounds.append(end)
    bounds = sorted(set(bounds[:] + [len(files)]))
    # spare bytes shared out: a file that grew since it was measured is a problem the one-process build reports
    spare = (limit - inputs - runtimes) // (len(bounds) - 1)
    slices = [_Slice(files[start:end], sum(sizes[start:end]) + spare) for start, end in zip(bounds, bounds[1:])]
    slices[0] = _Slice(slices[0].files, slices[0].budget + runtimes, found.runtimes)
    return slices


class _Slice(Record):
    files: list
    budget: int  # the bytes its process may read
    runtimes: list = []  # the runtime files, read by the parent


def _size(file: str, known: dict) -> int:
    """The file's size as listed, else as it is now."""
    if file in known:
        return known[file]
    try:
        return os.path.getsize(file)
    except OSError:  # reported when it is read
        return 0


class _Compiling(Record):
    """What every process compiles with, the same in each: the run's namespace, what pipeline.Context takes
    besides the catalog, the previous versions (read before the workers fork) or None."""

    namespace: str
    context: dict
    previous: object = None


def _build(slices, compiling: _Compiling, anchored: bool) -> builder.Output:
    for stream in (sys.stdout, sys.stderr):  # or a worker would write out a copy of what is buffered
        if stream is not None:
            stream.flush()
    workers, done = [], False
    try:
        for each in slices[1:]:  # the first slice is the parent's own
            workers.append(_start(each, [channel for _, channel in workers], compiling, anchored))
        with _remembering(anchored):
            reader, runtime_errors = inputset.Reader(source.Budget(slices[0].budget)), []
            own = _read(slices[0].files, compiling.namespace, reader)
            runtime_documents = reader.documents(slices[0].runtimes, runtime_errors)
            output = _merge(
                own,
                [channel for _, channel in workers],
                (runtime_documents, runtime_errors),
                compiling,
                anchored,
            )
        done = True
        return output
    finally:
        for pid, channel in workers:
            if not done:  # an error, found by the parent or a worker: the others' work is not needed
                os.kill(pid, signal.SIGTERM)
            channel.close()
            os.waitpid(pid, 0)


def _remembering(anchored: bool):
    """While a slice is read and compiled: with ANCHORS to place in every TrainJob's text, its files' texts are
    remembered as read (`blockyaml.remembering`), not read again to be placed."""
    return blockyaml.remembering() if anchored else nullcontext()


def _start(work: _Slice, others, compiling: _Compiling, anchored: bool) -> tuple[int, _Channel]:
    """A forked worker on a slice and the parent's end of its channel (os.fork and pipes: multiprocessing
    would add its import, about 20 ms, to the parent's start)."""
    import fcntl  # POSIX only, as fork is

    down, up = os.pipe(), os.pipe()
    if hasattr(fcntl, "F_SETPIPE_SZ"):  # room for all a worker sends back, so it is written in one go
        with suppress(OSError):  # more than this system lets a pipe hold: the default, only slower
            fcntl.fcntl(up[1], fcntl.F_SETPIPE_SZ, 1 << 20)
    pid = bounds.fork_tied()
    if pid == 0:  # the worker: never returns into the parent's code, nor runs its exit handlers
        status, pipe = 1, None
        try:
            for channel in others:  # the parent's ends of the other workers' pipes
                channel.close()
            os.close(down[1])
            os.close(up[0])
            pipe = _Channel(down[0], up[1])
            with _remembering(anchored):
                _worker(pipe, work, compiling)
            status = 0
        except Exception as exc:
            if bounds.out_of_memory(exc) and pipe is not None:  # the run says so, with the bound's error (`_receive`)
                bounds.release_reserve()
                pipe.send(_OUT_OF_MEMORY)
            elif not isinstance(exc, BrokenPipeError):  # (the parent ended first: the kernel's signal ends this one)
                import traceback  # only a worker that fails needs it

                traceback.print_exc()
        finally:
            os._exit(status)
    os.close(down[0])
    os.close(up[1])
    return pid, _Channel(up[0], down[1])


class _Channel:
    """Pickled objects both ways over a pair of pipes."""

    def __init__(self, reading: int, writing: int):
        self._in, self._out = os.fdopen(reading, "rb"), os.fdopen(writing, "wb")

    def send(self, value) -> None:
        import pickle  # here, not at the top: a build in one process never needs it

        pickle.dump(value, self._out, pickle.HIGHEST_PROTOCOL)
        self._out.flush()

    def recv(self):
        import pickle

        return pickle.load(self._in)

    def close(self) -> None:
        for stream in (self._out, self._in):
            with suppress(OSError):  # the worker went away before reading what was sent
                stream.close()


def _merge(own, pipes, runtimes_read, compiling: _Compiling, anchored: bool) -> builder.Output:
    """The parent's part: its own slice read (`own`, and the runtime files), then every slice's TrainJobs
    ordered and compiled, its own share while the workers compile theirs."""
    namespace, context = compiling.namespace, compiling.context
    inputs, summary = own
    loaded = [summary, *(_receive(pipe) for pipe in pipes)]
    runtime_documents, errors = runtimes_read
    errors = [error for each in loaded for error in each["read_errors"]] + errors
    errors += [error for each in loaded for error in each["parse_errors"]]
    more = builder.read((), runtime_documents, namespace, errors)
    runtimes = [runtime for each in loaded for runtime in each["runtimes"]] + more.runtimes
    if errors or catalog.collect(runtimes, namespace)[1]:
        raise _ReadProblems
    keys, owners = [], []
    for worker, each in enumerate(loaded):
        keys += each["keys"]
        owners += [(worker, local) for local in range(len(each["keys"]))]
    order = builder.in_order(keys)
    if any(first is not None for _, first in order):
        raise _ReadProblems
    assigned = [[] for _ in loaded]
    for position, (index, _) in enumerate(order):
        worker, local = owners[index]
        assigned[worker].append((local, position))
    anchored = anchored or any(each["others"] for each in loaded) or bool(more.others)
    for pipe, theirs in zip(pipes, assigned[1:]):
        pipe.send((runtimes, theirs, anchored))
    output = builder.Output(len(keys), len(runtimes), namespace=namespace)
    output.notices += more.notices
    builder.check_runtimes(runtimes, compiling.previous, output, pipeline.Context(None, **context).release)
    results = [None] * len(order)
    seed_warnings = []
    for compiled, warnings in [
        (_compile(inputs, runtimes, assigned[0], compiling, anchored), ()),
        *(_receive(pipe) for pipe in pipes),
    ]:
        seed_warnings = seed_warnings or warnings
        for position, *result in compiled:
            results[position] = result
    for problems, refusals, notices, _, _ in results:
        output.errors += problems
        output.refusals += refusals
        output.notices += notices
    output.errors.sort(key=builder.error_place)
    output.jobs = [
        (Placed(place[0], place[1], Origin(place[2], place[3], base=place[4]), place[5]), _Marshalled(*objects))
        for _, _, _, place, objects in results
        if objects is not None
    ]
    output.inputs = sum(each["documents"] for each in loaded)
    output.others = [found for each in loaded for found in each["others"]] + more.others
    output.uncompiled = [found for each in loaded for found in each["uncompiled"]] + more.uncompiled
    output.runtime_inputs = [found for each in loaded for found in each["runtime_inputs"]]
    output.user_runtimes = runtimes
    ssh_key_seed = context.get("ssh_key_seed")
    if seed_warnings and not ssh_key_seed.warnings:  # the seed file was read (in a worker): said once
        ssh_key_seed.warnings.extend(seed_warnings)
    return output


class _ReadProblems(Exception):
    """Inputs that could not all be read or parsed, or runtimes defined twice: which TrainJobs these leave
    unchecked depends on every input, so the one-process build reports them; and a TrainJob defined twice,
    whose error names the first one's line, in a text only the process that read it holds."""


class _Marshalled(Sequence):
    """A TrainJob's objects as marshal bytes (what a worker sends), a fraction of their size as dicts: a large
    build's output is held this way until it is written, each use reading a fresh copy."""

    __slots__ = ("_data", "_count", "yaml", "identities")

    def __init__(self, data: bytes, count: int, yaml: str | None = None, identities: tuple | None = None):
        self._data, self._count = data, count  # how many: list() asks it first, and should not read them twice
        self.yaml = yaml  # their YAML stream, when the worker rendered it (dump_all)
        self.identities = identities  # their `identity`s, when objects pass through or later checks read them

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index):
        return marshal.loads(self._data)[index]

    def __iter__(self):
        return iter(marshal.loads(self._data))


_OUT_OF_MEMORY = "out of memory"  # what a worker sends instead of its results when it reached the memory bound


def _receive(pipe):
    import pickle

    try:
        received = pipe.recv()
    except (EOFError, pickle.UnpicklingError):  # the worker died; what killed it is on stderr
        raise RuntimeError("a build worker ended unexpectedly") from None
    if isinstance(received, str) and received == _OUT_OF_MEMORY:
        raise MemoryError
    return received


def _read(files, namespace, reader: inputset.Reader) -> tuple[builder.Inputs, dict]:
    """A slice's inputs, and what the parent needs of them to order the TrainJobs of every slice."""
    read_errors, parse_errors = [], []
    documents = reader.documents(files, read_errors)
    inputs = builder.Inputs()
    for parsed in builder.parse(documents, namespace, parse_errors, inputs):
        (inputs.trainjobs if parsed.kind == "TrainJob" else inputs.runtimes).append(parsed)
    return inputs, {
        "read_errors": read_errors,
        "parse_errors": parse_errors,
        "runtimes": inputs.runtimes,
        "keys": [builder.sort_key(trainjob) for trainjob in inputs.trainjobs],
        "documents": len(documents),
        "others": inputs.others,
        "uncompiled": inputs.uncompiled,
        "runtime_inputs": inputs.runtime_inputs,
    }


def _compile(inputs, every_runtime, assigned, compiling: _Compiling, anchored: bool) -> list:
    """(position, errors, an update's refusals among them, notices, the TrainJob's place, (marshal bytes, how many,
    YAML text, their identities when `anchored`) or None) of the TrainJobs `assigned` to this slice."""
    ctx = pipeline.Context(catalog.build(every_runtime, compiling.namespace), **compiling.context)
    compiled = []
    for local, position in assigned:
        trainjob, inputs.trainjobs[local] = inputs.trainjobs[local], None  # its memory free for the output's
        job = builder.compile_trainjob(trainjob, None, ctx, compiling.previous, every_runtime)
        problems, notices, objects = job.errors + job.refusals, job.notices, job.objects
        if objects is not None:  # what the output needs: objects are JSON data, which marshal copies fastest
            origin = trainjob.origin  # plain: quickest to copy
            marks = tuple(locator(origin, path) for path in ANCHORS) if anchored else ()
            trainjob = (trainjob.namespace, trainjob.name, origin.file, origin.index, origin.base, marks)
            named = tuple(map(rendered_identity, objects)) if anchored else None
            objects = (marshal.dumps(objects), len(objects), dump_all(objects), named)
        compiled.append((position, problems, job.refusals, [_placed(notice) for notice in notices], trainjob, objects))
    return compiled


def _placed(notice: Notice) -> Notice:
    """`notice` with its position found where its file's text is at hand, and sent without that text: the
    parent would otherwise read every such file again, alone, to print the notices."""
    position = notice.position()
    if position is None:
        return notice
    origin = notice.origin
    return notice._replace(origin=Origin(origin.file, origin.index, base=origin.base), mark=position[1:])


class Placed(Record):
    """What the output needs of a compiled TrainJob: a few strings, where the model would be copied whole."""

    namespace: str
    name: str
    origin: Origin
    marks: tuple = ()  # the place of each of ANCHORS in its text


def _worker(pipe, work: _Slice, compiling: _Compiling) -> None:
    inputs, summary = _read(work.files, compiling.namespace, inputset.Reader(source.Budget(work.budget)))
    pipe.send(summary)
    try:
        every_runtime, assigned, anchored = pipe.recv()
    except EOFError:  # the parent found errors already, or a problem with the runtimes
        return
    compiled = _compile(inputs, every_runtime, assigned, compiling, anchored)
    pipe.send((compiled, list(getattr(compiling.context.get("ssh_key_seed"), "warnings", ()))))
