"""Tests for trainc.k8s.strategic, the strategic merge patch behind TrainJob runtimePatches.

Expected values come from the apimachinery algorithm and from `kubectl patch --local --type
strategic`, which runs the same code; the oracle tests at the end re-check pod-template cases
against kubectl directly.
"""

import copy
import json
import os
import shutil
import subprocess

import pytest

from trainc.k8s.strategic import JOBSET_SPEC, OBJECT_META, POD_SPEC, MergeList, merge


def env(*specs):
    """env("A", "B=2") -> [{"name": "A"}, {"name": "B", "value": "2"}]."""
    out = []
    for spec in specs:
        name, _, value = spec.partition("=")
        out.append({"name": name, "value": value} if value else {"name": name})
    return out


def named(*names):
    return [{"name": n} for n in names]


def names(items, key="name"):
    return [item[key] for item in items]


def jobset(pod_spec=None, pod_meta=None, job_meta=None, name="node"):
    """A JobSet spec with one replicated job wrapping the given pod template parts."""
    pod_template = {}
    if pod_meta is not None:
        pod_template["metadata"] = pod_meta
    if pod_spec is not None:
        pod_template["spec"] = pod_spec
    template = {"spec": {"template": pod_template}}
    if job_meta is not None:
        template["metadata"] = job_meta
    return {"replicatedJobs": [{"name": name, "template": template}]}


def pod_spec_of(spec, index=0):
    return spec["replicatedJobs"][index]["template"]["spec"]["template"]["spec"]


def patch_pod(original_pod_spec, patch_pod_spec):
    """Merge through the full JobSet schema and return the resulting pod spec."""
    return pod_spec_of(merge(jobset(original_pod_spec), jobset(patch_pod_spec)))


def container(name="node", **fields):
    return {"name": name, **fields}


def patch_container(original_fields, patch_fields):
    """Merge two versions of container "node" through the JobSet schema; return the result."""
    result = patch_pod({"containers": [container(**original_fields)]}, {"containers": [container(**patch_fields)]})
    return result["containers"][0]


# --- list order (apimachinery mergeSlice + normalizeElementOrder) ---------------------------


@pytest.mark.parametrize(
    "original, patch, expected",
    [
        (env("A", "B"), env("C", "A=9"), ["C", "A", "B"]),
        (env("A", "B", "C", "D"), env("C=30", "E"), ["A", "B", "C", "E", "D"]),
        (env("A", "B", "C", "D"), env("E", "B=20"), ["E", "A", "B", "C", "D"]),
        (env("A", "B", "C"), env("C", "A"), ["B", "C", "A"]),
        (env("A", "B"), env("X", "Y"), ["X", "Y", "A", "B"]),
        (env("A", "B"), env("B", "X"), ["A", "B", "X"]),
        ([], env("B", "A"), ["B", "A"]),
        (env("A", "B"), [], ["A", "B"]),
    ],
)
def test_env_merge_order(original, patch, expected):
    assert names(patch_container({"env": original}, {"env": patch})["env"]) == expected


def test_env_values_merge_by_name():
    result = patch_container({"env": env("A=1", "B=2")}, {"env": env("C=3", "A=9")})
    assert result["env"] == env("C=3", "A=9", "B=2")


def test_volumes_new_entry_goes_first():
    result = patch_pod(
        {"volumes": [{"name": "scratch", "emptyDir": {}}]},
        {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]},
    )
    assert result["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "d"}},
        {"name": "scratch", "emptyDir": {}},
    ]


@pytest.mark.parametrize(
    "original, patch, expected",
    [
        (["a", "b", "c"], ["d", "b"], ["d", "a", "b", "c"]),
        (["a", "b"], ["b", "a"], ["b", "a"]),
        (["a", "a", "b"], ["c"], ["c", "a", "b"]),
        ([], ["x", "x"], ["x"]),
    ],
)
def test_primitive_merge_list_is_ordered_union(original, patch, expected):
    result = merge(jobset(pod_meta={"finalizers": original}), jobset(pod_meta={"finalizers": patch}))
    pod_meta = result["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]
    assert pod_meta == {"finalizers": expected}


# --- replicatedJobs ------------------------------------------------------------------------


def test_replicated_jobs_merge_by_name():
    original = jobset({"containers": [container(image="img")]}, job_meta={"labels": {"a": "1"}})
    patch = jobset(job_meta={"labels": {"b": "2"}})
    result = merge(original, patch, JOBSET_SPEC)
    job = result["replicatedJobs"][0]
    assert job["template"]["metadata"] == {"labels": {"a": "1", "b": "2"}}
    assert job["template"]["spec"]["template"]["spec"] == {"containers": [container(image="img")]}


@pytest.mark.parametrize(
    "runtime_jobs, patch_jobs, expected",
    [
        (["node"], ["x"], ["x", "node"]),
        (["launcher", "node"], ["node", "x"], ["launcher", "node", "x"]),
        (["launcher", "node"], ["x", "node"], ["x", "launcher", "node"]),
        (["launcher", "node"], ["launcher", "x"], ["launcher", "x", "node"]),
        (["a", "b", "c"], ["c", "x", "a"], ["b", "c", "x", "a"]),
    ],
)
def test_unknown_replicated_job_is_added_in_merge_order(runtime_jobs, patch_jobs, expected):
    original = {"replicatedJobs": [{"name": n, "replicas": 1} for n in runtime_jobs]}
    patch = {"replicatedJobs": named(*patch_jobs)}
    result = merge(original, patch)
    assert names(result["replicatedJobs"]) == expected
    assert {"name": "x"} in result["replicatedJobs"]


def test_unknown_replicated_job_is_taken_verbatim():
    new_job = jobset({"nodeSelector": {"k": "v"}}, name="x")["replicatedJobs"][0]
    result = merge(jobset({"containers": [container()]}), {"replicatedJobs": [new_job]})
    assert result["replicatedJobs"][0] == new_job


def test_other_jobset_fields_are_kept_and_untagged_lists_replaced():
    original = {
        "replicatedJobs": named("node"),
        "successPolicy": {"operator": "All", "targetReplicatedJobs": ["node"]},
        "network": {"enableDNSHostnames": True},
    }
    patch = {"successPolicy": {"targetReplicatedJobs": ["x"]}}
    result = merge(original, patch)
    assert result["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["x"]}
    assert result["network"] == {"enableDNSHostnames": True}


def test_depends_on_merges_by_name():
    def spec(*depends_on):
        return {"replicatedJobs": [{"name": "node", "dependsOn": list(depends_on)}]}

    ready, complete = {"name": "a", "status": "Ready"}, {"name": "a", "status": "Complete"}
    result = merge(spec(ready, {"name": "b"}), spec(complete))
    assert result["replicatedJobs"][0]["dependsOn"] == [complete, {"name": "b"}]


# --- pod spec fields -----------------------------------------------------------------------


def test_tolerations_are_replaced():
    original = {"tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b"}]}
    patch = {"tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    assert patch_pod(original, patch)["tolerations"] == patch["tolerations"]


def test_node_selector_merges_per_key_and_later_patch_wins():
    spec = jobset({"nodeSelector": {"zone": "a", "pool": "cpu"}})
    for value in ("gpu-1", "gpu-2"):
        spec = merge(spec, jobset({"nodeSelector": {"pool": value, "arch": "amd64"}}))
    assert pod_spec_of(spec)["nodeSelector"] == {"zone": "a", "pool": "gpu-2", "arch": "amd64"}


def node_term(key):
    return {"matchExpressions": [{"key": key, "operator": "Exists"}]}


def test_affinity_merges_recursively_and_replaces_node_selector_terms():
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    original = {
        "affinity": {
            "nodeAffinity": {required: {"nodeSelectorTerms": [node_term("a"), node_term("b")]}},
            "podAntiAffinity": {preferred: [{"weight": 1}]},
        }
    }
    patch = {
        "affinity": {
            "nodeAffinity": {
                required: {"nodeSelectorTerms": [node_term("c")]},
                preferred: [{"weight": 5, "preference": node_term("d")}],
            }
        }
    }
    assert patch_pod(original, patch)["affinity"] == {
        "nodeAffinity": {
            required: {"nodeSelectorTerms": [node_term("c")]},
            preferred: [{"weight": 5, "preference": node_term("d")}],
        },
        "podAntiAffinity": {preferred: [{"weight": 1}]},
    }


def test_pod_security_context_merges_and_its_lists_are_replaced():
    original = {"runAsUser": 1000, "fsGroup": 2000, "supplementalGroups": [1, 2]}
    patch = {"runAsUser": 0, "runAsNonRoot": False, "supplementalGroups": [3]}
    result = patch_pod({"securityContext": original}, {"securityContext": patch})
    assert result["securityContext"] == {
        "runAsUser": 0,
        "fsGroup": 2000,
        "runAsNonRoot": False,
        "supplementalGroups": [3],
    }


def test_container_security_context_merges_and_capabilities_lists_are_replaced():
    original = {"privileged": False, "capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}}
    patch = {"capabilities": {"add": ["SYS_PTRACE"]}, "runAsUser": 0}
    result = patch_container({"securityContext": original}, {"securityContext": patch})
    assert result["securityContext"] == {
        "privileged": False,
        "capabilities": {"add": ["SYS_PTRACE"], "drop": ["ALL"]},
        "runAsUser": 0,
    }


@pytest.mark.parametrize("field", ["volumes", "imagePullSecrets", "schedulingGates"])
def test_named_pod_lists_merge_by_name(field):
    original = {field: [{"name": "a", "x": 1}, {"name": "b", "x": 2}]}
    patch = {field: [{"name": "b", "y": 3}, {"name": "c"}]}
    assert patch_pod(original, patch)[field] == [
        {"name": "a", "x": 1},
        {"name": "b", "x": 2, "y": 3},
        {"name": "c"},
    ]


def test_volume_source_is_not_retained_without_directive():
    """ "merge,retainKeys" only clears other sources when the patch carries $retainKeys."""
    original = {"volumes": [{"name": "data", "emptyDir": {}}]}
    patch = {"volumes": [{"name": "data", "configMap": {"name": "cm"}}]}
    assert patch_pod(original, patch)["volumes"] == [{"name": "data", "emptyDir": {}, "configMap": {"name": "cm"}}]


def test_containers_merge_by_name_with_env_and_volume_mounts():
    original = {
        "containers": [
            container(
                image="img",
                args=["--a"],
                env=env("A=1"),
                volumeMounts=[
                    {"name": "data", "mountPath": "/data"},
                    {"name": "data", "mountPath": "/data2", "subPath": "x"},
                ],
            )
        ]
    }
    patch = {
        "containers": [
            container(
                env=env("A=2", "B=3"),
                volumeMounts=[
                    {"name": "other", "mountPath": "/data", "readOnly": True},
                    {"name": "cache", "mountPath": "/cache"},
                ],
            )
        ]
    }
    assert patch_pod(original, patch)["containers"] == [
        container(
            image="img",
            args=["--a"],
            env=env("A=2", "B=3"),
            volumeMounts=[
                {"name": "other", "mountPath": "/data", "readOnly": True},
                {"name": "cache", "mountPath": "/cache"},
                {"name": "data", "mountPath": "/data2", "subPath": "x"},
            ],
        )
    ]


@pytest.mark.parametrize("field", ["containers", "initContainers"])
def test_unknown_container_is_added_first(field):
    original = {field: [container("node", image="img")]}
    patch = {field: [container("sidecar", env=env("X=1"))]}
    assert names(patch_pod(original, patch)[field]) == ["sidecar", "node"]


@pytest.mark.parametrize(
    "original, patch, expected",
    [
        ([80], [(80, "http"), 443], [(80, "http"), 443]),
        ([80, 90], [1], [1, 80, 90]),
        ([80, 90], [(90, "b"), (80, "a")], [(90, "b"), (80, "a")]),
    ],
)
def test_ports_merge_by_container_port(original, patch, expected):
    def ports(specs):
        return [{"containerPort": s[0], "name": s[1]} if isinstance(s, tuple) else {"containerPort": s} for s in specs]

    result = patch_container({"ports": ports(original)}, {"ports": ports(patch)})
    assert result["ports"] == ports(expected)


@pytest.mark.parametrize("field", ["args", "command", "envFrom"])
def test_untagged_container_lists_are_replaced(field):
    old, new = [{"configMapRef": {"name": "a"}}], [{"secretRef": {"name": "b"}}]
    if field != "envFrom":
        old, new = ["a", "b"], ["c"]
    assert patch_container({field: old}, {field: new})[field] == new


def test_scalars_replace_and_new_fields_are_added():
    original = {"serviceAccountName": "a", "terminationGracePeriodSeconds": 30}
    patch = {"serviceAccountName": "b", "terminationGracePeriodSeconds": 0, "hostNetwork": True}
    assert patch_pod(original, patch) == patch


def test_object_metadata_maps_merge_per_key():
    original = jobset(
        pod_meta={"labels": {"a": "1"}, "annotations": {"x": "1"}},
        job_meta={"labels": {"j": "1"}},
    )
    patch = jobset(pod_meta={"labels": {"a": "2", "b": "3"}}, job_meta={"annotations": {"y": "2"}})
    template = merge(original, patch)["replicatedJobs"][0]["template"]
    assert template["metadata"] == {"labels": {"j": "1"}, "annotations": {"y": "2"}}
    pod_meta = template["spec"]["template"]["metadata"]
    assert pod_meta == {"labels": {"a": "2", "b": "3"}, "annotations": {"x": "1"}}


# --- nulls, fallbacks, invariants ----------------------------------------------------------


def test_null_deletes_keys():
    original = {"serviceAccountName": "sa", "nodeSelector": {"a": "1", "b": "2"}}
    patch = {"serviceAccountName": None, "nodeSelector": {"a": None}, "hostNetwork": None}
    assert patch_pod(original, patch) == {"nodeSelector": {"b": "2"}}


def test_null_members_dropped_from_new_values_but_kept_in_appended_and_replaced_lists():
    original = {"containers": [container()], "tolerations": [{"key": "a"}], "volumes": named("v")}
    patch = {
        "containers": [container(securityContext={"runAsUser": None, "privileged": True})],
        "tolerations": [{"key": "b", "value": None}],
        "volumes": [{"name": "w", "hostPath": {"path": "/x", "type": None}}],
        "affinity": {"nodeAffinity": None},
    }
    assert patch_pod(original, patch) == {
        "containers": [container(securityContext={"privileged": True})],
        "tolerations": [{"key": "b", "value": None}],
        "volumes": [{"name": "w", "hostPath": {"path": "/x", "type": None}}, {"name": "v"}],
        "affinity": {},
    }


def test_unlisted_fields_fall_back_to_untagged_go_semantics():
    original = {"extra": {"a": {"b": 1, "c": 2}}, "items": [1, 2], "mixed": {"k": 1}}
    patch = {"extra": {"a": {"b": 9}, "d": [1]}, "items": [3], "mixed": ["now a list"]}
    assert merge(original, patch, {}) == {
        "extra": {"a": {"b": 9, "c": 2}, "d": [1]},
        "items": [3],
        "mixed": ["now a list"],
    }


def test_patch_keys_merged_twice_collapse_into_one_entry():
    result = patch_container({"env": env("A")}, {"env": env("B=1", "B=2")})
    assert result["env"] == env("B=2", "A")


def test_empty_patch_list_keeps_merge_lists_and_clears_replaced_lists():
    original = {"volumes": named("v"), "tolerations": [{"key": "a"}]}
    result = patch_pod(original, {"volumes": [], "tolerations": []})
    assert result == {"volumes": named("v"), "tolerations": []}


def test_container_resource_claims_are_replaced_in_a_patch():
    base = {"requests": {"cpu": "1"}, "claims": [{"name": "a"}, {"name": "b", "request": "r"}]}
    override = {"limits": {"nvidia.com/gpu": 4}, "claims": [{"name": "b", "request": "s"}]}
    # core/v1 ResourceRequirements.claims is untagged, so inside a pod spec it is replaced.
    in_pod = patch_container({"resources": base}, {"resources": override})
    assert in_pod["resources"]["claims"] == override["claims"]


def test_inputs_are_not_mutated():
    original = jobset({"containers": [container(env=env("A=1"))], "nodeSelector": {"a": "1"}})
    patch = jobset({"containers": [container(env=env("A=2", "B"))], "nodeSelector": {"a": None}})
    before = copy.deepcopy((original, patch))
    result = merge(original, patch)
    assert (original, patch) == before
    pod_spec_of(result)["containers"][0]["env"][1]["value"] = "changed"
    assert (original, patch) == before


def test_null_documents_are_empty_objects():
    assert merge(None, {"a": 1}, {}) == {"a": 1}
    assert merge({"a": 1}, None, {}) == {"a": 1}


@pytest.mark.parametrize(
    "patch",
    [
        {"$patch": "replace"},
        {"replicatedJobs": [{"name": "node", "$patch": "delete"}]},
        jobset({"$retainKeys": ["containers"]}),
        jobset({"$setElementOrder/containers": named("node")}),
        jobset({"$deleteFromPrimitiveList/finalizers": ["x"]}),
        jobset(pod_meta={"labels": {"$patch": "replace"}}),
    ],
)
def test_directives_are_rejected(patch):
    with pytest.raises(ValueError, match="directive"):
        merge(jobset({"containers": [container()]}), patch)


@pytest.mark.parametrize(
    "original, patch",
    [
        ({"containers": [container()]}, {"containers": [{"image": "x"}]}),
        ({"containers": [{"image": "x"}]}, {"containers": [container()]}),
        ({"containers": [container()]}, {"containers": ["node"]}),
        ({"volumes": named("a")}, {"volumes": [None]}),
        ({"containers": [container(env=[["A"]])]}, {"containers": [container(env=[["B"]])]}),
    ],
)
def test_malformed_merge_lists_raise(original, patch):
    with pytest.raises(ValueError):
        patch_pod(original, patch)


def test_list_of_objects_without_merge_key_raises():
    with pytest.raises(ValueError):
        merge({"l": [{"a": 1}]}, {"l": [{"a": 2}]}, {"l": MergeList()})


def test_non_object_documents_raise():
    with pytest.raises(ValueError):
        merge([], {})


def test_object_meta_schema_keys_owner_references_by_uid():
    original = {"metadata": {"ownerReferences": [{"uid": "1", "name": "a"}]}}
    patch = {"metadata": {"ownerReferences": [{"uid": "1", "name": "b"}, {"uid": "2"}]}}
    assert merge(original, patch, {"metadata": OBJECT_META})["metadata"]["ownerReferences"] == [
        {"uid": "1", "name": "b"},
        {"uid": "2"},
    ]


def test_pod_spec_schema_matches_jobset_path():
    original = {"containers": [container(env=env("A", "B"))], "volumes": named("scratch")}
    patch = {"containers": [container(env=env("C", "A=9"))], "volumes": named("data")}
    assert merge(original, patch, POD_SPEC) == patch_pod(original, patch)


# --- kubectl oracle -----------------------------------------------------------------------

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def env_case(original, patch):
    return {"containers": [container(env=original)]}, {"containers": [container(env=patch)]}


def mounts(*specs):
    """mounts("v:/a", ...) -> volumeMounts entries."""
    return [dict(zip(("name", "mountPath"), spec.split(":"))) for spec in specs]


ORACLE_CASES = [
    pytest.param(*env_case(env("A=1", "B=2"), env("C=3", "A=9")), id="env-order-1"),
    pytest.param(*env_case(env("A", "B", "C", "D"), env("C=30", "E")), id="env-order-2"),
    pytest.param(*env_case(env("A", "B", "C", "D"), env("E", "B=20")), id="env-order-3"),
    pytest.param(*env_case(env("A", "B", "C"), env("C", "A")), id="env-reorder"),
    pytest.param(*env_case(env("A=1", "A=2", "B"), env("X", "A=3")), id="env-dup-original"),
    pytest.param(*env_case(env("A"), env("B=1", "B=2")), id="env-dup-patch"),
    pytest.param(
        {
            "containers": [container("a", image="i"), container("b", image="j", args=["x"])],
            "initContainers": [container("init", image="k")],
        },
        {
            "containers": [
                container("c", env=env("X=1")),
                container("a", securityContext={"runAsUser": 0}),
            ],
            "initContainers": [container("pre"), container("init", env=env("Y=2"))],
        },
        id="containers",
    ),
    pytest.param(
        {
            "volumes": [{"name": "scratch", "emptyDir": {}}, {"name": "data", "emptyDir": {}}],
            "containers": [container(volumeMounts=mounts("scratch:/s", "data:/d"))],
        },
        {
            "volumes": [
                {"name": "cfg", "configMap": {"name": "c"}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "p"}},
            ],
            "containers": [container(volumeMounts=mounts("cfg:/d", "cfg:/c"))],
        },
        id="volumes-and-mounts",
    ),
    pytest.param(
        {
            "nodeSelector": {"a": "1", "b": "2"},
            "tolerations": [{"key": "x", "operator": "Exists"}],
            "imagePullSecrets": named("r1"),
            "schedulingGates": named("g1", "g2"),
            "serviceAccountName": "sa",
            "affinity": {
                "nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [node_term("k")]}},
                "podAffinity": {PREFERRED: [{"weight": 1}]},
            },
        },
        {
            "nodeSelector": {"a": None, "c": "3"},
            "tolerations": [{"key": "y", "value": None, "operator": "Equal"}],
            "imagePullSecrets": named("r2", "r1"),
            "schedulingGates": named("g3"),
            "serviceAccountName": None,
            "terminationGracePeriodSeconds": 5,
            "affinity": {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": [node_term("j")]}}},
        },
        id="scheduling",
    ),
    pytest.param(
        {
            "securityContext": {"runAsUser": 1, "supplementalGroups": [1, 2]},
            "containers": [container(securityContext={"capabilities": {"add": ["A"]}, "privileged": True})],
        },
        {
            "securityContext": {"runAsGroup": 2, "supplementalGroups": [3], "runAsUser": None},
            "containers": [
                container(
                    securityContext={"capabilities": {"add": ["B"]}, "privileged": None},
                    env=[{"name": "X", "value": None}],
                    volumeMounts=[{"name": "v", "mountPath": "/v", "subPath": None}],
                )
            ],
            "volumes": [{"name": "v", "hostPath": {"path": "/h", "type": None}}],
        },
        id="security-contexts-and-nulls",
    ),
]


def kubectl_patch(pod_template, patch_template, tmp_path):
    """`kubectl patch --local --type strategic` on a batch/v1 Job wrapping the pod template."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        if os.environ.get("CI") == "true":
            pytest.fail("kubectl is required for the strategic-merge oracle tests when CI=true")
        pytest.skip("kubectl not installed: oracle comparison needs `kubectl patch --local`")
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "oracle"},
        "spec": {"template": pod_template},
    }
    path = tmp_path / "job.json"
    path.write_text(json.dumps(job))
    patch = json.dumps({"spec": {"template": patch_template}})
    out = subprocess.run(
        [kubectl, "patch", "--local", "--type", "strategic", "-o", "json", "-p", patch, "-f", str(path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json.loads(out.stdout)["spec"]["template"]


@pytest.mark.parametrize("pod_spec, patch_spec", ORACLE_CASES)
def test_matches_kubectl(pod_spec, patch_spec, tmp_path):
    pod_meta = {"labels": {"a": "1"}, "finalizers": ["f1", "f2"]}
    patch_meta = {"labels": {"b": "2"}, "finalizers": ["f3", "f1"]}
    pod_template = {"metadata": pod_meta, "spec": pod_spec}
    expected = kubectl_patch(pod_template, {"metadata": patch_meta, "spec": patch_spec}, tmp_path)
    ours = merge(jobset(pod_spec, pod_meta=pod_meta), jobset(patch_spec, pod_meta=patch_meta))
    assert ours["replicatedJobs"][0]["template"]["spec"]["template"] == expected


def test_an_original_item_without_its_merge_key_is_refused_as_kubectl_refuses_it(tmp_path):
    """The schema allows `imagePullSecrets: [{}]`; merging a patch into it fails upstream and in kubectl."""
    pod_spec = {"imagePullSecrets": [{}], "containers": [{"name": "c", "image": "i"}]}
    patch_spec = {"imagePullSecrets": [{"name": "reg"}]}
    with pytest.raises(subprocess.CalledProcessError) as refused:
        kubectl_patch({"spec": pod_spec}, {"spec": patch_spec}, tmp_path)
    assert "does not contain declared merge key: name" in refused.value.stderr
    with pytest.raises(ValueError, match="lacks merge key 'name'"):
        merge(jobset(pod_spec), jobset(patch_spec))
