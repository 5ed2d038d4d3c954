"""Independent work on several cores, with the results of one process in its order.

The checks after the build judge each TrainJob on its own (Kueue's placement and standing, its cost, the
policies' verdicts on what it renders) against what was read before any (the queues, the price table, the
policies). So `spread` cuts the units into contiguous parts, several per process, and numbers them in a pipe:
the parent and each forked helper (it starts with everything read and compiled) take the next number until none
is left, and each helper sends back the results of the parts it took (pickled as each is done, so that pickling
is part of the work shared out), which the parent puts in part order. A process that goes faster takes more: a
helper starts late and copies the pages it writes, and one process of a busy machine may get less of a core. A
helper is under the run's bound (`bounds.fork_helper`): should one crash, the run ends as if this process had
crashed doing what the helper was; an exception a helper raises is raised here. A helper that has sent all its
results is left to end on its own (freeing its memory takes milliseconds), reaped later (`bounds.ending`). Small
work stays in one process: a fork and the exchange cost about as much as judging a few dozen TrainJobs.
"""

from __future__ import annotations

import os
import sys

from . import bounds

MIN_SHARE = 64  # units a process is given at least
PARTS_EACH = 8  # parts per process: enough for the faster processes to take over a slower one's last ones


def spread(units: list, work, workers: int, min_share: int = MIN_SHARE) -> list:
    """[work(part), ...] over contiguous parts of `units`, in order: on up to `workers` processes when each
    gets `min_share` units or more, else [work(units)]. `work` returns what pickles."""
    bounds.reap_helpers()
    processes = len(shares(units, workers, min_share)) if bounds.HELPERS and hasattr(os, "fork") else 1
    if processes == 1:
        return [work(units)]
    import pickle  # here: work in one process never needs it

    parts = shares(units, min(processes * PARTS_EACH, len(units), 255), 1)  # numbered by one byte each
    for stream in (sys.stdout, sys.stderr):  # or a helper would write out a copy of what is buffered
        if stream is not None:
            stream.flush()
    numbers, pending = os.pipe()
    os.write(pending, bytes(range(len(parts))))  # at most 255 bytes: never more than a pipe holds
    helpers, done = [], False
    try:
        for _ in range(processes - 1):
            helpers.append(_start(work, parts, numbers, pending))
        os.close(pending)
        pending = None
        found = dict(_taken(work, parts, numbers))
        while helpers:
            pid, page, stream = helpers.pop(0)
            with stream:
                sent = stream.read()
            if not _whole(sent):  # it met something, or ended before it said all
                status = os.waitpid(pid, 0)[1]
                if os.WIFSIGNALED(status):
                    bounds.helper_crashed(page, os.WTERMSIG(status))
                if sent[:1] != b"-":
                    raise RuntimeError("a helper process ended unexpectedly")
                bounds.helper_note(page)  # past the memory bound, say: the run's message names what the helper did
                raise pickle.loads(sent[1:])
            bounds.ending(pid)
            found.update((number, pickle.loads(result)) for number, result in pickle.loads(sent[9:]))
        done = True
        return [found[number] for number in range(len(parts))]
    finally:
        os.close(numbers)
        if pending is not None:
            os.close(pending)
        if not done:
            import signal

            for pid, _, stream in helpers:
                os.kill(pid, signal.SIGKILL)
                stream.close()
                os.waitpid(pid, 0)


def _whole(sent: bytes) -> bool:
    """Whether a helper sent all its results: "+", their length, then them."""
    return sent[:1] == b"+" and int.from_bytes(sent[1:9], "big") == len(sent) - 9


def shares(units: list, workers: int, min_share: int = MIN_SHARE) -> list[list]:
    """`units` cut into up to `workers` contiguous shares of about equal size, none smaller than `min_share`."""
    count = max(1, min(workers, len(units) // min_share))
    cuts = [len(units) * part // count for part in range(count + 1)]
    return [units[start:end] for start, end in zip(cuts, cuts[1:])]


def _taken(work, parts: list, numbers: int, pickled: bool = False) -> list:
    """[(number, work(part)), ...] of the parts this process takes from the pipe `numbers` until it is empty; each
    result pickled with `pickled` (a helper's)."""
    import pickle  # imported already where `pickled` (spread's helpers)

    found = []
    while taken := os.read(numbers, 1):
        result = work(parts[taken[0]])
        found.append((taken[0], pickle.dumps(result, pickle.HIGHEST_PROTOCOL) if pickled else result))
    return found


def _start(work, parts: list, numbers: int, pending: int):
    """A forked helper taking `parts` by their numbers: (pid, its note page, the stream its results come back on:
    "+", their length and the pickled results, or "-" and the exception it raised)."""
    import pickle

    read, write = os.pipe()
    pid, page = bounds.fork_helper()
    if pid == 0:  # the helper: never returns into the parent's code, nor runs its exit handlers
        try:
            os.close(read)
            os.close(pending)  # the pipe ends empty once the parent has closed it too
            try:
                results = pickle.dumps(_taken(work, parts, numbers, pickled=True), pickle.HIGHEST_PROTOCOL)
                sent = b"+" + len(results).to_bytes(8, "big") + results
            except BaseException as exc:  # noqa: BLE001 - raised again in the parent, as one process would
                if bounds.out_of_memory(exc):  # the parent says so, with the bound's error; room to send it
                    bounds.release_reserve()
                try:
                    sent = b"-" + pickle.dumps(exc)
                except Exception:  # noqa: BLE001 - an exception that does not pickle: its words
                    sent = b"-" + pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
            with os.fdopen(write, "wb") as stream:
                stream.write(sent)
        finally:
            os._exit(0)
    os.close(write)
    return pid, page, os.fdopen(read, "rb")
