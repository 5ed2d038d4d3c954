"""The initializers pass (spec §8), ported from upstream's TestBuilderInitializer
(pkg/runtime/framework/plugins/jobset/builder_test.go), plus its input error paths."""

from __future__ import annotations

import pytest

from helpers import build

from trainc.compiler.ir import ANCESTOR_LABEL, Unit
from trainc.compiler.passes.initializers import initializers
from trainc.compiler.pipeline import Context
from trainc.errors import InputErrors
from trainc.trainer.api import TrainJob


def rjob(ancestor: str | None, container: str, env=None, name: str = "initializer-job") -> dict:
    labels = {ANCESTOR_LABEL: ancestor} if ancestor else {}
    spec = {"name": container, **({"env": env} if env else {})}
    return {
        "name": name,
        "template": {"metadata": {"labels": labels}, "spec": {"template": {"spec": {"containers": [spec]}}}},
    }


def run(job: dict, initializer: dict | None) -> dict:
    """The container of `job` after the pass."""
    spec = {"runtimeRef": {"name": "runtime"}, **({"initializer": initializer} if initializer else {})}
    trainjob = TrainJob.from_data(
        {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "demo"}, "spec": spec}
    )
    unit = initializers(Unit(trainjob=trainjob, jobset={"replicatedJobs": [job]}), Context(catalog=None))
    [container] = unit.replicated_jobs[0]["template"]["spec"]["template"]["spec"]["containers"]
    return container


def env(*pairs) -> list[dict]:
    return [{"name": name, "value": value} for name, value in pairs]


@pytest.mark.parametrize(
    ("job", "initializer", "container"),
    [
        (
            rjob("dataset-initializer", "dataset-initializer"),
            {"dataset": {"storageUri": "hf://my-org/my-dataset", "secretRef": {"name": "hf-token-secret"}}},
            {
                "name": "dataset-initializer",
                "env": env(("STORAGE_URI", "hf://my-org/my-dataset")),
                "envFrom": [{"secretRef": {"name": "hf-token-secret"}}],
            },
        ),
        (
            rjob("model-initializer", "model-initializer"),
            {"model": {"storageUri": "hf://meta-llama/Llama-3", "secretRef": {"name": "model-secret"}}},
            {
                "name": "model-initializer",
                "env": env(("STORAGE_URI", "hf://meta-llama/Llama-3")),
                "envFrom": [{"secretRef": {"name": "model-secret"}}],
            },
        ),
        (
            rjob(
                "dataset-initializer",
                "dataset-initializer",
                env=env(("PRE_EXISTING", "from-runtime-template"), ("OTHER", "keep-me")),
            ),
            {
                "dataset": {
                    "storageUri": "hf://my-org/my-dataset",
                    "env": env(("CUSTOM_FROM_USER", "user-value"), ("PRE_EXISTING", "overridden-by-trainjob")),
                }
            },
            {
                "name": "dataset-initializer",
                "env": env(
                    ("PRE_EXISTING", "overridden-by-trainjob"),
                    ("OTHER", "keep-me"),
                    ("STORAGE_URI", "hf://my-org/my-dataset"),
                    ("CUSTOM_FROM_USER", "user-value"),
                ),
            },
        ),
        (
            rjob("dataset-initializer", "dataset-initializer"),
            {"dataset": {"storageUri": "s3://bucket/dataset"}},
            {"name": "dataset-initializer", "env": env(("STORAGE_URI", "s3://bucket/dataset"))},
        ),
        (
            rjob("dataset-initializer", "dataset-initializer"),
            None,
            {"name": "dataset-initializer"},
        ),
        (
            rjob(None, "some-container", name="worker"),
            {"dataset": {"storageUri": "hf://dataset"}},
            {"name": "some-container"},
        ),
        # The dataset settings never reach the model initializer, nor a container of another name.
        (
            rjob("model-initializer", "model-initializer"),
            {"dataset": {"storageUri": "hf://dataset"}},
            {"name": "model-initializer"},
        ),
        (
            rjob("dataset-initializer", "downloader"),
            {"dataset": {"storageUri": "hf://dataset"}},
            {"name": "downloader"},
        ),
    ],
    ids=[
        "dataset initializer with storageUri and secretRef",
        "model initializer with storageUri and secretRef",
        "dataset initializer merges Dataset.Env with storageUri and upserts pre-existing container env",
        "dataset initializer without secretRef only injects storageUri",
        "dataset initializer ancestor with nil Initializer spec",
        "no ancestor label skips modification",
        "model job ignores the dataset initializer",
        "other container names are skipped",
    ],
)
def test_builder_initializer(job, initializer, container):
    assert run(job, initializer) == container


TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: demo
spec:
  runtimeRef:
    name: torchtune-llama3.2-1b
  initializer:
{initializer}"""


def errors(tmp_path, initializer: str) -> tuple[str, list[str]]:
    path = tmp_path / "trainjob.yaml"
    path.write_text(TRAINJOB.format(initializer=initializer))
    with pytest.raises(InputErrors) as caught:
        build([str(path)])
    return str(path), [error.render() for error in caught.value.errors]


def test_storage_uri_must_be_empty_or_a_uri(tmp_path):
    path, found = errors(tmp_path, "    dataset:\n      storageUri: tatsu-lab/alpaca\n")
    assert found == [
        f"{path}:10:19: spec.initializer.dataset.storageUri: storageUri may be empty, or it must be a valid URI "
        "(scheme://...)"
    ]


def test_secret_ref_takes_only_a_name(tmp_path):
    path, found = errors(tmp_path, "    model:\n      secretRef:\n        name: hf\n        key: token\n")
    assert found == [f"{path}:12:9: spec.initializer.model.secretRef.key: unknown field"]


def test_initializer_jobs_run_one_replica_even_without_initializer(tmp_path):
    runtime = tmp_path / "runtime.yaml"
    runtime.write_text("""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: replicated
  labels:
    trainer.kubeflow.org/webhook-validation: disabled
spec:
  template:
    spec:
      replicatedJobs:
        - name: dataset-initializer
          replicas: 3
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer
            spec:
              template:
                spec:
                  containers: [{name: dataset-initializer, image: ghcr.io/kubeflow/trainer/dataset-initializer}]
""")
    trainjob = tmp_path / "trainjob.yaml"
    trainjob.write_text(
        TRAINJOB.split("  initializer:")[0].replace(
            "    name: torchtune-llama3.2-1b", "    kind: TrainingRuntime\n    name: replicated"
        )
    )
    [jobset] = build([str(runtime), str(trainjob)]).documents()
    assert jobset["spec"]["replicatedJobs"][0]["replicas"] == 1
