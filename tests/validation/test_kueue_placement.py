"""Kueue placement on an empty cluster: the flavor Kueue's flavor assigner picks for each pod set, as
`requests.Job.pod_sets` carries it (summary's FLAVOR, the cost of each pod set), and why (`trainc explain`)."""

from __future__ import annotations

from pathlib import Path

from helpers import QUEUED_TRAINJOB, build
from trainc.validation import kueue, requests

FLAVORS = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: reserved}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: cpu-pool}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: team-a}
spec: {clusterQueue: team-a}
"""

CLUSTER_QUEUE = """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohortName: research
  namespaceSelector: {}
  flavorFungibility: {whenCanBorrow: %s}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: cpu-pool
      resources:
      - {name: cpu, nominalQuota: "1000"}
      - {name: memory, nominalQuota: 10Ti}
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: spot
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
    - name: reserved
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 16}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: lender}
spec:
  cohortName: research
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: spot
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 32}
"""


def placed(tmp_path: Path, when_can_borrow: str, gpus: int) -> requests.Job:
    (tmp_path / "queues.yaml").write_text(FLAVORS + CLUSTER_QUEUE % when_can_borrow)
    (tmp_path / "job.yaml").write_text(
        QUEUED_TRAINJOB.format(
            name="train",
            queue="q",
            nodes=gpus // 4,
            resources="requests: {cpu: '4', memory: 16Gi}\n      limits: {nvidia.com/gpu: 4}",
        )
    )
    (job,) = requests.jobs(build([str(tmp_path / "queues.yaml"), str(tmp_path / "job.yaml")]))
    return job


def test_each_resource_group_gets_its_flavor(tmp_path):
    job = placed(tmp_path, "MayStopSearch", 8)
    (node,) = job.pod_sets
    assert (node.name, node.count, node.flavors) == (
        "node",
        2,
        {"cpu": "cpu-pool", "memory": "cpu-pool", "nvidia.com/gpu": "spot"},
    )
    assert node.total == {"cpu": 8000, "memory": 32 << 30, "nvidia.com/gpu": 8}
    assert (job.cluster_queue, requests.flavor_names(job)) == ("team-a", "cpu-pool, spot")


def test_when_can_borrow_decides_between_borrowing_and_the_next_flavor(tmp_path):
    # 16 GPUs: spot holds 8 and borrows 8 from the lender; reserved holds 16 of its own
    stays = placed(tmp_path, "MayStopSearch", 16)
    assert stays.pod_sets[0].flavors["nvidia.com/gpu"] == "spot"
    assert stays.placement.notice is not None and "only by borrowing" in stays.placement.notice
    moves = placed(tmp_path, "TryNextFlavor", 16)
    assert moves.pod_sets[0].flavors["nvidia.com/gpu"] == "reserved"
    assert moves.placement.notice is None
    # 24: reserved cannot hold it; spot can by borrowing, the best flavor seen
    assert placed(tmp_path, "TryNextFlavor", 24).pod_sets[0].flavors["nvidia.com/gpu"] == "spot"


def test_explain_lists_every_flavor_tried(tmp_path):
    job = placed(tmp_path, "TryNextFlavor", 16)
    assert kueue.explained(job.placement, job.pod_sets) == [
        "node (4 pods; cpu, memory): flavor 'cpu-pool'",
        "  ← cpu-pool: fits",
        "node (4 pods; nvidia.com/gpu): flavor 'reserved'",
        "    spot: fits by borrowing from its cohort",
        "  ← reserved: fits",
    ]


def test_the_lowest_borrowing_level_wins_in_a_cohort_tree(tmp_path):
    """spot borrows from the root cohort (two levels up), reserved from the team's own cohort (one level up):
    with TryNextFlavor Kueue prefers the nearer quota (isPreferred by borrowing level)."""
    tree = (
        (FLAVORS + CLUSTER_QUEUE % "TryNextFlavor")
        .replace(
            "      - {name: nvidia.com/gpu, nominalQuota: 16}\n", "      - {name: nvidia.com/gpu, nominalQuota: 8}\n"
        )
        .replace(
            "metadata: {name: lender}\nspec:\n  cohortName: research",
            "metadata: {name: lender}\nspec:\n  cohortName: root",
        )
    )
    tree += """\
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: research}
spec:
  parentName: root
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: reserved
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: root}
"""
    (tmp_path / "queues.yaml").write_text(tree)
    (tmp_path / "job.yaml").write_text(
        QUEUED_TRAINJOB.format(name="train", queue="q", nodes=4, resources="limits: {nvidia.com/gpu: 4}")
    )
    (job,) = requests.jobs(build([str(tmp_path / "queues.yaml"), str(tmp_path / "job.yaml")]))
    attempts = job.placement.attempts[0]["nvidia.com/gpu"]
    assert [(attempt.flavor, attempt.mode, attempt.borrow) for attempt in attempts] == [
        ("spot", kueue.FIT, 2),
        ("reserved", kueue.FIT, 1),
    ]
    assert job.pod_sets[0].flavors["nvidia.com/gpu"] == "reserved"
