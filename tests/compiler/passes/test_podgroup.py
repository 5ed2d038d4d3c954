"""Gang scheduling arithmetic: Kubernetes pod requests per pod, minMember/minResources per job (spec §7.3)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from trainc.compiler.passes.podgroup import pod_requests
from trainc.compiler.plugins.gang import minimums


def container(name="c", requests=None, limits=None, **extra):
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "resources": resources, **extra}


def text(requests: dict) -> dict:
    return {name: str(amount) for name, amount in requests.items()}


def test_regular_containers_add_up():
    spec = {"containers": [container(requests={"cpu": "500m", "memory": "1Gi"}), container(requests={"cpu": "250m"})]}
    assert text(pod_requests(spec)) == {"cpu": "750m", "memory": "1Gi"}


def test_limits_are_not_a_fallback():
    limited = container(limits={"cpu": "4", "nvidia.com/gpu": "1"})
    spec = {"containers": [limited, container(requests={"memory": "1Gi"})]}
    assert text(pod_requests(spec)) == {"memory": "1Gi"}


def test_no_requests_at_all():
    assert pod_requests({}) == {}
    assert pod_requests({"containers": [{"name": "c"}], "initContainers": [{"name": "i"}]}) == {}


def test_init_containers_count_through_max():
    spec = {
        "initContainers": [container(requests={"cpu": "3"}), container(requests={"cpu": "1", "memory": "4Gi"})],
        "containers": [container(requests={"cpu": "2", "memory": "1Gi"})],
    }
    assert text(pod_requests(spec)) == {"cpu": "3", "memory": "4Gi"}


def test_init_container_below_the_regular_sum_adds_nothing():
    spec = {
        "initContainers": [container(requests={"cpu": "1"})],
        "containers": [container(requests={"cpu": "1"}), container(requests={"cpu": "1"})],
    }
    assert text(pod_requests(spec)) == {"cpu": "2"}


def test_sidecars_add_up_and_weigh_on_later_init_containers():
    spec = {
        "initContainers": [
            container("before", requests={"cpu": "2"}),
            container("sidecar", requests={"cpu": "500m", "memory": "256Mi"}, restartPolicy="Always"),
            container("after", requests={"cpu": "1", "memory": "2Gi"}),
        ],
        "containers": [container(requests={"cpu": "1", "memory": "1Gi"})],
    }
    # regular + sidecar = 1500m / 1280Mi; init peak = max(2, 500m, 1500m) / max(256Mi, 2304Mi)
    assert text(pod_requests(spec)) == {"cpu": "2", "memory": "2304Mi"}


def test_a_sidecar_alone_adds_to_the_regular_sum():
    spec = {
        "initContainers": [container("sidecar", requests={"cpu": "250m"}, restartPolicy="Always")],
        "containers": [container(requests={"cpu": "1"})],
    }
    assert text(pod_requests(spec)) == {"cpu": "1250m"}


def test_pod_level_requests_replace_supported_resources_only():
    spec = {
        "resources": {"requests": {"cpu": "4", "hugepages-2Mi": "64Mi", "nvidia.com/gpu": "8"}},
        "containers": [container(requests={"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"})],
    }
    assert text(pod_requests(spec)) == {"cpu": "4", "memory": "1Gi", "nvidia.com/gpu": "1", "hugepages-2Mi": "64Mi"}


def test_pod_level_limits_change_nothing():
    spec = {"resources": {"limits": {"cpu": "8"}}, "containers": [container(requests={"cpu": "1"})]}
    assert text(pod_requests(spec)) == {"cpu": "1"}


def test_overhead_is_added_after_pod_level_requests():
    spec = {
        "resources": {"requests": {"cpu": "2"}},
        "overhead": {"cpu": "100m", "memory": "64Mi"},
        "containers": [container(requests={"memory": "1Gi"})],
    }
    assert text(pod_requests(spec)) == {"cpu": "2100m", "memory": "1088Mi"}


def unit(jobs: dict, counts: dict):
    """A stand-in Unit: replicated jobs in order, their pod counts and SinglePodRequests."""
    rjobs = [{"name": name} for name in jobs]
    requests = {name: pod_requests({"containers": [container(requests=reqs)]}) for name, reqs in jobs.items()}
    return SimpleNamespace(replicated_jobs=rjobs, counts=counts, pod_requests=requests)


def test_upstream_multiple_podsets():
    gang = unit(
        {"node": {"cpu": "500m", "memory": "1Gi"}, "dataset-initializer": {"cpu": "250m", "memory": "512Mi"}},
        {"node": 2, "dataset-initializer": 1},
    )
    assert minimums(gang) == (3, {"cpu": "1250m", "memory": "2560Mi"})


def test_every_job_counts_and_names_are_sorted():
    gang = unit(
        {"launcher": {"memory": "1Gi", "cpu": "300m"}, "worker": {"nvidia.com/gpu": "1", "cpu": "500m"}},
        {"launcher": 1, "worker": 4},
    )
    members, resources = minimums(gang)
    assert members == 5
    assert list(resources.items()) == [("cpu", "2300m"), ("memory", "1Gi"), ("nvidia.com/gpu", "4")]


def test_large_multiples_stay_exact():
    assert minimums(unit({"node": {"memory": "4Gi"}}, {"node": 102})) == (102, {"memory": "408Gi"})
    assert minimums(unit({"node": {"cpu": "100m"}}, {"node": 3})) == (3, {"cpu": "300m"})


@pytest.mark.parametrize(("first", "second", "total"), [("1024k", "1000Ki", "2048k"), ("1000Ki", "1024k", "2000Ki")])
def test_a_sum_prints_in_the_format_of_the_first_job(first, second, total):
    """Go's Quantity.Add keeps the receiver's format: 2048000 bytes print as 2048k or 2000Ki."""
    gang = unit({"a": {"memory": first}, "b": {"memory": second}}, {"a": 1, "b": 1})
    assert minimums(gang) == (2, {"memory": total})


def test_no_requests_give_empty_min_resources():
    assert minimums(unit({"node": {}}, {"node": 4})) == (4, {})
