"""List-map upserts and resource helpers, ported from upstream pkg/apply/apply_test.go,
pkg/util/trainingruntime/trainingruntime_test.go and the Torch CPU/GPU detection tests."""

import pytest

from trainc.k8s import podspec


def _env(name, value):
    return {"name": name, "value": value}


@pytest.mark.parametrize(
    ("existing", "upsert", "expected"),
    [
        ([], [_env("TEST", "value")], [_env("TEST", "value")]),
        ([_env("TEST", "old")], [_env("TEST", "new")], [_env("TEST", "new")]),
        (
            [_env("EXISTING", "value")],
            [_env("NEW1", "value1"), _env("NEW2", "value2")],
            [_env("EXISTING", "value"), _env("NEW1", "value1"), _env("NEW2", "value2")],
        ),
        (
            [_env("A", "1"), _env("B", "2"), _env("C", "3")],
            [_env("D", "4"), _env("B", "20")],
            [_env("A", "1"), _env("B", "20"), _env("C", "3"), _env("D", "4")],
        ),
    ],
    ids=["insert new", "update existing", "insert multiple", "update keeps position"],
)
def test_add_env(existing, upsert, expected):
    container = {"env": list(existing)}
    podspec.add_env(container, *upsert)
    assert container["env"] == expected


def test_add_env_replaces_the_whole_entry():
    container = {"env": [{"name": "X", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}
    podspec.add_env(container, _env("X", "plain"))
    assert container["env"] == [_env("X", "plain")]


def test_keyed_upserts_give_what_comparing_each_element_with_the_list_gives():
    """By key, indexed once (`_upsert_keyed`: env and volumes by name, mounts by path): the same list, element for
    element, as comparing each new element with every one before it, repeated keys in the list and the upsert
    included."""
    import random

    pick = random.Random(2170)
    for _ in range(300):
        existing = [{"name": pick.choice("ABCD"), "value": str(index)} for index in range(pick.randrange(5))]
        upsert = [{"name": pick.choice("ABCDE"), "value": f"new{index}"} for index in range(pick.randrange(5))]
        compared = {"env": [dict(item) for item in existing]} if existing else {}
        podspec._upsert(compared, "env", upsert, lambda a, b: a.get("name") == b.get("name"))
        container = {"env": [dict(item) for item in existing]} if existing else {}
        podspec.add_env(container, *upsert)
        assert container == compared
        mounts = [{"mountPath": item["name"], "name": item["value"]} for item in existing]
        compared = {"volumeMounts": [dict(item) for item in mounts]} if mounts else {}
        added = [{"mountPath": item["name"], "name": item["value"]} for item in upsert]
        podspec._upsert(compared, "volumeMounts", added, lambda a, b: a.get("mountPath") == b.get("mountPath"))
        container = {"volumeMounts": [dict(item) for item in mounts]} if mounts else {}
        podspec.add_mounts(container, *added)
        assert container == compared


def test_nothing_to_add_creates_no_list():
    container = {"name": "node"}
    podspec.add_env(container)
    podspec.add_ports(container)
    assert container == {"name": "node"}


@pytest.mark.parametrize(
    ("existing", "upsert", "expected"),
    [
        (
            [{"containerPort": 8080}],
            [{"containerPort": 8080, "protocol": "TCP"}],
            [{"containerPort": 8080, "protocol": "TCP"}],
        ),
        ([{"name": "http"}], [{"name": "http", "containerPort": 8080}], [{"name": "http", "containerPort": 8080}]),
        # Upstream at 8c0f505 replaced the 8080 here (two unnamed ports compared equal); PR #3926 keeps it.
        ([{"containerPort": 8080}], [{"containerPort": 9090}], [{"containerPort": 8080}, {"containerPort": 9090}]),
        (
            [{"name": "http", "containerPort": 8080}],
            [{"name": "metrics", "containerPort": 9090}],
            [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
        ),
        (
            [{"containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
            [{"containerPort": 29500}],
            [{"containerPort": 8080}, {"name": "metrics", "containerPort": 9090}, {"containerPort": 29500}],
        ),
        # The list-map key is (containerPort, protocol), an unset protocol meaning TCP.
        ([{"containerPort": 29500, "protocol": "TCP"}], [{"containerPort": 29500}], [{"containerPort": 29500}]),
        (
            [{"containerPort": 29500, "protocol": "UDP"}],
            [{"containerPort": 29500}],
            [{"containerPort": 29500, "protocol": "UDP"}, {"containerPort": 29500}],
        ),
        (
            [{"name": "rdzv", "containerPort": 29400}],
            [{"name": "rdzv", "containerPort": 29500}],
            [{"name": "rdzv", "containerPort": 29500}],
        ),
    ],
    ids=[
        "match by port number",
        "match by name",
        "unnamed ports with different numbers are kept",
        "different names",
        "trainer port appended after unnamed and named ports",
        "unset protocol is TCP",
        "other protocol is another port",
        "same name, other number",
    ],
)
def test_add_ports(existing, upsert, expected):
    container = {"ports": list(existing)}
    podspec.add_ports(container, *upsert)
    assert container["ports"] == expected


EMPTY_DIR = {"emptyDir": {}}


@pytest.mark.parametrize(
    ("existing", "upsert", "expected"),
    [
        ([{"name": "data"}], [{"name": "data", **EMPTY_DIR}], [{"name": "data", **EMPTY_DIR}]),
        ([{"name": "existing"}], [{"name": "new", **EMPTY_DIR}], [{"name": "existing"}, {"name": "new", **EMPTY_DIR}]),
        (
            [{"name": "vol1"}, {"name": "vol2"}],
            [{"name": "vol1", **EMPTY_DIR}, {"name": "vol3", **EMPTY_DIR}],
            [{"name": "vol1", **EMPTY_DIR}, {"name": "vol2"}, {"name": "vol3", **EMPTY_DIR}],
        ),
    ],
    ids=["update existing", "insert new", "update multiple"],
)
def test_add_volumes(existing, upsert, expected):
    pod_spec = {"volumes": list(existing)}
    podspec.add_volumes(pod_spec, *upsert)
    assert pod_spec["volumes"] == expected


@pytest.mark.parametrize(
    ("existing", "upsert", "expected"),
    [
        (
            [{"name": "data", "mountPath": "/old-data"}],
            [{"name": "data", "mountPath": "/old-data", "readOnly": True}],
            [{"name": "data", "mountPath": "/old-data", "readOnly": True}],
        ),
        (
            [{"name": "existing", "mountPath": "/existing"}],
            [{"name": "new", "mountPath": "/new"}],
            [{"name": "existing", "mountPath": "/existing"}, {"name": "new", "mountPath": "/new"}],
        ),
        (
            [{"name": "vol1", "mountPath": "/data"}, {"name": "vol2", "mountPath": "/config"}],
            [{"name": "vol3", "mountPath": "/data", "readOnly": True}],
            [{"name": "vol3", "mountPath": "/data", "readOnly": True}, {"name": "vol2", "mountPath": "/config"}],
        ),
    ],
    ids=["update existing", "insert new", "update based on mount path"],
)
def test_add_mounts(existing, upsert, expected):
    container = {"volumeMounts": list(existing)}
    podspec.add_mounts(container, *upsert)
    assert container["volumeMounts"] == expected


@pytest.mark.parametrize(
    ("variable", "expected"),
    [
        ({"name": "SIMPLE", "value": "value"}, {"name": "SIMPLE", "value": "value"}),
        ({"name": "EMPTY"}, {"name": "EMPTY", "value": ""}),
        (
            {
                "name": "FROM_CONFIG",
                "valueFrom": {"configMapKeyRef": {"name": "config", "key": "key", "optional": True}},
            },
            {
                "name": "FROM_CONFIG",
                "valueFrom": {"configMapKeyRef": {"key": "key", "name": "config", "optional": True}},
            },
        ),
        (
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        ),
        (
            {
                "name": "CPU_REQUEST",
                "valueFrom": {
                    "resourceFieldRef": {"containerName": "container", "resource": "requests.cpu", "divisor": "1m"}
                },
            },
            {
                "name": "CPU_REQUEST",
                "valueFrom": {
                    "resourceFieldRef": {"containerName": "container", "resource": "requests.cpu", "divisor": "1m"}
                },
            },
        ),
        (
            {"name": "CPU_LIMIT", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}},
            {
                "name": "CPU_LIMIT",
                "valueFrom": {"resourceFieldRef": {"containerName": "", "resource": "limits.cpu", "divisor": "0"}},
            },
        ),
        (
            {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "secret", "key": "key"}}},
            {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"key": "key", "name": "secret"}}},
        ),
    ],
    ids=[
        "simple value",
        "no value",
        "configmap ref",
        "field ref",
        "resource field ref",
        "resource field ref defaults",
        "secret ref",
    ],
)
def test_api_env(variable, expected):
    assert podspec.api_env(variable) == expected


@pytest.mark.parametrize(
    ("base", "override", "expected"),
    [
        (
            {"limits": {"cpu": "8", "memory": "32Gi"}},
            {"limits": {"nvidia.com/gpu": "4"}},
            {"limits": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"}},
        ),
        ({"limits": {"cpu": "8"}}, {"limits": {"cpu": "4"}}, {"limits": {"cpu": "4"}}),
        (
            {"limits": {"cpu": "5", "memory": "32Gi"}},
            {"limits": {"nvidia.com/gpu": "2", "memory": "1Gi"}},
            {"limits": {"cpu": "5", "memory": "1Gi", "nvidia.com/gpu": "2"}},
        ),
        ({"requests": {"cpu": "1"}}, {}, {"requests": {"cpu": "1"}}),
        (
            {"requests": {"cpu": "8", "memory": "32Gi"}},
            {"requests": {"cpu": "4"}},
            {"requests": {"cpu": "4", "memory": "32Gi"}},
        ),
        (
            {"requests": {"cpu": "1"}},
            {"limits": {"nvidia.com/gpu": "4"}},
            {"requests": {"cpu": "1"}, "limits": {"nvidia.com/gpu": "4"}},
        ),
        (None, {"requests": {"cpu": "2"}}, {"requests": {"cpu": "2"}}),
        # trainingruntime.go copies only limits and requests of the merged result into the JobSet.
        (
            {"requests": {"cpu": "1"}, "claims": [{"name": "gpu"}]},
            {"claims": [{"name": "gpu", "request": "large"}]},
            {"requests": {"cpu": "1"}},
        ),
        # ...and reads only the runtime's limits and requests: its claims go too.
        (
            {"limits": {"cpu": "8"}, "claims": [{"name": "gpu"}, {"name": "nic"}]},
            {"limits": {"cpu": "4"}},
            {"limits": {"cpu": "4"}},
        ),
    ],
    ids=[
        "gpu only overlays runtime cpu and memory",
        "trainjob cpu overrides runtime cpu",
        "partial override keeps other runtime keys",
        "empty override returns base",
        "trainjob requests override runtime requests",
        "runtime requests kept beside trainjob limits",
        "no runtime resources",
        "claims are not propagated",
        "runtime claims are not propagated",
    ],
)
def test_merge_resources(base, override, expected):
    assert podspec.merge_resources(base, override) == expected


@pytest.mark.parametrize(
    ("resources", "cpus"),
    [
        ({"requests": {"cpu": "4"}}, 4),
        ({"requests": {"cpu": "2"}}, 2),
        ({"requests": {"cpu": "3"}}, 3),
        ({"requests": {"cpu": "2.5"}}, 3),
        ({"requests": {"cpu": "2500m"}}, 3),
        ({"requests": {"cpu": "0.7"}}, 1),
        ({"requests": {"cpu": "3.7"}}, 4),
        ({"limits": {"cpu": "6"}}, 6),
        ({"requests": {"cpu": "0"}, "limits": {"cpu": "1500m"}}, 2),
        ({"requests": {"cpu": "2"}, "limits": {"cpu": "8"}}, 2),
        ({"requests": {"memory": "16Gi"}}, 0),
        (None, 0),
    ],
)
def test_cpu_count(resources, cpus):
    assert podspec.cpu_count(resources) == cpus


@pytest.mark.parametrize(
    ("resources", "gpus"),
    [
        ({"requests": {"nvidia.com/gpu": "2"}}, 2),
        ({"limits": {"nvidia.com/gpu": "4"}}, 4),
        ({"requests": {"example.com/GPU": "1"}, "limits": {"example.com/GPU": "8"}}, 1),
        ({"requests": {"nvidia.com/gpu": "0"}, "limits": {"nvidia.com/gpu": "2"}}, 2),
        ({"requests": {"cpu": "8", "memory": "16Gi"}}, 0),
        (None, 0),
    ],
)
def test_gpu_count(resources, gpus):
    assert podspec.gpu_count(resources) == gpus
