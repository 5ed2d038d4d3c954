"""JAX and XGBoost beyond the golden cases: upstream's no-op cases and the XGBoost reserved-env validation."""

from __future__ import annotations

import pytest

from helpers import build

from trainc.errors import InputErrors

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: custom
spec:
  mlPolicy:
    numNodes: 2
    {policy}: {{}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {labels}
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: example.com/train:1
"""
TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job
spec:
  runtimeRef:
    name: custom
"""
TRAINER_LABELS = "{trainer.kubeflow.org/trainjob-ancestor-step: trainer}"


def compile_job(tmp_path, policy: str, trainer: str | None, labels: str = TRAINER_LABELS) -> dict:
    """The replicated job `node` of the one TrainJob, built against runtime `custom` with `policy`."""
    job = TRAINJOB
    if trainer is not None:
        job += "  trainer:\n" + "".join(f"    {line}\n" for line in trainer.splitlines())
    (tmp_path / "job.yaml").write_text(job)
    (tmp_path / "runtime.yaml").write_text(RUNTIME.format(policy=policy, labels=labels))
    documents = build([str(tmp_path / "job.yaml"), str(tmp_path / "runtime.yaml")]).documents()
    return documents[-1]["spec"]["replicatedJobs"][0]


def node_container(rjob: dict) -> dict:
    return rjob["template"]["spec"]["template"]["spec"]["containers"][0]


@pytest.mark.parametrize("policy", ["jax", "xgboost"])
def test_no_trainer_pod_set_is_a_no_op(tmp_path, policy):
    """Upstream "no panic when JAX policy is set but trainer PodSet is absent" (and XGBoost's early return)."""
    rjob = compile_job(tmp_path, policy, "numNodes: 4", labels="{}")
    assert rjob["template"]["spec"]["parallelism"] == 1  # numNodes only sizes the trainer step
    assert "env" not in node_container(rjob) and "ports" not in node_container(rjob)


@pytest.mark.parametrize("policy", ["jax", "xgboost"])
def test_no_trainer_keeps_runtime_count_and_injects_nothing(tmp_path, policy):
    """Upstream "no env injection when trainJob.Spec.Trainer is nil": the runtime's numNodes still sizes the job."""
    rjob = compile_job(tmp_path, policy, None)
    assert rjob["template"]["spec"]["parallelism"] == 2
    assert "env" not in node_container(rjob) and "ports" not in node_container(rjob)


def test_xgboost_fractional_gpu_rounds_up(tmp_path):
    """GPU quantities count as upstream's Quantity.Value(): rounded up."""
    trainer = "numNodes: 2\nresourcesPerNode:\n  requests: {nvidia.com/gpu: 1500m}"
    container = node_container(compile_job(tmp_path, "xgboost", trainer))
    assert {"name": "DMLC_NUM_WORKER", "value": "4"} in container["env"]


def test_xgboost_reserved_env_one_error_per_entry(tmp_path):
    """Upstream TestXGBoostValidate "multiple errors when using multiple reserved envs"."""
    trainer = (
        "env:\n- {name: DMLC_TRACKER_URI, value: x}\n- {name: OK, value: v}\n- {name: DMLC_NUM_WORKER, value: '9'}"
    )
    with pytest.raises(InputErrors) as caught:
        compile_job(tmp_path, "xgboost", trainer)
    lines = caught.value.render().splitlines()
    assert [line.partition(": ")[2] for line in lines] == [
        "spec.trainer.env[0]: DMLC_TRACKER_URI is reserved for the XGBoost runtime",
        "spec.trainer.env[2]: DMLC_NUM_WORKER is reserved for the XGBoost runtime",
    ]
    assert all(line.startswith(str(tmp_path / "job.yaml") + ":") for line in lines)


def test_jax_env_is_not_reserved(tmp_path):
    """JAX has no reserved names: a user JAX_NUM_PROCESSES overrides the plugin's value in place."""
    container = node_container(compile_job(tmp_path, "jax", "env:\n- {name: JAX_NUM_PROCESSES, value: '7'}"))
    assert [e["name"] for e in container["env"]] == ["JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"]
    assert container["env"][0]["value"] == "7"
