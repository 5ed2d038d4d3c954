"""runtimePatches (spec §1.5): error paths, what the CRD schema lets a patch touch, and isolation."""

from __future__ import annotations

import pytest

from helpers import build

from trainc.compiler.ir import Unit
from trainc.compiler.passes.patch import patch
from trainc.compiler.pipeline import Context
from trainc.errors import InputErrors
from trainc.trainer.api import TrainJob

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/{version}
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: torch-distributed
  runtimePatches:
{patches}"""

NODE_PATCH = """\
    - manager: example.com/manager
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
{pod_spec}"""

OPAQUE = """\
    - manager: kueue.x-k8s.io/manager
      opaqueRuntimeSpec:
        driver:
          template:
            spec:
              nodeSelector:
                node-type: gpu-a100
"""


def write(tmp_path, patches, name="demo", version="v1alpha1") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(TRAINJOB.format(version=version, name=name, patches=patches))
    return str(path)


def errors(*paths) -> list[str]:
    with pytest.raises(InputErrors) as caught:
        build(list(paths))
    return [error.render() for error in caught.value.errors]


def node_pod_spec(*paths) -> dict:
    [jobset] = [doc for doc in build(list(paths)).documents() if doc["kind"] == "JobSet"]
    return jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


@pytest.mark.parametrize("version", ["v1alpha1", "v2alpha1"])
def test_opaque_runtime_spec_fails_the_trainjob(tmp_path, version):
    path = write(tmp_path, OPAQUE, version=version)
    assert errors(path) == [
        f"{path}:10:7: spec.runtimePatches[0].opaqueRuntimeSpec: opaque patches target runtimes other than "
        "TrainingRuntime and ClusterTrainingRuntime (a KEP-2170 future extension), which trainc does not support "
        'yet; patch ClusterTrainingRuntime "torch-distributed" with trainingRuntimeSpec instead'
    ]


def test_only_one_spec_can_be_set(tmp_path):
    patches = NODE_PATCH.format(pod_spec="                        nodeSelector: {pool: gpu}\n")
    patches += "      opaqueRuntimeSpec: {}\n"
    path = write(tmp_path, patches)
    assert errors(path) == [f"{path}:9:7: spec.runtimePatches[0]: only one spec can be set"]


def test_every_offending_patch_is_reported(tmp_path):
    second = OPAQUE.replace("kueue.x-k8s.io/manager", "example.com/other")
    path = write(tmp_path, OPAQUE + "    - manager: example.com/fine\n" + second)
    found = errors(path)
    assert [line.split(": ")[0:2] for line in found] == [
        [f"{path}:10:7", "spec.runtimePatches[0].opaqueRuntimeSpec"],
        [f"{path}:18:7", "spec.runtimePatches[2].opaqueRuntimeSpec"],
    ]


@pytest.mark.parametrize(
    ("pod_spec", "line"),
    [
        # Container fields other than name, env, volumeMounts and securityContext.
        (
            "                        containers:\n"
            "                          - name: node\n"
            "                            image: evil/image\n",
            "21:29: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec"
            ".template.spec.containers[0].image: unknown field",
        ),
        # Pod fields outside PodSpecPatch.
        (
            "                        hostNetwork: true\n",
            "19:25: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec"
            ".template.spec.hostNetwork: unknown field",
        ),
        (
            "                        terminationGracePeriodSeconds: -1\n",
            "19:56: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec"
            ".template.spec.terminationGracePeriodSeconds: must be ≥ 0",
        ),
    ],
    ids=["container image", "hostNetwork", "negative grace period"],
)
def test_crd_schema_limits_what_a_pod_patch_touches(tmp_path, pod_spec, line):
    path = write(tmp_path, NODE_PATCH.format(pod_spec=pod_spec))
    assert errors(path) == [f"{path}:{line}"]


@pytest.mark.parametrize(
    ("patch", "line"),
    [
        (
            "    - manager: example.com/manager\n"
            "      trainingRuntimeSpec:\n"
            "        template:\n"
            "          spec:\n"
            "            network: {subdomain: other}\n",
            "13:13: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.network: unknown field",
        ),
        (
            "    - manager: example.com/manager\n"
            "      trainingRuntimeSpec:\n"
            "        template:\n"
            "          spec:\n"
            "            replicatedJobs:\n"
            "              - name: node\n"
            "                replicas: 4\n",
            "15:17: spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].replicas: unknown field",
        ),
        (
            "    - manager: example.com/manager\n      trainingRuntimeSpec:\n        mlPolicy: {numNodes: 4}\n",
            "11:9: spec.runtimePatches[0].trainingRuntimeSpec.mlPolicy: unknown field",
        ),
    ],
    ids=["jobset network", "replicas", "mlPolicy"],
)
def test_crd_schema_limits_what_a_jobset_patch_touches(tmp_path, patch, line):
    path = write(tmp_path, patch)
    assert errors(path) == [f"{path}:{line}"]


def test_empty_lists_are_omitted_except_where_go_encodes_them(tmp_path):
    """Upstream re-encodes the patch from Go types: `tolerations: []` is dropped (omitempty),
    `nodeSelectorTerms: []` is not, and replaces the runtime's terms."""
    runtime = tmp_path / "runtime.yaml"
    runtime.write_text("""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
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
                  tolerations: [{key: spot, operator: Exists}]
                  affinity:
                    nodeAffinity:
                      requiredDuringSchedulingIgnoredDuringExecution:
                        nodeSelectorTerms: [{matchExpressions: [{key: arch, operator: In, values: [amd64]}]}]
                  containers: [{name: node, image: python:3.12}]
""")
    pod_spec = (
        "                        tolerations: []\n"
        "                        affinity:\n"
        "                          nodeAffinity:\n"
        "                            requiredDuringSchedulingIgnoredDuringExecution:\n"
        "                              nodeSelectorTerms: []\n"
    )
    spec = node_pod_spec(str(runtime), write(tmp_path, NODE_PATCH.format(pod_spec=pod_spec)))
    assert spec["tolerations"] == [{"key": "spot", "operator": "Exists"}]
    assert spec["affinity"] == {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}
    }


def test_a_patch_changes_only_its_own_trainjob(tmp_path):
    """Patching must not write through to the shared runtime, nor to the TrainJob's own patch list."""
    patched = write(
        tmp_path, NODE_PATCH.format(pod_spec="                        nodeSelector: {pool: gpu}\n"), name="a"
    )
    plain = tmp_path / "b.yaml"
    plain.write_text(TRAINJOB.format(version="v1alpha1", name="b", patches="").replace("  runtimePatches:\n", ""))
    output = build([patched, str(plain)])
    [(job_a, [jobset_a]), (job_b, [jobset_b])] = output.jobs
    pod = jobset_a["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"pool": "gpu"}
    assert "nodeSelector" not in jobset_b["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["nodeSelector"]["pool"] = "changed"
    node_patch = job_a.spec.runtime_patches[0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0]
    assert node_patch["template"]["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "gpu"}


def _patched_job_names(runtime_jobs, patched_jobs) -> list[str]:
    """Run the patch pass alone on jobs named `runtime_jobs`, patching `patched_jobs` in that order."""
    entry = {
        "manager": "example.com/manager",
        "trainingRuntimeSpec": {
            "template": {
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": name,
                            "template": {"spec": {"template": {"spec": {"nodeSelector": {"patched": "yes"}}}}},
                        }
                        for name in patched_jobs
                    ]
                }
            }
        },
    }
    trainjob = TrainJob.from_data(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "metadata": {"name": "demo"},
            "spec": {"runtimeRef": {"name": "runtime"}, "runtimePatches": [entry]},
        }
    )
    jobset = {"replicatedJobs": [{"name": name, "template": {}} for name in runtime_jobs]}
    unit = patch(Unit(trainjob=trainjob, jobset=jobset), Context(catalog=None))
    return [rjob["name"] for rjob in unit.replicated_jobs]


@pytest.mark.parametrize(
    ("patched", "order"),
    [
        (["extra"], ["extra", "initializer", "node"]),  # merge puts the new job first; key 0 keeps it there
        (["initializer", "extra"], ["initializer", "extra", "node"]),
        (["node", "extra"], ["initializer", "extra", "node"]),  # merged [initializer, node, extra], re-sorted
        (["node", "initializer"], ["initializer", "node"]),  # merged in patch order, runtime order restored
    ],
)
def test_job_order_after_patching(patched, order):
    """Spec §1.5 step 3, on the pass itself: the TrainJob checks reject unknown jobs before it runs."""
    assert _patched_job_names(["initializer", "node"], patched) == order
