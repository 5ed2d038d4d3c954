"""Which object a manifest is and whether it lives in a namespace, as kustomize's kyaml/resid knows it: the one
table of kinds trainc knows offline (Kubernetes' own and those of the APIs deployed beside TrainJobs: Trainer,
JobSet, Kueue, Volcano, the scheduler plugins), each with its resource and scope.

trainc cannot ask a cluster. Admission matches resourceRules on resources, not kinds; namespaces are given
only to namespaced objects (k8s/namespaced.py); an update replaces the object of the same identity. CRDs among
the inputs add their kinds (`Resources`); any other kind gets the lower-case plural and is namespaced, as a
RESTMapper guesses and as Argo CD takes a kind it does not know (the API server drops a namespace given to a
cluster-scoped object).
"""

from __future__ import annotations

_POLICY_GROUP = "admissionregistration.k8s.io/"
_POLICY_KINDS = ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
_CLUSTER, _NAMESPACED = True, False
KINDS = {  # (group, kind) -> (resource, cluster-scoped)
    ("", "Pod"): ("pods", _NAMESPACED),
    ("", "Service"): ("services", _NAMESPACED),
    ("", "ConfigMap"): ("configmaps", _NAMESPACED),
    ("", "Secret"): ("secrets", _NAMESPACED),
    ("", "ServiceAccount"): ("serviceaccounts", _NAMESPACED),
    ("", "Endpoints"): ("endpoints", _NAMESPACED),
    ("", "PersistentVolumeClaim"): ("persistentvolumeclaims", _NAMESPACED),
    ("", "PersistentVolume"): ("persistentvolumes", _CLUSTER),
    ("", "Namespace"): ("namespaces", _CLUSTER),
    ("", "Node"): ("nodes", _CLUSTER),
    ("", "ResourceQuota"): ("resourcequotas", _NAMESPACED),
    ("", "LimitRange"): ("limitranges", _NAMESPACED),
    ("apps", "Deployment"): ("deployments", _NAMESPACED),
    ("apps", "StatefulSet"): ("statefulsets", _NAMESPACED),
    ("apps", "DaemonSet"): ("daemonsets", _NAMESPACED),
    ("batch", "Job"): ("jobs", _NAMESPACED),
    ("batch", "CronJob"): ("cronjobs", _NAMESPACED),
    ("jobset.x-k8s.io", "JobSet"): ("jobsets", _NAMESPACED),
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
        "validatingadmissionpolicybindings",
        _CLUSTER,
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): ("mutatingwebhookconfigurations", _CLUSTER),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): ("validatingwebhookconfigurations", _CLUSTER),
    ("", "ComponentStatus"): ("componentstatuses", _CLUSTER),
    ("apiregistration.k8s.io", "APIService"): ("apiservices", _CLUSTER),
    ("storage.k8s.io", "CSIDriver"): ("csidrivers", _CLUSTER),
    ("storage.k8s.io", "CSINode"): ("csinodes", _CLUSTER),
    ("storage.k8s.io", "VolumeAttachment"): ("volumeattachments", _CLUSTER),
    ("networking.k8s.io", "IngressClass"): ("ingressclasses", _CLUSTER),
    ("node.k8s.io", "RuntimeClass"): ("runtimeclasses", _CLUSTER),
    ("certificates.k8s.io", "CertificateSigningRequest"): ("certificatesigningrequests", _CLUSTER),
    ("policy", "PodSecurityPolicy"): ("podsecuritypolicies", _CLUSTER),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): ("flowschemas", _CLUSTER),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): ("prioritylevelconfigurations", _CLUSTER),
    ("kueue.x-k8s.io", "AdmissionCheck"): ("admissionchecks", _CLUSTER),
    ("kueue.x-k8s.io", "Cohort"): ("cohorts", _CLUSTER),
    ("kueue.x-k8s.io", "Topology"): ("topologies", _CLUSTER),
    ("kueue.x-k8s.io", "MultiKueueCluster"): ("multikueueclusters", _CLUSTER),
    ("kueue.x-k8s.io", "MultiKueueConfig"): ("multikueueconfigs", _CLUSTER),
    ("kueue.x-k8s.io", "ProvisioningRequestConfig"): ("provisioningrequestconfigs", _CLUSTER),
    ("kueue.x-k8s.io", "Workload"): ("workloads", _NAMESPACED),
    ("scheduling.volcano.sh", "Queue"): ("queues", _CLUSTER),
    ("trainer.kubeflow.org", "OptimizationJob"): ("optimizationjobs", _NAMESPACED),
    ("bitnami.com", "SealedSecret"): ("sealedsecrets", _NAMESPACED),
    ("external-secrets.io", "ExternalSecret"): ("externalsecrets", _NAMESPACED),
    ("generators.external-secrets.io", "SSHKey"): ("sshkeys", _NAMESPACED),
}


def group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def cluster_scoped(group: str, kind: str) -> bool:
    """Whether the kind is cluster-scoped; a kind trainc does not know is namespaced."""
    return KINDS.get((group, kind), ("", _NAMESPACED))[1]


def identity(obj: dict, namespace: str) -> tuple:
    """(group, kind, namespace, name): which object in the cluster the manifest is, the one an update replaces. A
    namespaced object without a namespace is in `namespace`, as kubectl -n puts it; a cluster-scoped one has
    namespace "" whatever it sets (the API server drops it)."""
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    group, kind = group_version(obj.get("apiVersion") or "")[0], obj.get("kind")
    scope = "" if cluster_scoped(group, kind) else metadata.get("namespace") or namespace
    return group, kind, scope, metadata.get("name")


def rendered_identity(obj: dict) -> tuple:
    """A rendered object's (group, kind, namespace, name), as it states them (trainc sets every one)."""
    metadata = obj["metadata"]
    return obj["apiVersion"].rpartition("/")[0], obj["kind"], metadata["namespace"], metadata["name"]


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
        self.known = dict(KINDS)
        for obj in objects:
            if obj.get("kind") == "CustomResourceDefinition" and isinstance(obj.get("spec"), dict):
                spec = obj["spec"]
                names = spec.get("names") or {}
                if isinstance(names, dict) and names.get("kind") and names.get("plural"):
                    self.known[(spec.get("group", ""), names["kind"])] = (
                        names["plural"],
                        spec.get("scope") == "Cluster",
                    )

    def of(self, group: str, kind: str) -> tuple[str, bool]:
        """(resource, cluster-scoped)."""
        return self.known.get((group, kind)) or (plural(kind), _NAMESPACED)  # as a RESTMapper guesses

    def knows(self, group: str, kind: str) -> bool:
        return (group, kind) in self.known


def is_policy(obj) -> bool:
    """A ValidatingAdmissionPolicy or its binding (any version of the group)."""
    return (
        isinstance(obj, dict)
        and obj.get("kind") in _POLICY_KINDS
        and isinstance(obj.get("apiVersion"), str)
        and obj["apiVersion"].startswith(_POLICY_GROUP)
    )
