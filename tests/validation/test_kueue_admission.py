"""Kueue admissibility: a TrainJob whose JobSet Kueue can never admit on the queues among the inputs is an error
with the arithmetic; one that fits only by borrowing gets a notice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from helpers import QUEUED_TRAINJOB as TRAINJOB
from helpers import QUEUES, build
from trainc.errors import InputErrors


def inputs(
    tmp_path: Path,
    nodes: int,
    resources: str = "limits: {nvidia.com/gpu: 8}",
    queue: str = "team-a-gpu",
    queues: str = QUEUES,
) -> list[str]:
    (tmp_path / "queues.yaml").write_text(queues)
    (tmp_path / "job.yaml").write_text(TRAINJOB.format(name="train", queue=queue, nodes=nodes, resources=resources))
    return [str(tmp_path / "queues.yaml"), str(tmp_path / "job.yaml")]


def refusal(paths) -> str:
    with pytest.raises(InputErrors) as caught:
        build(paths)
    (error,) = caught.value.errors
    return error.render()


def test_fits_in_its_nominal_quota(tmp_path):
    output = build(inputs(tmp_path, 2))
    assert output.notices == []


def test_over_quota_in_every_flavor_is_an_error_with_the_arithmetic(tmp_path):
    # 5 nodes x 8 GPUs (limits stand in for requests): a100 holds 16 + 8 borrowed (its borrowingLimit, though
    # team-b lends 12); h100 is tainted and the pods do not tolerate it
    assert refusal(inputs(tmp_path, 5)) == (
        f"{tmp_path}/job.yaml:7:32: metadata.labels[kueue.x-k8s.io/queue-name]: Kueue can never admit this "
        "TrainJob: pod set 'node' (5 pods) needs 40 nvidia.com/gpu, and no flavor of ClusterQueue 'team-a-gpu' "
        "(of LocalQueue team-a/team-a-gpu) takes it: flavor 'a100': 40 nvidia.com/gpu > 24 = nominal quota 16 + "
        "at most 8 borrowed in cohort 'research' (its borrowingLimit); flavor 'h100': the pods do not tolerate "
        "its taint gpu=h100:NoSchedule"
    )


def test_node_selectors_and_tolerations_choose_the_flavor(tmp_path):
    patched = """limits: {{nvidia.com/gpu: 8}}
  runtimePatches:
  - manager: example.com/test
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    tolerations: [{{key: gpu, operator: Exists}}]
                    nodeSelector: {{gpu: {gpu}}}
"""
    assert build(inputs(tmp_path, 2, patched.format(gpu="h100"))).notices == []  # 16 of h100's 16
    # 24: the node selector keeps it off a100, where it would fit by borrowing
    assert refusal(inputs(tmp_path, 3, patched.format(gpu="h100"))).endswith(
        "flavor 'a100': its node labels (gpu=a100) do not match the pods' nodeSelector or required node affinity; "
        "flavor 'h100': 24 nvidia.com/gpu > its nominal quota 16 (nothing to borrow in cohort 'research')"
    )
    # a node label no flavor has does not rule a flavor out: Kueue matches only the flavor's own label keys
    assert (
        len(build(inputs(tmp_path, 3, patched.format(gpu="a100").replace("gpu: a100", "gpu: a100, zone: z1"))).notices)
        == 1
    )


def test_a_job_that_fits_only_by_borrowing_gets_a_notice(tmp_path):
    output = build(inputs(tmp_path, 3))
    assert [notice.render() for notice in output.notices] == [  # at the queue-name label, as a refusal is
        f"notice: {tmp_path / 'job.yaml'}:7:32: team-a/train: Kueue admits it only by borrowing from cohort 'research' (ClusterQueue "
        "'team-a-gpu' (of LocalQueue team-a/team-a-gpu), flavor 'a100': 24 nvidia.com/gpu > nominal quota 16): "
        "it waits until the cohort has that much unused"
    ]


def test_the_cohorts_lending_limit_bounds_borrowing(tmp_path):
    lending = QUEUES.replace("nominalQuota: 16, borrowingLimit: 8", "nominalQuota: 16").replace(
        "lendingLimit: 12", "lendingLimit: 4"
    )
    assert (
        "flavor 'a100': 24 nvidia.com/gpu > 20 = nominal quota 16 + at most 4 borrowed in cohort 'research';"
        in refusal(inputs(tmp_path, 3, queues=lending))
    )


def test_a_missing_local_queue_is_an_error(tmp_path):
    assert refusal(inputs(tmp_path, 1, queue="team-a-cpu")) == (
        f"{tmp_path}/job.yaml:7:32: metadata.labels[kueue.x-k8s.io/queue-name]: Kueue can never admit this "
        "TrainJob: LocalQueue 'team-a-cpu' does not exist in namespace 'team-a' (LocalQueues there: team-a-gpu)"
    )


def test_an_uncovered_resource_is_an_error(tmp_path):
    resources = "requests: {cpu: 4, example.com/fpga: 1}"
    assert refusal(inputs(tmp_path, 1, resources)).endswith(
        "Kueue can never admit this TrainJob: ClusterQueue 'team-a-gpu' (of LocalQueue team-a/team-a-gpu) does not "
        "cover example.com/fpga, which pod set 'node' requests (it covers cpu, memory, nvidia.com/gpu)"
    )


def test_a_cluster_queue_without_namespace_selector_admits_nothing(tmp_path):
    closed = QUEUES.replace("  cohortName: research\n  namespaceSelector: {}\n", "  cohortName: research\n", 1)
    assert refusal(inputs(tmp_path, 1, queues=closed)).endswith(
        "ClusterQueue 'team-a-gpu' (of LocalQueue team-a/team-a-gpu) admits workloads of no namespace (it sets no "
        "namespaceSelector)"
    )


def test_without_kueue_objects_or_their_cluster_queue_nothing_is_checked(tmp_path):
    only_local = QUEUES.split("---\n")[-1].replace("clusterQueue: team-a-gpu", "clusterQueue: elsewhere")
    assert build(inputs(tmp_path, 50, queues=only_local)).notices == []
    assert (
        build(inputs(tmp_path, 50, queues="apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n")).notices == []
    )


def test_requests_are_counted_as_kueue_counts_them(tmp_path):
    """Limits stand in for missing requests, the namespace's LimitRange defaults apply, init containers count by
    max, and every pod of every replicated job counts."""
    from trainc.validation import kueue

    jobset = {
        "metadata": {"labels": {}},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "node",
                    "replicas": 2,
                    "template": {
                        "spec": {
                            "parallelism": 4,
                            "completions": 3,
                            "template": {
                                "spec": {
                                    "initContainers": [{"name": "fetch", "resources": {"requests": {"cpu": "6"}}}],
                                    "containers": [
                                        {"name": "a", "resources": {"limits": {"cpu": "1500m", "memory": "1Gi"}}},
                                        {"name": "b"},
                                    ],
                                    "overhead": {"cpu": "250m"},
                                }
                            },
                        }
                    },
                }
            ]
        },
    }
    limit_range = {"spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "1", "memory": "512Mi"}}]}}
    (pod_set,) = kueue.pod_sets(jobset, [limit_range])
    assert pod_set.count == 6  # 2 replicas x min(parallelism 4, completions 3)
    # containers: 1500m + 1 (LimitRange) = 2500m < init 6; + overhead 250m
    assert kueue.show("cpu", pod_set.total("cpu")) == "37500m"
    assert kueue.show("memory", pod_set.total("memory"), binary=True) == "9Gi"  # 6 x (1Gi + 512Mi)


def test_a_parallel_build_reports_the_same_error(tmp_path):
    paths = inputs(tmp_path, 5)
    for index in range(3):
        (tmp_path / f"more-{index}.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\n" % index)
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "build", "-j", "2", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TRAINC_PARALLEL_MIN_FILES": "2"},
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(f"{paths[1]}:7:32: metadata.labels[kueue.x-k8s.io/queue-name]: Kueue can never")


def test_kueue_objects_of_the_wrong_shape_are_errors_at_their_field(tmp_path):
    broken = QUEUES.replace("coveredResources: [cpu, memory, nvidia.com/gpu]", "coveredResources: gpu", 1).replace(
        "{name: nvidia.com/gpu, nominalQuota: 32, lendingLimit: 12}", "{name: nvidia.com/gpu, nominalQuota: lots}"
    )
    (tmp_path / "queues.yaml").write_text(broken)
    with pytest.raises(InputErrors) as caught:
        build([str(tmp_path / "queues.yaml")])
    assert [error.render() for error in caught.value.errors] == [
        f"{tmp_path}/queues.yaml:29:23: spec.resourceGroups[0].coveredResources: must be a list",
        f"{tmp_path}/queues.yaml:56:46: spec.resourceGroups[0].flavors[0].resources[2].nominalQuota: must be a "
        "quantity (quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')",
    ]


def test_hierarchical_cohorts_lend_their_own_quota_and_their_childrens(tmp_path):
    """team-a-gpu (16) in cohort `child` (team-b lends 32 - 20 = 12) under `root`, which holds 8 of its own:
    at most 36, as Kueue's potentialAvailable."""
    tree = (
        QUEUES.replace("nominalQuota: 16, borrowingLimit: 8", "nominalQuota: 16")
        .replace("lendingLimit: 12", "lendingLimit: 12")
        .replace("cohortName: research", "cohortName: child")
        + """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: child
spec:
  parentName: root
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata:
  name: root
spec:
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
"""
    )
    assert (
        "flavor 'a100': 40 nvidia.com/gpu > 36 = nominal quota 16 + at most 20 borrowed in cohort 'child';"
        in refusal(inputs(tmp_path, 5, queues=tree))
    )
    assert (
        "36 nvidia.com/gpu > nominal quota 16"
        in build(inputs(tmp_path, 4, "limits: {nvidia.com/gpu: 9}", queues=tree)).notices[0].message
    )


def test_a_runtime_class_overhead_counts(tmp_path):
    from trainc.validation import kueue

    jobset = {
        "spec": {
            "replicatedJobs": [
                {
                    "name": "node",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "template": {
                                "spec": {
                                    "runtimeClassName": "kata",
                                    "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}}],
                                }
                            }
                        }
                    },
                }
            ]
        }
    }
    queues, errors = kueue.read(
        [
            (
                None,
                {
                    "apiVersion": "node.k8s.io/v1",
                    "kind": "RuntimeClass",
                    "handler": "kata",
                    "metadata": {"name": "kata"},
                    "overhead": {"podFixed": {"cpu": "250m"}},
                },
            )
        ]
    )
    assert errors == []
    (pod_set,) = kueue.workload("ns", "j", jobset, queues).pod_sets
    assert pod_set.total("cpu") == 1250


@pytest.mark.parametrize(
    "metadata, where, message",
    [
        # a mapping for a name cannot key the LocalQueues; a missing one would be listed among them as None
        ("{name: {a: 1}, namespace: team-a}", "60:18: metadata.name", "required for kubectl apply: a non-empty string"),
        ("{namespace: team-a}", "60:11: metadata.name", "required for kubectl apply: a non-empty string"),
        ("{name: team-a-gpu, namespace: [team-a]}", "60:41: metadata.namespace", "must be a string, not list"),
    ],
)
def test_a_kueue_object_without_a_usable_name_is_the_output_steps_error(tmp_path, metadata, where, message):
    queues = QUEUES.replace("metadata:\n  name: team-a-gpu\n  namespace: team-a\n", f"metadata: {metadata}\n")
    assert queues != QUEUES
    assert refusal(inputs(tmp_path, 2, queues=queues)) == f"{tmp_path}/queues.yaml:{where}: {message}"


def test_a_namespace_named_by_a_mapping_is_an_error_not_a_traceback(tmp_path):
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {team: a}\n---\n"
    assert refusal(inputs(tmp_path, 2, queues=namespace + QUEUES)) == (
        f"{tmp_path}/queues.yaml:4:9: metadata.name: required for kubectl apply: a non-empty string"
    )


def test_a_null_quota_item_is_an_error_at_it(tmp_path):
    queues = QUEUES.replace('- {name: cpu, nominalQuota: "0"}', "- null", 1)
    assert queues != QUEUES
    assert refusal(inputs(tmp_path, 2, queues=queues)) == (
        f"{tmp_path}/queues.yaml:54:9: spec.resourceGroups[0].flavors[0].resources[0]: must not be null"
    )


def test_v1beta1_objects_are_still_read_with_a_warning_naming_kueue_020(tmp_path):
    """Kueue 0.20 serves only v1beta2; a repository still on v1beta1 (spec.cohort) is read as an older Kueue reads
    it, the same arithmetic, and every such object is warned about at its apiVersion."""
    old = QUEUES.replace("kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1").replace("cohortName:", "cohort:")
    output = build(inputs(tmp_path, 2, queues=old))
    warnings = [notice.render() for notice in output.notices]
    assert len(warnings) == QUEUES.count("apiVersion: kueue.x-k8s.io/")
    assert warnings[2] == (
        f"warning: {tmp_path}/queues.yaml:21:13: apiVersion: Kueue 0.20 no longer serves "
        "kueue.x-k8s.io/v1beta1 (kubernetes-sigs/kueue #14558): write kueue.x-k8s.io/v1beta2 and "
        "spec.cohortName for spec.cohort; read here as Kueue before 0.20 reads it"
    )
    assert refusal(inputs(tmp_path, 5, queues=old)) == refusal(inputs(tmp_path, 5))  # the cohort is read from cohort


@pytest.mark.parametrize(
    "version, wrong, right", [("v1beta2", "cohort", "cohortName"), ("v1beta1", "cohortName", "cohort")]
)
def test_the_other_versions_cohort_field_is_an_unknown_field(tmp_path, version, wrong, right):
    text = QUEUES.replace("kueue.x-k8s.io/v1beta2", f"kueue.x-k8s.io/{version}").replace("cohortName:", f"{wrong}:")
    with pytest.raises(InputErrors) as caught:
        build(inputs(tmp_path, 2, queues=text))
    assert [error.render() for error in caught.value.errors][0] == (
        f"{tmp_path}/queues.yaml:26:3: spec.{wrong}: unknown field in kueue.x-k8s.io/{version}: its name there is "
        f"{right}"
    )
