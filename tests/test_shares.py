"""Work spread over processes (`trainc.shares`): the results of one process in its order, each process taking
parts as it goes, small work kept in one process, a helper's exception raised here, helpers reaped. (A helper's
crash or a run past its bound: tests/policy/test_spread.py, where the run's message names what the helper was
evaluating.)"""

from __future__ import annotations

import os
import time

import pytest

from helpers import bounded, checked_repository

from trainc import bounds, shares

helpers = pytest.mark.skipif(not bounds.HELPERS, reason="helpers are forked on Linux only")


def test_shares_are_contiguous_about_equal_and_not_too_small():
    assert shares.shares(list(range(2 * shares.MIN_SHARE - 1)), 4) == [list(range(2 * shares.MIN_SHARE - 1))]
    assert [len(share) for share in shares.shares(list(range(1000)), 2)] == [500, 500]
    assert [len(share) for share in shares.shares(list(range(1000)), 3)] == [333, 333, 334]
    assert [len(share) for share in shares.shares(list(range(1000)), 8, min_share=300)] == [333, 333, 334]
    assert sum(shares.shares(list(range(1000)), 8), []) == list(range(1000))


def arrived(tmp_path, processes: int):
    """A barrier for `work`: each process's first part waits until `processes` processes have taken one (so every
    process takes a part, whoever forks first). Returns the function to call at the start of each part."""

    def arrive():
        own = tmp_path / str(os.getpid())
        if not own.exists():
            own.write_text("")
            for _ in range(3000):
                if len(list(tmp_path.iterdir())) >= processes:
                    return
                time.sleep(0.01)
            pytest.fail("the other processes never took a part")

    return arrive


@helpers
def test_every_process_takes_parts_and_the_results_come_in_order(tmp_path):
    parent, arrive = os.getpid(), arrived(tmp_path, 3)

    def work(part):
        arrive()
        return [(unit * unit, os.getpid()) for unit in part]

    found = shares.spread(list(range(300)), work, 3)
    assert [value for part in found for value, _ in part] == [unit * unit for unit in range(300)]
    assert len(found) == 3 * shares.PARTS_EACH and all(len({pid for _, pid in part}) == 1 for part in found)
    takers = {part[0][1] for part in found}
    assert len(takers) == 3 and parent in takers


@helpers
def test_a_slower_process_takes_fewer_parts(tmp_path):
    parent, arrive = os.getpid(), arrived(tmp_path, 2)

    def work(part):
        arrive()
        if os.getpid() == parent:
            time.sleep(1)  # the helper meanwhile takes every part left
        return [os.getpid()] * len(part)

    found = shares.spread(list(range(200)), work, 2)
    assert sum(part == [parent] * len(part) for part in found) == 1 and len(found) == 2 * shares.PARTS_EACH


@helpers
def test_helpers_are_reaped_at_the_next_spread(tmp_path):
    arrive = arrived(tmp_path, 2)

    def work(part):
        arrive()
        return os.getpid()

    helpers = set(shares.spread(list(range(200)), work, 2)) - {os.getpid()}
    assert len(helpers) == 1
    assert shares.spread([1], len, 2) == [1]
    for pid in helpers:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_small_work_stays_in_this_process(monkeypatch):
    monkeypatch.setattr(shares, "_start", lambda *args: pytest.fail("forked for small work"))
    assert shares.spread(list(range(100)), len, 4) == [100]
    assert shares.spread(list(range(1000)), len, 1) == [1000]
    assert shares.spread(list(range(1000)), len, 4, min_share=600) == [1000]


class Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no")


@helpers
@pytest.mark.parametrize(
    "raised, expected",
    [(ValueError, ValueError), (Unpicklable, RuntimeError)],  # one that does not pickle: in its words
)
def test_a_helpers_exception_is_raised_here(raised, expected, tmp_path):
    parent, arrive = os.getpid(), arrived(tmp_path, 2)

    def work(part):
        arrive()
        if os.getpid() != parent:
            raise raised("met in the helper")
        return len(part)

    with pytest.raises(expected, match=f"^({raised.__name__}: )?met in the helper$"):
        shares.spread(list(range(200)), work, 2)


ADOPTER = """\
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: a helper left behind comes to us
command = subprocess.run([sys.executable, "-c", sys.argv[1]], check=True)
adopted = 0
for _ in range(50):
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    adopted += pid != 0
    time.sleep(0.01)
print(adopted)
"""

COMMAND = """\
import os
from trainc import shares
from trainc.cli import _exit_now
shares.spread(list(range(200)), lambda part: os.getpid(), 2)
_exit_now(0)
"""


@helpers
def test_a_command_waits_for_its_helpers_as_it_exits():
    """Else a helper still ending is adopted by another process, and its CPU time and memory are not the
    command's (`getrusage` of whoever ran it)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ADOPTER, COMMAND], capture_output=True, text=True, check=True)
    assert done.stdout == "0\n", done.stderr


@helpers
def test_helpers_of_the_stages_before_supervision_are_the_supervisors(tmp_path):
    """A run whose first CEL program is compiled at the policies stage (a house rule) goes on in a forked child,
    after the Kueue and cost stages spread: their helpers are reaped before, and the child reaps none of them."""
    checked_repository(tmp_path, cap="1000", quota="1000")
    body = f"""\
from trainc import engine
from trainc.validation import cost, kueue
kueue.JUDGED_TOGETHER = cost.PRICED_TOGETHER = 1
root = {str(tmp_path)!r}
options = engine.Options(workers=2, kueue_paths=(root + "/queues.yaml",), config=root + "/.trainc.yaml")
result = engine.run(engine.Inputs((root + "/jobs",)), options)
print(len(result.costs), "priced,", len(result.errors), "errors")
"""
    done = bounded(body)
    assert (done.returncode, done.stdout) == (0, "12 priced, 0 errors\n"), done.stderr
