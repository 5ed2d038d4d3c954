"""Every bundled runtime is valid, and user runtimes take precedence over bundled ones."""

from __future__ import annotations

import pytest

from trainc.trainer import catalog


@pytest.mark.parametrize("key", sorted(catalog.bundled(), key=str))
def test_bundled_runtime_is_valid(key):
    runtime = catalog.build([], "default").find(key[0], "default", key[2])
    assert runtime.kind == "ClusterTrainingRuntime" and runtime.name == key[2]


def test_user_runtime_overrides_bundled():
    bundled = catalog.build([], "default").find("ClusterTrainingRuntime", "x", "torch-distributed")
    mine = bundled.replace(origin=None)
    assert catalog.build([mine], "default").find("ClusterTrainingRuntime", "x", "torch-distributed") is mine


KEP_RUNTIME = """\
apiVersion: trainer.kubeflow.org/{version}
kind: ClusterTrainingRuntime
metadata:
  name: kep-job-label
spec:
  mlPolicy:
    torch: {{}}
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
                    - name: trainer
                      image: img
---
apiVersion: trainer.kubeflow.org/{version}
kind: TrainJob
metadata:
  name: k
spec:
  runtimeRef:
    name: kep-job-label
  trainer:
    numNodes: 3
"""


@pytest.mark.parametrize("version", ["v1alpha1", "v2alpha1"])
def test_kep_trainer_container_satisfies_the_runtime_webhook_only_in_v2alpha1(tmp_path, version):
    from helpers import build
    from trainc.errors import InputErrors

    path = tmp_path / "kep.yaml"
    path.write_text(KEP_RUNTIME.format(version=version))
    if version == "v2alpha1":
        (jobset,) = build([str(path)]).documents()
        container = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
        assert container["env"][0] == {"name": "PET_NNODES", "value": "3"}
        return
    with pytest.raises(InputErrors) as raised:
        build([str(path)])
    assert raised.value.render() == (
        f"{path}:20:21: spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers: "
        "must contain the required container for the ancestor: trainer"
    )
