"""Kind -> (resource, cluster-scoped) for admission matching: the API server matches resourceRules on
resources, not kinds. The kinds trainc renders or commonly passes through are listed; CRDs among the
inputs add theirs; any other kind gets the lower-case plural, namespaced, as a RESTMapper guesses."""

from __future__ import annotations

_POLICY_GROUP = "admissionregistration.k8s.io/"
_POLICY_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
_CLUSTER, _NAMESPACED = True, False
_KNOWN = {
    ("", "Pod"): ("pods", _NAMESPACED), ("", "Service"): ("services", _NAMESPACED),
    ("", "ConfigMap"): ("configmaps", _NAMESPACED), ("", "Secret"): ("secrets", _NAMESPACED),
    ("", "ServiceAccount"): ("serviceaccounts", _NAMESPACED), ("", "Endpoints"): ("endpoints", _NAMESPACED),
    ("", "PersistentVolumeClaim"): ("persistentvolumeclaims", _NAMESPACED),
    ("", "PersistentVolume"): ("persistentvolumes", _CLUSTER), ("", "Namespace"): ("namespaces", _CLUSTER),
    ("", "Node"): ("nodes", _CLUSTER), ("", "ResourceQuota"): ("resourcequotas", _NAMESPACED),
    ("", "LimitRange"): ("limitranges", _NAMESPACED),
    ("apps", "Deployment"): ("deployments", _NAMESPACED), ("apps", "StatefulSet"): ("statefulsets", _NAMESPACED),
    ("apps", "DaemonSet"): ("daemonsets", _NAMESPACED), ("batch", "Job"): ("jobs", _NAMESPACED),
    ("batch", "CronJob"): ("cronjobs", _NAMESPACED), ("jobset.x-k8s.io", "JobSet"): ("jobsets", _NAMESPACED),
    ("scheduling.x-k8s.io", "PodGroup"): ("podgroups", _NAMESPACED),
    ("scheduling.volcano.sh", "PodGroup"): ("podgroups", _NAMESPACED),
    ("trainer.kubeflow.org", "TrainJob"): ("trainjobs", _NAMESPACED),
    ("trainer.kubeflow.org", "TrainingRuntime"): ("trainingruntimes", _NAMESPACED),
    ("trainer.kubeflow.org", "ClusterTrainingRuntime"): ("clustertrainingruntimes", _CLUSTER),
    ("kueue.x-k8s.io", "LocalQueue"): ("localqueues", _NAMESPACED),
    ("kueue.x-k8s.io", "ClusterQueue"): ("clusterqueues", _CLUSTER),
    ("kueue.x-k8s.io", "ResourceFlavor"): ("resourceflavors", _CLUSTER),
    ("kueue.x-k8s.io", "WorkloadPriorityClass"): ("workloadpriorityclasses", _CLUSTER),
    ("scheduling.k8s.io", "PriorityClass"): ("priorityclasses", _CLUSTER),
    ("rbac.authorization.k8s.io", "Role"): ("roles", _NAMESPACED),
    ("rbac.authorization.k8s.io", "RoleBinding"): ("rolebindings", _NAMESPACED),
    ("rbac.authorization.k8s.io", "ClusterRole"): ("clusterroles", _CLUSTER),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): ("clusterrolebindings", _CLUSTER),
    ("networking.k8s.io", "NetworkPolicy"): ("networkpolicies", _NAMESPACED),
    ("networking.k8s.io", "Ingress"): ("ingresses", _NAMESPACED),
    ("policy", "PodDisruptionBudget"): ("poddisruptionbudgets", _NAMESPACED),
    ("storage.k8s.io", "StorageClass"): ("storageclasses", _CLUSTER),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("customresourcedefinitions", _CLUSTER),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): ("validatingadmissionpolicies", _CLUSTER),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): (
        "validatingadmissionpolicybindings", _CLUSTER),
}


def group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def plural(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith(("s", "x", "z", "ch", "sh")):
        return lower + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u"):
        return lower[:-1] + "ies"
    return lower + "s"


class Resources:
    """The mapping in effect: the table, plus the CRDs among the inputs."""

    def __init__(self, objects=()):
        self.known = dict(_KNOWN)
        for obj in objects:
            if obj.get("kind") == "CustomResourceDefinition" and isinstance(obj.get("spec"), dict):
                spec = obj["spec"]
                names = spec.get("names") or {}
                if isinstance(names, dict) and names.get("kind") and names.get("plural"):
                    self.known[(spec.get("group", ""), names["kind"])] = (names["plural"],
                                                                         spec.get("scope") == "Cluster")

    def of(self, group: str, kind: str) -> tuple[str, bool]:
        """(resource, cluster-scoped)."""
        return self.known.get((group, kind)) or (plural(kind), _NAMESPACED)

    def knows(self, group: str, kind: str) -> bool:
        return (group, kind) in self.known


def is_policy(obj) -> bool:
    """A ValidatingAdmissionPolicy or its binding (any version of the group)."""
    return (isinstance(obj, dict) and obj.get("kind") in _POLICY_KINDS and isinstance(obj.get("apiVersion"), str)
            and obj["apiVersion"].startswith(_POLICY_GROUP))
