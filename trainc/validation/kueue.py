"""Kueue admissibility: would Kueue ever admit the JobSet a TrainJob renders, on the queues the inputs define?

A TrainJob labelled `kueue.x-k8s.io/queue-name` (or, without the label, in a
namespace holding a LocalQueue named `default`, which Kueue's webhook then
assigns) is a Kueue workload. When the inputs hold Kueue's own objects
(ClusterQueue, LocalQueue, ResourceFlavor, Cohort), trainc does what Kueue's
scheduler does with them in an empty cluster (kubernetes-sigs/kueue
pkg/workload and pkg/scheduler/flavorassigner) and reports a workload that can
never be admitted, with the arithmetic:

- its LocalQueue does not exist in its namespace (checked once any LocalQueue
  or ClusterQueue is among the inputs); a LocalQueue whose ClusterQueue is not
  among them is left alone: the inputs do not say what it holds;
- its ClusterQueue admits no workload of its namespace (namespaceSelector),
  or does not cover a resource a pod set requests;
- for a pod set, every flavor of the resource group is either refused
  (untolerated NoSchedule/NoExecute taint, node labels its nodeSelector or
  required node affinity exclude, a ResourceFlavor missing) or too small: the
  requests of the pod sets assigned before it plus its own exceed the
  flavor's nominal quota plus what the ClusterQueue may borrow in its cohort
  tree (lendingLimit and borrowingLimit applied as Kueue's potentialAvailable).

A workload that fits only beyond the nominal quota gets a notice: it waits
until its cohort has that much unused.

`place` is the flavor assigner itself (pkg/scheduler/flavorassigner/flavorassigner.go at kubernetes-sigs/kueue
ff69552): per pod set and resource group, each flavor's mode (fits, by borrowing at some level of the cohort
tree, by preempting or reclaiming, or not), the ClusterQueue's flavorFungibility (whenCanBorrow,
whenCanPreempt, preference) choosing among them; on an empty cluster, or on the usage of a cluster's admitted
workloads with a preemption oracle (`clusterstate`). Every flavor tried is kept, for `trainc explain`.

Kueue's objects are read in `kueue.x-k8s.io/v1beta2` (Kueue 0.20 serves no other version) and in v1beta1,
which earlier Kueues serve: a ClusterQueue's cohort is `spec.cohortName` in v1beta2 and `spec.cohort` in
v1beta1 (kubernetes-sigs/kueue apis/kueue/v1beta1/clusterqueue_conversion.go; the other fields trainc reads
keep their names, and `flavorFungibility.whenCanBorrow: Borrow` became `MayStopSearch`, both meaning "not
TryNextFlavor" here). The other version's name is an unknown field, as kubectl's strict validation says; a
v1beta1 object gets a warning at its apiVersion, since Kueue 0.20 refuses it (#14558).

Requests are counted as Kueue counts a JobSet workload: one pod set per
replicated job of replicas x min(parallelism, completions) pods; each pod's
requests after Kueue's adjustments (LimitRange defaults of the namespace
among the inputs, limits standing in for missing requests) summed as the
kubelet does (init containers by max, sidecars added, pod-level requests,
overhead), in Kueue's integers (CPU in millicores, others rounded up).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType

from .. import shares
from ..compiler.ir import job_spec, pod_spec
from ..compiler.passes.podgroup import pod_requests
from ..errors import InputError, Notice, Origin, Record, plural
from ..k8s.quantity import BINARY_SI, DECIMAL_SI, Quantity, parse
from ..trainer import api

GROUP = "kueue.x-k8s.io"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
DEFAULT_QUEUE = "default"  # the LocalQueue Kueue's webhook assigns to a job without the label
_QUEUE_KINDS = ("ClusterQueue", "LocalQueue", "ResourceFlavor", "Cohort")
SERVED = "v1beta2"  # the version Kueue 0.20 serves
OLD = "v1beta1"  # no longer served from Kueue 0.20 (kubernetes-sigs/kueue #14558)
COHORT_FIELD = {SERVED: "cohortName", OLD: "cohort"}  # a ClusterQueue's cohort, per version
_TAINT_EFFECTS = ("NoSchedule", "NoExecute")  # what the flavor assigner checks taints for
_PODS = "pods"
JUDGED_TOGETHER = 128  # jobs a process judges at least: fewer are judged in one process (`shares`)


class PodSet(Record):
    """One replicated job as a Kueue pod set: its pods, and the requests of one pod as Kueue adjusts them."""

    name: str
    count: int
    requests: dict  # resource -> Quantity, one pod
    spec: dict  # the pod spec (node selector, affinity, tolerations)

    def total(self, resource: str) -> int:
        """Kueue's integer for all the pod set's pods (CPU in millicores)."""
        return min(max(0, value(resource, self.requests[resource])) * self.count, _INT64_MAX)  # SaturatingMul


_INT64_MAX = 2**63 - 1


def value(resource: str, amount: Quantity) -> int:
    """Kueue's ResourceValue: millicores for CPU, else the amount rounded up, clamped to int64 as its
    SafeMilliValue and SafeValue clamp (pkg/resources)."""
    return amount.saturated(3 if resource == "cpu" else 0)


def show(resource: str, amount: int, binary: bool = False) -> str:
    """An integer of Kueue's as the API server would print it (`1500m`, `64Gi`, `8`)."""
    if resource == "cpu":
        return str(Quantity(amount, -3))
    return str(Quantity(amount, 0, BINARY_SI if binary else DECIMAL_SI))


def pod_sets(jobset: dict, limit_ranges: list = (), runtime_classes: dict | None = None) -> list[PodSet]:
    """The JobSet's pod sets as Kueue's JobSet integration builds them, in replicated-job order; a pod of a
    RuntimeClass among `runtime_classes` ({name: overhead}) without an overhead of its own gets the class's."""
    found = []
    for rjob in (jobset.get("spec") or {}).get("replicatedJobs") or ():
        job = job_spec(rjob)
        parallelism = job.get("parallelism", 1)
        completions = job.get("completions", parallelism)
        count = rjob.get("replicas", 1) * min(parallelism, completions)
        spec = pod_spec(rjob)
        found.append(
            PodSet(rjob.get("name", ""), count, pod_requests(_adjusted(spec, limit_ranges, runtime_classes)), spec)
        )
    return found


def _adjusted(spec: dict, limit_ranges, runtime_classes: dict | None) -> dict:
    """Kueue's AdjustResources on a copy of the pod spec's containers: the RuntimeClass's overhead for a pod
    without one, the namespace's LimitRange container defaults, then limits as missing requests."""
    defaults, default_requests = {}, {}
    for limit_range in limit_ranges:
        for item in (limit_range.get("spec") or {}).get("limits") or ():
            if item.get("type") == "Container":
                defaults = {**(item.get("default") or {}), **defaults}  # the first LimitRange's value wins
                default_requests = {**(item.get("defaultRequest") or {}), **default_requests}
    adjusted = dict(spec)
    overhead = (runtime_classes or {}).get(spec.get("runtimeClassName"))
    if overhead and not spec.get("overhead"):  # Kueue's handlePodOverhead
        adjusted["overhead"] = overhead
    for group in ("initContainers", "containers"):
        containers = []
        for container in spec.get(group) or ():
            resources = container.get("resources") or {}
            limits = {**defaults, **(resources.get("limits") or {})}
            requests = {**default_requests, **limits, **(resources.get("requests") or {})}
            containers.append({**container, "resources": {"limits": limits, "requests": requests}})
        if containers:
            adjusted[group] = containers
    return adjusted


class Quota(Record):
    nominal: int
    borrowing: int | None  # borrowingLimit: how much more than nominal it may take from its cohort
    lending: int | None  # lendingLimit: how much of nominal its cohort may use


class Node:
    """A ClusterQueue or Cohort of the cohort tree. (This and Queues are plain classes: a dataclass compiles its
    methods at every start of trainc, about half a millisecond each.)"""

    def __init__(self, kind: str, name: str, parent: str | None = None, origin: Origin | None = None, document=None):
        self.kind, self.name, self.parent, self.origin = kind, name, parent, origin
        self.document: dict = {} if document is None else document
        self.quotas: dict = {}  # (flavor, resource) -> Quota
        self.groups: list = []  # (covered resources, [flavor names])
        self.binary: set = set()  # resources whose quotas are written in binary suffixes

    # what every workload placed on it asks of it, found once (read() has made it by then)
    @cached_property
    def covered(self) -> dict:
        """resource -> (the resources of its group, the group's flavors)."""
        return {resource: (covered, flavors) for covered, flavors in self.groups for resource in covered}

    @cached_property
    def fungible(self) -> Fungibility:
        return fungibility(self)


class Queues:
    """Kueue's objects among the inputs."""

    def __init__(self):
        self.cluster_queues: dict = {}  # name -> Node
        self.cohorts: dict = {}  # name -> Node (Cohort objects)
        self.local_queues: dict = {}  # (namespace, name) -> ClusterQueue name
        self.flavors: dict = {}  # name -> ResourceFlavor spec
        self.limit_ranges: dict = {}  # namespace -> [LimitRange]
        self.runtime_classes: dict = {}  # name -> overhead.podFixed
        self.namespaces: dict = {}  # name -> labels, of the Namespaces among the inputs
        # what the cohort tree's quotas sum to, (function, node kind, name, key, seen) -> amount: the same for every
        # workload placed on these queues, so worked out once (the queues are not changed once `read` returns them)
        self.sums: dict = {}

    @property
    def present(self) -> bool:
        return bool(self.cluster_queues or self.local_queues)

    def children(self, name: str) -> list[Node]:
        found = self.sums.get(("children", name))
        if found is None:
            nodes = (*self.cluster_queues.values(), *self.cohorts.values())
            found = self.sums[("children", name)] = [node for node in nodes if node.parent == name]
        return found


_QUANTITY = "quantity"
_SELECTOR = {"matchLabels": {str: str}, "matchExpressions": [{"key": str, "operator": str, "values": [str]}]}
_GROUPS = [
    {
        "coveredResources": [str],
        "flavors": [
            {
                "name": str,
                "resources": [
                    {"name": str, "nominalQuota": _QUANTITY, "borrowingLimit": _QUANTITY, "lendingLimit": _QUANTITY}
                ],
            }
        ],
    }
]
# What trainc reads of each kind (other fields are Kueue's business): its spec, or for a Namespace its metadata.
_SHAPES = {
    "ClusterQueue": {
        "cohort": str,
        "cohortName": str,
        "namespaceSelector": _SELECTOR,
        "resourceGroups": _GROUPS,
        "flavorFungibility": {"whenCanBorrow": str, "whenCanPreempt": str, "preference": str},
        "queueingStrategy": str,
        "preemption": {
            "withinClusterQueue": str,
            "reclaimWithinCohort": str,
            "borrowWithinCohort": {"policy": str, "maxPriorityThreshold": int},
        },
    },
    "Cohort": {"parent": str, "parentName": str, "resourceGroups": _GROUPS},
    "LocalQueue": {"clusterQueue": str},
    "ResourceFlavor": {
        "nodeLabels": {str: str},
        "nodeTaints": [{"key": str, "value": str, "effect": str}],
        "tolerations": [{"key": str, "operator": str, "value": str, "effect": str}],
    },
    "LimitRange": {"limits": [{"type": str, "default": {str: _QUANTITY}, "defaultRequest": {str: _QUANTITY}}]},
    "Namespace": {"labels": {str: str}},
    "RuntimeClass": {"overhead": {"podFixed": {str: _QUANTITY}}},
}


def mistakes(value, shape, path: tuple):
    """(path, message) wherever `value` is not of `shape`; a missing or null field is no mistake."""
    if value is None:
        return
    if shape is _QUANTITY:
        try:
            parse(value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else "")
        except ValueError as exc:
            yield path, f"must be a quantity ({exc})"
    elif shape is str:
        if not isinstance(value, str):
            yield path, "must be a string"
    elif shape is int:
        if isinstance(value, bool) or not isinstance(value, int) or not -(2**31) <= value < 2**31:
            yield path, "must be an integer (int32)"
    elif shape is bool:
        if not isinstance(value, bool):
            yield path, "must be a boolean"
    elif isinstance(shape, list):
        if not isinstance(value, list):
            yield path, "must be a list"
            return
        for index, item in enumerate(value):
            if item is None:  # a list's item is no optional field: Kueue would read a null as an empty one
                yield (*path, index), "must not be null"
            yield from mistakes(item, shape[0], (*path, index))
    elif not isinstance(value, dict):
        yield path, "must be a mapping"
    elif str in shape:  # a map: every key a string, every value of the shape
        for key, item in value.items():
            yield from mistakes(item, shape[str], (*path, key))
    else:
        for key, field_shape in shape.items():
            yield from mistakes(value.get(key), field_shape, (*path, key))


def read(documents, namespace: str = "default", warnings: list | None = None) -> tuple[Queues, list[InputError]]:
    """The Kueue objects, LimitRanges, RuntimeClasses and Namespaces among (origin, object) documents (the
    inputs, and any policy files), with an error for each field trainc reads that is not of the type Kueue or the API server
    takes (such an object is left out); `warnings` gets one per Kueue object of a version Kueue 0.20 refuses."""
    queues, errors = Queues(), []
    for origin, obj in documents:
        if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
            continue
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        core = (
            api_version == "v1"
            and kind in ("LimitRange", "Namespace")
            or api_version == "node.k8s.io/v1"
            and kind == "RuntimeClass"
        )
        if not core and not (
            isinstance(api_version, str) and api_version.startswith(GROUP + "/") and kind in _QUEUE_KINDS
        ):
            continue
        meta = obj["metadata"]
        unnamed = _unnamed(origin, meta)
        if unnamed is not None:  # the error the output step gives, before it could key the queues
            errors.append(unnamed)
            continue
        part = {"Namespace": ("metadata",), "RuntimeClass": ()}.get(kind, ("spec",))  # a RuntimeClass has no spec
        checked = obj.get(part[0]) or {} if part else obj
        problems = [InputError(origin, path, message) for path, message in mistakes(checked, _SHAPES[kind], part)]
        version = api_version.rpartition("/")[2] if not core else None
        if kind == "ClusterQueue" and version in COHORT_FIELD:
            problems += _cohort_field(origin, version, checked)
        if version == OLD and warnings is not None:
            warnings.append(
                Notice(
                    "warning",
                    origin,
                    ("apiVersion",),
                    (
                        f"Kueue 0.20 no longer serves {GROUP}/{OLD} (kubernetes-sigs/kueue #14558): write {GROUP}/{SERVED}"
                        + (" and spec.cohortName for spec.cohort" if kind == "ClusterQueue" else "")
                        + "; read here as Kueue before 0.20 reads it"
                    ),
                )
            )
        errors += problems
        if problems:
            continue
        spec, name = obj.get("spec") or {} if part else obj, meta.get("name")
        if kind == "LimitRange":
            queues.limit_ranges.setdefault(meta.get("namespace") or namespace, []).append(obj)
        elif kind == "RuntimeClass":
            queues.runtime_classes[name] = (spec.get("overhead") or {}).get("podFixed") or {}
        elif kind == "Namespace":
            queues.namespaces[name] = {**(meta.get("labels") or {}), "kubernetes.io/metadata.name": name}
        elif kind == "LocalQueue":
            queues.local_queues[(meta.get("namespace") or namespace, name)] = spec.get("clusterQueue")
        elif kind == "ResourceFlavor":
            queues.flavors[name] = spec
        else:
            (queues.cluster_queues if kind == "ClusterQueue" else queues.cohorts)[name] = _node(
                origin, kind, name, spec, obj
            )
    return queues, errors


def _cohort_field(origin: Origin, version: str, spec) -> list[InputError]:
    """The other version's cohort field, which this version does not have (kubectl: unknown field)."""
    other = COHORT_FIELD[OLD if version == SERVED else SERVED]
    if not isinstance(spec, dict) or other not in spec:
        return []
    return [
        InputError(
            origin,
            ("spec", other),
            f"unknown field in {GROUP}/{version}: its name there is {COHORT_FIELD[version]}",
            key=True,
        )
    ]


def _unnamed(origin: Origin, meta: dict) -> InputError | None:
    """Why the object has no name and namespace to be found by (as kubectl apply requires), or None."""
    name, namespace = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str) or not name:
        return InputError(origin, ("metadata", "name"), "required for kubectl apply: a non-empty string")
    if namespace is not None and api.namespace_problem(namespace) is not None:
        return InputError(origin, ("metadata", "namespace"), api.namespace_problem(namespace))
    return None


def _node(origin: Origin, kind: str, name: str, spec: dict, obj: dict) -> Node:
    version = obj["apiVersion"].rpartition("/")[2]
    parent = (
        spec.get(COHORT_FIELD.get(version, "cohortName"))
        if kind == "ClusterQueue"
        else spec.get("parentName", spec.get("parent"))
    )
    node = Node(kind, name, parent or None, origin=origin, document=obj)
    for group in spec.get("resourceGroups") or ():
        flavors = []
        for flavor in group.get("flavors") or ():
            flavors.append(flavor.get("name"))
            for resource in flavor.get("resources") or ():
                amounts = {}
                for key in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    if resource.get(key) is not None:
                        amount = parse(resource[key])
                        amounts[key] = value(resource.get("name"), amount)
                        if amount.format == BINARY_SI:
                            node.binary.add(resource.get("name"))
                node.quotas[(flavor.get("name"), resource.get("name"))] = Quota(
                    amounts.get("nominalQuota", 0), amounts.get("borrowingLimit"), amounts.get("lendingLimit")
                )
        node.groups.append((list(group.get("coveredResources") or ()), flavors))
    return node


class Workload(Record):
    """What Kueue admits for one TrainJob."""

    namespace: str
    name: str
    queue: str | None  # the LocalQueue, None when Kueue does not manage it
    labelled: bool  # the queue comes from the label (else from the namespace's `default` LocalQueue)
    pod_sets: tuple
    origin: Origin | None

    @property
    def at(self) -> tuple:
        """Where a message about its queue points in the TrainJob: the queue label, else its metadata."""
        return ("metadata", "labels", QUEUE_LABEL) if self.labelled else ("metadata",)


def workload(namespace: str, name: str, jobset: dict, queues: Queues, origin: Origin | None = None) -> Workload:
    queue = ((jobset.get("metadata") or {}).get("labels") or {}).get(QUEUE_LABEL)
    labelled = queue is not None
    if queue is None and (namespace, DEFAULT_QUEUE) in queues.local_queues:
        queue = DEFAULT_QUEUE
    found = pod_sets(jobset, queues.limit_ranges.get(namespace, ()), queues.runtime_classes)
    return Workload(namespace, name, queue, labelled, tuple(found), origin)


class Placement(Record):
    """Where Kueue's flavor assigner puts a workload on an empty cluster: per pod set (in order), the flavor of
    each resource its ClusterQueue covers; or why Kueue can never admit it; and a notice when only borrowing fits.
    `flavors` is empty when nothing places it (no ClusterQueue among the inputs, or a problem)."""

    flavors: tuple = ()  # ({resource: flavor}, ...), one per pod set
    problem: str | None = None
    notice: str | None = None
    cluster_queue: str | None = None
    mode: str | None = None  # "fit", "preempt" or "wait" (only with a cluster's usage), once it is placed
    attempts: tuple = ()  # per pod set {resource: (Attempt, ...)}: every flavor tried, in order, and how it came out
    targets: tuple = ()  # the workloads it would preempt ("preempt")
    short: tuple = ()  # (flavor, resource, amount) more than is unused, that it waits for ("wait")
    borrows: bool = False  # it uses quota its cohort lends


def check(
    jobs, documents, namespace: str = "default", placements: dict | None = None, visit=None, workers: int = 1
) -> tuple[list[InputError], list[Notice], Queues, list]:
    """(errors, notices, the queues read, what `visit` found) for the rendered JobSets of `jobs` ((TrainJob or its
    place, objects) as `build.Output` holds them) against the Kueue objects among `documents` ((origin, object)
    pairs); each Kueue-managed job's Placement on the empty cluster also goes into `placements` ({(namespace,
    name): Placement}) when given. `visit(workload, jobset, queues)` is called on each JobSet, whatever its queue:
    what else is asked of every workload is asked with the JobSet read once; what it returns other than None is
    listed, in job order. Many jobs are judged on up to `workers` processes (`shares`: the same results)."""
    notices: list = []
    queues, errors = read(documents, namespace, notices)
    placing = not errors and queues.present
    if not placing and visit is None:
        return errors, notices, queues, []

    def judge(share: list) -> tuple:
        said, told, placed_all, found_all = [], [], [], []
        for trainjob, objects in share:
            jobset = next((obj for obj in objects if obj.get("kind") == "JobSet"), None)
            if jobset is None:
                continue
            found = workload(trainjob.namespace, trainjob.name, jobset, queues, trainjob.origin)
            if visit is not None:
                seen = visit(found, jobset, queues)
                if seen is not None:
                    found_all.append(seen)
            if not placing or found.queue is None:
                continue
            placed = place(found, queues)
            placed_all.append(((found.namespace, found.name), placed))
            if placed.problem is not None:
                said.append(
                    InputError(found.origin, found.at, f"Kueue can never admit this TrainJob: {placed.problem}")
                )
            elif placed.notice is not None:
                told.append(
                    Notice("notice", found.origin, (), f"{found.namespace}/{found.name}: {placed.notice}", at=found.at)
                )
        return said, told, placed_all, found_all

    visited: list = []
    for said, told, placed_all, found_all in shares.spread(list(jobs), judge, workers, JUDGED_TOGETHER):
        errors += said
        notices += told
        if placements is not None:
            placements.update(placed_all)
        visited += found_all
    return errors, notices, queues, visited


def place(found: Workload, queues: Queues, usage: dict | None = None, oracle=None) -> Placement:
    """The flavors Kueue picks for `found`, or why it can never admit it (a notice when it fits only by
    borrowing); on an empty cluster, or with `usage` and `oracle` (see `_assign`) on the cluster as it is."""
    key = (found.namespace, found.queue)
    if key not in queues.local_queues:
        there = sorted(name for ns, name in queues.local_queues if ns == found.namespace)
        return Placement(
            problem=f"LocalQueue {found.queue!r} does not exist in namespace {found.namespace!r} "
            f"(LocalQueues there: {', '.join(there) or 'none'})"
        )
    cq_name = queues.local_queues[key]
    cq = queues.cluster_queues.get(cq_name)
    if cq is None:
        return Placement()
    where = f"ClusterQueue {cq_name!r} (of LocalQueue {found.namespace}/{found.queue})"
    refused = _namespace_refused(cq, found.namespace, queues)
    if refused is not None:
        return Placement(problem=f"{where} {refused}", cluster_queue=cq_name)
    return _assign(found, cq, cq_name, where, queues, usage, oracle)


def _namespace_refused(cq: Node, namespace: str, queues: Queues) -> str | None:
    selector = (cq.document.get("spec") or {}).get("namespaceSelector")
    if selector is None:
        return "admits workloads of no namespace (it sets no namespaceSelector)"
    labels = queues.namespaces.get(namespace)
    if labels is not None and not selector_matches(selector, labels):
        return f"does not admit workloads of namespace {namespace!r} (its namespaceSelector does not match)"
    return None


def selector_matches(selector: dict, labels: dict) -> bool:
    """A metav1.LabelSelector against labels."""
    if any(labels.get(key) != wanted for key, wanted in (selector.get("matchLabels") or {}).items()):
        return False
    return all(_requirement(each, labels) for each in selector.get("matchExpressions") or ())


def _requirement(requirement: dict, labels: dict) -> bool:
    key, operator, values = requirement.get("key"), requirement.get("operator"), requirement.get("values") or []
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt") and key in labels and len(values) == 1:  # node selector requirements only
        try:
            have, limit = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > limit if operator == "Gt" else have < limit
    return False


# The flavor assigner's modes of one flavor, worst to best (kubernetes-sigs/kueue
# pkg/scheduler/flavorassigner/flavorassigner.go, preemptionMode): nothing fits (now or ever), preemption would
# be needed but finds no workload to preempt, it fits by preempting in its ClusterQueue, by reclaiming quota its
# cohort lent, it fits.
NO_FIT, NO_CANDIDATES, PREEMPT, RECLAIM, FIT = range(5)
MAY_STOP, TRY_NEXT = "MayStopSearch", "TryNextFlavor"


class Fungibility(Record):
    """A ClusterQueue's flavorFungibility with v1beta2's defaults (apis/kueue/v1beta2/clusterqueue_types.go):
    stop at a flavor that fits by borrowing, try the next one past a flavor that needs preemption."""

    when_can_borrow: str = MAY_STOP
    when_can_preempt: str = TRY_NEXT
    preemption_over_borrowing: bool = False  # preference: PreemptionOverBorrowing (else BorrowingOverPreemption)


def fungibility(cq: Node) -> Fungibility:
    """v1beta1's `Borrow` and `Preempt` are v1beta2's MayStopSearch (apis/kueue/v1beta1/clusterqueue_conversion.go)."""
    spec = (cq.document.get("spec") or {}).get("flavorFungibility") or {}
    return Fungibility(
        TRY_NEXT if spec.get("whenCanBorrow") == TRY_NEXT else MAY_STOP,
        MAY_STOP if spec.get("whenCanPreempt") not in (None, TRY_NEXT) else TRY_NEXT,
        spec.get("preference") == "PreemptionOverBorrowing",
    )


class Attempt(Record):
    """One flavor the assigner tried for one pod set's resource group, and how it came out (`fitsResourceQuota`
    over the group's resources, the worst of them)."""

    flavor: str
    mode: int
    borrow: int = 0  # the borrowing level: 0 within the ClusterQueue's quota, else the height of the subtree lent
    reason: str | None = None  # why it does not simply fit
    never: bool = False  # refused, or beyond all the ClusterQueue could ever use: no cluster state changes it
    short: tuple = ()  # (resource, amount more needed than unused), when it must wait
    targets: tuple = ()  # the workloads it would preempt


def _preferred(a: tuple, b: tuple, fungible: Fungibility) -> bool:
    """Kueue's isPreferred over (mode, borrowing level) pairs: whether `a` is better than `b`."""
    if a[0] == NO_FIT:
        return False
    if b[0] == NO_FIT:
        return True
    if (a[0] == NO_CANDIDATES) != (b[0] == NO_CANDIDATES):
        return a[0] != NO_CANDIDATES
    if fungible.preemption_over_borrowing:
        return a[1] < b[1] if a[1] != b[1] else a[0] > b[0]
    return a[0] > b[0] if a[0] != b[0] else a[1] < b[1]


def _try_next(mode: int, borrow: int, fungible: Fungibility) -> bool:
    """Kueue's shouldTryNextFlavor."""
    if mode in (NO_FIT, NO_CANDIDATES):
        return True
    if mode in (PREEMPT, RECLAIM) and fungible.when_can_preempt == TRY_NEXT:
        return True
    return borrow > 0 and fungible.when_can_borrow == TRY_NEXT


def _assign(
    found: Workload, cq: Node, cq_name: str, where: str, queues: Queues, usage: dict | None = None, oracle=None
) -> Placement:
    """The flavor assigner (assignFlavors): pod set by pod set, each resource group's flavors in order, the usage
    of the pod sets already assigned counted. `usage` ({ClusterQueue: {(flavor, resource): amount}}) is what the
    cluster's admitted workloads hold (none: an empty cluster); `oracle(cq, needs)` the workloads Kueue would
    preempt for `needs` ({(flavor, resource): amount}), as its preemption oracle simulates."""
    usage, covered, fungible = usage or {}, cq.covered, cq.fungible
    assumed: dict = {}
    borrowed, placed, tried, chosen_attempts = [], [], [], []
    for pod_set in found.pod_sets:
        picked: dict = {}
        placed.append(picked)
        tried.append({})
        amounts = {resource: pod_set.total(resource) for resource in sorted(pod_set.requests)}
        if _PODS in covered:
            amounts[_PODS] = pod_set.count
        done = set()
        for resource, amount in amounts.items():
            if resource in done:
                continue
            if resource not in covered:
                if amount == 0:
                    continue
                return Placement(
                    problem=f"{where} does not cover {resource}, which pod set {pod_set.name!r} "
                    f"requests (it covers {', '.join(sorted(covered)) or 'nothing'})",
                    cluster_queue=cq_name,
                )
            group, flavors = covered[resource]
            wanted = {name: amounts[name] for name in group if name in amounts}
            done.update(wanted)
            chosen, attempts = _flavor(cq, flavors, wanted, pod_set, assumed, fungible, queues, usage, oracle)
            attempts = tuple(attempts)  # one for the group's resources
            tried[-1].update({name: attempts for name in wanted})
            if chosen is None and all(attempt.never for attempt in attempts):
                asked = ", ".join(f"{show(name, amount, name in cq.binary)} {name}" for name, amount in wanted.items())
                return Placement(
                    problem=f"pod set {pod_set.name!r} ({pod_set.count} pods) needs {asked}, and no "
                    f"flavor of {where} takes it: {'; '.join(a.reason for a in attempts)}",
                    cluster_queue=cq_name,
                    attempts=tuple(tried),
                )
            if chosen is None:  # it fits some flavor once enough is unused: the cluster is full for it now
                short = tuple((attempt.flavor, name, more) for attempt in attempts for name, more in attempt.short)
                return Placement(tuple(placed), cluster_queue=cq_name, mode="wait", short=short, attempts=tuple(tried))
            for name, amount in wanted.items():
                assumed[(chosen.flavor, name)] = _add(assumed.get((chosen.flavor, name), 0), amount)
                picked[name] = chosen.flavor
                if assumed[(chosen.flavor, name)] > subtree_quota(cq, (chosen.flavor, name), queues):
                    borrowed.append(
                        (
                            chosen.flavor,
                            name,
                            assumed[(chosen.flavor, name)],
                            subtree_quota(cq, (chosen.flavor, name), queues),
                        )
                    )
            chosen_attempts.append(chosen)
    mode = min((attempt.mode for attempt in chosen_attempts), default=FIT)
    targets = ()
    if mode in (PREEMPT, RECLAIM) and oracle is not None:  # the workloads its whole assignment preempts
        needs = {key: amount for key, amount in assumed.items() if amount > max(0, available(cq, key, queues, usage))}
        targets = tuple(oracle(cq, needs))
    kind = "fit" if mode == FIT else "preempt" if targets else "wait"
    short = (
        ()
        if kind != "wait"
        else tuple((attempt.flavor, name, more) for attempt in chosen_attempts for name, more in attempt.short)
    )
    notice = None
    if borrowed:
        parts = [
            f"flavor {flavor!r}: {show(name, need, name in cq.binary)} {name} > nominal quota "
            f"{show(name, nominal, name in cq.binary)}"
            for flavor, name, need, nominal in borrowed
        ]
        notice = (
            f"Kueue admits it only by borrowing from cohort {cq.parent!r} ({where}, {'; '.join(parts)}): it "
            "waits until the cohort has that much unused"
        )
    return Placement(
        tuple(placed),
        notice=notice,
        cluster_queue=cq_name,
        mode=kind,
        attempts=tuple(tried),
        targets=targets,
        short=short,
        borrows=any(attempt.borrow > 0 for attempt in chosen_attempts),
    )


def _flavor(
    cq: Node,
    flavors: list,
    wanted: dict,
    pod_set: PodSet,
    assumed: dict,
    fungible: Fungibility,
    queues: Queues,
    usage: dict,
    oracle,
) -> tuple:
    """(the Attempt Kueue picks or None, every Attempt in order): findFlavorForPodSets."""
    attempts, best = [], None
    for flavor in flavors:
        refused = _flavor_refuses(flavor, pod_set.spec, queues)
        if refused is not None:
            attempts.append(Attempt(flavor, NO_FIT, reason=f"flavor {flavor!r}: {refused}", never=True))
            continue
        worst, reasons, short, never = (FIT, 0), [], [], False
        for name, amount in wanted.items():
            mode, borrow, reason, more, beyond = _fits(
                cq, flavor, name, assumed.get((flavor, name), 0), amount, queues, usage, oracle
            )
            if reason is not None:
                reasons.append(reason)
            if more:
                short.append((name, more))
            never = never or beyond
            if _preferred(worst, (mode, borrow), fungible):
                worst = (mode, borrow)
            if mode == NO_FIT:
                break
        attempt = Attempt(flavor, worst[0], worst[1], "; ".join(reasons) or None, never, tuple(short))
        attempts.append(attempt)
        if not _try_next(*worst, fungible):
            return attempt, attempts
        if best is None or _preferred(worst, (best.mode, best.borrow), fungible):
            best = attempt
    return (best if best is not None and best.mode != NO_FIT else None), attempts


def _fits(cq: Node, flavor: str, name: str, before: int, amount: int, queues: Queues, usage: dict, oracle):
    """(mode, borrowing level, why it does not simply fit or None, how much more it needs than is unused, whether
    it is beyond all the ClusterQueue could ever use): Kueue's fitsResourceQuota for one resource of a flavor."""
    key = (flavor, name)
    need, most = _add(before, amount), potential(cq, key, queues)
    if need > most:
        return NO_FIT, 0, _shortfall(cq, flavor, name, amount, before, most, queues), 0, True
    borrow, may_reclaim = borrow_level(cq, key, need, queues, usage)
    free = max(0, available(cq, key, queues, usage))
    if need <= free:
        return FIT, borrow, None, 0, False
    more = need - free
    binary = name in cq.binary
    reason = f"flavor {flavor!r}: {show(name, need, binary)} {name} needed, {show(name, free, binary)} unused"
    quota = cq.quotas.get(key)
    if oracle is not None and (
        (quota is not None and quota.nominal >= need) or may_reclaim or _preempts_while_borrowing(cq)
    ):
        targets = oracle(cq, {key: need})
        if targets:
            return (
                (PREEMPT if any(target.cluster_queue == cq.name for target in targets) else RECLAIM),
                borrow,
                reason + f", unless it preempts {len(targets)} workload{'s' * (len(targets) != 1)}",
                more,
                False,
            )
        return NO_CANDIDATES, borrow, reason + " (and nothing it may preempt frees it)", more, False
    return NO_FIT, borrow, reason, more, False


def _preempts_while_borrowing(cq: Node) -> bool:
    """canPreemptWhileBorrowing (classical preemption: borrowWithinCohort's policy other than Never)."""
    policy = (((cq.document.get("spec") or {}).get("preemption") or {}).get("borrowWithinCohort") or {}).get("policy")
    return policy not in (None, "Never")


def _add(a: int, b: int) -> int:
    """Kueue's Amount.Add: saturating at int64's maximum."""
    return min(a + b, _INT64_MAX)


def _shortfall(cq: Node, flavor: str, name: str, amount: int, before: int, most: int, queues: Queues) -> str:
    binary = name in cq.binary
    asked = show(name, amount, binary)
    if before:
        asked += f" + {show(name, before, binary)} of the pod sets before it"
    nominal = subtree_quota(cq, (flavor, name), queues)
    if most == nominal:
        limit = f"its nominal quota {show(name, nominal, binary)}"
        if cq.parent is not None:
            limit += f" (nothing to borrow in cohort {cq.parent!r})"
    else:
        limit = (
            f"{show(name, most, binary)} = nominal quota {show(name, nominal, binary)} + at most "
            f"{show(name, most - nominal, binary)} borrowed in cohort {cq.parent!r}"
        )
        quota = cq.quotas.get((flavor, name))
        if quota is not None and quota.borrowing is not None and most - nominal == quota.borrowing:
            limit += " (its borrowingLimit)"
    return f"flavor {flavor!r}: {asked} {name} > {limit}"


def _flavor_refuses(flavor: str, spec: dict, queues: Queues) -> str | None:
    """Why the flavor assigner passes over `flavor` for pods of `spec` (checkFlavorForPodSets), or None."""
    found = queues.flavors.get(flavor)
    if found is None:
        return "no ResourceFlavor of this name among the inputs (Kueue finds no such flavor)"
    tolerations = [*(spec.get("tolerations") or ()), *(found.get("tolerations") or ())]
    for taint in found.get("nodeTaints") or ():
        if taint.get("effect") in _TAINT_EFFECTS and not any(_tolerates(each, taint) for each in tolerations):
            value = f"={taint['value']}" if taint.get("value") else ""
            return f"the pods do not tolerate its taint {taint.get('key')}{value}:{taint.get('effect')}"
    labels = found.get("nodeLabels") or {}
    if not _affinity_matches(spec, labels):
        shown = ", ".join(f"{key}={labels[key]}" for key in sorted(labels))
        return f"its node labels ({shown}) do not match the pods' nodeSelector or required node affinity"
    return None


def _tolerates(toleration: dict, taint: dict) -> bool:
    """Kubernetes' Toleration.ToleratesTaint."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    key, operator = toleration.get("key"), toleration.get("operator") or "Equal"
    if key and key != taint.get("key"):
        return False
    if operator == "Exists":
        return True
    return (toleration.get("value") or "") == (taint.get("value") or "")


def _affinity_matches(spec: dict, labels: dict) -> bool:
    """Kueue's flavorSelector: the pods' nodeSelector and required node affinity, only the keys the flavor's
    node labels have, matched against those labels."""
    for key, wanted in (spec.get("nodeSelector") or {}).items():
        if key in labels and labels[key] != wanted:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = []
    for term in required.get("nodeSelectorTerms") or ():
        kept = [each for each in term.get("matchExpressions") or () if each.get("key") in labels]
        if not kept:  # a term left empty matches every flavor: the terms are ORed
            return True
        terms.append(kept)
    return not terms or any(all(_requirement(each, labels) for each in term) for term in terms)


def _summed(function):
    """`function(node, key, queues, seen)`, a sum over the cohort tree that no usage enters, remembered in
    `queues.sums`: every workload placed asks for the same few."""

    def remembered(node: Node, key: tuple, queues: Queues, seen: frozenset = frozenset()) -> int:
        memo = (function.__name__, node.kind, node.name, key, seen)
        found = queues.sums.get(memo)
        if found is None:
            found = queues.sums[memo] = function(node, key, queues, seen)
        return found

    remembered.__doc__ = function.__doc__
    return remembered


@_summed
def subtree_quota(node: Node, key: tuple, queues: Queues, seen: frozenset = frozenset()) -> int:
    """Kueue's SubtreeQuota: a node's nominal quota plus what its children lend it."""
    quota = node.quotas.get(key)
    total = quota.nominal if quota is not None else 0
    if node.kind == "Cohort":
        for child in queues.children(node.name):
            if child.kind == "Cohort" and child.name in seen:
                continue
            total = _add(
                total, subtree_quota(child, key, queues, seen | {node.name}) - _local_quota(child, key, queues, seen)
            )
    return total


@_summed
def _local_quota(node: Node, key: tuple, queues: Queues, seen: frozenset = frozenset()) -> int:
    """What a node keeps from its parent: its subtree quota above its lendingLimit (nothing without one)."""
    quota = node.quotas.get(key)
    if quota is None or quota.lending is None:
        return 0
    return max(0, subtree_quota(node, key, queues, seen) - quota.lending)


def _cohort(name: str, queues: Queues) -> Node:
    """A Cohort: its object, or the implicit one ClusterQueues name (no quota of its own, no parent)."""
    return queues.cohorts.get(name) or Node("Cohort", name)


@_summed
def potential(node: Node, key: tuple, queues: Queues, seen: frozenset = frozenset()) -> int:
    """Kueue's potentialAvailable: the most a node can use with nothing else running (borrowingLimit kept)."""
    own = subtree_quota(node, key, queues)
    if node.parent is None or node.parent in seen:
        return own
    parent = _cohort(node.parent, queues)
    available = _add(_local_quota(node, key, queues), potential(parent, key, queues, seen | {node.name}))
    quota = node.quotas.get(key)
    if quota is not None and quota.borrowing is not None:
        available = min(available, _add(own, quota.borrowing))
    return available


def used(node: Node, key: tuple, queues: Queues, usage: Mapping, seen: frozenset = frozenset()) -> int:
    """What counts against a node's subtree quota (pkg/cache/scheduler/resource_node.go): a ClusterQueue's
    admitted workloads; a Cohort's, what its children use beyond the quota they keep (accumulateFromChild).
    A usage that cannot change (a MappingProxyType: the cluster's, `clusterstate.State.usage`) has its sums
    remembered in `queues.sums`, as the quotas' are; one being changed (the preemption oracle's) is summed afresh."""
    if not usage:  # an empty cluster
        return 0
    if type(usage) is not MappingProxyType or node.kind == "ClusterQueue":
        return _used(node, key, queues, usage, seen)
    return _on_usage(_used, node, key, queues, usage, seen)


def _on_usage(function, node: Node, key: tuple, queues: Queues, usage: Mapping, seen: frozenset) -> int:
    """`function(node, key, queues, usage, seen)` remembered in `queues.sums` for a usage that cannot change (the
    cluster's, a MappingProxyType, or none: an empty cluster), as the quotas' sums are."""
    memo = (function.__name__, id(usage) if usage else None, node.kind, node.name, key, seen)
    found = queues.sums.get(memo)
    if found is None:
        if usage:
            queues.sums[("usage", id(usage))] = usage  # held, so that its id names no other usage while the sums stand
        found = queues.sums[memo] = function(node, key, queues, usage, seen)
    return found


def _used(node: Node, key: tuple, queues: Queues, usage: Mapping, seen: frozenset) -> int:
    if node.kind == "ClusterQueue":
        return (usage.get(node.name) or {}).get(key, 0)
    total = 0
    for child in queues.children(node.name):
        if child.kind == "Cohort" and (child.name in seen or child.name == node.name):
            continue
        total = _add(
            total, max(0, used(child, key, queues, usage, seen | {node.name}) - _local_quota(child, key, queues))
        )
    return total


def _local_available(node: Node, key: tuple, queues: Queues, usage: dict) -> int:
    """Kueue's LocalAvailable: the quota a node keeps from its cohort (lendingLimit) that it does not use."""
    return max(0, _local_quota(node, key, queues) - used(node, key, queues, usage))


def available(node: Node, key: tuple, queues: Queues, usage: dict, seen: frozenset = frozenset()) -> int:
    """Kueue's available: what a node may still use now, its own unused quota and what its cohort tree has
    unused, within its borrowingLimit; negative when it is over-admitted. Remembered in `queues.sums` as `used`
    is, for an empty cluster too: every flavor of every workload placed asks it."""
    if usage and type(usage) is not MappingProxyType:
        return _available(node, key, queues, usage, seen)
    return _on_usage(_available, node, key, queues, usage, seen)


def _available(node: Node, key: tuple, queues: Queues, usage: dict, seen: frozenset) -> int:
    if node.parent is None or node.parent in seen:
        return subtree_quota(node, key, queues) - used(node, key, queues, usage)
    from_parent = available(_cohort(node.parent, queues), key, queues, usage, seen | {node.name})
    quota = node.quotas.get(key)
    if quota is not None and quota.borrowing is not None:
        kept = _local_quota(node, key, queues)
        stored = subtree_quota(node, key, queues) - kept
        used_there = max(0, used(node, key, queues, usage) - kept)
        from_parent = min(stored - used_there + quota.borrowing, from_parent)
    return _local_available(node, key, queues, usage) + from_parent


def borrow_level(cq: Node, key: tuple, amount: int, queues: Queues, usage: dict) -> tuple[int, bool]:
    """(borrowing level, whether a subtree smaller than the whole tree holds it): Kueue's
    FindHeightOfLowestSubtreeThatFits (pkg/scheduler/preemption/classical/hierarchical_preemption.go)."""
    nominal = (cq.quotas.get(key) or Quota(0, None, None)).nominal
    if cq.parent is None or nominal >= _add(used(cq, key, queues, usage), amount):
        return 0, cq.parent is not None
    remaining = amount - _local_available(cq, key, queues, usage)
    node, seen = _cohort(cq.parent, queues), {cq.name}
    while True:
        seen.add(node.name)
        if subtree_quota(node, key, queues) >= _add(used(node, key, queues, usage), remaining):
            return _height(node, queues), node.parent is not None and node.parent not in seen
        remaining -= _local_available(node, key, queues, usage)
        if node.parent is None or node.parent in seen:
            return _height(node, queues), False
        node = _cohort(node.parent, queues)


def _height(node: Node, queues: Queues, seen: frozenset = frozenset()) -> int:
    """Kueue's getNodeHeight: the distance from a Cohort to its furthest ClusterQueue."""
    children = queues.children(node.name)
    height = min(len(children), 1)
    for child in children:
        if child.kind == "Cohort" and child.name not in seen and child.name != node.name:
            height = max(height, _height(child, queues, seen | {node.name}) + 1)
    return height


def explained(placement: Placement, pod_sets) -> list[str]:
    """Why each pod set got its flavor, for `trainc explain`: per resource group, every flavor tried in order,
    the one picked marked, and why the others were passed over (or not picked)."""
    lines = []
    for index, (pod_set, tried) in enumerate(zip(pod_sets, placement.attempts)):
        chosen = placement.flavors[index] if index < len(placement.flavors) else {}
        groups: dict = {}
        for resource, attempts in tried.items():
            groups.setdefault(id(attempts), (attempts, []))[1].append(resource)
        for attempts, resources in groups.values():
            picked = chosen.get(resources[0])
            lines.append(
                f"{pod_set.name} ({plural(pod_set.count, 'pod')}; {', '.join(resources)}): "
                + (f"flavor {picked!r}" if picked else "no flavor")
            )
            for attempt in attempts:
                lines.append(
                    f"  {'←' if attempt.flavor == picked else ' '} {attempt.flavor}: {_attempt_words(attempt)}"
                )
    return lines


def _attempt_words(attempt: Attempt) -> str:
    if attempt.mode == FIT:
        return "fits by borrowing from its cohort" if attempt.borrow else "fits"
    return (attempt.reason or "does not fit").replace(f"flavor {attempt.flavor!r}: ", "")
