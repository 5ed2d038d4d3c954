"""Admission on several cores, with the verdicts of a one-process admission in its order.

Each object's admission is independent of the others' (the policies, params, Namespaces and RBAC objects are
read before any), so the objects are cut into contiguous shares, one per process: the parent admits the first
while each forked helper (it starts with the policies loaded and compiled) admits another and sends back its
errors, notices and the authorizer checks it could not evaluate; the parent puts them after its own in share
order. A helper is under the run's bound (`bounds.fork_helper`): should one crash, the run ends as if this
process had crashed evaluating what the helper was. Small admissions stay in one process: a fork and the
exchange cost about as much as admitting a few dozen objects.
"""

from __future__ import annotations

import os
import sys

from .. import bounds
from . import vap

MIN_SHARE = 64  # units (a TrainJob's objects, an input object) a process is given at least


def admit(admission: vap.Admission, units: list, subjects, workers: int, outcome: vap.Outcome) -> None:
    """Admit the Subjects that `subjects(unit)` yields for each of `units`, in order, into `outcome`: on up to
    `workers` processes when there are enough of them."""
    shares = _shares(units, workers) if bounds.HELPERS and hasattr(os, "fork") else [units]
    if len(shares) == 1:
        _admit(admission, units, subjects, outcome)
        return
    import pickle  # here: an admission in one process never needs it

    for stream in (sys.stdout, sys.stderr):  # or a helper would write out a copy of what is buffered
        if stream is not None:
            stream.flush()
    helpers, done = [], False
    try:
        for share in shares[1:]:
            helpers.append(_start(admission, share, subjects))
        _admit(admission, shares[0], subjects, outcome)
        while helpers:
            pid, page, stream = helpers[0]
            found = stream.read()
            stream.close()
            status = os.waitpid(pid, 0)[1]
            del helpers[0]
            if os.WIFSIGNALED(status):
                bounds.helper_crashed(page, os.WTERMSIG(status))
            if not found:
                raise RuntimeError("an admission helper ended unexpectedly")
            kind, *sent = pickle.loads(found)
            if kind == "raised":  # past the memory bound, say: the run's message names what the helper evaluated
                bounds.helper_note(page)
                raise sent[0]
            errors, notices, unevaluated = sent
            outcome.errors += errors
            outcome.notices += notices
            admission.unanswered_too(unevaluated)
        done = True
    finally:
        if not done:
            import signal

            for pid, _, stream in helpers:
                os.kill(pid, signal.SIGKILL)
                stream.close()
                os.waitpid(pid, 0)


def _shares(units: list, workers: int) -> list[list]:
    """`units` cut into up to `workers` contiguous shares of about equal size, none smaller than MIN_SHARE."""
    count = max(1, min(workers, len(units) // MIN_SHARE))
    cuts = [len(units) * part // count for part in range(count + 1)]
    return [units[start:end] for start, end in zip(cuts, cuts[1:])]


def _admit(admission: vap.Admission, units: list, subjects, outcome: vap.Outcome) -> None:
    for unit in units:
        for subject in subjects(unit):
            admission.admit(subject, outcome)


def _start(admission: vap.Admission, share: list, subjects):
    """A forked helper admitting `share`: (pid, its note page, the stream its verdicts come back on)."""
    import pickle

    read, write = os.pipe()
    pid, page = bounds.fork_helper()
    if pid == 0:  # the helper: never returns into the parent's code, nor runs its exit handlers
        try:
            os.close(read)
            outcome = vap.Outcome()
            try:
                _admit(admission, share, subjects, outcome)
                sent = pickle.dumps(("done", outcome.errors, outcome.notices, admission.unanswered()))
            except BaseException as exc:  # noqa: BLE001 - raised again in the parent, as one process would
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
