"""The `trainc` command line: the click group (`group`) and the console script. Each command is declared in its
module here, `trainc/cli/<verb>.py`, imported only when that command runs or a help lists it, so `trainc build`
builds no other command's options; the options several share are `shared`. A plain `trainc build` is read
without click at all (`plain`). Each verb's flow is its module in trainc/commands/ (exit codes there: 0
success, 1 invalid input, 2 usage)."""

from __future__ import annotations

import os
import sys

from .call import QUICK_EXIT


def __getattr__(name: str):
    """`trainc.cli.cli`, the click group, imported when asked for: the console script reads a plain build
    without it."""
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """The console script: the command line under the operator's run bound (`trainc.bounds`)."""
    import gc

    from .. import bounds
    from . import plain

    # A command is one short run over JSON trees, which hold no cycles: the young objects are still collected,
    # but the whole heap (every TrainJob read so far) is never traversed again and again (about 5% of a build)
    gc.set_threshold(10_000, 10, 1_000_000)
    bounds.supervised(_main, bounded=plain.verb(sys.argv[1:]) != "run")  # `run` starts the user's own processes


def _main() -> None:
    process: dict = {}  # what the command asks of the process it runs in (`call.quick_exit`)
    try:
        from . import plain

        if plain.run(sys.argv[1:], process):
            sys.exit(0)  # as click's standalone mode ends a command
        from .group import cli

        cli.main(prog_name="trainc", obj=process)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit as done:
        if process.get(QUICK_EXIT) and (done.code is None or isinstance(done.code, int)):
            _exit_now(done.code or 0)
        raise


def _exit_now(code: int) -> None:
    """Exit without freeing every object one by one (about 15 ms after a build of 1000 TrainJobs), what is
    buffered written first; returns if that fails, for the usual exit to report it."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    from .. import bounds  # imported already: the console script runs under it

    bounds.reap_helpers()  # so that the command's CPU time and memory count every helper's
    os._exit(code)
