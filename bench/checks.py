"""Every check a platform repository turns on, around bench.py's TrainJobs: the repository `write` lays out.

- `.trainc.yaml` at its root, as a platform team writes it: `policy-paths`, `kueue-paths`, `cluster-state`, a
  price table and two house rules (a GPU cap and a cost cap, which reads each TrainJob's `cost`);
- `platform/policies/`: five ValidatingAdmissionPolicies with their bindings (POLICIES), their params and the
  Namespaces (`params`);
- `platform/kueue/`: two ResourceFlavors (a100, h100 tainted) and one ClusterQueue per namespace in one cohort;
- `platform/state.json`: the cluster, as `kubectl get ... -A -o json` lists it: those queues, the namespaces'
  LocalQueues and Workloads holding quota on some of them (placement and each TrainJob's standing);
- `inputs/queues.yaml`: two LocalQueues per namespace, `training` (which every other TrainJob names in its
  `kueue.x-k8s.io/queue-name` label) and `default` (Kueue's for the others), passed through.

Everything allows the generated TrainJobs, so the build completes with every check evaluated.
"""

from __future__ import annotations

import json
from pathlib import Path

JOBSETS = """\
  matchConstraints:
    resourceRules:
      - apiGroups: [jobset.x-k8s.io]
        apiVersions: ["*"]
        operations: [CREATE, UPDATE]
        resources: [jobsets]
"""


def policy(name: str, body: str, actions: str = "[Deny]", binding: str = "") -> str:
    return (
        f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n"
        f"  name: {name}\nspec:\n{body}---\n"
        f"apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n"
        f"  name: {name}\nspec:\n  policyName: {name}\n  validationActions: {actions}\n{binding}---\n"
    )


# What a platform team writes: a GPU-per-node cap (variables), allowed image registries (params from a ConfigMap
# per namespace), a replica cap with a messageExpression, a namespaceSelector-scoped memory rule, and a
# matchConditions-gated check on every passed-through and rendered object's name.
POLICIES = (
    policy(
        "gpu-per-node-cap",
        JOBSETS
        + """\
  variables:
    - name: containers
      expression: "object.spec.replicatedJobs.map(j, j.template.spec.template.spec.containers).map(cs, cs)"
  validations:
    - expression: >-
        object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
          !has(c.resources) || !has(c.resources.limits) || !('nvidia.com/gpu' in c.resources.limits) ||
          int(c.resources.limits['nvidia.com/gpu']) <= 8))
      message: at most 8 GPUs per node
""",
    )
    + policy(
        "allowed-registries",
        "  paramKind: {apiVersion: v1, kind: ConfigMap}\n"
        + JOBSETS
        + """\
  validations:
    - expression: >-
        object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
          params.data.registries.split(',').exists(r, c.image.startsWith(r))))
      messageExpression: "'images must come from ' + params.data.registries"
""",
        binding="  paramRef: {name: registries, parameterNotFoundAction: Deny}\n",
    )
    + policy(
        "replica-cap",
        JOBSETS
        + """\
  validations:
    - expression: object.spec.replicatedJobs.all(j, j.replicas * j.template.spec.parallelism <= 64)
      messageExpression: "'at most 64 pods, not ' + string(object.spec.replicatedJobs.size())"
""",
    )
    + policy(
        "memory-requested",
        JOBSETS.replace(
            "  matchConstraints:\n",
            "  matchConstraints:\n    namespaceSelector: {matchLabels: {memory-policy: strict}}\n",
        )
        + """\
  validations:
    - expression: >-
        object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
          !has(c.resources) || !has(c.resources.limits) || !has(c.resources.limits.memory) ||
          quantity(c.resources.limits.memory).compareTo(quantity('2Ti')) <= 0))
      message: at most 2Ti of memory per container
""",
        actions="[Warn]",
    )
    + policy(
        "names",
        """\
  matchConstraints:
    resourceRules:
      - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}
  matchConditions:
    - name: named
      expression: has(object.metadata.name)
  validations:
    - expression: size(object.metadata.name) <= 63 && object.metadata.name.matches('^[a-z0-9-]+$')
      message: names are DNS labels
""",
        actions="[Audit]",
    )
)

CONFIG = """\
# The platform's settings for every folder below: what the build checks against, what jobs cost, house rules.
policy-paths: [platform/policies]
kueue-paths: [platform/kueue]
cluster-state: platform/state.json
prices:
  currency: USD
  flavors:
    a100: {nvidia.com/gpu: 2.50, cpu: 0.03, memory: 0.004}
    h100: {nvidia.com/gpu: 4.00, cpu: 0.03, memory: 0.004}
  default: {cpu: 0.03, memory: 0.004}
policies:
  - name: gpus-per-node
    match: {kinds: [jobset.x-k8s.io/JobSet]}
    rule: >-
      object.spec.replicatedJobs.all(j, j.template.spec.template.spec.containers.all(c,
        !has(c.resources) || !has(c.resources.limits) || !('nvidia.com/gpu' in c.resources.limits) ||
        int(c.resources.limits['nvidia.com/gpu']) <= 8))
    message: at most 8 GPUs per node
  - name: cost-cap
    match: {kinds: [jobset.x-k8s.io/JobSet]}
    rule: "!has(cost.hourly) || cost.hourly <= 1000.0"
    message: a TrainJob may cost at most 1000 USD an hour
"""

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
LABELLED_QUEUE = "training"  # the LocalQueue the labelled TrainJobs name; the others go to `default`
GPU_FLAVORS = (("a100", False), ("h100", True))  # (name, tainted)


def params(namespaces) -> str:
    """The Namespaces (three labelled for the memory policy) and each one's `registries` ConfigMap."""
    registries = "pytorch/,ghcr.io/,docker.io/,registry.,busybox:,python:"
    found = []
    for namespace in namespaces:
        strict = "  labels: {memory-policy: strict}\n" if namespace.endswith(("0", "2", "4")) else ""
        found.append(
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n{strict}---\n"
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: registries\n  namespace: {namespace}\n"
            f'data:\n  registries: "{registries}"\n---\n'
        )
    return "".join(found)


def _flavors() -> list[dict]:
    found = []
    for name, tainted in GPU_FLAVORS:
        spec = {"nodeLabels": {"gpu": name}}
        if tainted:
            spec["nodeTaints"] = [{"key": "gpu", "value": name, "effect": "NoSchedule"}]
        found.append(
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}
        )
    return found


def _cluster_queue(namespace: str) -> dict:
    quota = {"cpu": "4096", "memory": "64Ti", "nvidia.com/gpu": "256"}
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": namespace},
        "spec": {
            "cohortName": "research",
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
            "preemption": {"withinClusterQueue": "LowerPriority"},
            "resourceGroups": [
                {
                    "coveredResources": list(quota),
                    "flavors": [
                        {
                            "name": name,
                            "resources": [{"name": key, "nominalQuota": value} for key, value in quota.items()],
                        }
                        for name, _ in GPU_FLAVORS
                    ],
                }
            ],
        },
    }


def _local_queues(namespace: str) -> list[dict]:
    return [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": namespace},
        }
        for name in (LABELLED_QUEUE, "default")
    ]


def _workload(namespace: str, index: int) -> dict:
    """A job of the namespace's, not among the inputs: 4 nodes x 8 a100 GPUs, the first two of each namespace
    holding quota, after them every other one pending (created a minute later each, behind the first two)."""
    name = f"jobset-earlier-{index}-5f2c1"
    usage = {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "32"}
    found = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{index}",
            "creationTimestamp": f"2026-12-01T{8 + index // 60:02d}:{index % 60:02d}:00Z"
            if index >= 2
            else "2026-12-01T08:00:00Z",
            "ownerReferences": [
                {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "name": f"earlier-{index}",
                    "uid": f"uid-js-{namespace}-{index}",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "queueName": LABELLED_QUEUE,
            "priority": 0,
            "active": True,
            "podSets": [
                {
                    "name": "node",
                    "count": 4,
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "node",
                                    "image": "ghcr.io/example/trainer:1.4",
                                    "resources": {
                                        "requests": {"cpu": "8", "memory": "64Gi"},
                                        "limits": {"nvidia.com/gpu": "8"},
                                    },
                                }
                            ]
                        }
                    },
                }
            ],
        },
        "status": {
            "conditions": [
                {
                    "type": kind,
                    "status": "True",
                    "reason": kind,
                    "message": "",
                    "observedGeneration": 1,
                    "lastTransitionTime": "2026-12-01T08:00:05Z",
                }
                for kind in ("QuotaReserved", "Admitted")
            ],
            "admission": {
                "clusterQueue": namespace,
                "podSetAssignments": [
                    {"name": "node", "count": 4, "flavors": dict.fromkeys(usage, "a100"), "resourceUsage": usage}
                ],
            },
        },
    }
    if index >= 2 and index % 2:  # pending: no quota reserved yet
        del found["status"]
    return found


def label(index: int) -> list[str]:
    """The metadata lines of the index-th TrainJob: every other one names its LocalQueue."""
    return ["  labels:", f"    {QUEUE_LABEL}: {LABELLED_QUEUE}"] if index % 2 == 0 else []


def write(root: Path, namespaces, workloads: int = 2, configmaps: int = 0) -> None:
    """The repository around the TrainJobs under `root / "inputs"` (written by bench.generate with `label`), its
    cluster state holding `workloads` Workloads per namespace, `configmaps` ConfigMaps passed through beside them
    (each admitted by the policies, the registries one looked up among them for every object)."""
    import yaml

    platform = root / "platform"
    (platform / "policies").mkdir(parents=True)
    (platform / "kueue").mkdir()
    (root / ".trainc.yaml").write_text(CONFIG)
    (platform / "policies" / "policies.yaml").write_text(POLICIES)
    (platform / "policies" / "params.yaml").write_text(params(namespaces))
    queues = [*_flavors(), *(_cluster_queue(namespace) for namespace in namespaces)]
    (platform / "kueue" / "queues.yaml").write_text(yaml.safe_dump_all(queues, sort_keys=False))
    local = [queue for namespace in namespaces for queue in _local_queues(namespace)]
    (root / "inputs" / "queues.yaml").write_text(yaml.safe_dump_all(local, sort_keys=False))
    if configmaps:
        (root / "inputs" / "configmaps.yaml").write_text(
            "".join(
                f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-{index:05d}\n"
                f"  namespace: {namespaces[index % len(namespaces)]}\ndata:\n  learning-rate: '0.{index}'\n---\n"
                for index in range(configmaps)
            )
        )
    running = [_workload(namespace, index) for namespace in namespaces for index in range(workloads)]
    state = {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": [*queues, *local, *running]}
    (platform / "state.json").write_text(json.dumps(state, indent=2))
