"""Conformance audit: spec statements (§1–§10) no other test pinned, each against upstream's code.

Golden cases `golden/audit-*` pin the rendered objects; these tests pin messages,
refusals and notices, as exact `file:line:col: path: message` lines.
"""

from __future__ import annotations

import textwrap

import pytest
from conftest import GOLDEN_SEED

from helpers import build
from trainc.errors import InputErrors

DEPRECATION_URL = "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy"


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def errors(tmp_path, *paths: str) -> list[str]:
    """The rendered errors of building `paths`, file names relative to tmp_path."""
    with pytest.raises(InputErrors) as caught:
        build(list(paths), ssh_key_seed=GOLDEN_SEED)
    return [error.render().replace(f"{tmp_path}/", "") for error in caught.value.errors]


def trainjob(tmp_path, spec: str, metadata: str = "  name: job\n") -> str:
    """job.yaml: a TrainJob whose `spec` (given unindented) starts at line 6, column 3."""
    head = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n" + metadata + "spec:\n"
    return write(tmp_path, "job.yaml", head + textwrap.indent(textwrap.dedent(spec), "  "))


# --- §1.2 runtimeRef: the registry key is "<kind>.<apiGroup>" (Go GroupKind.String()) ---------------------


@pytest.mark.parametrize(
    ("api_group", "kind", "key"),
    [
        ('""', "ClusterTrainingRuntime", "ClusterTrainingRuntime"),  # no group: the kind alone, no dot
        ("kubeflow.org", "ClusterTrainingRuntime", "ClusterTrainingRuntime.kubeflow.org"),
        ("trainer.kubeflow.org", "trainingruntime", "trainingruntime.trainer.kubeflow.org"),  # kinds are exact
        ("trainer.kubeflow.org", '""', ".trainer.kubeflow.org"),
        ("trainer.kubeflow.org", "TrainJob", "TrainJob.trainer.kubeflow.org"),
    ],
)
def test_unsupported_runtime_ref_names_the_registry_key(tmp_path, api_group, kind, key):
    """Upstream's webhook and controller: "unsupported runtime: <GroupKind>" (spec §1.2, §9, §10)."""
    job = trainjob(tmp_path, f"runtimeRef:\n  name: torch-distributed\n  apiGroup: {api_group}\n  kind: {kind}\n")
    assert errors(tmp_path, job) == [f"job.yaml:7:5: spec.runtimeRef: unsupported runtime: {key}"]


def test_runtime_ref_defaults_to_the_cluster_runtime_of_the_trainer_group(tmp_path):
    """apiGroup and kind default to trainer.kubeflow.org and ClusterTrainingRuntime (spec §1.4)."""
    job = trainjob(tmp_path, "runtimeRef:\n  name: torch-distributed\n")
    (jobset,) = build([job]).documents()
    assert jobset["spec"]["replicatedJobs"][0]["name"] == "node"


# --- §1.6, §10: deprecated runtimes warn, they are not refused ---------------------------------------------

DEPRECATED = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: {kind}
metadata:
  name: old
  namespace: default
  labels:
    trainer.kubeflow.org/support: deprecated
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: img
"""


def test_trainjob_on_a_deprecated_cluster_runtime_warns_with_upstreams_text(tmp_path):
    runtime = write(tmp_path, "runtime.yaml", DEPRECATED.format(kind="ClusterTrainingRuntime"))
    job = trainjob(tmp_path, "runtimeRef:\n  name: old\n", metadata="  name: job\n  namespace: team-a\n")
    notices = [notice.render() for notice in build([runtime, job]).notices]
    assert (
        f'warning: {job}:8:11: team-a/job: Referenced ClusterTrainingRuntime "old" is deprecated and will be removed '
        f"in a future release of Kubeflow Trainer. See runtime deprecation policy: {DEPRECATION_URL}"
    ) in notices


def test_a_deprecated_training_runtime_never_warns(tmp_path):
    """Only ClusterTrainingRuntime.ValidateObjects and its webhook check the support label."""
    runtime = write(tmp_path, "runtime.yaml", DEPRECATED.format(kind="TrainingRuntime"))
    job = trainjob(tmp_path, "runtimeRef:\n  name: old\n  kind: TrainingRuntime\n")
    output = build([runtime, job])
    assert output.notices == [] and len(output.documents()) == 1


# --- §10: the webhook-validation label skips the runtime webhook, never the TrainJob webhook ---------------


def test_trainjob_webhook_still_checks_jobs_on_an_unvalidated_runtime(tmp_path):
    runtime = write(
        tmp_path,
        "runtime.yaml",
        """\
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata:
          name: unchecked
          labels:
            trainer.kubeflow.org/webhook-validation: disabled
        spec:
          mlPolicy:
            torch: {}
          template:
            spec:
              replicatedJobs:
                - name: node
                  replicas: 2
                  template:
                    metadata:
                      labels:
                        trainer.kubeflow.org/trainjob-ancestor-step: trainer
                    spec:
                      template:
                        spec:
                          containers:
                            - name: worker
                              image: img
        """,
    )
    job = trainjob(
        tmp_path,
        """\
        runtimeRef:
          name: unchecked
        trainer:
          env:
            - name: PET_NNODES
              value: "9"
        """,
    )
    # No "always must be 1" nor "must contain the required container": only the TrainJob rule.
    assert errors(tmp_path, runtime, job) == [
        "job.yaml:10:15: spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_NNODES]"
    ]


# --- §10 [CRD] messages ------------------------------------------------------------------------------------


def test_trainjob_name_longer_than_a_dns_label(tmp_path):
    job = trainjob(tmp_path, "runtimeRef:\n  name: torch-distributed\n", metadata=f"  name: {'a' * 64}\n")
    assert errors(tmp_path, job) == ["job.yaml:4:9: metadata.name: metadata.name must be no more than 63 characters"]


def test_trainjob_managed_by_and_minimums(tmp_path):
    job = trainjob(
        tmp_path,
        """\
        runtimeRef:
          name: torch-distributed
        managedBy: example.com/controller
        activeDeadlineSeconds: 0
        trainer:
          numNodes: -1
        """,
    )
    assert errors(tmp_path, job) == [
        "job.yaml:8:14: spec.managedBy: ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
        "kueue.x-k8s.io/multikueue if set",
        "job.yaml:9:26: spec.activeDeadlineSeconds: must be ≥ 1",
        "job.yaml:11:15: spec.trainer.numNodes: must be ≥ 0",
    ]


def test_legacy_fields_are_unknown_and_num_proc_per_node_is_an_integer(tmp_path):
    """v2.0/v2.1 fields are gone at HEAD (spec §0); "auto"/"cpu"/"gpu" strings are refused (spec §4.2)."""
    job = trainjob(
        tmp_path,
        """\
        runtimeRef:
          name: torch-distributed
        podTemplateOverrides: []
        trainer:
          numProcPerNode: auto
        """,
    )
    runtime = write(
        tmp_path,
        "runtime.yaml",
        """\
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata:
          name: legacy
        spec:
          mlPolicy:
            torch:
              numProcPerNode: gpu
              elasticPolicy:
                maxNodes: 3
          template:
            spec:
              replicatedJobs: []
        """,
    )
    assert errors(tmp_path, job, runtime) == [
        "job.yaml:8:3: spec.podTemplateOverrides: unknown field",
        "job.yaml:10:21: spec.trainer.numProcPerNode: must be an integer, not string",
        "runtime.yaml:8:7: spec.mlPolicy.torch.numProcPerNode: unknown field",
        "runtime.yaml:9:7: spec.mlPolicy.torch.elasticPolicy: unknown field",
    ]


def test_runtime_crd_rules(tmp_path):
    runtimes = write(
        tmp_path,
        "runtime.yaml",
        """\
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata:
          name: flux-zero
        spec:
          mlPolicy:
            flux:
              numProcPerNode: 0
          template:
            spec:
              replicatedJobs: []
        ---
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata:
          name: rules
        spec:
          mlPolicy:
            torch:
              envInjection:
                targets:
                  - jobName: node
                    containerNames: [node]
          template:
            spec:
              startupPolicy:
                startupPolicyOrder: InOrder
              volumeClaimPolicies:
                - templates:
                    - metadata:
                        name: scratch
                        namespace: other
                      spec:
                        accessModes: [ReadWriteOnce]
              replicatedJobs:
                - name: a
                  template: {spec: {template: {spec: {containers: [{name: a, image: img}]}}}}
                - name: b
                  dependsOn: [{name: a, status: Complete}]
                  template: {spec: {template: {spec: {containers: [{name: b, image: img}]}}}}
        """,
    )
    assert errors(tmp_path, runtimes) == [
        "runtime.yaml:8:23: spec.mlPolicy.flux.numProcPerNode: NumProcPerNode in fluxPolicy must be >= 1",
        "runtime.yaml:23:29: spec.mlPolicy.torch.envInjection.targets[0].containerNames: containerNames must not "
        "include the main node container because PET_* envs are always injected into it",
        "runtime.yaml:26:7: spec.template.spec: StartupPolicy and DependsOn APIs are mutually exclusive",
        "runtime.yaml:29:11: spec.template.spec.volumeClaimPolicies[0]: namespace cannot be set for "
        "VolumeClaimPolicies templates",
    ]


# --- §10 [TJ][Torchtune]: the webhook does not turn "auto" into a CPU count ---------------------------------


def test_torchtune_qlora_without_gpus_is_distributed_for_the_webhook(tmp_path):
    """validateTorchTune keeps numProcPerNode "auto" (only the plugin resolves CPUs): with 1 CPU and no
    GPU the recipe is the distributed QLoRA one, which llama3_2/1B refuses."""
    job = trainjob(
        tmp_path,
        """\
        runtimeRef:
          name: torchtune-llama3.2-1b
        trainer:
          command: [tune, run]
          args: [model.quantize_base=True]
          resourcesPerNode:
            requests:
              cpu: "1"
        """,
    )
    assert errors(tmp_path, job) == [
        "job.yaml:9:5: spec.trainer.numProcPerNode: must be auto or 1 for llama3_2/1B model when using QLoRA",
        "job.yaml:12:7: spec.trainer.resourcesPerNode: must have gpu resource with value 1 for llama3_2/1B model "
        "when using QLoRA",
    ]


# --- §3.1 step 6: endpoints of a KEP-style step (trainc's reading) follow the one replica it runs ----------


def test_pod_template_step_endpoints_follow_the_forced_replica(tmp_path):
    """Upstream never forces a job whose step is on the pod template (it sees no ancestor); for a KEP
    (v2alpha1) runtime trainc does, before listing endpoints, so its hostfile names only pods that exist.
    The Job-template case keeps the runtime's replicas: golden/audit-mpi-ancestor-replicas-endpoints."""
    runtime = write(
        tmp_path,
        "runtime.yaml",
        """\
        apiVersion: trainer.kubeflow.org/v2alpha1
        kind: ClusterTrainingRuntime
        metadata:
          name: kep-mpi
        spec:
          mlPolicy:
            mpi:
              runLauncherAsNode: true
          template:
            spec:
              replicatedJobs:
                - name: launcher
                  replicas: 2
                  template:
                    spec:
                      template:
                        metadata:
                          labels:
                            trainer.kubeflow.org/trainjob-ancestor-step: trainer
                        spec:
                          containers:
                            - name: node
                              image: img
                - name: node
                  template:
                    spec:
                      template:
                        spec:
                          containers:
                            - name: node
                              image: img
        """,
    )
    job = trainjob(tmp_path, "runtimeRef:\n  name: kep-mpi\ntrainer:\n  numNodes: 2\n")
    _, hostfile, jobset = build([runtime, job], ssh_key_seed=GOLDEN_SEED).documents()
    assert hostfile["data"]["hostfile"] == "job-launcher-0-0.job slots=1\njob-node-0-0.job slots=1\n"
    assert [rjob["replicas"] for rjob in jobset["spec"]["replicatedJobs"]] == [1, 1]
