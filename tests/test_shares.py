"""Work spread over processes (`trainc.shares`): the results of one process in its order, small work kept in
one process, a helper's exception raised here. (A helper's crash or a run past its bound: tests/policy/
test_spread.py, where the run's message names what the helper was evaluating.)"""

from __future__ import annotations

import os

import pytest

from trainc import bounds, shares

helpers = pytest.mark.skipif(not bounds.HELPERS, reason="helpers are forked on Linux only")


def test_shares_are_contiguous_about_equal_and_not_too_small():
    assert shares.shares(list(range(2 * shares.MIN_SHARE - 1)), 4) == [list(range(2 * shares.MIN_SHARE - 1))]
    assert [len(share) for share in shares.shares(list(range(1000)), 2)] == [500, 500]
    assert [len(share) for share in shares.shares(list(range(1000)), 3)] == [333, 333, 334]
    assert [len(share) for share in shares.shares(list(range(1000)), 8, min_share=300)] == [333, 333, 334]
    assert sum(shares.shares(list(range(1000)), 8), []) == list(range(1000))


@helpers
def test_each_share_is_worked_by_its_own_process_and_the_results_come_in_order():
    parent = os.getpid()

    def work(share):
        return [(unit * unit, os.getpid() == parent) for unit in share]

    found = shares.spread(list(range(300)), work, 3)
    assert [value for part in found for value, _ in part] == [unit * unit for unit in range(300)]
    assert [{here for _, here in part} for part in found] == [{True}, {False}, {False}]  # the first share is ours


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
def test_a_helpers_exception_is_raised_here(raised, expected):
    def work(share):
        if 150 in share:
            raise raised("met in the helper")
        return len(share)

    with pytest.raises(expected, match=f"^({raised.__name__}: )?met in the helper$"):
        shares.spread(list(range(200)), work, 2)
