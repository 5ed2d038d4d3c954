"""Regenerate the golden/upstream-* cases: upstream's end-to-end build tests, ported to trainc.

`python tools/golden/upstream-generate.py` (any Python with PyYAML) rewrites, for each case, the
inputs runtime.yaml and trainjob.yaml, and upstream-want.txt: the objects upstream's Go test
expects (its `wantObjs`), as YAML. tests/test_upstream_cases.py compiles the inputs and compares
the result with upstream-want.txt field by field, the way the Go test compares them; the usual
golden test pins the exact output in expected.out.yaml.

The builders below mirror what upstream's test wrappers (pkg/util/testing/wrapper.go) put into
each object, defaults included: the three replicated jobs, the `initializer` PVC volume and its
mounts, `groupName: default`. Cases are grouped by the upstream test they come from:
  upstream-trt-*   pkg/runtime/core/trainingruntime_test.go, TestTrainingRuntimeNewObjects
  upstream-ctrt-*  pkg/runtime/core/clustertrainingruntime_test.go, TestClusterTrainingRuntimeNewObjects
  upstream-fwk-*   pkg/runtime/framework/core/framework_test.go, TestRunComponentBuilderPlugins
  upstream-it-*    test/integration/controller/trainjob_controller_test.go (envtest: the API server defaults)
The failing upstream cases are error tests in tests/test_upstream_errors.py.
"""

from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parents[2] / "golden"  # the case folders it writes
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
VOLCANO_QUEUE = "scheduling.volcano.sh/queue-name"
VOLCANO_GROUP = "scheduling.k8s.io/group-name"
DATASET, MODEL, NODE, LAUNCHER = "dataset-initializer", "model-initializer", "node", "launcher"
CPU1 = {"cpu": "1"}
RANK = {
    "name": "PET_NODE_RANK",
    "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}},
}
SSH_VOLUME = {
    "name": "mpi-ssh-auth",
    "secret": {
        "secretName": "test-job-mpi-ssh-auth",
        "defaultMode": 0o400,
        "items": [
            {"key": "ssh-privatekey", "path": "id_rsa", "mode": 0o640},
            {"key": "ssh-publickey", "path": "id_rsa.pub", "mode": 0o644},
            {"key": "ssh-publickey", "path": "authorized_keys", "mode": 0o644},
        ],
    },
}
HOSTFILE_VOLUME = {
    "name": "mpi-hostfile",
    "configMap": {"name": "test-job-mpi-hostfile", "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444}]},
}
OPENMPI_ENV = [
    {"name": "OMPI_MCA_orte_default_hostfile", "value": "/etc/mpi/hostfile"},
    {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "true"},
    {"name": "OMPI_MCA_orte_set_default_slots", "value": "{slots}"},
    {"name": "OMPI_MCA_plm_rsh_args", "value": "-o ConnectionAttempts=10"},
]


# ---- replicated jobs, as the wrappers build them --------------------------------------------------


def replicated_jobs() -> list[dict]:
    """The wrappers' three jobs: initializers mounting the `initializer` PVC, and `node` mounting both."""

    def job(name: str, container: str, ancestor: str, mounts: list[str]) -> dict:
        template: dict = {"metadata": {"labels": {ANCESTOR: ancestor}}}
        template["spec"] = {
            "template": {
                "spec": {
                    "containers": [
                        {"name": container, "volumeMounts": [{"name": "initializer", "mountPath": m} for m in mounts]}
                    ],
                    "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "initializer"}}],
                }
            }
        }
        return {"name": name, "groupName": "default", "template": template}

    return [
        job(DATASET, DATASET, DATASET, ["/workspace/dataset"]),
        job(MODEL, MODEL, MODEL, ["/workspace/model"]),
        job(NODE, NODE, "trainer", ["/workspace/dataset", "/workspace/model"]),
    ]


def jobs(spec: dict, *names: str):
    return [rjob for rjob in spec["replicatedJobs"] if rjob["name"] in names]


def pod(rjob: dict) -> dict:
    return rjob["template"]["spec"]["template"]["spec"]


def containers(spec: dict, job: str, name: str):
    return [c for rjob in jobs(spec, job) for c in pod(rjob)["containers"] if c["name"] == name]


def container(spec: dict, job: str, name: str, image: str, command=None, args=None, requests=None) -> None:
    """Set image, command, args and requests of a container, or append a new one (wrapper `Container`)."""
    for rjob in jobs(spec, job):
        fields = {
            "image": image,
            "command": command,
            "args": args,
            "resources": {"requests": requests} if requests else None,
        }
        found = [c for c in pod(rjob)["containers"] if c["name"] == name]
        if found:
            found[0].update(fields)
        else:
            pod(rjob)["containers"].append({"name": name, **fields})


def append(spec: dict, job: str, cname: str, key: str, *items) -> None:
    for c in containers(spec, job, cname):
        c[key] = [*(c.get(key) or []), *items]


def pod_append(spec: dict, job: str, key: str, *items) -> None:
    for rjob in jobs(spec, job):
        pod(rjob)[key] = [*(pod(rjob).get(key) or []), *items]


def pod_set(spec: dict, job: str, **fields) -> None:
    for rjob in jobs(spec, job):
        pod(rjob).update(fields)


def init_container(spec: dict, job: str, name: str, image: str, *env) -> None:
    pod_set(spec, job, initContainers=[{"name": name, "image": image, **({"env": list(env)} if env else {})}])


def depends_on_initializers(spec: dict) -> None:
    for rjob in jobs(spec, NODE):
        rjob["dependsOn"] = [{"name": DATASET, "status": "Complete"}, {"name": MODEL, "status": "Complete"}]


def launcher(spec: dict) -> None:
    """Insert the wrappers' `launcher` job (no labels, `mpirun echo.sh`) before `node`."""
    at = [rjob["name"] for rjob in spec["replicatedJobs"]].index(NODE)
    spec["replicatedJobs"].insert(
        at,
        {
            "name": LAUNCHER,
            "groupName": "default",
            "template": {
                "spec": {
                    "template": {"spec": {"containers": [{"name": NODE, "command": ["mpirun"], "args": ["echo.sh"]}]}}
                }
            },
        },
    )


def counts(
    spec: dict, replicas: tuple = (DATASET, MODEL, NODE), ones: tuple = (DATASET, MODEL), nodes: int | None = None
):
    for rjob in jobs(spec, *replicas):
        rjob["replicas"] = 1
    for rjob in jobs(spec, *ones):
        rjob["template"]["spec"].update(parallelism=1, completions=1)
    for rjob in jobs(spec, NODE):
        if nodes is not None:
            rjob["template"]["spec"].update(parallelism=nodes, completions=nodes)


def job_label(spec: dict, job: str, key: str, value: str) -> None:
    for rjob in jobs(spec, job):
        rjob["template"].setdefault("metadata", {}).setdefault("labels", {})[key] = value


def pod_meta(spec: dict, kind: str, key: str, value: str, *names: str) -> None:
    for rjob in spec["replicatedJobs"]:
        if not names or rjob["name"] in names:
            rjob["template"]["spec"]["template"].setdefault("metadata", {}).setdefault(kind, {})[key] = value


# ---- objects --------------------------------------------------------------------------------------


def runtime(spec: dict, *, kind: str = "TrainingRuntime", ml_policy: dict | None = None, **extra) -> dict:
    meta = {"name": extra.pop("name", "test-runtime")}
    if kind == "TrainingRuntime":
        meta["namespace"] = "default"
    meta.update(extra.pop("metadata", {}))
    body: dict = {}
    if ml_policy is not None:
        body["mlPolicy"] = ml_policy
    body.update(extra)
    body["template"] = {"spec": spec}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": meta, "spec": body}


def trainjob(name: str = "test-job", runtime_name: str = "test-runtime", kind: str = "TrainingRuntime", **spec) -> dict:
    body = {"runtimeRef": {"name": runtime_name, "apiGroup": "trainer.kubeflow.org", "kind": kind}, **spec}
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": name, "namespace": "default"},
        "spec": body,
    }


def trainer(image=None, command=None, args=None, requests=None, **fields) -> dict:
    body = {"image": image, "command": command, "args": args}
    if requests is not None:
        body["resourcesPerNode"] = {"requests": requests}
    return {**body, **fields}


def jobset(spec: dict, name: str = "test-job", **meta) -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": "default", **meta},
        "spec": spec,
    }


def podgroup(min_member: int, min_resources: dict, timeout: int, name: str = "test-job") -> dict:
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minMember": min_member, "minResources": min_resources, "scheduleTimeoutSeconds": timeout},
    }


def ssh_secret() -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "test-job-mpi-ssh-auth", "namespace": "default"},
        "type": "kubernetes.io/ssh-auth",
        "immutable": True,
        "data": {"ssh-privatekey": "EXIST", "ssh-publickey": "EXIST"},
    }


def hostfile(*lines: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "test-job-mpi-hostfile", "namespace": "default"},
        "data": {"hostfile": "".join(f"{line}\n" for line in lines)},
    }


def openmpi_env(slots: str) -> list[dict]:
    return [{**e, "value": e["value"].format(slots=slots)} for e in OPENMPI_ENV]


def base() -> dict:
    return {"replicatedJobs": replicated_jobs()}


def torch_env(nodes: str, procs: str, master: bool = True) -> list[dict]:
    env = [{"name": "PET_NNODES", "value": nodes}, {"name": "PET_NPROC_PER_NODE", "value": procs}, RANK]
    if master:
        env += [
            {"name": "PET_MASTER_ADDR", "value": "test-job-node-0-0.test-job"},
            {"name": "PET_MASTER_PORT", "value": "29500"},
        ]
    return env


def torch_ports(spec: dict) -> None:
    for c in containers(spec, NODE, NODE):
        c["ports"] = [{"containerPort": 29500}]


def env(*pairs: str) -> list[dict]:
    return [{"name": name, "value": value} for name, value in zip(pairs[::2], pairs[1::2])]


# ---- TestTrainingRuntimeNewObjects ----------------------------------------------------------------

CASES: dict[str, tuple] = {}  # case -> (header, inputs, wanted objects, notes)
TRT = "pkg/runtime/core/trainingruntime_test.go TestTrainingRuntimeNewObjects"


PARTIAL: dict[str, tuple] = {}  # case -> (header, inputs): upstream checks parts only; no upstream-want.txt


def case(name: str, header: str, inputs: list, want: list, *notes: str) -> None:
    CASES[name] = (header, inputs, want, notes)


def trt_podgroup():
    spec = base()
    for job in (DATASET, MODEL, NODE):
        container(spec, job, job, "test:runtime", ["runtime"], ["runtime"], CPU1)
    rt = runtime(
        spec,
        ml_policy={"numNodes": 100},
        podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 120}},
        metadata={"labels": {"conflictLabel": "overridden"}, "annotations": {"conflictAnnotation": "overridden"}},
    )
    tj = trainjob(
        suspend=True,
        runtimePatches=[
            {
                "manager": "test.io/manager",
                "trainingRuntimeSpec": {
                    "template": {
                        "metadata": {
                            "labels": {"conflictLabel": "override"},
                            "annotations": {"conflictAnnotation": "override"},
                        }
                    }
                },
            }
        ],
        trainer={"numNodes": 30},
    )
    want = base()
    counts(want, nodes=30)
    for job in (DATASET, MODEL, NODE):
        container(want, job, job, "test:runtime", ["runtime"], ["runtime"], CPU1)
    pod_meta(want, "labels", POD_GROUP_LABEL, "test-job")
    want["suspend"] = True
    case(
        "trt-podgroup-numnodes-from-trainjob",
        f'{TRT} "succeeded to build PodGroup and JobSet with NumNodes from the TrainJob and container '
        'from the Runtime."',
        [rt, tj],
        [
            jobset(want, labels={"conflictLabel": "override"}, annotations={"conflictAnnotation": "override"}),
            podgroup(32, {"cpu": "32"}, 120),
        ],
    )


def trt_container_from_trainjob():
    spec = base()
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    append(spec, NODE, NODE, "env", *env("TRAIN_JOB", "original", "RUNTIME", "test:runtime"))
    tj = trainjob(
        trainer={
            **trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1),
            "env": env("TRAIN_JOB", "override", "TRAIN_JOB_CUSTOM", "test:trainjob"),
        }
    )
    want = base()
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    append(
        want,
        NODE,
        NODE,
        "env",
        *env("TRAIN_JOB", "override", "TRAIN_JOB_CUSTOM", "test:trainjob", "RUNTIME", "test:runtime"),
    )
    case(
        "trt-numnodes-from-runtime-container-from-trainjob",
        f'{TRT} "succeeded to build JobSet with NumNodes from the Runtime and container from the TrainJob."',
        [runtime(spec, ml_policy={"numNodes": 100}), tj],
        [jobset(want)],
    )


AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {
                            "key": "topology.kubernetes.io/zone",
                            "operator": "In",
                            "values": ["antarctica-east1", "antarctica-west1"],
                        }
                    ]
                }
            ]
        }
    }
}
TOLERATION = {"key": "example.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
GATE = {"name": "kueue.x-k8s.io/admission"}
SELECTOR = {"node.kubernetes.io/instance-type": "p5.48xlarge"}


MANAGERS = (
    "Upstream's bare manager names (manager-1, ...) are refused by its TrainJob webhook (IsDomainPrefixedPath), "
    "which the Go test bypasses; here they are prefixed with test.io/ (tests/test_upstream_errors.py has the error)."
)


def patch(
    manager: str, job: str, pod_spec: dict | None = None, job_meta: dict | None = None, pod_meta_: dict | None = None
) -> dict:
    template: dict = {}
    if job_meta is not None:
        template["metadata"] = job_meta
    pod_template: dict = {}
    if pod_meta_ is not None:
        pod_template["metadata"] = pod_meta_
    if pod_spec is not None:
        pod_template["spec"] = pod_spec
    template["spec"] = {"template": pod_template}
    return {
        "manager": f"test.io/{manager}",
        "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": job, "template": template}]}}},
    }


def volume(name: str, kind: str, ref: str) -> dict:
    source = {"secret": {"secretName": ref}} if kind == "secret" else {"persistentVolumeClaim": {"claimName": ref}}
    return {"name": name, **source}


def trt_runtime_patches():
    spec = base()
    init_container(
        spec,
        DATASET,
        "override-init-container",
        "test:runtime",
        *env("INIT_ENV", "original_init", "DATASET_PATH", "runtime"),
    )
    init_container(spec, NODE, "override-init-container", "test:runtime", *env("INIT_ENV", "original_init"))
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    append(spec, NODE, NODE, "env", *env("TRAIN_JOB", "original"))
    container(spec, NODE, "override-container", "test:runtime", ["runtime"], ["runtime"], CPU1)
    append(spec, NODE, "override-container", "env", *env("CONTAINER_ENV", "original_container"))
    patches = [
        patch(
            "manager-1",
            DATASET,
            {
                "initContainers": [
                    {
                        "name": "override-init-container",
                        "env": env("INIT_ENV", "override_init", "NEW_VALUE", "from_overrides"),
                    }
                ],
                "containers": [
                    {
                        "name": DATASET,
                        "volumeMounts": [
                            {"name": "initializer_secret", "mountPath": "initializer_secret_mount_path"},
                            {"name": "initializer_claim", "mountPath": "initializer_claim_mount_path"},
                        ],
                    }
                ],
                "affinity": AFFINITY,
                "nodeSelector": SELECTOR,
                "schedulingGates": [GATE],
                "tolerations": [TOLERATION],
                "volumes": [
                    volume("initializer_secret", "secret", "initializer_secret_name"),
                    volume("initializer_claim", "pvc", "initializer_claim_name"),
                ],
            },
        ),
        patch(
            "manager-2",
            NODE,
            {
                "serviceAccountName": "override-sa",
                "initContainers": [{"name": "override-init-container", "env": env("INIT_ENV", "override_init")}],
                "containers": [
                    {
                        "name": NODE,
                        "volumeMounts": [
                            {"name": "node_secret", "mountPath": "node_secret_mount_path"},
                            {"name": "node_claim", "mountPath": "node_claim_mount_path"},
                        ],
                    },
                    {"name": "override-container", "env": env("CONTAINER_ENV", "override_container")},
                ],
                "affinity": AFFINITY,
                "imagePullSecrets": [{"name": "registry-credential"}],
                "nodeSelector": SELECTOR,
                "schedulingGates": [GATE],
                "tolerations": [TOLERATION],
                "terminationGracePeriodSeconds": 300,
                "volumes": [
                    volume("node_secret", "secret", "node_secret_name"),
                    volume("node_claim", "pvc", "node_claim_name"),
                ],
            },
        ),
    ]
    tj = trainjob(trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1), runtimePatches=patches)
    want = base()
    pod_set(want, NODE, serviceAccountName="override-sa")
    counts(want, nodes=100)
    init_container(
        want,
        DATASET,
        "override-init-container",
        "test:runtime",
        *env("INIT_ENV", "override_init", "DATASET_PATH", "runtime", "NEW_VALUE", "from_overrides"),
    )
    init_container(want, NODE, "override-init-container", "test:runtime", *env("INIT_ENV", "override_init"))
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    append(want, NODE, NODE, "env", *env("TRAIN_JOB", "original"))
    container(want, NODE, "override-container", "test:runtime", ["runtime"], ["runtime"], CPU1)
    append(want, NODE, "override-container", "env", *env("CONTAINER_ENV", "override_container"))
    for job in (DATASET, NODE):
        pod_set(want, job, affinity=AFFINITY, nodeSelector=SELECTOR)
        pod_append(want, job, "schedulingGates", GATE)
        pod_append(want, job, "tolerations", TOLERATION)
    pod_append(want, NODE, "imagePullSecrets", {"name": "registry-credential"})
    pod_set(want, NODE, terminationGracePeriodSeconds=300)
    pod_append(
        want,
        DATASET,
        "volumes",
        volume("initializer_claim", "pvc", "initializer_claim_name"),
        volume("initializer_secret", "secret", "initializer_secret_name"),
    )
    append(
        want,
        DATASET,
        DATASET,
        "volumeMounts",
        {"name": "initializer_secret", "mountPath": "initializer_secret_mount_path"},
        {"name": "initializer_claim", "mountPath": "initializer_claim_mount_path"},
    )
    pod_append(
        want,
        NODE,
        "volumes",
        volume("node_claim", "pvc", "node_claim_name"),
        volume("node_secret", "secret", "node_secret_name"),
    )
    append(
        want,
        NODE,
        NODE,
        "volumeMounts",
        {"name": "node_secret", "mountPath": "node_secret_mount_path"},
        {"name": "node_claim", "mountPath": "node_claim_mount_path"},
    )
    case(
        "trt-runtime-patches",
        f'{TRT} "succeeded to build JobSet with TrainJob\'s RuntimePatches."',
        [runtime(spec, ml_policy={"numNodes": 100}), tj],
        [jobset(want)],
        MANAGERS,
    )


def patched_runtime_two_containers() -> dict:
    spec = base()
    init_container(spec, DATASET, "override-init-container", "test:runtime")
    init_container(spec, NODE, "override-init-container", "test:runtime")
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    container(spec, NODE, "override-container", "test:runtime", ["runtime"], ["runtime"], CPU1)
    return spec


def trt_nil_affinity():
    tj = trainjob(
        trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1),
        runtimePatches=[patch("manager-1", DATASET, {}), patch("manager-2", NODE, {})],
    )
    want = patched_runtime_two_containers()
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    case(
        "trt-patches-nil-affinity",
        f'{TRT} "succeeded to build JobSet with nil affinity overrides from the TrainJob\'s RuntimePatches."',
        [runtime(patched_runtime_two_containers(), ml_policy={"numNodes": 100}), tj],
        [jobset(want)],
        "Go's nil `affinity` is an empty pod spec patch in YAML.",
        MANAGERS,
    )


def trt_security_context():
    spec = base()
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    container(spec, NODE, "sidecar", "test:runtime", ["runtime"], ["runtime"], CPU1)
    pod_sc = {"fsGroup": 2000, "runAsUser": 1000, "runAsGroup": 3000, "runAsNonRoot": True}
    sidecar_sc = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True}
    tj = trainjob(
        trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1),
        runtimePatches=[
            patch(
                "security-manager",
                NODE,
                {"securityContext": pod_sc, "containers": [{"name": "sidecar", "securityContext": sidecar_sc}]},
            )
        ],
    )
    want = base()
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    container(want, NODE, "sidecar", "test:runtime", ["runtime"], ["runtime"], CPU1)
    pod_set(want, NODE, securityContext=pod_sc)
    containers(want, NODE, "sidecar")[0]["securityContext"] = sidecar_sc
    case(
        "trt-patches-security-context",
        f'{TRT} "succeeded to build JobSet with securityContext overrides from the TrainJob\'s RuntimePatches."',
        [runtime(spec, ml_policy={"numNodes": 100}), tj],
        [jobset(want)],
        MANAGERS,
    )


def trt_labels_annotations():
    tj = trainjob(
        trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1),
        runtimePatches=[
            patch(
                "manager-1",
                DATASET,
                job_meta={"labels": {"job-k1": "job-v1"}},
                pod_meta_={"labels": {"k1": "v1"}, "annotations": {"a1": "v1"}},
            ),
            patch(
                "manager-2",
                NODE,
                job_meta={"labels": {"job-k2": "job-v2"}},
                pod_meta_={"labels": {"k2": "v2"}, "annotations": {"a2": "v2"}},
            ),
        ],
    )
    want = patched_runtime_two_containers()
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    job_label(want, DATASET, "job-k1", "job-v1")
    pod_meta(want, "labels", "k1", "v1", DATASET)
    pod_meta(want, "annotations", "a1", "v1", DATASET)
    job_label(want, NODE, "job-k2", "job-v2")
    pod_meta(want, "labels", "k2", "v2", NODE)
    pod_meta(want, "annotations", "a2", "v2", NODE)
    case(
        "trt-patches-labels-annotations",
        f'{TRT} "succeeded to build JobSet with labels and annotations overrides from the TrainJob\'s RuntimePatches."',
        [runtime(patched_runtime_two_containers(), ml_policy={"numNodes": 100}), tj],
        [jobset(want)],
        MANAGERS,
    )


def trt_same_job(name: str, title: str, second: tuple[str, dict], selector: str, service_account: str | None):
    spec = base()
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    tj = trainjob(
        runtimePatches=[patch("manager-1", NODE, {"nodeSelector": SELECTOR}), patch(second[0], NODE, second[1])]
    )
    want = base()
    counts(want, ones=(DATASET, MODEL, NODE))
    container(want, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    pod_set(want, NODE, nodeSelector={"node.kubernetes.io/instance-type": selector})
    if service_account:
        pod_set(want, NODE, serviceAccountName=service_account)
    case(name, f'{TRT} "{title}"', [runtime(spec), tj], [jobset(want)], MANAGERS)


def trt_initializers():
    spec = base()
    container(spec, DATASET, DATASET, "test:runtime", ["runtime"], ["runtime"], CPU1)
    container(spec, MODEL, DATASET, "test:runtime", ["runtime"], ["runtime"], CPU1)
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    tj = trainjob(
        initializer={
            "dataset": {
                "storageUri": "hf://trainjob-dataset",
                "env": env("TRAIN_JOB", "test:trainjob:dataset"),
                "secretRef": {"name": "trainjob-secret-dataset"},
            },
            "model": {
                "storageUri": "hf://trainjob-model",
                "env": env("TRAIN_JOB", "test:trainjob:model"),
                "secretRef": {"name": "trainjob-secret-model"},
            },
        },
        trainer={},
    )
    want = copy.deepcopy(spec)
    counts(want, nodes=100)
    append(
        want,
        DATASET,
        DATASET,
        "env",
        *env("STORAGE_URI", "hf://trainjob-dataset", "TRAIN_JOB", "test:trainjob:dataset"),
    )
    append(want, DATASET, DATASET, "envFrom", {"secretRef": {"name": "trainjob-secret-dataset"}})
    append(want, MODEL, MODEL, "env", *env("STORAGE_URI", "hf://trainjob-model", "TRAIN_JOB", "test:trainjob:model"))
    append(want, MODEL, MODEL, "envFrom", {"secretRef": {"name": "trainjob-secret-model"}})
    case(
        "trt-initializers-from-trainjob",
        f'{TRT} "succeeded to build JobSet with dataset and model initializer from the TrainJob."',
        [runtime(spec, ml_policy={"numNodes": 100}), tj],
        [jobset(want)],
        "As upstream's, the runtime's model-initializer job also has a container named dataset-initializer.",
    )


def with_depends(spec: dict) -> dict:
    depends_on_initializers(spec)
    return spec


def trt_torch_from_trainjob():
    spec = with_depends(base())
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    tj = trainjob(trainer={"numNodes": 30, "numProcPerNode": 3})
    want = with_depends(base())
    counts(want, nodes=30)
    container(want, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    torch_ports(want)
    append(want, NODE, NODE, "env", *torch_env("30", "3"))
    case(
        "trt-torch-from-trainjob",
        f'{TRT} "succeeded to build JobSet with Torch values from the TrainJob"',
        [runtime(spec, ml_policy={"numNodes": 100, "torch": {}}), tj],
        [jobset(want)],
    )


def trt_torch_runtime_envs():
    spec = base()
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    append(spec, NODE, NODE, "env", *env("TRAIN_JOB", "original", "RUNTIME", "test:runtime"))
    tj = trainjob(
        trainer={
            **trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1),
            "env": env("TRAIN_JOB", "override", "TRAIN_JOB_CUSTOM", "test:trainjob"),
        }
    )
    want = base()
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    torch_ports(want)
    append(
        want,
        NODE,
        NODE,
        "env",
        *env("TRAIN_JOB", "override", "TRAIN_JOB_CUSTOM", "test:trainjob"),
        *torch_env("100", "1"),
        *env("RUNTIME", "test:runtime"),
    )
    case(
        "trt-torch-from-runtime-and-envs",
        f'{TRT} "succeeded to build JobSet with Torch values from the Runtime and envs."',
        [runtime(spec, ml_policy={"numNodes": 100, "torch": {}}), tj],
        [jobset(want)],
    )


TUNE_ARGS_1B = [
    "--config",
    "llama3_2/1B_full",
    "dataset=torchtune.datasets.instruct_dataset",
    "dataset.source=parquet",
    "dataset.data_dir=/workspace/dataset/data",
    "output_dir=/workspace/output",
    "tokenizer.path=/workspace/model/original/tokenizer.model",
    "checkpointer.checkpoint_dir=/workspace/model",
]
TUNE_TAIL = [
    "output_dir=/workspace/output",
    "tokenizer.path=/workspace/model/original/tokenizer.model",
    "checkpointer.checkpoint_dir=/workspace/model",
]
RDZV = "--rdzv_endpoint=test-job-node-0-0.test-job:29500"


def trt_torchtune_70b():
    command = [
        "tune",
        "run",
        "full_finetune_distributed",
        "--config",
        "llama3_3/70B_full_multinode",
        "output_dir=/workspace/model/llama3_3/70B",
        "tokenizer.path=/workspace/model/original/tokenizer.model",
        "checkpointer.checkpoint_dir=/workspace/model",
    ]
    spec = with_depends(base())
    container(spec, NODE, NODE, "test:runtime", command, ["runtime"], CPU1)
    args = ["dtype=fp16", "batch_size=32", "epochs=10", "loss=torchtune.modules.loss.CEWithChunkedOutputLoss"]
    tj = trainjob(
        runtime_name="torchtune-llama3.3-70b",
        trainer={**trainer("test:trainjob", ["tune", "run"], args, CPU1), "numNodes": 30, "numProcPerNode": 3},
    )
    want = with_depends(base())
    counts(want, nodes=30)
    container(want, NODE, NODE, "test:trainjob", [*command[:2], RDZV, *command[2:]], args, CPU1)
    torch_ports(want)
    append(want, NODE, NODE, "env", *torch_env("30", "3", master=False))
    case(
        "trt-torchtune-from-trainjob",
        f'{TRT} "succeeded to build JobSet with TorchTune values from the TrainJob"',
        [runtime(spec, ml_policy={"numNodes": 100, "torch": {}}, name="torchtune-llama3.3-70b"), tj],
        [jobset(want)],
    )


def trt_torchtune_1b(name: str, title: str, args: list[str], gpus: str, recipe: str, config: str, rdzv: bool):
    spec = with_depends(base())
    container(
        spec,
        NODE,
        NODE,
        "test:runtime",
        ["tune", "run", "--rdzv_endpoint=localhost:29500", "full_finetune_distributed", *TUNE_ARGS_1B],
        ["runtime"],
        CPU1,
    )
    requests = {"cpu": "1", "example.com/gpu": gpus}
    tj = trainjob(
        runtime_name="torchtune-llama3.2-1b",
        trainer={**trainer("test:trainjob", ["tune", "run"], args, requests), "numNodes": 1},
    )
    want = with_depends(base())
    counts(want, nodes=1)
    container(
        want,
        NODE,
        NODE,
        "test:trainjob",
        ["tune", "run", *([RDZV] if rdzv else []), recipe, "--config", config, *TUNE_TAIL],
        args,
        requests,
    )
    torch_ports(want)
    append(want, NODE, NODE, "env", *torch_env("1", "auto", master=False))
    case(
        name,
        f'{TRT} "{title}"',
        [runtime(spec, ml_policy={"numNodes": 1, "torch": {}}, name="torchtune-llama3.2-1b"), tj],
        [jobset(want)],
    )


LORA_ARGS = [
    "dataset.data_dir=/workspace/dataset/data",
    "model.apply_lora_to_mlp=True",
    "model.lora_attn_modules=[q_proj,k_proj,v_proj,output_proj]",
]
DATA_ARGS = ["dataset=torchtune.datasets.instruct_dataset", "dataset.source=parquet"]


def trt_openmpi():
    spec = base()
    launcher(spec)
    for rjob in jobs(spec, LAUNCHER):
        rjob["replicas"] = 1
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    mpi = {
        "numProcPerNode": 1,
        "mpiImplementation": "OpenMPI",
        "sshAuthMountPath": "/root/.ssh",
        "runLauncherAsNode": False,
    }
    tj = trainjob(trainer={"numNodes": 2, "numProcPerNode": 8})
    want = base()
    launcher(want)
    counts(want, replicas=(DATASET, MODEL, NODE, LAUNCHER), ones=(DATASET, MODEL, LAUNCHER), nodes=2)
    pod_append(want, LAUNCHER, "volumes", SSH_VOLUME, HOSTFILE_VOLUME)
    pod_append(want, NODE, "volumes", SSH_VOLUME)
    append(
        want,
        LAUNCHER,
        NODE,
        "volumeMounts",
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
        {"name": "mpi-hostfile", "mountPath": "/etc/mpi"},
    )
    append(want, NODE, NODE, "volumeMounts", {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"})
    append(want, LAUNCHER, NODE, "env", *openmpi_env("8"))
    container(want, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    case(
        "trt-openmpi-from-trainjob",
        f'{TRT} "succeeded to build JobSet with OpenMPI values from the TrainJob"',
        [runtime(spec, ml_policy={"numNodes": 1, "mpi": mpi}), tj],
        [
            hostfile("test-job-node-0-0.test-job slots=8", "test-job-node-0-1.test-job slots=8"),
            ssh_secret(),
            jobset(want),
        ],
    )


def trt_merged_gpu():
    spec = base()
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    tj = trainjob(trainer={"numNodes": 1, "resourcesPerNode": {"limits": {"nvidia.com/gpu": "4"}}})
    want = base()
    counts(want, replicas=(DATASET, MODEL, NODE, LAUNCHER), nodes=1)
    container(want, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], CPU1)
    containers(want, NODE, NODE)[0]["resources"]["limits"] = {"nvidia.com/gpu": "4"}
    case(
        "trt-merged-resources-gpu-only",
        f'{TRT} "merged resourcesPerNode keeps runtime resources when trainjob sets gpu only"',
        [runtime(spec, ml_policy={"numNodes": 1}), tj],
        [jobset(want)],
    )


def trainingruntime_cases():
    trt_podgroup()
    trt_container_from_trainjob()
    trt_runtime_patches()
    trt_nil_affinity()
    trt_security_context()
    trt_labels_annotations()
    trt_same_job(
        "trt-patches-duplicate-same-job",
        "succeeded to build JobSet with TrainJob's RuntimePatches containing duplicate patches for same job",
        ("manager-1-dup", {"serviceAccountName": "test-sa"}),
        "p5.48xlarge",
        "test-sa",
    )
    trt_same_job(
        "trt-patches-same-job-different-values",
        "succeeded to build JobSet with TrainJob's RuntimePatches targeting the same job with different values",
        ("manager-2", {"nodeSelector": {"node.kubernetes.io/instance-type": "p5en.48xlarge"}}),
        "p5en.48xlarge",
        None,
    )
    trt_initializers()
    trt_torch_from_trainjob()
    trt_torch_runtime_envs()
    trt_torchtune_70b()
    trt_torchtune_1b(
        "trt-torchtune-lora",
        "succeeded to build Jobset with TorchTune values from the TrainJob (LoRA)",
        [*LORA_ARGS, *DATA_ARGS],
        "2",
        "lora_finetune_distributed",
        "llama3_2/1B_lora",
        True,
    )
    trt_torchtune_1b(
        "trt-torchtune-qlora",
        "succeeded to build Jobset with TorchTune values from the TrainJob (QLoRA)",
        [*LORA_ARGS, "model.quantize_base=True", *DATA_ARGS],
        "1",
        "lora_finetune_single_device",
        "llama3_2/1B_qlora_single_device",
        False,
    )
    trt_torchtune_1b(
        "trt-torchtune-dora",
        "succeeded to build Jobset with TorchTune values from the TrainJob (DoRA)",
        [*LORA_ARGS, "model.quantize_base=True", "model.use_dora=True", *DATA_ARGS],
        "2",
        "lora_finetune_distributed",
        "llama3_2/1B_lora",
        True,
    )
    trt_openmpi()
    trt_merged_gpu()


# ---- TestClusterTrainingRuntimeNewObjects ---------------------------------------------------------

CTRT = "pkg/runtime/core/clustertrainingruntime_test.go TestClusterTrainingRuntimeNewObjects"


def clustertrainingruntime_cases():
    spec = with_depends(base())
    for job in (DATASET, MODEL, NODE):
        container(spec, job, job, "test:runtime", ["runtime"], ["runtime"], CPU1)
    rt = runtime(
        spec,
        kind="ClusterTrainingRuntime",
        ml_policy={"numNodes": 100},
        podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 120}},
    )
    tj = trainjob(
        kind="ClusterTrainingRuntime", suspend=True, trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    )
    want = with_depends(base())
    want["suspend"] = True
    pod_meta(want, "labels", POD_GROUP_LABEL, "test-job")
    counts(want, nodes=100)
    container(want, DATASET, DATASET, "test:runtime", ["runtime"], ["runtime"], CPU1)
    container(want, MODEL, MODEL, "test:runtime", ["runtime"], ["runtime"], CPU1)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], CPU1)
    case(
        "ctrt-podgroup-numnodes-from-runtime",
        f'{CTRT} "succeeded to build PodGroup and JobSet with NumNodes from the Runtime and container '
        'from the Trainer."',
        [rt, tj],
        [jobset(want), podgroup(102, {"cpu": "102"}, 120)],
    )


# ---- TestRunComponentBuilderPlugins ---------------------------------------------------------------

FWK = "pkg/runtime/framework/core/framework_test.go TestRunComponentBuilderPlugins"
SYNTHETIC = (
    "Upstream's test hands the plugins a hand-made runtime.Info whose pod sets carry initializer requests "
    "(1 CPU, 4Gi each) that its runtime template lacks; here the runtime's initializer containers request "
    "them, so the PodGroup is upstream's and the JobSet also shows those requests."
)


def requests(cpu: str, memory: str) -> dict:
    return {"cpu": cpu, "memory": memory}


def fwk_mpi():
    def template(node_image: str, node_command, node_args, node_label: str) -> dict:
        spec = base()
        launcher(spec)
        rjob = jobs(spec, LAUNCHER)[0]
        rjob["template"] = {"metadata": {"labels": {ANCESTOR: "trainer"}}, **rjob["template"]}
        pod(rjob)["containers"] = [
            {
                "name": NODE,
                "image": "test:runtime",
                "resources": {"requests": requests("1", "4Gi")},
                "volumeMounts": copy.deepcopy(containers(spec, NODE, NODE)[0]["volumeMounts"]),
            }
        ]
        pod(rjob)["volumes"] = copy.deepcopy(pod(jobs(spec, NODE)[0])["volumes"])
        jobs(spec, NODE)[0]["replicas"] = 1
        job_label(spec, NODE, ANCESTOR, node_label)
        container(spec, NODE, NODE, node_image, node_command, node_args, requests("1", "4Gi"))
        return spec

    mpi = {
        "numProcPerNode": 1,
        "mpiImplementation": "OpenMPI",
        "sshAuthMountPath": "/root/.ssh",
        "runLauncherAsNode": True,
    }
    rt = runtime(template("test:openssh", ["command:openssh"], ["args:openssh"], "invalid"), ml_policy={"mpi": mpi})
    tj = trainjob(
        trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], requests("1", "4Gi")), "numNodes": 100}
    )
    want = template("test:openssh", ["command:openssh"], ["args:openssh"], "invalid")
    counts(want, replicas=(DATASET, MODEL, NODE, LAUNCHER), ones=(DATASET, MODEL, LAUNCHER), nodes=99)
    container(want, LAUNCHER, NODE, "test:trainjob", ["trainjob"], ["trainjob"], requests("1", "4Gi"))
    append(
        want,
        LAUNCHER,
        NODE,
        "volumeMounts",
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
        {"name": "mpi-hostfile", "mountPath": "/etc/mpi"},
    )
    append(want, NODE, NODE, "volumeMounts", {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"})
    pod_append(want, LAUNCHER, "volumes", SSH_VOLUME, HOSTFILE_VOLUME)
    pod_append(want, NODE, "volumes", SSH_VOLUME)
    append(want, LAUNCHER, NODE, "env", *openmpi_env("1"))
    hosts = ["test-job-launcher-0-0.test-job slots=1", *(f"test-job-node-0-{i}.test-job slots=1" for i in range(99))]
    case(
        "fwk-mpi-resources-launcher-and-node",
        f'{FWK} "succeeded to build JobSet with container resources applied both to Launcher and Node replicatedJob"',
        [rt, tj],
        [jobset(want), ssh_secret(), hostfile(*hosts)],
        "Upstream's test hands the plugins a hand-made runtime.Info whose node pod set lists two endpoints; from this "
        "runtime upstream lists all 99 node pods (TrainJob numNodes 100, one of them the launcher) in the hostfile, "
        "as here. The node job's ancestor label is `invalid`, as upstream's: the TrainJob's image, command and args "
        "reach only the launcher.",
    )


def fwk_coscheduling():
    def template() -> dict:
        spec = base()
        container(spec, DATASET, DATASET, None, requests=requests("1", "4Gi"))
        container(spec, MODEL, MODEL, None, requests=requests("1", "4Gi"))
        container(spec, NODE, NODE, None, requests=requests("2", "8Gi"))
        return spec

    rt = runtime(template(), podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 300}})
    tj = trainjob(
        trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], requests("2", "8Gi")), "numNodes": 100}
    )
    want = template()
    pod_meta(want, "labels", POD_GROUP_LABEL, "test-job")
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], requests("2", "8Gi"))
    case(
        "fwk-coscheduling-numnodes-from-trainjob",
        f'{FWK} "succeeded to build PodGroup and JobSet with NumNodes from TrainJob with coscheduling plugin"',
        [rt, tj],
        [podgroup(102, requests("202", "808Gi"), 300), jobset(want)],
        SYNTHETIC,
    )


def fwk_volcano():
    def template() -> dict:
        spec = base()
        for job in (DATASET, MODEL, NODE):
            container(spec, job, job, None, requests=requests("1", "4Gi"))
            pod_set(spec, job, priorityClassName="system-node-critical")
        return spec

    rt = runtime(template(), podGroupPolicy={"volcano": {"networkTopology": {"mode": "soft", "highestTierAllowed": 2}}})
    rt["spec"]["template"] = {"metadata": {"annotations": {VOLCANO_QUEUE: "q1"}}, **rt["spec"]["template"]}
    tj = trainjob(
        name="test-volcano-job",
        trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], requests("1", "4Gi")), "numNodes": 100},
    )
    want = template()
    pod_meta(want, "annotations", VOLCANO_GROUP, "test-volcano-job")
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], requests("1", "4Gi"))
    group = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "test-volcano-job", "namespace": "default"},
        "spec": {
            "minMember": 102,
            "minResources": requests("102", "408Gi"),
            "queue": "q1",
            "priorityClassName": "system-node-critical",
            "networkTopology": {"mode": "soft", "highestTierAllowed": 2},
        },
    }
    case(
        "fwk-volcano-numnodes-from-trainjob",
        f'{FWK} "succeeded to build PodGroup and JobSet with NumNodes from TrainJob with volcano plugin"',
        [rt, tj],
        [group, jobset(want, name="test-volcano-job", annotations={VOLCANO_QUEUE: "q1"})],
        SYNTHETIC + " The queue annotation, in upstream's runtime.Info, comes from the runtime template's metadata.",
    )


def framework_cases():
    fwk_mpi()
    fwk_coscheduling()
    fwk_volcano()


# ---- test/integration/controller/trainjob_controller_test.go --------------------------------------

IT = "test/integration/controller/trainjob_controller_test.go"
RES = {"cpu": "1", "memory": "4Gi"}
SUSPEND_FALSE = "Upstream's `suspend: false` is one of trainc's documented differences (written only when true)."
SERVER_DEFAULTS = (
    "An envtest API server stores the JobSet, so upstream's want has the CRD's `protocol: TCP` default "
    "on ports, which trainc (sending what the controller sends) leaves to the API server; the "
    "comparison applies that default. " + SUSPEND_FALSE
)


def it_trainjob(**spec) -> dict:
    return trainjob(name="alpha", runtime_name="alpha", **spec)


def it_plainml(name: str, title: str, node_patch: dict | None, notes: tuple = ()):
    spec = base()
    for job in (MODEL, DATASET, NODE):
        container(spec, job, job, "test:runtime", ["runtime"], ["runtime"], RES)
    rt = runtime(
        spec,
        name="alpha",
        ml_policy={"numNodes": 100},
        podGroupPolicy={"coscheduling": {"scheduleTimeoutSeconds": 100}},
    )
    meta = {"labels": {"testingKey": "testingVal"}, "annotations": {"testingKey": "testingVal"}}
    patch_template: dict = {"metadata": meta}
    if node_patch is not None:
        patch_template["spec"] = {
            "replicatedJobs": [{"name": NODE, "template": {"spec": {"template": {"spec": node_patch}}}}]
        }
    tj = it_trainjob(
        suspend=True,
        runtimePatches=[{"manager": "test.io/manager", "trainingRuntimeSpec": {"template": patch_template}}],
        trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], RES),
        initializer={
            "dataset": {"storageUri": "hf://trainjob-dataset"},
            "model": {"storageUri": "hf://trainjob-model"},
        },
    )
    want = base()
    want["suspend"] = True
    pod_meta(want, "labels", POD_GROUP_LABEL, "alpha")
    counts(want, nodes=100)
    container(want, DATASET, DATASET, "test:runtime", ["runtime"], ["runtime"], RES)
    append(want, DATASET, DATASET, "env", *env("STORAGE_URI", "hf://trainjob-dataset"))
    container(want, MODEL, MODEL, "test:runtime", ["runtime"], ["runtime"], RES)
    append(want, MODEL, MODEL, "env", *env("STORAGE_URI", "hf://trainjob-model"))
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    if node_patch is not None:
        pod_set(want, NODE, **node_patch)
    case(
        name,
        f'{IT} "{title}"',
        [rt, tj],
        [
            jobset(want, name="alpha", labels={"testingKey": "testingVal"}, annotations={"testingKey": "testingVal"}),
            podgroup(102, {"cpu": "102", "memory": "408Gi"}, 100, name="alpha"),
        ],
        *notes,
    )


def it_grace_period():
    spec = base()
    for job in (DATASET, MODEL, NODE):
        container(spec, job, job, "test:runtime", ["runtime"], ["runtime"], RES)
    rt = runtime(spec, name="alpha-grace", ml_policy={"numNodes": 1})
    tj = trainjob(
        name="grace-period-job",
        runtime_name="alpha-grace",
        suspend=True,
        runtimePatches=[
            {
                "manager": "test.io/manager",
                "trainingRuntimeSpec": {
                    "template": {
                        "spec": {
                            "replicatedJobs": [
                                {
                                    "name": NODE,
                                    "template": {
                                        "spec": {"template": {"spec": {"terminationGracePeriodSeconds": 300}}}
                                    },
                                }
                            ]
                        }
                    }
                },
            }
        ],
        trainer=trainer("test:trainjob", ["trainjob"], ["trainjob"], RES),
    )
    want = base()
    want["suspend"] = True
    counts(want, nodes=1)
    container(want, DATASET, DATASET, "test:runtime", ["runtime"], ["runtime"], RES)
    container(want, MODEL, MODEL, "test:runtime", ["runtime"], ["runtime"], RES)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    pod_set(want, NODE, terminationGracePeriodSeconds=300)
    case(
        "it-termination-grace-period-patch",
        f'{IT} "Should propagate terminationGracePeriodSeconds from RuntimePatches to JobSet pods"',
        [rt, tj],
        [jobset(want, name="grace-period-job")],
    )


def alpha_torch_env() -> list[dict]:
    return [
        *env("TRAIN_JOB", "value", "PET_NNODES", "100", "PET_NPROC_PER_NODE", "1"),
        RANK,
        *env("PET_MASTER_ADDR", "alpha-node-0-0.alpha", "PET_MASTER_PORT", "29500"),
    ]


def tcp_port(spec: dict) -> None:
    for c in containers(spec, NODE, NODE):
        c["ports"] = [{"containerPort": 29500, "protocol": "TCP"}]


def it_torch():
    spec = base()
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], RES)
    rt = runtime(spec, name="alpha", ml_policy={"numNodes": 100, "torch": {}})
    tj = it_trainjob(
        trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], RES), "env": env("TRAIN_JOB", "value")}
    )
    want = base()
    want["suspend"] = False  # upstream's Suspend(false)
    counts(want, nodes=100)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    tcp_port(want)
    append(want, NODE, NODE, "env", *alpha_torch_env())
    case(
        "it-torch",
        f'{IT} "Should succeed to create TrainJob with Torch TrainingRuntime"',
        [rt, tj],
        [jobset(want, name="alpha")],
        SERVER_DEFAULTS,
    )


def it_torch_patches():
    spec = base()
    init_container(
        spec,
        NODE,
        "override-init-container",
        "test:runtime",
        *env("INIT_ENV", "original_init", "DATASET_PATH", "runtime"),
    )
    container(spec, NODE, NODE, "test:runtime", ["runtime"], ["runtime"], RES)
    rt = runtime(spec, name="alpha", ml_policy={"numNodes": 100, "torch": {}})
    labels = {"override-label-key": "override-label-value", "custom-label": "custom-value"}
    annotations = {
        "override-annotation-key": "override-annotation-value",
        "custom-annotation": "custom-annotation-value",
    }
    tj = it_trainjob(
        trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], RES), "env": env("TRAIN_JOB", "value")},
        runtimePatches=[
            {
                "manager": "test.io/manager",
                "trainingRuntimeSpec": {
                    "template": {
                        "spec": {
                            "replicatedJobs": [
                                {
                                    "name": NODE,
                                    "template": {
                                        "spec": {
                                            "template": {
                                                "metadata": {"labels": labels, "annotations": annotations},
                                                "spec": {
                                                    "serviceAccountName": "override-sa",
                                                    "initContainers": [
                                                        {
                                                            "name": "override-init-container",
                                                            "env": env(
                                                                "INIT_ENV",
                                                                "override_init",
                                                                "NEW_VALUE",
                                                                "from_overrides",
                                                            ),
                                                        }
                                                    ],
                                                },
                                            }
                                        }
                                    },
                                }
                            ]
                        }
                    }
                },
            }
        ],
    )
    want = base()
    want["suspend"] = False  # upstream's Suspend(false)
    counts(want, nodes=100)
    pod_set(want, NODE, serviceAccountName="override-sa")
    for key, value in labels.items():
        pod_meta(want, "labels", key, value, NODE)
    for key, value in annotations.items():
        pod_meta(want, "annotations", key, value, NODE)
    init_container(
        want,
        NODE,
        "override-init-container",
        "test:runtime",
        *env("INIT_ENV", "override_init", "NEW_VALUE", "from_overrides", "DATASET_PATH", "runtime"),
    )
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    tcp_port(want)
    append(want, NODE, NODE, "env", *alpha_torch_env())
    case(
        "it-torch-runtime-patches",
        f'{IT} "Should succeed to create TrainJob with RuntimePatches"',
        [rt, tj],
        [jobset(want, name="alpha")],
        SERVER_DEFAULTS,
    )


def it_openmpi():
    def template() -> dict:
        spec = base()
        launcher(spec)
        return spec

    spec = template()
    jobs(spec, LAUNCHER)[0]["replicas"] = 1
    container(spec, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    mpi = {
        "numProcPerNode": 8,
        "mpiImplementation": "OpenMPI",
        "sshAuthMountPath": "/root/.ssh",
        "runLauncherAsNode": False,
    }
    rt = runtime(spec, name="alpha", ml_policy={"numNodes": 1, "mpi": mpi})
    tj = it_trainjob(
        trainer={
            **trainer("test:trainjob", ["trainjob"], ["trainjob"], RES),
            "numNodes": 2,
            "env": env("TRAIN_JOB", "value"),
        }
    )
    want = template()
    want["suspend"] = False  # upstream's Suspend(false)
    counts(want, replicas=(DATASET, MODEL, NODE, LAUNCHER), ones=(DATASET, MODEL, LAUNCHER), nodes=2)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    ssh, hostfile_volume = (copy.deepcopy(v) for v in (SSH_VOLUME, HOSTFILE_VOLUME))
    ssh["secret"]["secretName"] = "alpha-mpi-ssh-auth"
    hostfile_volume["configMap"]["name"] = "alpha-mpi-hostfile"
    pod_append(want, LAUNCHER, "volumes", ssh, hostfile_volume)
    pod_append(want, NODE, "volumes", ssh)
    append(
        want,
        LAUNCHER,
        NODE,
        "volumeMounts",
        {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"},
        {"name": "mpi-hostfile", "mountPath": "/etc/mpi"},
    )
    append(want, NODE, NODE, "volumeMounts", {"name": "mpi-ssh-auth", "mountPath": "/root/.ssh"})
    append(want, LAUNCHER, NODE, "env", *openmpi_env("8"))
    append(want, NODE, NODE, "env", *env("TRAIN_JOB", "value"))
    secret = ssh_secret()
    secret["metadata"]["name"] = "alpha-mpi-ssh-auth"
    config = hostfile("alpha-node-0-0.alpha slots=8", "alpha-node-0-1.alpha slots=8")
    config["metadata"]["name"] = "alpha-mpi-hostfile"
    case(
        "it-openmpi",
        f'{IT} "Should succeed to create TrainJob with OpenMPI TrainingRuntime"',
        [rt, tj],
        [jobset(want, name="alpha"), config, secret],
        "Upstream's runtime also makes the launcher, listed before node, depend on node (Ready); the JobSet webhook "
        "(not running in envtest) refuses that, so it is left out here (tests/test_upstream_errors.py has the error).",
        SUSPEND_FALSE,
    )


def it_jax():
    spec = base()
    container(spec, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    rt = runtime(spec, name="alpha", ml_policy={"numNodes": 1, "jax": {}})
    tj = it_trainjob(trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], RES), "numNodes": 2})
    want = base()
    want["suspend"] = False  # upstream's Suspend(false)
    counts(want, nodes=2)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    append(
        want,
        NODE,
        NODE,
        "env",
        *env("JAX_NUM_PROCESSES", "2"),
        {"name": "JAX_PROCESS_ID", "valueFrom": RANK["valueFrom"]},
        *env("JAX_COORDINATOR_ADDRESS", "alpha-node-0-0.alpha:29500"),
    )
    tcp_port(want)
    case(
        "it-jax",
        f'{IT} "Should succeed to create TrainJob with Jax TrainingRuntime"',
        [rt, tj],
        [jobset(want, name="alpha")],
        SERVER_DEFAULTS,
    )


def it_xgboost():
    spec = base()
    container(spec, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    rt = runtime(spec, name="alpha", ml_policy={"numNodes": 1, "xgboost": {}})
    tj = it_trainjob(trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], RES), "numNodes": 2})
    want = base()
    want["suspend"] = False  # upstream's Suspend(false)
    counts(want, nodes=2)
    container(want, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    append(
        want,
        NODE,
        NODE,
        "env",
        *env("DMLC_TRACKER_URI", "alpha-node-0-0.alpha", "DMLC_TRACKER_PORT", "29500"),
        {"name": "DMLC_TASK_ID", "valueFrom": RANK["valueFrom"]},
        *env("DMLC_NUM_WORKER", "2"),
    )
    tcp_port(want)
    case(
        "it-xgboost",
        f'{IT} "Should succeed to create TrainJob with XGBoost TrainingRuntime"',
        [rt, tj],
        [jobset(want, name="alpha")],
        SERVER_DEFAULTS,
    )


def it_flux():
    """Upstream checks only parts of the Flux objects; tests/test_upstream_cases.py checks those parts."""
    spec = base()
    container(spec, NODE, NODE, "test:trainjob", ["trainjob"], ["trainjob"], RES)
    rt = runtime(spec, name="alpha", ml_policy={"numNodes": 2, "flux": {"numProcPerNode": 1}})
    tj = it_trainjob(trainer={**trainer("test:trainjob", ["trainjob"], ["trainjob"], RES), "numNodes": 2})
    PARTIAL[("it-flux")] = (f'{IT} "Should succeed to create TrainJob with Flux TrainingRuntime"', [rt, tj])


def integration_cases():
    it_plainml("it-plainml-initializers-coscheduling", "Should succeed to create TrainJob with TrainingRuntime", None)
    it_plainml(
        "it-plainml-suspended-patch-update",
        "Should succeeded to update JobSet when TrainJob is suspended",
        {"nodeSelector": {"updated": "selector"}},
        ("The TrainJob as updated while suspended (tests/test_upstream_errors.py has the update checks).",),
    )
    it_grace_period()
    it_torch()
    it_torch_patches()
    it_openmpi()
    it_jax()
    it_xgboost()
    it_flux()


# ---- output ---------------------------------------------------------------------------------------


def strip(value):
    """Drop None values, as Go's omitempty drops unset fields."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def block_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    """Multi-line strings (the hostfile) as literal blocks."""
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


yaml.SafeDumper.add_representer(str, block_text)


def write(name: str, header: str, inputs: list, want: list | None, notes: tuple) -> None:
    folder = HERE / f"upstream-{name}"
    folder.mkdir(exist_ok=True)
    text = ["Upstream: " + header, *notes, "Generated by tools/golden/upstream-generate.py."]
    comment = "".join(f"# {line}\n" for paragraph in text for line in textwrap.wrap(paragraph, 116))
    files = {
        "runtime.yaml": [d for d in inputs if d["kind"] != "TrainJob"],
        "trainjob.yaml": [d for d in inputs if d["kind"] == "TrainJob"],
    }
    for file, docs in files.items():
        (folder / file).write_text(comment + yaml.safe_dump_all([strip(d) for d in docs], sort_keys=False, width=120))
    if want is not None:
        (folder / "upstream-want.txt").write_text(
            comment + yaml.safe_dump_all([strip(d) for d in want], sort_keys=False, width=120)
        )


def main() -> None:
    trainingruntime_cases()
    clustertrainingruntime_cases()
    framework_cases()
    integration_cases()
    for name, (header, inputs, want, notes) in CASES.items():
        write(name, header, inputs, want, notes)
    for name, (header, inputs) in PARTIAL.items():
        write(name, header, inputs, None, ("Upstream checks parts of the output only: tests/test_upstream_cases.py.",))


if __name__ == "__main__":
    main()
