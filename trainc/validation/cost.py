"""What a TrainJob costs, by the project config's price table (`formats.prices`): its hourly rate, and the bound
the cluster enforces on it, `rate × deadline × (1 + the JobSet's maxRestarts)`, or unbounded when nothing
stops it.

The rate of a pod set is, per resource, Kueue's integer over all its pods (`requests.Usage`) divided by the
price's unit (a CPU, a GiB, one) times the price of the flavor Kueue's flavor assigner places it on, else the
table's `default`; a resource priced nowhere costs nothing and is named (`unpriced`). Arithmetic is exact
(rationals from the prices' decimals); only what is shown is rounded, to cents, half up (`money`).
"""

from __future__ import annotations

import math
from fractions import Fraction

from .. import shares
from ..errors import Record
from ..formats import prices as pricetable
from ..k8s.enforced import enforced_bound
from .requests import Job, charges, placed_on


PRICED_TOGETHER = 128  # jobs a process prices at least: fewer are priced in one process (`shares`)


class Cost(Record):
    """One TrainJob's hourly rate (exact), the seconds the cluster lets it run at most (None: unbounded), and the
    resources it requests that the table prices nowhere."""

    hourly: Fraction
    seconds: int | None
    unpriced: tuple = ()

    @property
    def bounded(self) -> Fraction | None:
        return None if self.seconds is None else self.hourly * self.seconds / 3600

    def cel(self, currency: str) -> dict:
        """As house rules and policies read it (`cost`): `hourly`, and `bounded` and `seconds` unless unbounded,
        as CEL doubles and ints (the exact values rounded to the nearest double)."""
        out = {"currency": currency, "hourly": float(self.hourly)}
        if self.seconds is not None:
            out.update(bounded=float(self.bounded), seconds=self.seconds)
        return out


def rate(pod_sets, table: pricetable.Prices, per_unit: dict, scale: int) -> tuple[Fraction, tuple]:
    """(hourly rate, resources priced nowhere) of a job's pod sets (requests.Usage) on the flavors they are placed
    on. Summed in integers: `per_unit` keeps each (flavor, resource)'s price per Kueue integer times `scale`
    (`common_scale`: a multiple of its denominator, so an integer) for the next job; one Fraction is made of the sum."""
    total, unpriced = 0, set()
    for pod_set in pod_sets:
        for resource, amount in pod_set.total.items():
            key = (pod_set.flavors.get(resource), resource)
            price = per_unit.get(key, False)
            if price is False:
                found = table.price(*key)
                price = per_unit[key] = None if found is None else (_per_unit(found, resource) * scale).numerator
            if price is None:
                if amount:
                    unpriced.add(resource)
                continue
            total += price * amount
    return Fraction(total, scale), tuple(sorted(unpriced))


def common_scale(table: pricetable.Prices) -> int:
    """The least integer that makes every price of `table` per Kueue integer an integer: rates summed in integers
    are exact (a Fraction's every addition reduces by a gcd, most of pricing a job)."""
    scale = 1
    for prices in (table.default, *table.flavors.values()):
        for resource, price in prices.items():
            scale = math.lcm(scale, _per_unit(price, resource).denominator)
    return scale


def _per_unit(price, resource: str) -> Fraction:
    """A price per Kueue integer of `resource`, exact."""
    return Fraction(price) / pricetable.unit(resource)


def costs(output, table: pricetable.Prices, others=None, workers: int = 1) -> dict:
    """{(namespace, name): Cost} of every compiled TrainJob of `output` (a build.Output; `others` as
    `requests.jobs` takes them), in output order; many are priced on up to `workers` processes (`shares`)."""

    placed = placed_on(output, others)  # read once, before the shares are cut
    scale = common_scale(table)

    def price(share: list) -> list:
        out, per_unit = [], {}
        for trainjob, _, jobset, _, _, _, usage in charges(output, share, placed):
            hourly, unpriced = rate(usage, table, per_unit, scale)
            out.append(((trainjob.namespace, trainjob.name), Cost(hourly, enforced_bound(jobset), unpriced)))
        return out

    return {
        key: cost for part in shares.spread(list(output.jobs), price, workers, PRICED_TOGETHER) for key, cost in part
    }


class Total(Record):
    """The sum of several jobs' costs: the bound is None (unbounded) when one of them is."""

    jobs: int = 0
    hourly: Fraction = Fraction(0)
    bounded: Fraction | None = Fraction(0)

    def add(self, cost: Cost) -> Total:
        bounded = None if self.bounded is None or cost.bounded is None else self.bounded + cost.bounded
        return Total(self.jobs + 1, self.hourly + cost.hourly, bounded)


def totals(found: list[Job], priced: dict, key) -> dict:
    """{key(job): Total} over the priced jobs of `found`."""
    out: dict = {}
    for job in found:
        cost = priced.get((job.namespace, job.name))
        if cost is not None:
            out[key(job)] = out.get(key(job), Total()).add(cost)
    return out


def delta(before: dict, after: dict) -> list[tuple]:
    """(key, base Total, new Total) for every key of two `totals` whose hourly rate or bound differs, sorted."""
    changes = []
    for key in sorted(before.keys() | after.keys()):
        was, now = before.get(key, Total()), after.get(key, Total())
        if (was.hourly, was.bounded) != (now.hourly, now.bounded):
            changes.append((key, was, now))
    return changes


def money(amount: Fraction | None, currency: str) -> str:
    """`12.35 USD`, rounded to cents half up; `unbounded` for None."""
    if amount is None:
        return "unbounded"
    return f"{cents(amount)} {currency}"


def duration(seconds: int | None) -> str:
    """`4h`, `2h30m`, `45m10s`; `unbounded` for None."""
    if seconds is None:
        return "unbounded"
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return "".join(f"{value}{unit}" for value, unit in ((hours, "h"), (minutes, "m"), (seconds, "s")) if value) or "0s"


def words(cost: Cost, currency: str) -> str:
    """What a notice says of one TrainJob's cost: `12.35 USD an hour, at most 98.80 USD (8h: the deadline the
    cluster enforces, restarts included)`, or why nothing bounds it."""
    said = f"{money(cost.hourly, currency)} an hour, "
    if cost.seconds is None:
        said += (
            "unbounded (no activeDeadlineSeconds stops every Job of its JobSet, or its failure policy restarts "
            "it without end)"
        )
    else:
        said += (
            f"at most {money(cost.bounded, currency)} ({duration(cost.seconds)}: the deadline the cluster "
            "enforces, restarts included)"
        )
    if cost.unpriced:
        said += f"; priced nowhere: {', '.join(cost.unpriced)}"
    return said


def cents(amount: Fraction) -> str:
    """`amount` with two decimals, rounded half up (away from zero at .005), in integers: exact at any size."""
    hundredths = abs(amount) * 100
    whole = (hundredths.numerator * 2 + hundredths.denominator) // (2 * hundredths.denominator)
    return f"{'-' if amount < 0 and whole else ''}{whole // 100}.{whole % 100:02d}"


def signed_money(change: Fraction, currency: str) -> str:
    """`+12.35 USD`, `-0.50 USD`, `±0.00 USD` (a change that rounds to nothing)."""
    shown = cents(change)
    sign = "±" if shown.lstrip("-") == "0.00" else "-" if change < 0 else "+"
    return f"{sign}{shown.lstrip('-')} {currency}"


def change(was: Fraction | None, now: Fraction | None, currency: str) -> str:
    """A bound's change: signed, or `unbounded` once either side is."""
    if was is None or now is None:
        return "unbounded" if now is None else "now bounded"
    return signed_money(now - was, currency)
