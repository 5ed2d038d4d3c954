"""The bound of one trainc run: wall time and address space, set by the operator alone (environment
variables of the process, never a repository's config or an Argo CD Application's `ARGOCD_ENV_*`).

Whatever the CEL engine and the readers miss, a run that passes the bound ends as a clear error naming what
it was doing (the policy and object, when it was evaluating one), exit 1: never a hang, a traceback or a
signal. The run itself is a forked child of a small supervisor, because native code (cel-cpp) is not
interrupted by Python's signals; the child notes what it is doing in a page of memory both share.

    TRAINC_RUN_TIMEOUT   seconds of wall time (default 600; 0: none)
    TRAINC_RUN_MEMORY    bytes of address space, as a quantity (default 4Gi; 0: none)
"""

from __future__ import annotations

import os
import sys

TIMEOUT_ENV, MEMORY_ENV = "TRAINC_RUN_TIMEOUT", "TRAINC_RUN_MEMORY"
DEFAULT_TIMEOUT, DEFAULT_MEMORY = 600, 4 << 30
_NOTE_SIZE = 4096
_note = None  # the shared page, in a supervised run


def doing(what: str) -> None:
    """Note what the run is doing now, for the bound's message (a few hundred nanoseconds)."""
    if _note is not None:
        data = what.encode(errors="replace")[:_NOTE_SIZE - 1]
        _note[:len(data) + 1] = data + b"\0"


def _limits(environ) -> tuple[float, int]:
    """(seconds, bytes) from the environment; a value that does not read is a usage error."""
    timeout, memory = environ.get(TIMEOUT_ENV, ""), environ.get(MEMORY_ENV, "")
    try:
        seconds = float(timeout) if timeout.strip() else DEFAULT_TIMEOUT
        if not seconds >= 0 or seconds == float("inf"):
            raise ValueError
    except ValueError:
        raise SystemExit(f"Error: {TIMEOUT_ENV}={timeout!r}: must be a number of seconds (0: none)")
    if not memory.strip():
        return seconds, DEFAULT_MEMORY
    from .k8s.quantity import parse

    try:
        amount = parse(memory.strip())
        if amount.sign() < 0:
            raise ValueError
        size = amount.saturated()
    except ValueError:
        raise SystemExit(f"Error: {MEMORY_ENV}={memory!r}: must be a quantity of bytes, e.g. 4Gi "
                         "(0: none)")
    return seconds, size


def supervised(run) -> None:
    """Call `run()` (the command line) in a child bounded by the operator's limits; exit as it exits, or with
    the bound's error."""
    global _note
    seconds, size = _limits(os.environ)
    if not seconds and not size or _verb(sys.argv[1:]) == "run":  # `run` starts the user's own processes
        run()
        return
    import mmap
    import select
    import signal

    _note = mmap.mmap(-1, _NOTE_SIZE)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                pass  # the child meets it again and reports it
    pid = os.fork()
    if pid == 0:
        import resource

        if size:
            resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if seconds:  # a backstop should the supervisor itself be killed: CPU time never exceeds wall time
            resource.setrlimit(resource.RLIMIT_CPU, (int(seconds) + 1, int(seconds) + 2))
        try:
            run()
        except MemoryError:
            _report(f"ran out of the memory bound ({MEMORY_ENV}={size} bytes)")
            os._exit(1)
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child gets it from the terminal and answers 130
    forwarded = []

    def forward(number, _frame):  # a supervisor told to stop stops its child, and leaves no orphan
        forwarded.append(number)
        os.kill(pid, number)

    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, forward)
    status = _wait(pid, seconds, select)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _report(f"ran past the time bound ({TIMEOUT_ENV}={seconds:g} seconds)")
        raise SystemExit(1)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in forwarded:
        raise SystemExit(128 + os.WTERMSIG(status))
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        cause = ("was killed, likely for memory" if number == signal.SIGKILL
                 else f"crashed ({signal.Signals(number).name})")
        _report(cause)
        raise SystemExit(1)
    raise SystemExit(os.WEXITSTATUS(status))


def _verb(arguments: list) -> str | None:
    return next((argument for argument in arguments if not argument.startswith("-")), None)


def _wait(pid: int, seconds: float, select):
    """The child's wait status, or None past `seconds` (0: no limit)."""
    if not seconds:
        return os.waitpid(pid, 0)[1]
    handle = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([handle], [], [], seconds)
    finally:
        os.close(handle)
    return os.waitpid(pid, 0)[1] if ready else None


def _report(what: str) -> None:
    noted = bytes(_note[:_NOTE_SIZE]).split(b"\0", 1)[0].decode(errors="replace") if _note is not None else ""
    where = f" while evaluating {noted}" if noted else ""
    text = (f"Error: the run {what}{where}; nothing was written. The operator sets the bound with "
            f"{TIMEOUT_ENV} and {MEMORY_ENV}.\n")
    try:
        os.write(2, text.encode(errors="replace"))
    except OSError:
        pass  # no stderr: the exit status alone says it
