"""The wall and CPU time of each stage of one trainc run (`engine.RUN`), in milliseconds, best of --repeat.

    python bench/stages.py [--repeat N] [--python PY] -- build --jobs 1 inputs

Runs `trainc ARGS` in a fresh Python (PY, default this one; its own trainc, even run from a checkout) N
times, the stages of each run timed in its process, and prints the best of each stage over the runs, then the
whole run's. CPU time is the process's own and that of the children it waited for (a parallel build's workers,
the shares' helpers), across the fork of a supervised run (`trainc.bounds`), whose stage loses what it used
before the fork. Where the machine's speed moves, compare two installs by giving each its own PY in turn, as
bench/alternate.py does for whole commands.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys

_TIMED = r"""
import os, resource, sys, time
import trainc.engine as engine

seen = {"pid": os.getpid(), "offset": 0.0, "last": 0.0}

def cpu():
    # a run that compiles a repository's CEL goes on in a forked child (trainc.bounds), whose own count starts
    # at nought: it is added to what the process had used when last asked
    if os.getpid() != seen["pid"]:
        seen.update(pid=os.getpid(), offset=seen["last"])
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    seen["last"] = seen["offset"] + own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return seen["last"]

rows, start = [], time.perf_counter()

def timed(stage):
    def run(state):
        wall, used = time.perf_counter(), cpu()
        stage(state)
        rows.append((stage.__name__, time.perf_counter() - wall, cpu() - used))
    run.__name__ = stage.__name__
    return run

engine.RUN = tuple(map(timed, engine.RUN))
sys.argv = ["trainc", *sys.argv[1:]]
import trainc.cli.call
trainc.cli.call.quick_exit = lambda: None  # the run's end is timed too: no exit without tearing down
from trainc.cli import main
try:
    main()
except SystemExit:
    pass
finally:
    rows.append(("total", time.perf_counter() - start, cpu()))
    os.write(int(os.environ["STAGES_FD"]), repr(rows).encode())
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("args", nargs=argparse.REMAINDER)
    given = parser.parse_args()
    args = given.args[1:] if given.args[:1] == ["--"] else given.args
    best: dict = {}
    # bytecode cached, as an installed trainc has its .pyc files (alternate.py, bench.py)
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    for _ in range(given.repeat):
        read, write = os.pipe()
        subprocess.run(
            [given.python, "-P", "-c", _TIMED, *args],  # -P: the trainc of PY, not a checkout in the working folder
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write,),
            env={**env, "STAGES_FD": str(write)},
        )
        os.close(write)
        with os.fdopen(read) as stream:
            for name, wall, used in ast.literal_eval(stream.read() or "[]"):
                was = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(was[0], wall), min(was[1], used))
    print(" ".join(f"{name} {1000 * wall:.0f}/{1000 * used:.0f}" for name, (wall, used) in best.items() if wall > 5e-4))


if __name__ == "__main__":
    main()
