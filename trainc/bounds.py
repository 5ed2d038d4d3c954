"""The bound of one trainc run: wall time and address space, set by the operator alone (environment
variables of the process, never a repository's config or an Argo CD Application's `ARGOCD_ENV_*`).

Whatever the CEL engine and the readers miss, a run that passes the bound ends as a clear error naming what
it was doing (the policy and object, when it was evaluating one), exit 1: never a hang, a traceback or a
signal. The run holds its bound itself (an address-space limit, a wall-time timer whose handler reports) until it
first compiles the repository's own CEL (a policy, a house rule: `supervise`), or until its settings say it will
(`trainc.cli.call.options`, before the engine is imported: a child forked that small copies few of its parent's
pages); from there it goes on in a forked child of a small supervisor, because native code (cel-cpp) is not
interrupted by Python's signals and may crash.
The child notes what it is doing in a page of memory both share. Forking a run only where it meets such
programs keeps the others free of the fork's cost (about a fifth of a one-TrainJob build).

    TRAINC_RUN_TIMEOUT   seconds of wall time (default 600; 0: none)
    TRAINC_RUN_MEMORY    bytes of address space, as a quantity (default 4Gi; 0: none)
"""

from __future__ import annotations

import errno
import os
import sys
from contextlib import suppress
from functools import cache

TIMEOUT_ENV, MEMORY_ENV = "TRAINC_RUN_TIMEOUT", "TRAINC_RUN_MEMORY"
DEFAULT_TIMEOUT, DEFAULT_MEMORY = 600, 4 << 30
_RESERVE = 16 << 20  # address space kept back past the memory bound, for the run to report reaching it
_NOTE_SIZE = 4096
_note = None  # the shared page, in a supervised run
_armed = None  # (deadline on the monotonic clock, seconds, bytes) in a bounded command line


def doing(what: str) -> None:
    """Note what the run is doing now, for the bound's message (a few hundred nanoseconds)."""
    if _note is not None:
        data = what.encode(errors="replace")[: _NOTE_SIZE - 1]
        _note[: len(data) + 1] = data + b"\0"


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
        raise SystemExit(f"Error: {MEMORY_ENV}={memory!r}: must be a quantity of bytes, e.g. 4Gi (0: none)")
    return seconds, size


def supervised(run, bounded: bool = True) -> None:
    """Call `run()` (the command line) bounded by the operator's limits (unless not `bounded`: a command that
    starts the user's own processes), in this process until it calls `supervise`; exit as it exits, or with the
    bound's error."""
    global _armed
    seconds, size = _limits(os.environ)
    if not bounded or not seconds and not size:
        run()
        return
    import resource
    import signal
    import time

    if size:  # the hard limit keeps a reserve back, released to report reaching the bound (`release_reserve`)
        resource.setrlimit(resource.RLIMIT_AS, (size, size + _RESERVE))
    if seconds:  # a backstop should the timer's handler never run: CPU time never exceeds wall time
        resource.setrlimit(resource.RLIMIT_CPU, (int(seconds) + 1, int(seconds) + 2))
        signal.signal(signal.SIGALRM, _past_time)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    _armed = (time.monotonic() + seconds, seconds, size)
    try:
        run()
    except (MemoryError, ImportError, OSError, SystemError) as exc:
        if not out_of_memory(exc):
            raise
        release_reserve()
        _report(f"ran out of the memory bound ({MEMORY_ENV}={size} bytes)")
        os._exit(1)


def out_of_memory(exc: BaseException) -> bool:
    """Whether `exc` says the process ran out of address space: Python's MemoryError, a system call's ENOMEM, a
    native module (cel-cpp's, imported when a run first needs it) the dynamic loader could not map, or the
    interpreter's own C code failing to allocate without saying so (a SystemError of a NULL returned without an
    exception: what CPython raises then, as a sweep of bounds from 20 to 70 MiB over every route found)."""
    text = str(exc)
    if isinstance(exc, ImportError):
        return "failed to map segment" in text or "annot allocate memory" in text
    if isinstance(exc, SystemError):
        return "without exception set" in text or "without setting an exception" in text
    return isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM)


def release_reserve() -> None:
    """Let this process use the address space kept back past the memory bound: only to say it reached it."""
    if _armed is not None and _armed[2]:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (_armed[2] + _RESERVE, _armed[2] + _RESERVE))


def supervise() -> None:
    """Go on in a forked child, this process waiting for it within the bound: called before the repository's
    own CEL programs are compiled, which run in native code. Does nothing outside a bounded command line (the
    Python API, tests) or once supervised."""
    global _note
    if _armed is None or _note is not None:
        return
    import mmap
    import select
    import signal
    import time

    deadline, seconds, size = _armed
    reap_helpers()  # the Kueue and cost stages' (policies only among the inputs): this process's children
    _note = mmap.mmap(-1, _NOTE_SIZE)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with suppress(OSError, ValueError):  # the child meets it again and reports it
                stream.flush()
    if seconds:
        signal.setitimer(signal.ITIMER_REAL, 0)  # from here the supervisor keeps the time
    pid = os.fork()
    if pid == 0:
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child gets it from the terminal and answers 130
    forwarded = []

    def forward(number, _frame):  # a supervisor told to stop stops its child, and leaves no orphan
        forwarded.append(number)
        os.kill(pid, number)

    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, forward)
    status = _wait(pid, max(deadline - time.monotonic(), 1e-6) if seconds else 0, select)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        _report(f"ran past the time bound ({TIMEOUT_ENV}={seconds:g} seconds)")
        os._exit(1)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in forwarded:
        os._exit(128 + os.WTERMSIG(status))
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        cause = (
            "was killed, likely for memory" if number == signal.SIGKILL else f"crashed ({signal.Signals(number).name})"
        )
        _report(cause)
        os._exit(1)
    os._exit(os.WEXITSTATUS(status))  # the child wrote everything: nothing of the interrupted run is left to do


HELPERS = sys.platform.startswith("linux")  # where a helper can be tied to its parent's life (prctl)


def fork_helper():
    """os.fork() for a helper that evaluates beside this process under the run's bound (Linux: `HELPERS`): it
    ends when this process ends (`fork_tied`) and notes what it does in a page of its own that this process
    reads should it crash (`helper_crashed`). Returns (pid, page) here and (0, page) in the helper; page is None
    outside a supervised run."""
    global _note
    import mmap

    page = mmap.mmap(-1, _NOTE_SIZE) if _note is not None else None
    pid = fork_tied()
    if pid == 0:
        _note = page
    return pid, page


def fork_tied() -> int:
    """os.fork() for a process that ends when this one ends, however it ends (its bound, a signal, a crash): on
    Linux (`HELPERS`) the kernel's parent-death signal kills it, so that no worker or helper of a stopped run
    goes on, nor says anything after the run's last word. Elsewhere a plain fork."""
    import signal

    prctl = _prctl() if HELPERS else None
    parent = os.getpid()
    pid = os.fork()
    if pid == 0 and prctl is not None:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent ended before the signal was set
            os._exit(1)
    return pid


@cache
def _prctl():
    """libc's prctl, found once in the parent: importing ctypes (about 3 ms) in every forked process delays each."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl


_ending: list = []  # (parent, helper) of helpers that sent all they had to, perhaps still freeing their memory


def ending(pid: int) -> None:
    """A helper that sent all its results: its exit (freeing its memory takes milliseconds) is waited for later,
    at the next spread, before the run forks under its supervisor, or as the command exits (`reap_helpers`)."""
    _ending.append((os.getpid(), pid))


def reap_helpers() -> None:
    """Wait for the helpers `ending` names (ended by now), those of this process: a process forked since holds
    the list too, but they are not its children. A long-lived process (the Python API) keeps none beyond its
    next spread, and a command's CPU time and memory count every helper's."""
    while _ending:
        parent, pid = _ending.pop()
        if parent == os.getpid():
            os.waitpid(pid, 0)


def helper_note(page) -> None:
    """The note of a helper (`fork_helper`) made the run's, before this process ends the run for what the helper
    met: the bound's message then names what the helper was evaluating."""
    if _note is not None and page is not None:
        _note[:] = page[:]


def helper_crashed(page, number: int) -> None:
    """A helper ended by signal `number`: end this process the same way, with the helper's note as the run's,
    so the supervisor reports the crash and what it was evaluating as if this process had met it."""
    import signal

    helper_note(page)
    if number != signal.SIGKILL:
        signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)
    os._exit(128 + number)  # a signal this process cannot receive: still no result


def _past_time(_number, _frame) -> None:
    """The timer's handler, before any supervision: Python code is interrupted between two instructions."""
    _report(f"ran past the time bound ({TIMEOUT_ENV}={_armed[1]:g} seconds)")
    os._exit(1)


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
    text = (
        f"Error: the run {what}{where}; nothing was written. The operator sets the bound with "
        f"{TIMEOUT_ENV} and {MEMORY_ENV}.\n"
    )
    with suppress(OSError):  # no stderr: the exit status alone says it
        os.write(2, text.encode(errors="replace"))
