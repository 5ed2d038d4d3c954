"""The CRD-schema walk: defaults, pruning, type and range errors, CEL rules, quantities."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainc.k8s import cel
from trainc.k8s import openapi as schema
from trainc.shipped import data_dir
from trainc.trainer import api


def _rules(node, found):
    if isinstance(node, dict):
        found.update(rule["rule"] for rule in node.get("x-kubernetes-validations", ()))
        for value in node.values():
            _rules(value, found)
    elif isinstance(node, list):
        for value in node:
            _rules(value, found)
    return found


@pytest.mark.parametrize("name", sorted(p.stem for p in Path(data_dir("schemas")).glob("*.json")))
def test_every_cel_rule_compiles_in_the_engine(name):
    from trainc.k8s import celengine

    for text in _rules(schema.load(name), set()):
        names = ("self", "oldSelf") if cel.is_transition({"rule": text}) else ("self",)
        celengine.compile(text, names)  # raises CompileError


def runtime(spec):
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "r"},
        "spec": spec,
    }


def check(document, name="trainingruntime.v1alpha1"):
    return schema.validate(document, api.document_schema(name))


def test_applies_crd_defaults():
    doc, errors = check(
        runtime(
            {
                "mlPolicy": {"mpi": {}},
                "podGroupPolicy": {"coscheduling": {}},
                "template": {
                    "spec": {
                        "replicatedJobs": [
                            {
                                "name": "node",
                                "template": {
                                    "spec": {
                                        "template": {
                                            "spec": {"containers": [{"name": "node", "ports": [{"containerPort": 22}]}]}
                                        }
                                    }
                                },
                            }
                        ]
                    }
                },
            }
        )
    )
    assert errors == []
    assert doc["spec"]["mlPolicy"]["mpi"] == {
        "mpiImplementation": "OpenMPI",
        "numProcPerNode": 1,
        "runLauncherAsNode": False,
        "sshAuthMountPath": "/root/.ssh",
    }
    assert doc["spec"]["podGroupPolicy"]["coscheduling"] == {"scheduleTimeoutSeconds": 60}
    job = doc["spec"]["template"]["spec"]["replicatedJobs"][0]
    assert (job["replicas"], job["groupName"]) == (1, "default")
    assert job["template"]["spec"]["template"]["spec"]["containers"][0]["ports"] == [
        {"containerPort": 22, "protocol": "TCP"}
    ]


def test_prunes_nulls_and_canonicalizes_quantities():
    doc, errors = check(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "metadata": {"name": "j"},
            "spec": {
                "runtimeRef": {"name": "r"},
                "trainer": {
                    "image": None,
                    "resourcesPerNode": {"requests": {"cpu": 0.5, "memory": "1024Mi", "gpu": 2}},
                },
            },
        },
        "trainjob.v1alpha1",
    )
    assert errors == []
    assert "image" not in doc["spec"]["trainer"]
    assert doc["spec"]["trainer"]["resourcesPerNode"]["requests"] == {"cpu": "500m", "memory": "1Gi", "gpu": "2"}
    assert doc["spec"]["runtimeRef"] == {
        "name": "r",
        "apiGroup": "trainer.kubeflow.org",
        "kind": "ClusterTrainingRuntime",
    }


POD = {"spec": {"containers": [{"name": "c"}]}}


@pytest.mark.parametrize(
    "spec, expected",
    [
        (
            {"mlPolicy": {"torch": {}, "mpi": {}}, "template": {"spec": {}}},
            [(("spec", "mlPolicy"), "Only one of the policy can be configured")],
        ),
        (
            {"mlPolicy": {"mpi": {"numProcPerNode": 0}}, "template": {"spec": {}}},
            [(("spec", "mlPolicy", "mpi", "numProcPerNode"), "NumProcPerNode in mpiPolicy must be >= 1")],
        ),
        (
            {"mlPolicy": {"mpi": {"mpiImplementation": "Intel"}}, "template": {"spec": {}}},
            [
                (
                    ("spec", "mlPolicy", "mpi", "mpiImplementation"),
                    'unsupported value "Intel": must be one of "OpenMPI", ""',
                )
            ],
        ),
        (
            {"mlPolicy": {"numNodes": 2**31}, "template": {"spec": {}}},
            [(("spec", "mlPolicy", "numNodes"), "2147483648 is out of range for int32")],
        ),
        (
            {"template": {"spec": {"replicatedJobs": [{"name": "a", "template": {"spec": {"template": POD}}}] * 2}}},
            [(("spec", "template", "spec", "replicatedJobs", 1), "duplicate entry (name='a')")],
        ),
        (
            {"template": {"spec": {"replicatedJobs": [{"template": {"spec": {"template": POD}}}]}}},
            [(("spec", "template", "spec", "replicatedJobs", 0, "name"), "required field is missing")],
        ),
        (
            {"mlPolicy": {"jax": {"x": 1}}, "template": {"spec": {}}},
            [(("spec", "mlPolicy", "jax", "x"), "unknown field")],
        ),
    ],
)
def test_rejects(spec, expected):
    _, errors = check(runtime(spec))
    assert [(path, message) for path, message, _ in errors] == expected


def test_kep_version_allows_intel_and_mpich():
    for implementation in ("Intel", "MPICH"):
        _, errors = check(
            runtime({"mlPolicy": {"mpi": {"mpiImplementation": implementation}}, "template": {"spec": {}}}),
            "trainingruntime.v2alpha1",
        )
        assert errors == []


def test_schemas_are_compact_json():
    for path in Path(data_dir("schemas")).glob("*.v*alpha1.json"):  # what builds load (descriptions are kept apart)
        assert "description" not in json.loads(path.read_text()).get("properties", {}).get("spec", {})
