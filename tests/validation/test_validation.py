"""Admission rules (spec §10): one test per rule, asserting the exact `file:line:col: path: message` line.

Each test writes a runtime (runtime.yaml) and a TrainJob (job.yaml) and runs
`trainc build`, which must refuse exactly what `trainc validate` refuses.
"""

from __future__ import annotations

import subprocess
import textwrap

import pytest
import yaml
from click.testing import CliRunner
from helpers import HEAD, STEP, TRAINER_ONLY, errors, job_template, runtime

from trainc import validation
from helpers import build
from trainc.cli import cli
from trainc.errors import InputErrors
from trainc.inputs import read_previous
from trainc.trainer import catalog


# --- [RT] runtime webhook ---------------------------------------------------------------------

RT_HEAD = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: rt
{labels}spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: {replicas}
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: {container}
                      image: img
"""


def runtime_errors(tmp_path, labels="", replicas=1, container="node") -> list[str]:
    path = tmp_path / "runtime.yaml"
    path.write_text(RT_HEAD.format(labels=labels, replicas=replicas, container=container))
    try:
        build([str(path)])
    except InputErrors as caught:
        return [e.render().replace(f"{tmp_path}/", "") for e in caught.errors]
    return []


def test_runtime_ancestor_job_replicas_must_be_one(tmp_path):
    assert runtime_errors(tmp_path, replicas=2) == [
        "runtime.yaml:10:21: spec.template.spec.replicatedJobs[0].replicas: always must be 1"
    ]


def test_runtime_ancestor_job_needs_its_container(tmp_path):
    assert runtime_errors(tmp_path, container="trainer") == [
        "runtime.yaml:19:21: spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers: "
        "must contain the required container for the ancestor: trainer"
    ]


def test_runtime_webhook_skipped_when_disabled_by_label(tmp_path):
    labels = "  labels:\n    trainer.kubeflow.org/webhook-validation: disabled\n"
    assert runtime_errors(tmp_path, labels=labels, replicas=2, container="trainer") == []


def test_runtime_ancestor_on_pod_template_only_is_not_checked(tmp_path):
    """Upstream reads the Job-template label; a KEP-style pod-template label is not the webhook's business."""
    rjob = job_template("node", containers=("trainer",))
    rjob["template"]["spec"]["template"]["metadata"] = {"labels": {STEP: "trainer"}}
    assert errors(tmp_path, HEAD, runtime(rjob)) == []


def test_bundled_runtimes_pass_the_runtime_webhook():
    for load in catalog.bundled().values():
        assert validation.runtime.check(load(), created=True) == [], load().name


def test_deprecated_cluster_runtime_warns_on_create_only(tmp_path):
    labels = "  labels:\n    trainer.kubeflow.org/support: deprecated\n"
    (tmp_path / "runtime.yaml").write_text(RT_HEAD.format(labels=labels, replicas=1, container="node"))
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "runtime.yaml").write_text(RT_HEAD.format(labels=labels, replicas=1, container="node"))
    runner = CliRunner()
    created = runner.invoke(cli, ["validate", str(tmp_path / "runtime.yaml")])
    assert created.exit_code == 0
    assert created.stderr.splitlines() == [
        f'warning: {tmp_path}/runtime.yaml:6:35: ClusterTrainingRuntime "rt" is deprecated and will be removed in '
        "a future release of Kubeflow Trainer. See runtime deprecation policy: "
        "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy",
        "valid: 0 TrainJobs, 1 runtime",
    ]
    updated = runner.invoke(cli, ["validate", "--previous", str(tmp_path / "old"), str(tmp_path / "runtime.yaml")])
    assert updated.exit_code == 0 and updated.stderr == "valid: 0 TrainJobs, 1 runtime\n"


def test_deprecated_runtime_with_webhook_disabled_does_not_warn(tmp_path):
    """The webhook's objectSelector skips the runtime, so its create warning never runs either."""
    labels = "  labels:\n    trainer.kubeflow.org/support: deprecated\n    trainer.kubeflow.org/webhook-validation: disabled\n"
    (tmp_path / "runtime.yaml").write_text(RT_HEAD.format(labels=labels, replicas=1, container="node"))
    result = CliRunner().invoke(cli, ["validate", str(tmp_path / "runtime.yaml")])
    assert (result.exit_code, result.stderr) == (0, "valid: 0 TrainJobs, 1 runtime\n")


def test_runtime_webhook_checks_cluster_runtime_updates_but_not_training_runtime_updates(tmp_path):
    """Upstream's TrainingRuntime ValidateUpdate admits anything; the ClusterTrainingRuntime one re-checks."""
    cluster_old = RT_HEAD.format(labels="", replicas=1, container="node")
    cluster_new = RT_HEAD.format(labels="", replicas=2, container="node")
    namespaced_old, namespaced_new = (
        text.replace("kind: ClusterTrainingRuntime", "kind: TrainingRuntime") for text in (cluster_old, cluster_new)
    )
    for old, new, expected in [
        (
            cluster_old,
            cluster_new,
            ["runtime.yaml:10:21: spec.template.spec.replicatedJobs[0].replicas: always must be 1"],
        ),
        (namespaced_old, namespaced_new, []),
    ]:
        (tmp_path / "runtime.yaml").write_text(new)
        before = previous_dir(tmp_path, old)
        try:
            build([str(tmp_path / "runtime.yaml")], previous=before)
            found = []
        except InputErrors as caught:
            found = [e.render().replace(f"{tmp_path}/", "") for e in caught.errors]
        assert found == expected
    assert runtime_errors(tmp_path, replicas=2) != []  # created, the TrainingRuntime is checked


def test_runtime_name_must_be_a_dns_subdomain(tmp_path):
    (tmp_path / "runtime.yaml").write_text(
        RT_HEAD.format(labels="", replicas=1, container="node").replace("name: rt", "name: Bad_Name")
    )
    with pytest.raises(InputErrors) as caught:
        build([str(tmp_path / "runtime.yaml")])
    assert [e.render().replace(f"{tmp_path}/", "") for e in caught.value.errors] == [
        "runtime.yaml:4:9: metadata.name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
        "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]
    (tmp_path / "runtime.yaml").write_text(
        RT_HEAD.format(labels="", replicas=1, container="node").replace("name: rt", "name: torch.v2-rt")
    )
    build([str(tmp_path / "runtime.yaml")])


def test_trainjob_status_is_dropped_as_the_status_subresource_does(tmp_path):
    """What a user writes in status never reaches validation: `kubectl get -o yaml` output compiles."""
    job = HEAD + "status:\n  trainerStatus:\n    progressPercentage: 150\n  jobsStatus:\n    - name: node\n"
    assert errors(tmp_path, job) == []
    assert errors(tmp_path, HEAD + "status: {}\n") == []


def test_annotation_keys_are_checked_lower_cased_label_keys_as_written(tmp_path):
    annotated = HEAD.replace("  name: job\n", "  name: job\n  annotations:\n    Example.COM/Foo: x\n")
    assert errors(tmp_path, annotated) == []
    labelled = HEAD.replace("  name: job\n", "  name: job\n  labels:\n    Example.COM/Foo: x\n")
    assert errors(tmp_path, labelled) == ["job.yaml:6:5: metadata.labels[Example.COM/Foo]: invalid label key"]


@pytest.mark.parametrize(
    "time, valid",
    [
        ("2026-01-01T00:00:00Z", True),
        ("2026-01-01T00:00:00.123456+05:30", True),
        ("yesterday", False),
        ("2026-02-30T00:00:00Z", False),
        ("2026-01-01T24:00:00Z", False),
        ("2026-01-01 00:00:00Z", False),
        ("2026-01-01T00:00:00", False),
        ("2026-01-01T00:00:00+25:00", False),
    ],
)
def test_runtime_patch_time_is_an_rfc_3339_date_time(tmp_path, time, valid):
    job = HEAD + f'  runtimePatches:\n    - manager: example.com/team\n      time: "{time}"\n'
    expected = (
        []
        if valid
        else [
            f'job.yaml:11:13: spec.runtimePatches[0].time: "{time}" must be an RFC 3339 date-time, e.g. 2026-01-02T15:04:05Z'
        ]
    )
    assert errors(tmp_path, job) == expected


# --- [TJ] initializers --------------------------------------------------------------------------

DATASET_JOB = (
    HEAD
    + """\
  initializer:
    dataset:
      storageUri: hf://tatsu-lab/alpaca
"""
)


@pytest.mark.parametrize(
    ("initializer_job", "message"),
    [
        (None, "must have dataset-initializer job when trainJob is configured with input datasetConfig"),
        (
            job_template("dataset-initializer", containers=("other",)),
            "must have container with name - dataset-initializer in the dataset-initializer job",
        ),
        (
            job_template("dataset-initializer", "dataset-initializer", containers=("dataset-initializer",)),
            "must have volumeMount with name - initializer in container dataset-initializer of the "
            "dataset-initializer job",
        ),
    ],
    ids=["no-job", "no-container", "no-mount"],
)
def test_dataset_initializer_needs_job_container_and_mount(tmp_path, initializer_job, message):
    jobs = ([initializer_job] if initializer_job else []) + [job_template("node", "trainer")]
    assert errors(tmp_path, DATASET_JOB, runtime(*jobs)) == [f"job.yaml:11:7: spec.runtimeRef: {message}"]


def test_initializer_init_container_satisfies_the_container_rule_but_not_the_mount_rule(tmp_path):
    """Jobs are found by name, not by ancestor label (this one has none, so the runtime webhook passes it)."""
    rjob = job_template(
        "dataset-initializer", containers=("other",), init_containers=("dataset-initializer",), mounts=("initializer",)
    )
    assert errors(tmp_path, DATASET_JOB, runtime(rjob, job_template("node", "trainer"))) == [
        "job.yaml:11:7: spec.runtimeRef: must have volumeMount with name - initializer in container "
        "dataset-initializer of the dataset-initializer job"
    ]


def test_model_initializer_with_its_mount_is_valid_and_without_job_is_not(tmp_path):
    job = HEAD + "  initializer:\n    model:\n      storageUri: hf://meta-llama/Llama-3.2-1B\n"
    good = job_template(
        "model-initializer", "model-initializer", containers=("model-initializer",), mounts=("initializer",)
    )
    assert errors(tmp_path, job, runtime(good, job_template("node", "trainer"))) == []
    assert errors(tmp_path, job) == [
        "job.yaml:11:7: spec.runtimeRef: must have model-initializer job when trainJob is configured with input "
        "modelConfig"
    ]


# --- [TJ] runtimePatches ------------------------------------------------------------------------


def patched(manager: str = "example.com/team", pod: str = "") -> str:
    """A TrainJob with one patch of the `node` job; `pod` is the pod spec text at column 17 (line 17 on)."""
    return (
        HEAD
        + f"""\
  runtimePatches:
    - manager: {manager}
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
{textwrap.indent(pod, " " * 24) if pod else "                        nodeSelector: {a: b}"}
"""
    )


def test_patch_manager_must_be_domain_prefixed(tmp_path):
    assert errors(tmp_path, patched(manager="kueue")) == [
        'job.yaml:10:16: spec.runtimePatches.manager: must be a domain-prefixed path (such as "acme.io/foo")'
    ]


def test_patch_manager_domain_must_be_a_dns_subdomain(tmp_path):
    assert errors(tmp_path, patched(manager="Example.com/team")) == [
        "job.yaml:10:16: spec.runtimePatches.manager: a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]


def test_patch_manager_path_must_be_an_http_path(tmp_path):
    assert errors(tmp_path, patched(manager='"example.com/a b"')) == [
        "job.yaml:10:16: spec.runtimePatches.manager: Invalid path (regex used for validation is "
        "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"
    ]


def test_patch_unknown_replicated_job(tmp_path):
    job = patched().replace("- name: node", "- name: worker")
    assert errors(tmp_path, job) == [
        "job.yaml:15:23: spec.runtimePatches: must not have replicated job that doesn't exist in the runtime job "
        "template"
    ]


def test_patch_unknown_init_container(tmp_path):
    pod = "initContainers:\n  - name: warmup\n"
    assert errors(tmp_path, patched(pod=pod)) == [
        "job.yaml:21:35: spec.runtimePatches: must not have initContainer that doesn't exist in the runtime job node"
    ]


def test_patch_unknown_container(tmp_path):
    pod = "containers:\n  - name: sidecar\n"
    assert errors(tmp_path, patched(pod=pod)) == [
        "job.yaml:21:35: spec.runtimePatches: must not have container that doesn't exist in the runtime job node"
    ]


def test_patch_known_names_are_checked_against_the_unpatched_runtime(tmp_path):
    """A runtime init container may be patched by its name, and env is fine on other containers."""
    rt = runtime(job_template("node", "trainer", containers=("node", "sidecar"), init_containers=("warmup",)))
    pod = (
        "initContainers:\n  - name: warmup\n    env: [{name: A, value: '1'}]\n"
        "containers:\n  - name: sidecar\n    env: [{name: B, value: '2'}]\n"
    )
    assert errors(tmp_path, patched(pod=pod), rt) == []


@pytest.mark.parametrize("container", ["node", "dataset-initializer", "model-initializer"])
def test_patch_env_on_reserved_containers(tmp_path, container):
    rt = runtime(job_template("node", "trainer", containers=("node", "dataset-initializer", "model-initializer")))
    pod = f"containers:\n  - name: {container}\n    env:\n      - name: A\n        value: '1'\n"
    assert errors(tmp_path, patched(pod=pod), rt) == [
        "job.yaml:23:31: spec.runtimePatches: must not have envs for the dataset-initializer, model-initializer, "
        "node containers"
    ]


# --- [TJ] Torch ---------------------------------------------------------------------------------

TORCH = runtime(
    job_template("node", "trainer", init_containers=("warmup",)),
    ml_policy={"torch": {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["warmup"]}]}}},
)


def test_torch_reserved_env_lists_sorted_names(tmp_path):
    job = (
        HEAD
        + """\
  trainer:
    env:
      - name: FOO
        value: bar
      - name: PET_NNODES
        value: "2"
      - name: PET_MASTER_ADDR
        value: x
"""
    )
    assert errors(tmp_path, job, TORCH) == [
        "job.yaml:13:15: spec.trainer.env: must not have reserved envs, invalid envs configured: "
        "[PET_MASTER_ADDR PET_NNODES]"
    ]


def test_torch_env_injection_target_must_exist(tmp_path):
    rt = TORCH.replace("- warmup", "- missing", 1).replace("name: warmup", "name: other")
    assert errors(tmp_path, HEAD, rt) == [
        'job.yaml:7:5: spec.runtimeRef: envInjection target podSet "node" container "missing" not found in '
        "runtime template"
    ]


def tune(runtime_name: str, trainer: str) -> str:
    """A torchtune TrainJob on a bundled runtime; `trainer` lines start at line 12, column 5."""
    return f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: {runtime_name}
  trainer:
    command:
      - tune
      - run
{textwrap.indent(trainer, "    ")}"""


def test_torchtune_unsupported_model(tmp_path):
    """`torch-distributed` has no model segment: upstream's model is the empty string."""
    assert errors(tmp_path, tune("torch-distributed", "args: []\n"), None) == [
        "job.yaml:7:11: spec.runtimeRef.name: must have a supported pretrained model, invalid model configured: "
    ]


def test_torchtune_multi_node_only_for_70b(tmp_path):
    assert errors(tmp_path, tune("torchtune-llama3.2-1b", "numNodes: 2\n"), None) == [
        "job.yaml:12:15: spec.trainer.numNodes: must be 1 for llama3_2/1B model"
    ]


def test_torchtune_qlora_unsupported_for_qwen(tmp_path):
    trainer = "args:\n  - model.quantize_base=True\n"
    assert errors(tmp_path, tune("torchtune-qwen2.5-1.5b", trainer), None) == [
        "job.yaml:7:11: spec.runtimeRef.name: QLoRA is not supported for qwen2_5/1.5B model"
    ]


def test_torchtune_distributed_qlora_for_small_llama(tmp_path):
    """The bundled runtime has 2 GPUs per node, so QLoRA picks the distributed recipe."""
    trainer = "args:\n  - model.quantize_base=True\n"
    assert errors(tmp_path, tune("torchtune-llama3.2-1b", trainer), None) == [
        "job.yaml:9:5: spec.trainer.numProcPerNode: must be auto or 1 for llama3_2/1B model when using QLoRA",
        "job.yaml:9:5: spec.trainer.resourcesPerNode: must have gpu resource with value 1 for llama3_2/1B model "
        "when using QLoRA",
    ]
    one_gpu = trainer + "resourcesPerNode:\n  limits:\n    nvidia.com/gpu: 1\n"
    assert errors(tmp_path, tune("torchtune-llama3.2-1b", one_gpu), None) == []


def test_torchtune_lora_is_single_node(tmp_path):
    trainer = "numNodes: 2\nargs:\n  - model.lora_attn_modules=[q_proj,v_proj]\n"
    assert errors(tmp_path, tune("torchtune-llama3.2-1b", trainer), None) == [
        "job.yaml:12:15: spec.trainer.numNodes: must be 1 for llama3_2/1B model",
        "job.yaml:12:15: spec.trainer.numNodes: LoRA fine-tuning is not supported for multi-node training in TorchTune",
    ]


def test_torchtune_immutable_args(tmp_path):
    trainer = "args:\n  - epochs=2\n  - output_dir=/tmp/out\n  - tokenizer.path=/t\n"
    assert errors(tmp_path, tune("torchtune-llama3.2-1b", trainer), None) == [
        'job.yaml:14:9: spec.trainer.args[1]: must not set immutable config "output_dir" in trainer args; it is '
        "managed by the runtime",
        'job.yaml:15:9: spec.trainer.args[2]: must not set immutable config "tokenizer.path" in trainer args; it is '
        "managed by the runtime",
    ]


# --- [TJ] MPI, XGBoost, Flux, Volcano ------------------------------------------------------------


def test_mpi_launcher_as_node_needs_launcher_and_node_jobs(tmp_path):
    rt = runtime(job_template("node", "trainer"), ml_policy={"mpi": {"runLauncherAsNode": True}})
    assert errors(tmp_path, HEAD + "  trainer:\n    numNodes: 2\n", rt) == [
        "job.yaml:10:15: spec.trainer.numNodes: must have 1 when MPI trainingRuntime with enabled runLauncherAsNode "
        "does not have either launcher and node"
    ]
    assert errors(tmp_path, HEAD + "  trainer:\n    numNodes: 1\n", rt) == []


def test_mpi_reserved_env(tmp_path):
    rt = runtime(job_template("launcher", "trainer"), job_template("node"), ml_policy={"mpi": {}})
    job = HEAD + "  trainer:\n    env:\n      - name: OMPI_MCA_plm_rsh_args\n        value: x\n"
    assert errors(tmp_path, job, rt) == [
        "job.yaml:11:15: spec.trainer.env: must not have reserved envs, invalid envs configured: "
        "[OMPI_MCA_plm_rsh_args]"
    ]


def test_xgboost_reserved_env_one_error_per_entry(tmp_path):
    rt = runtime(job_template("node", "trainer"), ml_policy={"xgboost": {}})
    job = (
        HEAD
        + """\
  trainer:
    env:
      - name: DMLC_TASK_ID
        value: "1"
      - name: OK
        value: "1"
      - name: DMLC_NUM_WORKER
        value: "3"
"""
    )
    assert errors(tmp_path, job, rt) == [
        "job.yaml:11:9: spec.trainer.env[0]: DMLC_TASK_ID is reserved for the XGBoost runtime",
        "job.yaml:15:9: spec.trainer.env[2]: DMLC_NUM_WORKER is reserved for the XGBoost runtime",
    ]


def test_flux_installer_init_container_is_reserved(tmp_path):
    flux = {"flux": {}}
    job = HEAD + "  trainer:\n    numNodes: 1\n"
    rt = runtime(job_template("node", "trainer", init_containers=("flux-installer",)), ml_policy=flux)
    assert errors(tmp_path, job, rt) == [
        "job.yaml:7:5: spec.trainer.initContainers: InitContainer 'flux-installer' is reserved"
    ]
    rt = runtime(job_template("node", "trainer", containers=("node", "flux-installer")), ml_policy=flux)
    pod = "initContainers:\n  - name: flux-installer\n"
    assert errors(tmp_path, patched(pod=pod) + "  trainer:\n    numNodes: 1\n", rt) == [
        "job.yaml:21:29: spec.trainer.initContainers: InitContainer 'flux-installer' is reserved"
    ]


def test_volcano_queue_must_not_be_empty(tmp_path):
    queue = "scheduling.volcano.sh/queue-name"
    rt = runtime(job_template("node", "trainer"), annotations={queue: ""}, pod_group_policy={"volcano": {}})
    assert errors(tmp_path, HEAD, rt) == [
        f"job.yaml:7:5: spec.annotations[{queue}]: Volcano queue name must not be empty"
    ]
    rt = runtime(job_template("node", "trainer"), annotations={queue: "q1"}, pod_group_policy={"volcano": {}})
    job = (
        HEAD
        + f"""\
  runtimePatches:
    - manager: kueue.x-k8s.io/manager
      trainingRuntimeSpec:
        template:
          metadata:
            annotations:
              {queue}: ""
"""
    )
    assert errors(tmp_path, job, rt) == [
        f"job.yaml:15:49: spec.annotations[{queue}]: Volcano queue name must not be empty"
    ]


# --- the command ----------------------------------------------------------------------------------


def test_validate_exit_codes_and_streams(tmp_path):
    (tmp_path / "runtime.yaml").write_text(TORCH)
    (tmp_path / "job.yaml").write_text(HEAD + "  trainer:\n    env:\n      - name: PET_NNODES\n        value: '1'\n")
    (tmp_path / "ok.yaml").write_text(HEAD.replace("name: job", "name: ok"))
    runner = CliRunner()
    bad = runner.invoke(cli, ["validate", str(tmp_path)])
    assert bad.exit_code == 1 and bad.stdout == ""
    assert bad.stderr.splitlines() == [
        f"{tmp_path}/job.yaml:11:15: spec.trainer.env: must not have reserved envs, invalid envs configured: "
        "[PET_NNODES]",
        "invalid: 1 error",
    ]
    good = runner.invoke(cli, ["validate", str(tmp_path / "runtime.yaml"), str(tmp_path / "ok.yaml")])
    assert (good.exit_code, good.stdout, good.stderr) == (0, "", "valid: 1 TrainJob, 1 runtime\n")
    built = runner.invoke(cli, ["build", str(tmp_path)])
    assert built.exit_code == 1 and built.stdout == ""
    assert runner.invoke(cli, ["validate"]).exit_code == 2


# --- updates: --previous ----------------------------------------------------------------------------

UPDATE = (
    HEAD
    + """\
  suspend: {suspend}
  trainer:
    image: {image}
  runtimePatches:
    - manager: example.com/team
      time: "{time}"
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector:
                          pool: {pool}
"""
)


def update(**changes) -> str:
    values = {"suspend": "false", "image": "img:1", "time": "2026-01-01T00:00:00Z", "pool": "a"}
    return UPDATE.format(**{**values, **changes})


def previous_dir(tmp_path, *documents: str):
    folder = tmp_path / "previous"
    folder.mkdir(exist_ok=True)
    (folder / "old.yaml").write_text("---\n".join(documents))
    return read_previous(str(folder), [], "default")


def test_previous_trainer_is_immutable(tmp_path):
    before = previous_dir(tmp_path, update())
    assert errors(tmp_path, update(image="img:2"), previous=before) == [
        "job.yaml:11:5: spec.trainer: field is immutable"
    ]


def test_previous_unchanged_or_restamped_patches_are_fine(tmp_path):
    before = previous_dir(tmp_path, update())
    assert errors(tmp_path, update(time="2026-02-02T00:00:00Z"), previous=before) == []


def test_previous_patches_change_only_while_suspended(tmp_path):
    before = previous_dir(tmp_path, update())
    assert errors(tmp_path, update(pool="b"), previous=before) == [
        "job.yaml:13:5: spec.runtimePatches: RuntimePatches can only be modified when the TrainJob is suspended "
        "before or after the update"
    ]
    assert errors(tmp_path, update(pool="b", suspend="true"), previous=before) == []
    assert errors(tmp_path, update(pool="b"), previous=previous_dir(tmp_path, update(suspend="true"))) == []


def test_previous_immutable_pod_spec_patch_field(tmp_path):
    """Patch items correlate by manager and job name; serviceAccountName may not change."""
    before = previous_dir(tmp_path, update(pool="a\n                        serviceAccountName: one", suspend="true"))
    now = update(pool="a\n                        serviceAccountName: two", suspend="true")
    assert errors(tmp_path, now, previous=before) == [
        "job.yaml:26:45: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec."
        "template.spec.serviceAccountName: field is immutable"
    ]


def test_previous_versions_in_a_list_are_found(tmp_path):
    """`kubectl get trainjobs -o yaml` output is a List: its items are the previous versions."""
    old = yaml.safe_load(update())
    before = previous_dir(tmp_path, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [old]}))
    assert errors(tmp_path, update(image="img:2"), previous=before) == [
        "job.yaml:11:5: spec.trainer: field is immutable"
    ]


def test_previous_jobset_refuses_changes_beyond_what_kueue_may_change(tmp_path):
    """Re-applying the re-rendered JobSet: suspended, nodeSelector may change; affinity never may."""
    affinity = (
        "a\n                        affinity:\n                          nodeAffinity:\n"
        "                            preferredDuringSchedulingIgnoredDuringExecution:\n"
        "                              - {weight: 1, preference: {matchExpressions: [{key: zone, operator: In, "
        "values: [%s]}]}}"
    )
    before = previous_dir(tmp_path, update(pool=affinity % "z1", suspend="true"))
    assert errors(tmp_path, update(pool="b" + affinity[1:] % "z1", suspend="true"), previous=before) == []
    assert errors(tmp_path, update(pool=affinity % "z2", suspend="true"), previous=before) == [
        "job.yaml:6:3: the JobSet webhook refuses this update of JobSet 'job': spec.replicatedJobs: field is immutable "
        "(spec.replicatedJobs[0].template.spec.template.spec.affinity.nodeAffinity."
        "preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values[0] changed; only "
        "pod labels, annotations, nodeSelector, tolerations and schedulingGates may change, and only while the "
        "TrainJob is suspended before or after the update)"
    ]


def test_previous_jobset_refuses_a_runtime_change_under_a_live_trainjob(tmp_path):
    """With no TrainJob controller keeping a snapshot, a changed runtime re-renders the live JobSet."""
    before = previous_dir(tmp_path, update(), TRAINER_ONLY)
    assert errors(tmp_path, update(), TRAINER_ONLY, previous=before) == []
    warmed = runtime(job_template("node", "trainer", init_containers=("warmup",)))
    found = errors(tmp_path, update(), warmed, previous=before)
    assert [line.split(" (")[0] for line in found] == [
        "job.yaml:6:3: the JobSet webhook refuses this update of JobSet 'job': spec.replicatedJobs: field is immutable"
    ]
    assert "(spec.replicatedJobs[0].template.spec.template.spec.initContainers changed;" in found[0]


def test_previous_new_trainjob_has_no_previous(tmp_path):
    before = previous_dir(tmp_path, update().replace("name: job", "name: other"))
    assert errors(tmp_path, update(image="img:2", pool="b"), previous=before) == []


def test_previous_runtime_template_fields_are_immutable(tmp_path):
    old = TRAINER_ONLY.replace("    spec:\n", "    spec:\n      network:\n        subdomain: a\n", 1)
    new = TRAINER_ONLY.replace("    spec:\n", "    spec:\n      network:\n        subdomain: b\n", 1)
    (tmp_path / "runtime.yaml").write_text(new)
    before = previous_dir(tmp_path, old)
    with pytest.raises(InputErrors) as caught:
        build([str(tmp_path / "runtime.yaml")], previous=before)
    assert [e.render().replace(f"{tmp_path}/", "") for e in caught.value.errors] == [
        "runtime.yaml:9:9: spec.template.spec.network: Value is immutable"
    ]


def git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "HOME": str(repo),
            "PATH": "/usr/bin:/bin",
        },
    )


def test_previous_git_revision(tmp_path):
    repo = tmp_path / "repo"
    (repo / "jobs").mkdir(parents=True)
    (repo / "jobs" / "runtime.yaml").write_text(TRAINER_ONLY)
    (repo / "jobs" / "job.yaml").write_text(update())
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    (repo / "jobs" / "job.yaml").write_text(update(image="img:2"))
    (repo / "jobs" / "new.yaml").write_text(update(image="img:3").replace("name: job", "name: new"))
    runner = CliRunner()
    result = runner.invoke(cli, ["validate", "--previous", "HEAD", str(repo / "jobs")])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{repo}/jobs/job.yaml:11:5: spec.trainer: field is immutable",
        "invalid: 1 error",
    ]
    assert runner.invoke(cli, ["validate", "--previous", "no-such-rev", str(repo / "jobs")]).exit_code == 2


def test_previous_git_revision_of_a_symlinked_input_is_the_file_it_names(tmp_path):
    """`git show REV:./link` gives the link's target path, not the old TrainJob: the file linked to is read."""
    repo = tmp_path / "repo"
    (repo / "real").mkdir(parents=True)
    (repo / "jobs").mkdir()
    (repo / "jobs" / "runtime.yaml").write_text(TRAINER_ONLY)
    (repo / "real" / "job.yaml").write_text(update())
    (repo / "jobs" / "job.yaml").symlink_to("../real/job.yaml")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    runner = CliRunner()
    assert runner.invoke(cli, ["validate", "--previous", "HEAD", str(repo / "jobs")]).exit_code == 0
    (repo / "real" / "job.yaml").write_text(update(image="img:2"))
    changed = runner.invoke(cli, ["validate", "--previous", "HEAD", str(repo / "jobs")])
    assert changed.exit_code == 1 and "spec.trainer: field is immutable" in changed.stderr


def test_previous_version_with_errors_is_reported_at_its_revision(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "job.yaml").write_text(update().replace("image: img:1", "image: img:1\n    bogus: 1"))
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    (repo / "job.yaml").write_text(update())
    result = CliRunner().invoke(cli, ["validate", "--previous", "HEAD", str(repo / "job.yaml")])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == "HEAD:job.yaml:12:5: spec.trainer.bogus: unknown field"


def test_previous_patches_removed_while_running(tmp_path):
    """Dropping every patch is a change too; with none left the error points at `spec`."""
    before = previous_dir(tmp_path, update())
    assert errors(tmp_path, HEAD + "  trainer:\n    image: img:1\n", previous=before) == [
        "job.yaml:6:3: spec.runtimePatches: RuntimePatches can only be modified when the TrainJob is suspended "
        "before or after the update"
    ]
