"""The CEL rules of the Trainer CRDs, as Python predicates keyed by rule text.

Keying by the exact rule text means a CRD update that adds or rewrites a rule
fails `tests/test_schema.py` until the rule is translated here. Transition
rules (`oldSelf`) need the previous object and are checked by `validate
--previous`, not here.
"""

import re

# CEL's matches() is RE2, whose `$` is the end of the text: \Z in Python.
_DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?\Z")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://.+\Z")
_POLICIES = ("torch", "mpi", "jax", "xgboost", "flux")


def _name(obj) -> str:
    return (obj.get("metadata") or {}).get("name") or ""


def _no_startup_with_depends_on(spec) -> bool:
    ordered = (spec.get("startupPolicy") or {}).get("startupPolicyOrder") == "InOrder"
    return not (ordered and any("dependsOn" in job for job in spec.get("replicatedJobs") or ()))


RULES = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": lambda obj: bool(_DNS_LABEL.match(_name(obj))),
    "size(self.metadata.name) <= 63": lambda obj: len(_name(obj)) <= 63,
    "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')": lambda uri: uri == "" or bool(_URI.match(uri)),
    "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']": lambda manager: manager
    in ("trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue"),
    "self >= 1": lambda number: number >= 1,
    "has(self.lastUpdatedTime)": lambda status: "lastUpdatedTime" in status,
    "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1": (
        lambda policy: sum(key in policy for key in _POLICIES) <= 1
    ),
    "!self.exists(c, c == 'node')": lambda names: "node" not in names,
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && self.replicatedJobs.exists(x, has(x.dependsOn)))": _no_startup_with_depends_on,
    "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)": lambda policy: all(
        not (template.get("metadata") or {}).get("namespace") for template in policy.get("templates") or ()
    ),
}

# Rules on an object that are about one of its fields: report them at that field.
FIELD = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": ("metadata", "name"),
    "size(self.metadata.name) <= 63": ("metadata", "name"),
}

TRANSITION = frozenset({"self == oldSelf"})
