"""Independent work on several cores, with the results of one process in its order.

The checks after the build judge each TrainJob on its own (Kueue's placement and standing, its cost, the
policies' verdicts on what it renders) against what was read before any (the queues, the price table, the
policies). So `spread` cuts the units into contiguous shares, one per process: the parent works through the
first while each forked helper (it starts with everything read and compiled) works through another and sends
back its results, which the parent puts after its own in share order. A helper is under the run's bound
(`bounds.fork_helper`): should one crash, the run ends as if this process had crashed doing what the helper
was; an exception a helper raises is raised here. Small work stays in one process: a fork and the exchange
cost about as much as judging a few dozen TrainJobs.
"""

from __future__ import annotations

import os
import sys

from . import bounds

MIN_SHARE = 64  # units a process is given at least


def spread(units: list, work, workers: int, min_share: int = MIN_SHARE) -> list:
    """[work(share), ...] over contiguous shares of `units`, in order: on up to `workers` processes when each
    gets `min_share` units or more, else [work(units)]. `work` returns what pickles."""
    parts = shares(units, workers, min_share) if bounds.HELPERS and hasattr(os, "fork") else [units]
    if len(parts) == 1:
        return [work(units)]
    import pickle  # here: work in one process never needs it

    for stream in (sys.stdout, sys.stderr):  # or a helper would write out a copy of what is buffered
        if stream is not None:
            stream.flush()
    helpers, done = [], False
    try:
        for share in parts[1:]:
            helpers.append(_start(work, share))
        found = [work(parts[0])]
        while helpers:
            pid, page, stream = helpers[0]
            sent = stream.read()
            stream.close()
            status = os.waitpid(pid, 0)[1]
            del helpers[0]
            if os.WIFSIGNALED(status):
                bounds.helper_crashed(page, os.WTERMSIG(status))
            if not sent:
                raise RuntimeError("a helper process ended unexpectedly")
            kind, value = pickle.loads(sent)
            if kind == "raised":  # past the memory bound, say: the run's message names what the helper did
                bounds.helper_note(page)
                raise value
            found.append(value)
        done = True
        return found
    finally:
        if not done:
            import signal

            for pid, _, stream in helpers:
                os.kill(pid, signal.SIGKILL)
                stream.close()
                os.waitpid(pid, 0)


def shares(units: list, workers: int, min_share: int = MIN_SHARE) -> list[list]:
    """`units` cut into up to `workers` contiguous shares of about equal size, none smaller than `min_share`."""
    count = max(1, min(workers, len(units) // min_share))
    cuts = [len(units) * part // count for part in range(count + 1)]
    return [units[start:end] for start, end in zip(cuts, cuts[1:])]


def _start(work, share: list):
    """A forked helper doing `share`: (pid, its note page, the stream its result comes back on)."""
    import pickle

    read, write = os.pipe()
    pid, page = bounds.fork_helper()
    if pid == 0:  # the helper: never returns into the parent's code, nor runs its exit handlers
        try:
            os.close(read)
            try:
                sent = pickle.dumps(("done", work(share)), pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # noqa: BLE001 - raised again in the parent, as one process would
                if bounds.out_of_memory(exc):  # the parent says so, with the bound's error; room to send it
                    bounds.release_reserve()
                try:
                    sent = pickle.dumps(("raised", exc))
                except Exception:  # noqa: BLE001 - an exception that does not pickle: its words
                    sent = pickle.dumps(("raised", RuntimeError(f"{type(exc).__name__}: {exc}")))
            with os.fdopen(write, "wb") as stream:
                stream.write(sent)
        finally:
            os._exit(0)
    os.close(write)
    return pid, page, os.fdopen(read, "rb")
