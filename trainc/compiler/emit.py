"""Turn compiled units into Kubernetes objects and a deterministic YAML stream.

Objects are data, serialized by `serialize.py`; nothing is templated as text. The
differences from upstream that running ahead of time calls for are made here:
no ownerReferences (no TrainJob object exists in the cluster), a label tracing
each object to its TrainJob, `spec.suspend` only when true (a GitOps tool
re-applying `suspend: false` would fight Kueue, which suspends and admits JobSets),
and the TrainJob's Kueue labels on the JobSet: with no TrainJob object, Kueue
manages the JobSet through its JobSet integration, which reads them there.
"""

from __future__ import annotations

from .ir import Unit

TRAINJOB_LABEL = "trainer.kubeflow.org/trainjob-name"
CONFIG_MAP_BYTES = 1 << 20  # the most data the API server takes in a ConfigMap (MaxSecretSize)
KUEUE_LABELS = ("kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class")


def metadata(unit: Unit, name: str, labels: dict | None = None, annotations: dict | None = None) -> dict:
    """ObjectMeta for an object built for this unit's TrainJob."""
    meta = {"name": name, "namespace": unit.trainjob.namespace, "labels": {**(labels or {}), TRAINJOB_LABEL: unit.name}}
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def config_map_fits(data: dict) -> bool:
    """Whether a ConfigMap's `data` (keys and values, UTF-8) is within the API server's limit."""
    return sum(len(key) + len(value.encode()) for key, value in data.items()) <= CONFIG_MAP_BYTES


def jobset(unit: Unit) -> dict:
    # upstream overwrites the runtime template's `suspend` with the TrainJob's, so a runtime's never shows
    spec = {key: value for key, value in unit.jobset.items() if key != "suspend"}
    if unit.trainjob.spec.suspend:
        spec["suspend"] = True
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": metadata(unit, unit.name, {**unit.labels, **kueue_labels(unit)}, unit.annotations),
        "spec": spec,
    }


def kueue_labels(unit: Unit) -> dict:
    """The TrainJob's Kueue labels; they win over runtime labels of the same key."""
    labels = unit.trainjob.metadata.labels
    return {key: labels[key] for key in KUEUE_LABELS if key in labels}


def objects(unit: Unit) -> list[dict]:
    """Everything for one TrainJob, dependents before the JobSet that uses them."""
    return [*unit.objects, jobset(unit)]
