"""`trainc build` on several cores, with the output and errors of a one-core build, byte for byte.

Reading, checking and compiling TrainJobs is independent work, but the order of the output, the
runtimes a TrainJob may use and which TrainJob is a repeat depend on all the inputs. So each worker
(a forked process: it starts with trainc already imported) reads a contiguous slice of the input
files and sends back its errors, runtimes and the sort keys of its TrainJobs; the parent orders them
all as a one-core build does and hands each worker back the TrainJobs it holds, with their output
positions and every runtime; the workers compile them into a file each, and the parent passes the
rendered text on in output order once no worker found an error. Errors come back as objects and are
reported in one-core order. Small builds stay in one process: forking and the exchange cost about
as much as compiling a few dozen TrainJobs.
"""

from __future__ import annotations

import os

import sys

from . import build as builder
from . import catalog, emit, pipeline
from .errors import InputErrors

MIN_FILES = 64  # fewer input files than this are built in one process (TRAINC_PARALLEL_MIN_FILES)


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def build(paths, runtime_paths, write, *, workers: int, namespace: str = "default",
          ssh_key_seed: bytes | None = None, runtime_snapshot: bool = False, previous=None) -> builder.Output:
    """Compile as `build.build` does, passing `write(namespace, name, text)` each TrainJob's rendered YAML in
    output order; raises the same errors. `previous` (update checks) and stdin keep the build in one process."""
    slices = None
    if workers > 1 and previous is None and "-" not in paths and _can_fork():
        from . import source

        slices = _slices(source.iter_files(list(paths)), workers)
    if slices is None:
        return builder.build(paths, runtime_paths, namespace=namespace, ssh_key_seed=ssh_key_seed,
                             previous=previous, runtime_snapshot=runtime_snapshot,
                             sink=lambda trainjob, objects: write(trainjob.namespace, trainjob.name, emit.dump(objects)))
    return _build(slices, runtime_paths, write, namespace, ssh_key_seed, runtime_snapshot)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _slices(files: list[str], workers: int) -> list[list[str]] | None:
    """Contiguous slices of `files` of about equal size in bytes, one per worker; None when too few files."""
    if len(files) < max(workers, int(os.environ.get("TRAINC_PARALLEL_MIN_FILES", MIN_FILES))):
        return None
    sizes = []
    for file in files:
        try:
            sizes.append(os.path.getsize(file))
        except OSError:  # reported when it is read
            sizes.append(0)
    total, slices, start, done = sum(sizes), [], 0, 0
    for end, size in enumerate(sizes, 1):
        done += size
        if done * workers >= total * (len(slices) + 1) and len(slices) < workers - 1:
            slices.append(files[start:end])
            start = end
    slices.append(files[start:])
    return [each for each in slices if each]


def _build(slices, runtime_paths, write, namespace, ssh_key_seed, runtime_snapshot) -> builder.Output:
    import multiprocessing
    import tempfile

    context = multiprocessing.get_context("fork")
    for stream in (sys.stdout, sys.stderr):  # or a worker would write out a copy of what is buffered
        if stream is not None:
            stream.flush()
    workers, done = [], False
    try:
        for files in slices:
            spool = tempfile.TemporaryFile()  # inherited by the fork; the parent reads what the worker wrote
            ours, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(theirs, files, spool.fileno(), namespace,
                                                            ssh_key_seed, runtime_snapshot), daemon=True)
            process.start()
            theirs.close()
            workers.append((process, ours, spool))
        output = _merge([pipe for _, pipe, _ in workers], [spool for _, _, spool in workers], runtime_paths, write,
                        namespace)
        done = True
        return output
    finally:
        for process, pipe, spool in workers:
            if not done:  # an error, found by the parent or a worker: the others' work is not needed
                process.terminate()
            process.join()
            pipe.close()
            spool.close()


def _merge(pipes, spools, runtime_paths, write, namespace) -> builder.Output:
    loaded = [_receive(pipe) for pipe in pipes]  # (read errors, parse errors, sort keys, runtimes) per worker
    errors = [error for read_errors, _, _, _ in loaded for error in read_errors]
    runtime_documents = builder._documents(runtime_paths, errors)
    errors += [error for _, parse_errors, _, _ in loaded for error in parse_errors]
    _, more_runtimes = builder._load((), runtime_documents, namespace, errors)  # raises every error so far
    runtimes = [runtime for *_, theirs in loaded for runtime in theirs] + more_runtimes
    keys, owners = [], []
    for worker, (_, _, their_keys, _) in enumerate(loaded):
        keys += their_keys
        owners += [(worker, local) for local in range(len(their_keys))]
    catalog.build(runtimes, namespace)  # runtimes defined twice are an error before any TrainJob is compiled
    order = builder.in_order(keys)
    assigned = [[] for _ in pipes]
    for position, (index, first) in enumerate(order):
        worker, local = owners[index]
        assigned[worker].append((local, position, first))
    for pipe, theirs in zip(pipes, assigned):
        pipe.send((runtimes, theirs))
    output, errors = builder.Output(trainjobs=len(keys), runtimes=len(runtimes)), []
    builder.check_runtimes(runtimes, None, output, errors)
    results = [None] * len(order)
    for worker, pipe in enumerate(pipes):
        for position, problems, notices, offset, length in _receive(pipe):
            results[position] = (problems, notices, worker, offset, length)
    for problems, notices, *_ in results:
        errors += problems
        output.notices += notices
    if errors:
        raise InputErrors(errors)
    for (index, _), (_, _, worker, offset, length) in zip(order, results):
        if length is not None:
            namespace, name = keys[index][:2]
            write(namespace, name, os.pread(spools[worker].fileno(), length, offset).decode("utf-8"))
    return output


def _receive(pipe):
    try:
        return pipe.recv()
    except EOFError:  # the worker died; what killed it is on stderr
        raise RuntimeError("a build worker ended unexpectedly") from None


def _worker(pipe, files, spool: int, namespace, ssh_key_seed, runtime_snapshot) -> None:
    read_errors, parse_errors = [], []
    documents = builder._documents(files, read_errors)
    trainjobs, runtimes = [], []
    for parsed in builder._parse(documents, namespace, parse_errors):
        (trainjobs if parsed.kind == "TrainJob" else runtimes).append(parsed)
    pipe.send((read_errors, parse_errors, [builder.sort_key(trainjob) for trainjob in trainjobs], runtimes))
    try:
        every_runtime, assigned = pipe.recv()
    except EOFError:  # the parent found errors already, or a problem with the runtimes
        return
    ctx = pipeline.Context(catalog.build(every_runtime, namespace), ssh_key_seed, runtime_snapshot)
    results, offset = [], 0
    with os.fdopen(spool, "wb", closefd=False) as out:
        for local, position, first in assigned:
            problems, notices, objects = builder.compile_one(trainjobs[local], first, ctx, None, every_runtime)
            text = emit.dump(objects).encode("utf-8") if objects is not None else None
            if text is not None:
                out.write(text)
            results.append((position, problems, notices, offset, None if text is None else len(text)))
            offset += len(text or b"")
    pipe.send(results)
