"""Admission on several cores, with the verdicts of a one-process admission in its order.

Each object's admission is independent of the others' (the policies, params, Namespaces and RBAC objects are
read before any), so the objects are cut into parts (`trainc.shares`): each process admits the parts it takes
and returns their errors, notices and the authorizer checks it could not evaluate, put in the order of the parts.
"""

from __future__ import annotations

from .. import shares
from . import vap


def admit(admission: vap.Admission, units: list, subjects, workers: int, outcome: vap.Outcome) -> None:
    """Admit the Subjects that `subjects(unit)` yields for each of `units`, in order, into `outcome`: on up to
    `workers` processes when there are enough of them."""

    def work(share: list) -> tuple:
        own = vap.Outcome()
        for unit in share:
            for subject in subjects(unit):
                admission.admit(subject, own)
        return own.errors, own.notices, admission.unanswered()

    for errors, notices, unevaluated in shares.spread(units, work, workers):
        outcome.errors += errors
        outcome.notices += notices
        admission.unanswered_too(unevaluated)
