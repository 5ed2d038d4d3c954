"""Upstream's failing end-to-end build cases, and upstream inputs its admission webhook refuses (its Go tests
call the runtime directly and so never meet the webhook): trainc refuses them with these exact lines."""

from __future__ import annotations

import pytest
from conftest import GOLDEN

from helpers import build
from trainc.output.manifests import dump
from trainc.errors import InputErrors
from trainc.inputs import read_previous

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: default
spec:
  runtimeRef:
    name: {runtime}
    apiGroup: trainer.kubeflow.org
    kind: {kind}
  trainer: {{}}
"""


def errors(*paths) -> list[str]:
    with pytest.raises(InputErrors) as caught:
        build([str(path) for path in paths])
    return [error.render() for error in caught.value.errors]


def test_missing_training_runtime(tmp_path):
    """trainingruntime_test.go "missing trainingRuntime resource" (errorNotFoundSpecifiedTrainingRuntime)."""
    job = tmp_path / "job.yaml"
    job.write_text(TRAINJOB.format(name="test-job-3", runtime="test-runtime-3", kind="TrainingRuntime"))
    assert errors(job) == [
        f'{job}:8:11: spec.runtimeRef.name: TrainingRuntime "test-runtime-3" not found in namespace "default"; '
        "looked in the inputs, --runtimes and the bundled runtimes"
    ]


def test_missing_cluster_training_runtime(tmp_path):
    """clustertrainingruntime_test.go "missing trainingRuntime resource"
    (errorNotFoundSpecifiedClusterTrainingRuntime)."""
    job = tmp_path / "job.yaml"
    job.write_text(TRAINJOB.format(name="test-job", runtime="test-runtime", kind="ClusterTrainingRuntime"))
    assert errors(job) == [
        f'{job}:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "test-runtime" not found; '
        "looked in the inputs, --runtimes and the bundled runtimes"
    ]


def test_a_namespaced_runtime_is_not_a_cluster_runtime(tmp_path):
    """The runtimeRef kind picks the registry: upstream's TrainingRuntime "test-runtime" is no
    ClusterTrainingRuntime."""
    job = tmp_path / "job.yaml"
    job.write_text(TRAINJOB.format(name="test-job", runtime="test-runtime", kind="ClusterTrainingRuntime"))
    runtime = GOLDEN / "upstream-trt-numnodes-from-runtime-container-from-trainjob" / "runtime.yaml"
    assert errors(runtime, job) == [
        f'{job}:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "test-runtime" not found; '
        'looked in the inputs, --runtimes and the bundled runtimes (a TrainingRuntime "test-runtime" exists: '
        "set runtimeRef.kind: TrainingRuntime)"
    ]


def test_bare_patch_managers_are_refused(tmp_path):
    """trainingruntime_test.go's RuntimePatches cases name their managers `manager-1`, `manager-1-dup`, ...:
    upstream's TrainJob webhook (jobset plugin Validate, IsDomainPrefixedPath) refuses those; the
    golden/upstream-trt-patches-* ports prefix them with test.io/."""
    case = GOLDEN / "upstream-trt-patches-duplicate-same-job"
    job = tmp_path / "trainjob.yaml"
    job.write_text((case / "trainjob.yaml").read_text().replace("manager: test.io/", "manager: "))
    lines = [n + 1 for n, line in enumerate(job.read_text().splitlines()) if "manager: " in line]
    assert errors(case / "runtime.yaml", job) == [
        f'{job}:{line}:14: spec.runtimePatches.manager: must be a domain-prefixed path (such as "acme.io/foo")'
        for line in lines
    ]


def test_launcher_depending_on_a_later_node_is_refused(tmp_path):
    """trainjob_controller_test.go's OpenMPI runtime lists the launcher before node and makes it depend on node
    (Ready): envtest runs no JobSet webhook, a cluster's refuses it (golden/upstream-it-openmpi leaves it out)."""
    case = GOLDEN / "upstream-it-openmpi"
    runtime = tmp_path / "runtime.yaml"
    text = (case / "runtime.yaml").read_text()
    launcher = "      - name: launcher\n"
    runtime.write_text(
        text.replace(launcher, launcher + "        dependsOn:\n        - name: node\n          status: Ready\n")
    )
    line = runtime.read_text().splitlines().index("        - name: node") + 1
    assert errors(runtime, case / "trainjob.yaml") == [
        f"{runtime}:{line}:9: spec.template.spec.replicatedJobs[2].dependsOn: the JobSet webhook refuses replicated "
        "job 'launcher' depending on 'node': only on an earlier replicated job"
    ]


def update(tmp_path, case: str, edit):
    """Build `case` with its TrainJob edited by `edit`, as an update of the unedited one."""
    folder = GOLDEN / case
    (tmp_path / "previous").mkdir()
    (tmp_path / "previous" / "trainjob.yaml").write_text((folder / "trainjob.yaml").read_text())
    job = tmp_path / "trainjob.yaml"
    job.write_text(edit((folder / "trainjob.yaml").read_text()))
    before = read_previous(str(tmp_path / "previous"), [], "default")
    return build([str(folder / "runtime.yaml"), str(job)], previous=before)


def test_suspended_trainjob_patches_may_change(tmp_path):
    """trainjob_controller_test.go "Should succeeded to update JobSet when TrainJob is suspended": the suspended
    TrainJob of golden/upstream-it-plainml-initializers-coscheduling gains the node selector patch of
    golden/upstream-it-plainml-suspended-patch-update, and compiles to that case's objects."""
    after = GOLDEN / "upstream-it-plainml-suspended-patch-update"
    output = update(
        tmp_path, "upstream-it-plainml-initializers-coscheduling", lambda _: (after / "trainjob.yaml").read_text()
    )
    assert dump(output.documents()) == (after / "expected.out.yaml").read_text()


def test_trainjob_image_is_immutable(tmp_path):
    """The same test's last step: "Should fail to update TrainJob image"."""

    def new_image(text: str) -> str:
        return text.replace("image: test:trainjob", "image: new-image")

    text = new_image((GOLDEN / "upstream-it-plainml-suspended-patch-update" / "trainjob.yaml").read_text())
    line = text.splitlines().index("    image: new-image") + 1
    with pytest.raises(InputErrors) as caught:
        update(tmp_path, "upstream-it-plainml-suspended-patch-update", new_image)
    assert [error.render() for error in caught.value.errors] == [
        f"{tmp_path / 'trainjob.yaml'}:{line}:5: spec.trainer: field is immutable"
    ]
