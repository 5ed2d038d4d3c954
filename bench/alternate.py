"""Two trainc executables on one command line, run in turn: best and median wall and CPU time of each.

On a machine whose speed moves within minutes, two benchmark runs apart are not comparable; runs alternated one
by one are (the order flips every round, so that neither always goes first):

    python bench/bench.py --keep ...                          # prints the directory it keeps, D
    python bench/alternate.py 16 OLD/bin/trainc NEW/bin/trainc -- --root D/checked-main build D/checked-main/inputs

Each executable is best installed in a virtualenv of its own (`pip install .` of each commit). Output and
messages go to the null device; CPU time is user + system of the process and its children (the workers).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rounds", type=int, help="runs of each")
    parser.add_argument("first", help="a trainc executable")
    parser.add_argument("second", help="another")
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help="-- then trainc's arguments")
    options = parser.parse_args()
    arguments = options.arguments[1:] if options.arguments[:1] == ["--"] else options.arguments
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    found: dict = {options.first: ([], []), options.second: ([], [])}
    for round_ in range(options.rounds):
        order = (options.first, options.second) if round_ % 2 == 0 else (options.second, options.first)
        for executable in order:
            before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run([executable, *arguments], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
            found[executable][0].append(wall)
            found[executable][1].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    for executable, (walls, cpus) in found.items():
        print(
            f"{executable}: wall best {min(walls) * 1000:.1f} median {statistics.median(walls) * 1000:.1f} ms, "
            f"CPU best {min(cpus) * 1000:.1f} median {statistics.median(cpus) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
