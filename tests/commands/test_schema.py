"""`trainc schema`: the JSON Schemas are current, valid draft 2020-12, strict, and take every golden input."""

from __future__ import annotations

import importlib.util
import json

import pytest
import yaml
from conftest import GOLDEN, ROOT, SHARED, need
from jsonschema import Draft202012Validator
from helpers import run

from trainc.commands import schema as schema_export
from trainc.formats import source

CATALOG = ROOT / "schemas" / "trainer.kubeflow.org"
CRDS = SHARED / "oracle" / "crds"
JOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "demo", "namespace": "team-a"},
    "spec": {
        "runtimeRef": {"name": "torch-distributed"},
        "trainer": {"numNodes": 2, "resourcesPerNode": {"requests": {"cpu": "4", "memory": 0.5}}},
    },
}


def validator(kind="TrainJob", version="v1alpha1") -> Draft202012Validator:
    return Draft202012Validator(json.loads((CATALOG / f"{kind.lower()}_{version}.json").read_text()))


def messages(document, kind="TrainJob") -> list[tuple]:
    return sorted((list(e.absolute_path), e.message) for e in validator(kind).iter_errors(document))


def test_the_checked_in_catalog_is_current():
    expected = schema_export.catalog()
    assert sorted(p.name for p in CATALOG.iterdir()) == sorted(path.split("/")[1] for path in expected)
    for path, text in expected.items():
        stale = f"{path} is stale: run python tools/schemas/generate.py --catalog"
        assert (ROOT / "schemas" / path).read_text() == text, stale


def test_descriptions_are_those_of_the_crds():
    need(CRDS.is_dir(), f"the upstream CRDs ({CRDS}) are not beside this checkout")
    spec = importlib.util.spec_from_file_location("generate", ROOT / "tools" / "schemas" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    for name, file in generate.DESCRIBED.items():
        checked_in = json.loads((ROOT / "schemas" / f"{name}.descriptions.json").read_text())
        assert checked_in == generate._descriptions(generate._v1alpha1(str(CRDS), file)), name


def test_the_command_prints_the_catalog_copy(tmp_path):
    result = run("schema", "clustertrainingruntime", "--version", "v2alpha1", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout == (CATALOG / "clustertrainingruntime_v2alpha1.json").read_text()
    assert run("schema", "OptimizationJob", cwd=tmp_path).returncode == 2


@pytest.mark.parametrize("path", sorted(CATALOG.glob("*.json")), ids=lambda p: p.name)
def test_each_is_a_draft_2020_12_schema_with_descriptions(path):
    document = json.loads(path.read_text())
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    spec = document["properties"]["spec"]
    assert spec["description"] and spec["additionalProperties"] is False
    assert document["properties"]["metadata"]["additionalProperties"] is False


def test_a_valid_trainjob_passes():
    assert messages(JOB) == []


def test_misspelled_field_wrong_type_and_missing_runtime_ref():
    job = json.loads(json.dumps(JOB))
    job["spec"]["trainer"]["numNode"] = 2
    job["spec"]["suspend"] = "yes"
    job["metadata"]["labelz"] = {}
    del job["spec"]["runtimeRef"]
    assert messages(job) == [
        (["metadata"], "Additional properties are not allowed ('labelz' was unexpected)"),
        (["spec"], "'runtimeRef' is a required property"),
        (["spec", "suspend"], "'yes' is not of type 'boolean'"),
        (["spec", "trainer"], "Additional properties are not allowed ('numNode' was unexpected)"),
    ]


def test_enums_ranges_patterns_and_quantities():
    job = json.loads(json.dumps(JOB))
    job["spec"]["trainer"]["numNodes"] = 2**31
    job["spec"]["trainer"]["resourcesPerNode"]["requests"]["cpu"] = "four"
    assert [path for path, _ in messages(job)] == [
        ["spec", "trainer", "numNodes"],
        ["spec", "trainer", "resourcesPerNode", "requests", "cpu"],
    ]
    runtime = yaml.safe_load((ROOT / "golden" / "mpi-intel" / "runtime.yaml").read_text())
    assert runtime["apiVersion"].endswith("/v2alpha1")
    assert runtime["spec"]["mlPolicy"]["mpi"]["mpiImplementation"] == "Intel"
    assert list(validator("TrainingRuntime", "v2alpha1").iter_errors(runtime)) == []
    runtime["apiVersion"] = "trainer.kubeflow.org/v1alpha1"  # Intel MPI and this spelling are the KEP's only
    assert sorted(e.message for e in validator("TrainingRuntime").iter_errors(runtime)) == [
        "'Intel' is not one of ['OpenMPI', '']",
        "Additional properties are not allowed ('SSHAuthMountPath' was unexpected)",
    ]


def golden_documents():
    for path in sorted(GOLDEN.glob("*/*")):
        if path.suffix not in (".yaml", ".json") or path.name == "expected.out.yaml":
            continue
        for origin, document in source.load_text(path.read_text(), str(path)):
            for _, item in source.items(origin, document):
                if (
                    isinstance(item, dict)
                    and str(item.get("apiVersion", "")).startswith("trainer.kubeflow.org/")
                    and item.get("kind") in schema_export.KINDS
                ):
                    yield path, item


def test_every_golden_input_validates():
    checked = 0
    for path, document in golden_documents():
        version = document["apiVersion"].partition("/")[2]
        found = [e.message for e in validator(document["kind"], version).iter_errors(document)]
        assert found == [], (str(path.relative_to(GOLDEN)), found)
        checked += 1
    assert checked > 150


def test_yaml_language_server_modeline_resolves(tmp_path):
    """The docs' modeline points at the catalog copy by a path an editor resolves from the file."""
    readme = (ROOT / "docs" / "commands" / "schema.md").read_text()
    assert "# yaml-language-server: $schema=" in readme and "yaml.schemas" in readme
    for line in readme.splitlines():
        if "schemas/trainer.kubeflow.org/" in line and ".json" in line:
            name = line.split("schemas/trainer.kubeflow.org/")[1].split(".json")[0] + ".json"
            assert (CATALOG / name).is_file(), line
    assert yaml.safe_load("a: 1")  # the modeline is a comment: YAML readers ignore it
