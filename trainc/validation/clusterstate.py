"""Kueue now, or later: what the cluster's queues hold (`--cluster-state`), and where each TrainJob stands.

The cluster state is what `kubectl get clusterqueues,localqueues,resourceflavors,cohorts,workloads -A -o json`
prints (a v1 List; WorkloadPriorityClasses may be among its items). Its ClusterQueues, Cohorts, LocalQueues and
ResourceFlavors are the cluster's queues, those among the inputs replacing them by name (what applying the
change makes them); its Workloads are what the queues hold. As Kueue's cache (kubernetes-sigs/kueue
pkg/cache/scheduler/cache.go), a workload holds quota while its QuotaReserved condition is True, it is not
Finished and `spec.active` is not false (workload.HasActiveQuotaReservation), charged with its admission's
`podSetAssignments[].resourceUsage` on their flavors (pkg/workload/workload.go, totalRequestsFromAdmission);
a ClusterQueue's `status.flavorsUsage` is the controller's report of that cache: where it differs, a notice
says the state lacks workloads (`unreported`). The file is
untrusted: it is read within the run's byte bound, at most MAX_CLUSTER_STATE_ITEMS objects, every field trainc
reads checked with its position, quantities saturating at int64 as Kueue's.

Each Kueue-managed TrainJob is then, by Kueue's flavor assigner on that usage (`kueue.place`):

- admitted: its JobSet's Workload holds quota already (on the flavors of its admission);
- admissible now, on the flavors it picks;
- preempting: it fits only by evicting workloads its ClusterQueue's `preemption` lets it evict (classical
  preemption, pkg/scheduler/preemption/preemption.go and classical/, candidates ordered as
  common/ordering.go, each allowed by common/preemption_policy.go);
- waiting: for how much of which resource in which flavor, or behind the pending workloads of its
  ClusterQueue that Kueue takes first (pkg/cache/queue/cluster_queue.go: higher priority first, then the
  older; StrictFIFO admits none past its head, BestEffortFIFO passes over the ones that do not fit).

Left out (said in docs/guides/kueue.md): fair sharing, the hierarchical advantage of a preemptor nearer the
quota a workload uses, admission checks, topology-aware scheduling and the priority of a pod's PriorityClass
(a job's priority is its `kueue.x-k8s.io/priority-class` WorkloadPriorityClass, 0 without one).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping
from functools import cache, lru_cache
from types import MappingProxyType

from ..errors import InputError, Notice, Origin, Record, plural
from ..formats.limits import MAX_CLUSTER_STATE_ITEMS
from ..k8s.quantity import parse
from . import kueue

PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"  # the WorkloadPriorityClass of a job
_QUANTITY = kueue._QUANTITY  # checked by kueue.mistakes
_TIME = "time"
_WORKLOAD = {
    "metadata": {
        "name": str,
        "namespace": str,
        "uid": str,
        "creationTimestamp": _TIME,
        "ownerReferences": [{"kind": str, "name": str}],
    },
    "spec": {"queueName": str, "priority": int, "active": bool},
    "status": {
        "admission": {
            "clusterQueue": str,
            "podSetAssignments": [{"name": str, "flavors": {str: str}, "resourceUsage": {str: _QUANTITY}}],
        },
        "conditions": [{"type": str, "status": str, "lastTransitionTime": _TIME}],
    },
}
_PRIORITY_CLASS = {"value": int}
_REPORTED = {"status": {"flavorsUsage": [{"name": str, "resources": [{"name": str, "total": _QUANTITY}]}]}}


class Held(Record):
    """A workload holding quota: what Kueue's cache charges its ClusterQueue."""

    namespace: str
    name: str
    cluster_queue: str
    priority: int
    created: int | None  # its queue-order time (creationTimestamp), in nanoseconds since the epoch (`_time`)
    reserved: int | None  # when its QuotaReserved condition turned True, likewise
    uid: str
    usage: dict  # (flavor, resource) -> Kueue's integer
    flavors: tuple  # per pod set {resource: flavor}
    owner: tuple | None  # (kind, name) of the object Kueue made it for

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name} (ClusterQueue {self.cluster_queue}, priority {self.priority})"


class Pending(Record):
    """A workload waiting in its LocalQueue."""

    namespace: str
    name: str
    queue: str
    priority: int
    created: int | None  # as Admitted's
    uid: str
    owner: tuple | None


class State:
    """The cluster state file, read. (A plain class: a dataclass compiles its methods at every start of trainc.)"""

    def __init__(self, file: str):
        self.file = file
        self.documents: list = []  # (origin, object): its Kueue objects
        self.held: list = []
        self.pending: list = []
        self.priorities: dict = {}  # WorkloadPriorityClass name -> value
        self._owned: tuple | None = None  # ({(namespace, owner): first Held}, {(namespace, owner): first Pending})
        # (queues, {what: value}) of what was worked out on the queues last asked of (`_on`): the usage, the pending
        # of each ClusterQueue in queue order, the preemption candidates. Kept with the state, not the queues (which
        # the run's result keeps, and would keep every workload of the state with them)
        self._derived: tuple | None = None

    def _on(self, queues: kueue.Queues) -> dict:
        if self._derived is None or self._derived[0] is not queues:
            self._derived = (queues, {})
        return self._derived[1]

    def usage(self, queues: kueue.Queues) -> Mapping:
        """{ClusterQueue: {(flavor, resource): amount}} of the held workloads (computed once per `queues`), read
        only: `kueue.used` remembers its sums, and whoever charges or frees a workload works on a copy."""
        derived = self._on(queues)
        if "usage" not in derived:
            out: dict = {}
            for held in self.held:
                if held.cluster_queue in queues.cluster_queues:
                    _charge(out, held, 1)
            derived["usage"] = MappingProxyType({name: MappingProxyType(amounts) for name, amounts in out.items()})
        return derived["usage"]

    def owned(self, namespace: str, owner: tuple) -> tuple[Held | None, Pending | None]:
        """The first held and the first pending workload `owner` made in `namespace`: indexed once, as every
        TrainJob asks (a cluster holds thousands of workloads)."""
        if self._owned is None:
            held: dict = {}
            pending: dict = {}
            for each in self.held:
                held.setdefault((each.namespace, each.owner), each)
            for each in self.pending:
                pending.setdefault((each.namespace, each.owner), each)
            self._owned = (held, pending)
        return self._owned[0].get((namespace, owner)), self._owned[1].get((namespace, owner))

    def candidates(self, queues: kueue.Queues) -> dict:
        """The preemption oracle's candidates found so far on `queues` (`_Oracle`): {(ClusterQueue, needs,
        priority, creation time): candidates}."""
        return self._on(queues).setdefault("candidates", {})

    def ahead(self, queues: kueue.Queues, cq_name: str, priority: int, created: int | None, own) -> int:
        """How many pending workloads of ClusterQueue `cq_name` Kueue's queue orders before a job of `priority`
        created at `created` (None: now), `own` (its pending workload, or None) left out: each ClusterQueue's
        pending sorted once (per `queues`) by `_order`, then one bisection per job."""
        derived = self._on(queues)
        if "queued" not in derived:
            queued: dict = {}
            for each in self.pending:
                name = queues.local_queues.get((each.namespace, each.queue))
                if name is not None:
                    queued.setdefault(name, []).append(_order(each.priority, each.created, each.uid))
            for keys in queued.values():
                keys.sort()
            derived["queued"] = queued
        job = (-priority, (2,), "") if created is None else _order(priority, created, own.uid if own else "")
        count = bisect_left(derived["queued"].get(cq_name, ()), job)
        if own is not None and queues.local_queues.get((own.namespace, own.queue)) == cq_name:
            count -= _order(own.priority, own.created, own.uid) < job  # counted above, and not ahead of itself
        return count


def _charge(usage: dict, held: Held, sign: int) -> None:
    """Add (sign 1) or take away (-1) a held workload's usage, saturating as Kueue's Amount."""
    into = usage.setdefault(held.cluster_queue, {})
    for key, amount in held.usage.items():
        into[key] = kueue._add(into.get(key, 0), sign * amount)


def read(documents, file: str, errors: list) -> State:
    """The State of the (origin, object) documents of the cluster state file `file` (a List's items); `errors`
    gets each field trainc reads that is not of its type (its object is left out)."""
    state = State(file)
    if len(documents) > MAX_CLUSTER_STATE_ITEMS:
        errors.append(
            InputError(
                Origin(file),
                (),
                f"holds {len(documents)} objects, more than the "
                f"{MAX_CLUSTER_STATE_ITEMS} trainc reads from a cluster state",
            )
        )
        return state
    for origin, obj in documents:
        if not isinstance(obj, dict):
            errors.append(InputError(origin, (), "must be a mapping (an object of the List's items)"))
            continue
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not (isinstance(api_version, str) and api_version.startswith(kueue.GROUP + "/")):
            continue
        if kind in ("ClusterQueue", "Cohort", "LocalQueue", "ResourceFlavor"):
            problems = _problems(origin, obj, _REPORTED) if kind == "ClusterQueue" else []
            errors.extend(problems)
            if not problems:
                state.documents.append((origin, obj))
        elif kind == "Workload":
            _workload(origin, obj, state, errors)
        elif kind == "WorkloadPriorityClass":
            problems = _problems(origin, obj, _PRIORITY_CLASS)
            name = (obj.get("metadata") or {}).get("name") if isinstance(obj.get("metadata"), dict) else None
            if not isinstance(name, str):
                problems.append(InputError(origin, ("metadata", "name"), "must be a string"))
            errors.extend(problems)
            if not problems:
                state.priorities[name] = obj.get("value") or 0
    return state


def _problems(origin: Origin, obj: dict, shape: dict) -> list[InputError]:
    """Each field of `shape` in `obj` that is not of its type, times included: none at once when it `_conforms`
    (a state lists thousands of Workloads, almost always well-formed), else each with its path."""
    if _conforms(obj, shape):
        return []
    found = [InputError(origin, path, message) for path, message in kueue.mistakes(obj, _TYPED[id(shape)], ())]
    for path, text in _times(obj, shape, ()):
        try:
            _time(text)
        except ValueError as exc:
            found.append(InputError(origin, path, f"must be a time ({exc})"))
    return found


def _conforms(value, shape) -> bool:
    """Whether `value` is of `shape` throughout, times included: True exactly when `_problems` finds nothing
    (kueue.mistakes' rules, a time also read as one); by the shape's checker, made once (`_checker`)."""
    return _checker(id(shape))(value)


@cache
def _checker(shape_id: int):
    """The function telling whether a value is of the shape (by id: one of `_SHAPES`), one closure per node of
    it, so that a state's thousands of Workloads are checked without asking each node what its shape is."""
    return _check(_SHAPES[shape_id])


def _check(shape):
    if shape is _TIME:
        return _is_time
    if shape is _QUANTITY:
        return _is_quantity
    if shape is str:
        return lambda value: value is None or isinstance(value, str)
    if shape is int:
        return lambda value: (
            value is None or (not isinstance(value, bool) and isinstance(value, int) and -(2**31) <= value < 2**31)
        )
    if shape is bool:
        return lambda value: value is None or isinstance(value, bool)
    if isinstance(shape, list):
        item = _check(shape[0])
        return lambda value: (
            value is None or (isinstance(value, list) and all(each is not None and item(each) for each in value))
        )
    if str in shape:
        inner = _check(shape[str])
        return lambda value: value is None or (isinstance(value, dict) and all(map(inner, value.values())))
    fields = tuple((key, _check(inner)) for key, inner in shape.items())
    return lambda value: (
        value is None or (isinstance(value, dict) and all(check(value.get(key)) for key, check in fields))
    )


def _is_time(value) -> bool:
    if value is None:
        return True
    if not isinstance(value, str):
        return False
    try:
        _time(value)
    except ValueError:
        return False
    return True


def _is_quantity(value) -> bool:
    if value is None:
        return True
    try:
        parse(value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else "")
    except ValueError:
        return False
    return True


def _typed(shape):
    """The shape as kueue.mistakes checks it: times as strings (checked apart)."""
    if shape is _TIME:
        return str
    if isinstance(shape, list):
        return [_typed(shape[0])]
    if isinstance(shape, dict):
        return {key: _typed(value) for key, value in shape.items()}
    return shape


_SHAPES = {id(shape): shape for shape in (_WORKLOAD, _PRIORITY_CLASS, _REPORTED)}
_TYPED = {id(shape): _typed(shape) for shape in _SHAPES.values()}


def _times(value, shape, path: tuple):
    """(path, text) of every time string in `value` where `shape` has one."""
    if value is None:
        return
    if shape is _TIME:
        if isinstance(value, str):
            yield path, value
    elif isinstance(shape, list) and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _times(item, shape[0], (*path, index))
    elif isinstance(shape, dict) and isinstance(value, dict):
        for key, inner in shape.items():
            yield from _times(value.get(key), inner, (*path, key))


# a date, `T`, a time, maybe a fraction of a second, `Z` or an offset (compiled on first use: re's cache)
_RFC3339 = r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:Z|([+-])(\d\d):(\d\d))"


@lru_cache(maxsize=16384)  # a Workload's times are read when checked, then when held
def _time(text: str) -> int:
    """An RFC 3339 time as the API server writes it (`2026-12-01T10:00:00Z`) and Go's time.Parse reads it
    (metav1.Time), in nanoseconds since the epoch: exact and ordered as the instants are, whatever their
    offsets, without the datetime module (a millisecond of every run with a cluster state)."""
    match = re.fullmatch(_RFC3339, text)
    if match is None:
        zoned = text.endswith("Z") or "+" in text[10:] or "-" in text[10:]
        raise ValueError(f"{text!r} is not an RFC 3339 time{'' if zoned else ' with its zone'}")
    year, month, day, hour, minute, second = (int(match[index]) for index in range(1, 7))
    fraction, sign, zone_hour, zone_minute = match[7] or "", match[8], match[9], match[10]
    if not (
        1 <= month <= 12
        and 1 <= day <= _days_in(year, month)
        and hour < 24
        and minute < 60
        and second < 60
        and (sign is None or (int(zone_hour) < 24 and int(zone_minute) < 60))
    ):
        raise ValueError(f"{text!r} is not an RFC 3339 time")
    offset = 0 if sign is None else (1 if sign == "+" else -1) * (int(zone_hour) * 3600 + int(zone_minute) * 60)
    seconds = _days_since_epoch(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset
    return seconds * 1_000_000_000 + int(fraction[:9].ljust(9, "0"))


def _days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to the date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil)."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    return era * 146097 + of_era * 365 + of_era // 4 - of_era // 100 + of_year - 719468


def _workload(origin: Origin, obj: dict, state: State, errors: list) -> None:
    problems = _problems(origin, obj, _WORKLOAD)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    for key in ("name", "namespace"):
        if not isinstance(meta.get(key), str) or not meta.get(key):
            problems.append(InputError(origin, ("metadata", key), "required: a non-empty string"))
    errors.extend(problems)
    if problems:
        return
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    conditions = {each.get("type"): each for each in status.get("conditions") or ()}
    owner = next(((each.get("kind"), each.get("name")) for each in meta.get("ownerReferences") or ()), None)
    priority, uid = spec.get("priority") or 0, meta.get("uid") or ""
    if _true(conditions, "Finished") or spec.get("active") is False:
        return
    created = _time(meta["creationTimestamp"]) if meta.get("creationTimestamp") else None
    admission = status.get("admission")
    if _true(conditions, "QuotaReserved") and admission and admission.get("clusterQueue"):
        usage, flavors = {}, []
        for assignment in admission.get("podSetAssignments") or ():
            chosen = assignment.get("flavors") or {}
            flavors.append(dict(chosen))
            for resource, amount in (assignment.get("resourceUsage") or {}).items():
                if amount is None:  # a null Quantity reads as zero
                    continue
                key = (chosen.get(resource, ""), resource)
                usage[key] = kueue._add(usage.get(key, 0), max(0, kueue.value(resource, parse(amount))))
        reserved = conditions["QuotaReserved"].get("lastTransitionTime")
        state.held.append(
            Held(
                meta["namespace"],
                meta["name"],
                admission["clusterQueue"],
                priority,
                created,
                _time(reserved) if reserved else None,
                uid,
                usage,
                tuple(flavors),
                owner,
            )
        )
    elif isinstance(spec.get("queueName"), str):
        state.pending.append(Pending(meta["namespace"], meta["name"], spec["queueName"], priority, created, uid, owner))


def _true(conditions: dict, kind: str) -> bool:
    return (conditions.get(kind) or {}).get("status") == "True"


class Standing(Record):
    """Where one TrainJob stands on the cluster: admitted, admissible, preempting or waiting."""

    state: str  # "admitted", "admissible", "preempting", "waiting"
    cluster_queue: str
    flavors: tuple = ()  # per pod set {resource: flavor}: where it runs (or would, admitted now)
    short: tuple = ()  # (flavor, resource, amount more than unused) it waits for
    binary: frozenset = frozenset()  # resources the ClusterQueue writes in binary suffixes
    targets: tuple = ()  # Held: the workloads it would preempt
    ahead: int = 0  # pending workloads of its ClusterQueue Kueue takes before it
    strategy: str = "BestEffortFIFO"
    priority: int = 0
    pod_sets: tuple = ()  # the pod sets' names, for the flavors
    borrows: bool = False  # on quota its cohort lends
    attempts: tuple = ()  # kueue.Placement.attempts on the cluster's usage, for `trainc explain`

    def placed(self) -> str:
        """`a100`, or `launcher: cpu, node: a100` when the pod sets differ."""
        names = [", ".join(sorted(set(flavors.values()))) for flavors in self.flavors]
        if len(set(names)) <= 1:
            return names[0] if names and names[0] else "no flavor"
        return "; ".join(f"{pod_set}: {name or 'no flavor'}" for pod_set, name in zip(self.pod_sets, names))

    def words(self) -> str:
        """One line: where it stands and why."""
        queue = f"ClusterQueue {self.cluster_queue!r}"
        behind = f"{plural(self.ahead, 'pending workload')} ahead of it ({self.strategy}"
        if self.state == "admitted":
            return f"admitted: its Workload holds quota in {queue} on {self.placed()}"
        if self.state == "waiting" and not self.short:
            return (
                f"waiting: {behind}: it admits none past the first, which does not fit yet), though it fits "
                f"now on {self.placed()}"
            )
        order = "it admits none past the first" if self.strategy == "StrictFIFO" else "those that fit go first"
        tail = f"; {behind}: {order})" if self.ahead else ""
        borrowing = " borrowing from cohort quota" if self.borrows else ""
        if self.state == "admissible":
            return f"admissible now in {queue} on {self.placed()}{borrowing}{tail}"
        if self.state == "preempting":
            victims = ", ".join(str(each) for each in self.targets)
            return (
                f"admissible now in {queue} on {self.placed()}{borrowing} by preempting "
                f"{plural(len(self.targets), 'workload')}: {victims}{tail}"
            )
        needs = "; or ".join(
            f"{kueue.show(resource, amount, resource in self.binary)} {resource} more in flavor {flavor!r}"
            for flavor, resource, amount in self.short
        )
        return f"waiting in {queue} until it has {needs} unused{tail}"


def standing(work: kueue.Workload, labels: dict, state: State, queues: kueue.Queues) -> Standing | None:
    """Where the workload of a rendered JobSet stands on the cluster of `state` (with `queues`: the snapshot's,
    the inputs' over them), or None when Kueue does not manage it or its ClusterQueue is unknown."""
    if work.queue is None:
        return None
    cq_name = queues.local_queues.get((work.namespace, work.queue))
    cq = queues.cluster_queues.get(cq_name) if cq_name is not None else None
    if cq is None:
        return None
    spec = cq.document.get("spec") or {}
    strategy = spec.get("queueingStrategy") or "BestEffortFIFO"
    names = tuple(pod_set.name for pod_set in work.pod_sets)
    held, own = state.owned(work.namespace, ("JobSet", work.name))
    if held is not None:
        return Standing(
            "admitted", held.cluster_queue, held.flavors, strategy=strategy, priority=held.priority, pod_sets=names
        )
    priority = state.priorities.get(labels.get(PRIORITY_LABEL), 0)
    created = own.created if own is not None else None  # None: created after every workload there
    oracle = _Oracle(state, queues, priority, created)
    placed = kueue.place(work, queues, state.usage(queues), oracle)
    if placed.problem is not None or placed.mode is None:
        return None
    ahead = state.ahead(queues, cq_name, priority, created, own)
    kind = {"fit": "admissible", "preempt": "preempting", "wait": "waiting"}[placed.mode]
    if kind != "waiting" and ahead and strategy == "StrictFIFO":
        kind = "waiting"
    return Standing(
        kind,
        cq_name,
        placed.flavors,
        placed.short,
        frozenset(cq.binary),
        placed.targets,
        ahead,
        strategy,
        priority,
        names,
        placed.borrows,
        placed.attempts,
    )


def _order(priority: int, created: int | None, uid: str) -> tuple:
    """A pending workload's place in Kueue's queue, as a key: higher priority first, then the older (one without a
    creation time after every other), then by uid. A job created now sorts as (-priority, (2,), ""): after all
    of its priority."""
    return (-priority, (1,) if created is None else (0, created), uid)


class _Oracle:
    """Kueue's classical preemption for a workload of `priority` created at `created` (None: now): the workloads
    it would preempt to fit `needs` ({(flavor, resource): amount}) in `cq`, or none."""

    def __init__(self, state: State, queues: kueue.Queues, priority: int, created: int | None):
        self.state, self.queues, self.priority, self.created = state, queues, priority, created

    def __call__(self, cq: kueue.Node, needs: dict) -> list[Held]:
        preemption = (cq.document.get("spec") or {}).get("preemption") or {}
        forbidden = ((preemption.get("borrowWithinCohort") or {}).get("policy") or "Never") == "Never"
        known, memo = self.state.candidates(self.queues), (cq.name, frozenset(needs), self.priority, self.created)
        candidates = known.get(memo)
        if candidates is None:  # the same for every job of this priority and age needing these resources here
            candidates = known[memo] = self._candidates(cq, needs, preemption, forbidden)
        usage = self.state.usage(self.queues)  # read only: each attempt works on its own copy
        others = any(held.cluster_queue != cq.name for held, _ in candidates)
        under = all(
            (cq.quotas.get(key) or kueue.Quota(0, None, None)).nominal > kueue.used(cq, key, self.queues, usage)
            for key in needs
        )
        options = [True] if not others or (forbidden and not under) else [False, True] if forbidden else [True, False]
        for borrowing in options:
            found = self._attempt(cq, needs, candidates, borrowing)
            if found:
                return found
        return []

    def _candidates(self, cq: kueue.Node, needs: dict, preemption: dict, forbidden: bool) -> list[tuple]:
        """(held workload, whether it is preempted only without borrowing) of every workload the job may preempt to
        free what it `needs` in `cq`, in the order Kueue tries them (common/ordering.go)."""
        within = preemption.get("withinClusterQueue") or "Never"
        reclaim = preemption.get("reclaimWithinCohort") or "Never"
        threshold = (preemption.get("borrowWithinCohort") or {}).get("maxPriorityThreshold")
        root = self._root(cq)
        candidates = []
        for held in self.state.held:
            if (
                not any(held.usage.get(key, 0) > 0 for key in needs)
                or held.cluster_queue not in self.queues.cluster_queues
            ):  # preempting it would free nothing it needs
                continue
            if held.cluster_queue == cq.name:
                if not self._allows(within, held):
                    continue
                without_borrowing = False
            else:
                other = self.queues.cluster_queues[held.cluster_queue]
                if cq.parent is None or self._root(other) != root or not self._allows(reclaim, held):
                    continue
                without_borrowing = (
                    forbidden or held.priority >= self.priority or (threshold is not None and held.priority > threshold)
                )
            candidates.append((held, without_borrowing))
        candidates.sort(
            key=lambda each: (
                each[0].cluster_queue == cq.name,
                each[0].priority,
                -(each[0].reserved or 0),
                each[0].uid,
            )
        )
        return candidates

    def _attempt(self, cq: kueue.Node, needs: dict, candidates: list, borrowing: bool) -> list[Held]:
        """classicalPreemptions' loop: remove candidates in order until it fits, then put back what it need not
        preempt (fillBackWorkloads)."""
        usage = {name: dict(amounts) for name, amounts in self.state.usage(self.queues).items()}
        targets: list = []
        for held, without_borrowing in candidates:
            if held.cluster_queue != cq.name:
                if borrowing and without_borrowing:
                    continue
                other = self.queues.cluster_queues[held.cluster_queue]
                if not any(
                    kueue.used(other, key, self.queues, usage)
                    > other.quotas.get(key, kueue.Quota(0, None, None)).nominal
                    for key in needs
                ):  # a ClusterQueue within its quota keeps its workloads
                    continue
            targets.append(held)
            _charge(usage, held, -1)
            if self._fits(cq, needs, usage, borrowing):
                for index in range(len(targets) - 2, -1, -1):
                    _charge(usage, targets[index], 1)
                    if self._fits(cq, needs, usage, borrowing):
                        del targets[index]
                    else:
                        _charge(usage, targets[index], -1)
                return targets
        return []

    def _fits(self, cq: kueue.Node, needs: dict, usage: dict, borrowing: bool) -> bool:
        """workloadFits: every need within what is available on `usage`, and within the nominal quota unless it
        may borrow."""
        for key, amount in needs.items():
            nominal = (cq.quotas.get(key) or kueue.Quota(0, None, None)).nominal
            if not borrowing and nominal < kueue._add(kueue.used(cq, key, self.queues, usage), amount):
                return False
            if amount > kueue.available(cq, key, self.queues, usage):
                return False
        return True

    def _allows(self, policy: str, held: Held) -> bool:
        """SatisfiesPreemptionPolicy: the job preempts a lower priority, or (LowerOrNewerEqualPriority) an equal
        one that is newer, or (Any) every one."""
        if policy == "Any":
            return True
        if policy not in ("LowerPriority", "LowerOrNewerEqualPriority"):
            return False
        if held.priority < self.priority:
            return True
        return (
            policy == "LowerOrNewerEqualPriority"
            and held.priority == self.priority
            and self.created is not None
            and held.created is not None
            and self.created < held.created
        )

    def _root(self, node: kueue.Node) -> str | None:
        """The Cohort at the top of `node`'s tree (None outside any), remembered in `queues.sums`."""
        memo = ("root", node.kind, node.name)
        if memo not in self.queues.sums:
            seen = set()
            while node.parent is not None and node.parent not in seen:
                seen.add(node.name)
                node = kueue._cohort(node.parent, self.queues)
            self.queues.sums[memo] = node.name if node.kind == "Cohort" else None
        return self.queues.sums[memo]


def unreported(state: State, queues: kueue.Queues) -> list[Notice]:
    """A notice for each ClusterQueue of the state whose own report of its usage (status.flavorsUsage, which
    Kueue's controller writes from its cache) differs from what the state's Workloads hold: the state lacks
    workloads (taken without -A?) or was taken mid-change, and its answers are off by that much."""
    out, usage = [], state.usage(queues)
    for origin, obj in state.documents:
        meta = obj.get("metadata")
        if (
            obj.get("kind") != "ClusterQueue"
            or not isinstance(meta, dict)
            or meta.get("name") not in queues.cluster_queues
        ):
            continue  # one kueue.read left out
        name, held = meta["name"], usage.get(meta["name"]) or {}
        for index, flavor in enumerate(((obj.get("status") or {}).get("flavorsUsage")) or ()):
            for number, resource in enumerate(flavor.get("resources") or ()):
                what = resource.get("name")
                if not isinstance(what, str) or resource.get("total") is None:
                    continue
                reported = max(0, kueue.value(what, parse(resource["total"])))
                counted = held.get((flavor.get("name"), what), 0)
                if reported != counted:
                    out.append(
                        Notice(
                            "notice",
                            origin,
                            (),
                            (
                                f"ClusterQueue {name!r} reports {kueue.show(what, reported)} {what} in use on flavor "
                                f"{flavor.get('name')!r}, its Workloads in this state hold {kueue.show(what, counted)}: the "
                                "state lacks some (take it with -A) or was taken mid-change; the Workloads are what trainc "
                                "counts, as Kueue's scheduler does"
                            ),
                            at=("status", "flavorsUsage", index, "resources", number, "total"),
                        )
                    )
    return out


def notices(found: dict, origins: dict) -> list[Notice]:
    """A notice per TrainJob of `found` ({(namespace, name): Standing}), at its queue label (`origins`:
    {(namespace, name): (origin, path)})."""
    out = []
    for key in sorted(found):
        origin, path = origins[key]
        out.append(Notice("notice", origin, (), f"{key[0]}/{key[1]}: Kueue: {found[key].words()}", at=path))
    return out
