"""`trainc fn`: the KRM function protocol (ResourceList in, ResourceList out) and the generator convention."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT
from helpers import run

from trainc.commands import fn as krm
from trainc.engine import Options

CONFIGMAP = """\
- # the app's settings
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings # kept
    annotations:
      config.kubernetes.io/path: 'jobs/settings.yaml'
      config.kubernetes.io/index: '0'
  data:
    on: yes
    mode: 0644
    version: 1.0
    "quoted": 'single'
"""
# as it comes back: in the package's namespace (one namespace rule, as build places it), the rest as written
PLACED = CONFIGMAP.replace("  metadata:\n", "  metadata:\n    namespace: team-x\n")

RESOURCE_LIST = (
    """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg}
  data: {namespace: team-x}
items:
"""
    + CONFIGMAP
    + """\
- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata:
    name: demo
    annotations:
      config.kubernetes.io/path: 'jobs/demo.yaml'
      config.kubernetes.io/index: '0'
  spec:
    runtimeRef: {name: torch-distributed}
    trainer: {numNodes: NODES}
"""
)


def _run(text: str):
    output, notices, errors = krm.run(text)
    return output, yaml.safe_load(output), notices, errors


def test_trainjobs_stay_as_local_config_and_rendered_objects_are_added_beside_them():
    text, output, notices, errors = _run(RESOURCE_LIST.replace("NODES", "2"))
    assert errors == [] and notices == []
    assert [(i["kind"], i["metadata"].get("namespace")) for i in output["items"]] == [
        ("ConfigMap", "team-x"),
        ("TrainJob", None),
        ("JobSet", "team-x"),
    ]
    assert output["items"][1]["metadata"]["annotations"]["config.kubernetes.io/local-config"] == "true"
    assert output["items"][2]["metadata"]["annotations"] == {
        "config.kubernetes.io/path": "jobs/rendered/team-x/demo.yaml",
        "config.kubernetes.io/index": "0",
        "internal.config.kubernetes.io/path": "jobs/rendered/team-x/demo.yaml",
        "internal.config.kubernetes.io/index": "0",
        "trainc.kubeflow.org/rendered-from": "team-x/demo",
    }
    assert output["items"][2]["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2
    assert "functionConfig" not in output


def test_items_not_compiled_come_back_as_their_own_text():
    text, *_ = _run(RESOURCE_LIST.replace("NODES", "2"))
    assert "\nitems:\n" + PLACED in text


def test_a_second_run_on_the_output_changes_nothing():
    first, *_ = _run(RESOURCE_LIST.replace("NODES", "2"))
    second, *_ = _run(first + "functionConfig: {apiVersion: v1, kind: ConfigMap, data: {namespace: team-x}}\n")
    assert second == first


def test_rendered_objects_of_a_deleted_trainjob_are_dropped():
    first, *_ = _run(RESOURCE_LIST.replace("NODES", "2"))
    header, *entries = first.split("\n- ")
    without_trainjob = "\n- ".join([header, *(entry for entry in entries if "kind: TrainJob" not in entry)])
    assert "kind: JobSet" in without_trainjob
    output, data, _, errors = _run(without_trainjob)
    assert errors == [] and [i["kind"] for i in data["items"]] == ["ConfigMap"]
    assert output == krm.HEADER + "items:\n" + PLACED


@pytest.mark.parametrize(
    ("metadata", "annotated"),
    [
        (
            "  metadata:\n    name: demo\n",
            '  metadata:\n    annotations: {config.kubernetes.io/local-config: "true"}\n    name: demo\n',
        ),
        (
            "  metadata: {name: demo}\n",
            '  metadata: {annotations: {config.kubernetes.io/local-config: "true"}, name: demo}\n',
        ),
        (
            "  metadata: {name: demo, annotations: {}}\n",
            '  metadata: {name: demo, annotations: {config.kubernetes.io/local-config: "true"}}\n',
        ),
        (
            "  metadata: {name: demo, annotations: {a: b}}\n",
            '  metadata: {name: demo, annotations: {config.kubernetes.io/local-config: "true", a: b}}\n',
        ),
        (
            "  metadata:\n    name: demo\n    annotations: # ours\n      a: b\n",
            '  metadata:\n    name: demo\n    annotations: # ours\n      config.kubernetes.io/local-config: "true"\n'
            "      a: b\n",
        ),
        (
            '  metadata:\n    name: demo\n    annotations: {config.kubernetes.io/local-config: "false"}\n',
            '  metadata:\n    name: demo\n    annotations: {config.kubernetes.io/local-config: "false"}\n',
        ),
    ],
)
def test_the_local_config_annotation_is_inserted_into_the_trainjobs_text(metadata, annotated):
    trainjob = (
        "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
        + metadata
        + "  spec: {runtimeRef: {name: torch-distributed}}\n"
    )
    text, *_, errors = _run("kind: ResourceList\nitems:\n" + trainjob)
    assert errors == []
    assert text.split("\nitems:\n")[1].startswith(trainjob.replace(metadata, annotated))


def test_indented_and_json_resource_lists_keep_their_items():
    indented = (
        "kind: ResourceList\nitems:\n    -   apiVersion: v1\n        kind: ConfigMap # c\n"
        "        metadata: {name: a}\n        data:\n          script: |\n            echo on\n"
    )
    text, output, _, errors = _run(indented)
    assert errors == [] and "\nitems:\n-   apiVersion: v1\n    kind: ConfigMap # c\n" in text
    assert output["items"][0]["data"] == {"script": "echo on\n"}
    as_json = json.dumps(
        {
            "kind": "ResourceList",
            "items": [
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"on": "0644"}},
                {
                    "apiVersion": "trainer.kubeflow.org/v1alpha1",
                    "kind": "TrainJob",
                    "metadata": {"name": "demo"},
                    "spec": {"runtimeRef": {"name": "torch-distributed"}},
                },
            ],
        },
        indent=1,
    )
    text, output, _, errors = _run(as_json)
    assert errors == [] and [i["kind"] for i in output["items"]] == ["ConfigMap", "TrainJob", "JobSet"]
    assert output["items"][0]["data"] == {"on": "0644"}
    assert output["items"][1]["metadata"]["annotations"] == {"config.kubernetes.io/local-config": "true"}
    assert output["items"][2]["metadata"]["annotations"]["config.kubernetes.io/path"] == "rendered/default/demo.yaml"


def test_errors_are_results_with_the_resource_and_its_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _, output, _, errors = _run(RESOURCE_LIST.replace("NODES", "two"))
    assert output["items"] == []
    assert output["results"] == [
        {
            "message": "must be an integer, not string",
            "severity": "error",
            "resourceRef": {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "demo"},
            "field": {"path": "spec.trainer.numNodes"},
            "file": {"path": "jobs/demo.yaml", "index": 0},
        }
    ]
    # the file is not readable from here: its package path and the field
    assert errors == ["jobs/demo.yaml: spec.trainer.numNodes: must be an integer, not string"]


def test_errors_point_into_the_users_file_when_it_is_readable(tmp_path, monkeypatch):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "demo.yaml").write_text(
        "# a TrainJob\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: demo\n"
        "spec:\n  runtimeRef:\n    name: torch-distributed\n  trainer:\n    numNodes: two\n"
    )
    monkeypatch.chdir(tmp_path)
    assert _run(RESOURCE_LIST.replace("NODES", "two"))[3] == [
        "jobs/demo.yaml:10:15: spec.trainer.numNodes: must be an integer, not string"
    ]
    # `kpt fn render` says where the package is: the path is shown from the current directory
    monkeypatch.chdir(tmp_path / "jobs")
    rendered = RESOURCE_LIST.replace("NODES", "two").replace(
        "      config.kubernetes.io/path: 'jobs/demo.yaml'",
        f"      internal.config.kubernetes.io/package-path: '{tmp_path}'\n"
        "      config.kubernetes.io/path: 'jobs/demo.yaml'",
    )
    assert _run(rendered)[3] == ["demo.yaml:10:15: spec.trainer.numNodes: must be an integer, not string"]
    # `kpt fn eval pkg/` from pkg's parent: the package is one of the current directory's subdirectories
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "jobs").rename(tmp_path / "pkg" / "jobs")
    (tmp_path / "other" / "jobs").mkdir(parents=True)
    (tmp_path / "other" / "jobs" / "demo.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n")
    assert _run(RESOURCE_LIST.replace("NODES", "two"))[3] == [
        "pkg/jobs/demo.yaml:10:15: spec.trainer.numNodes: must be an integer, not string"
    ]


def test_another_object_at_that_place_is_not_taken_for_the_item(tmp_path, monkeypatch):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "demo.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n")
    monkeypatch.chdir(tmp_path)
    assert _run(RESOURCE_LIST.replace("NODES", "two"))[3] == [
        "jobs/demo.yaml: spec.trainer.numNodes: must be an integer, not string"
    ]


def test_two_files_that_could_be_the_item_locate_neither(tmp_path, monkeypatch):
    trainjob = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: demo\n"
    for package in ("a", "b"):
        (tmp_path / package / "jobs").mkdir(parents=True)
        (tmp_path / package / "jobs" / "demo.yaml").write_text(trainjob)
    monkeypatch.chdir(tmp_path)
    assert _run(RESOURCE_LIST.replace("NODES", "two"))[3] == [
        "jobs/demo.yaml: spec.trainer.numNodes: must be an integer, not string"
    ]


def test_items_without_a_path_are_located_in_the_resource_list(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    no_path = RESOURCE_LIST.replace("NODES", "two").replace(
        "      config.kubernetes.io/path: 'jobs/demo.yaml'\n      config.kubernetes.io/index: '0'\n", "      a: b\n"
    )
    assert _run(no_path)[3] == ["<stdin>:30:25: spec.trainer.numNodes: must be an integer, not string"]


def test_a_file_rendered_into_must_not_hold_other_resources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    taken = RESOURCE_LIST.replace("NODES", "2").replace("'jobs/settings.yaml'", "'jobs/rendered/team-x/demo.yaml'")
    assert _run(taken)[3] == [
        "jobs/demo.yaml: metadata.name: trainc fn renders this TrainJob into "
        "jobs/rendered/team-x/demo.yaml, which holds other resources: move them"
    ]


@pytest.mark.parametrize(
    ("item", "error"),
    [
        # issue 8's reproductions, then with a kind
        (
            "{apiVersion: trainer.kubeflow.org/v1alpha1, metadata: x}",
            "<stdin>:3:3: kind: required field is missing: expected TrainJob, TrainingRuntime or ClusterTrainingRuntime",
        ),
        (
            "{apiVersion: trainer.kubeflow.org/v1alpha1, metadata: {annotations: [1]}}",
            "<stdin>:3:3: kind: required field is missing: expected TrainJob, TrainingRuntime or ClusterTrainingRuntime",
        ),
        (
            "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: x, spec: {}}",
            "<stdin>:3:73: metadata: must be an object, not string",
        ),
        (
            "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: a, annotations: [1]}, spec: {}}",
            "<stdin>:3:96: metadata.annotations: must be an object, not list",
        ),
    ],
)
def test_malformed_metadata_is_a_positioned_error(item, error):
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "fn"],
        input=f"kind: ResourceList\nitems:\n- {item}\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert error in result.stderr.splitlines()


@pytest.mark.parametrize(
    ("config", "error"),
    [
        (
            "{apiVersion: v1, kind: ConfigMap, data: {namespace: team-x, nmespace: x}}",
            "<stdin>:2:77: functionConfig.data.nmespace: unknown setting: trainc fn takes only namespace",
        ),
        (
            "{apiVersion: v1, kind: ConfigMap, spec: {}}",
            "<stdin>:2:51: functionConfig.spec: unknown field: a ConfigMap has apiVersion, kind, metadata and data",
        ),
        (
            "{apiVersion: fn.kpt.dev/v1alpha1, kind: SetNamespace}",
            "<stdin>:2:17: functionConfig: must be a v1 ConfigMap (its data.namespace sets the default namespace)",
        ),
        (
            "{apiVersion: v1, kind: ConfigMap, data: [1]}",
            "<stdin>:2:57: functionConfig.data: must be a mapping (a ConfigMap's data)",
        ),
        (
            "{apiVersion: v1, kind: ConfigMap, data: {namespace: Team_X}}",
            "<stdin>:2:69: functionConfig.data.namespace: the default namespace must be a DNS-1123 label (lower case "
            "alphanumerics or '-', at most 63 characters)",
        ),
    ],
)
def test_function_config_is_checked(config, error):
    assert _run(f"kind: ResourceList\nfunctionConfig: {config}\nitems: []\n")[3] == [error]


def test_not_a_resource_list():
    assert _run("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")[3] == [
        "<stdin>:1:1: expected one config.kubernetes.io/v1 ResourceList on stdin"
    ]


def test_trainer_objects_inside_a_list_item_are_refused_and_other_lists_pass_through():
    listed = (
        "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: "
        "Namespace, metadata: {name: a}}\n  - {apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob}\n"
    )
    assert _run(listed)[3] == [
        "<stdin>:7:5: trainc fn reads Trainer objects as items of their own, not inside a "
        "List (kpt keeps a List as one resource)"
    ]
    text, output, _, errors = _run(listed.rsplit("  - ", 1)[0])
    assert errors == [] and [i["kind"] for i in output["items"]] == ["List"]


def test_cli_exit_codes():
    ok = subprocess.run(
        [sys.executable, "-m", "trainc", "fn"],
        input=RESOURCE_LIST.replace("NODES", "2"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    bad = subprocess.run(
        [sys.executable, "-m", "trainc", "fn"],
        input=RESOURCE_LIST.replace("NODES", "-1"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert (ok.returncode, bad.returncode) == (0, 1)
    assert "kind: JobSet" in ok.stdout and "results:" in bad.stdout


_TRAINJOB_SPEC = "spec: {runtimeRef: {name: torch-distributed}}"
SHAPES = {
    "CRLF line breaks": "kind: ResourceList\r\nitems:\r\n- apiVersion: v1\r\n  kind: ConfigMap\r\n  metadata: {name: a}\r\n"
    "- apiVersion: trainer.kubeflow.org/v1alpha1\r\n  kind: TrainJob\r\n  metadata:\r\n    name: demo\r\n"
    f"  {_TRAINJOB_SPEC}\r\n",
    "comments around items": "kind: ResourceList\nitems:\n# before\n- apiVersion: v1 # x\n  kind: ConfigMap\n  metadata: "
    "{name: a}\n\n# between\n-\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n# after\n"
    "functionConfig: {apiVersion: v1, kind: ConfigMap}\n",
    "no final line break": "kind: ResourceList\nitems:\n- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
    f"  {_TRAINJOB_SPEC}\n  metadata: {{name: demo}}",
    "document end marker": "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n...\n",
    "block scalars": "kind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: a}\n    data:\n"
    "      s: |2\n          indented\n        text\n      t: >-\n        folded\n        line\n",
    "multi-line flow": 'kind: ResourceList\nitems: [\n{apiVersion: v1, kind: ConfigMap,\nmetadata: {name: a}, data: {x: "a\n'
    "  b\", y: 'c\n d'}},\n{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: "
    f"demo}},\n{_TRAINJOB_SPEC}}}]\n",
    "byte order mark": "\ufeffkind: ResourceList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n",
    "tags and anchors": "kind: ResourceList\nitems:\n- !!map\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: !!map {name: a}\n"
    "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n  metadata: !!map\n    name: demo\n"
    f"    annotations: &x\n      a: b\n  {_TRAINJOB_SPEC}\n",
    "no items": "kind: ResourceList\nitems:\n",
    "non-ASCII text": "kind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: {é: "
    '"日本\u2028x"}\n- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n  metadata: {name: '
    f'demo, annotations: {{k: "日本"}}}}\n  {_TRAINJOB_SPEC}\n',
    "empty annotations": "kind: ResourceList\nitems:\n- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
    f"  metadata:\n    name: demo\n    annotations:\n  {_TRAINJOB_SPEC}\n",
    "null annotations": "kind: ResourceList\nitems:\n- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
    f"  metadata:\n    annotations: ~ # none\n    name: demo\n  {_TRAINJOB_SPEC}\n",
    "null annotations in flow": "kind: ResourceList\nitems: [{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, "
    f"metadata: {{name: demo, annotations: }}, {_TRAINJOB_SPEC}}}]",
    "JSON": json.dumps(
        {
            "kind": "ResourceList",
            "items": [
                {
                    "apiVersion": "trainer.kubeflow.org/v1alpha1",
                    "kind": "TrainJob",
                    "metadata": {"name": "demo", "annotations": None},
                    "spec": {"runtimeRef": {"name": "torch-distributed"}},
                },
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
            ],
        }
    ),
}


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_every_shape_of_resource_list_comes_back_item_for_item(text):
    output, data, _, errors = _run(text)
    assert errors == []
    expected = yaml.safe_load(text.lstrip("\ufeff")).get("items") or []
    for item in expected:
        if item["apiVersion"].startswith("trainer.kubeflow.org/"):
            item["metadata"]["annotations"] = {
                **(item["metadata"].get("annotations") or {}),
                "config.kubernetes.io/local-config": "true",
            }
        else:  # passed through, in the run's namespace as build places it (set in the item's own text)
            item["metadata"]["namespace"] = "default"
    trainjobs = sum(item["kind"] == "TrainJob" for item in expected)
    assert data["items"][: len(expected)] == expected
    assert [item["kind"] for item in data["items"][len(expected) :]] == ["JobSet"] * trainjobs
    assert krm.run(output)[0] == output


@pytest.mark.parametrize(
    "items",
    [
        "- &a {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- *a\n",
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: &d {x: y}}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}, data: *d}\n",
        "[&a {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}, *a]\n",
    ],
)
def test_items_sharing_an_anchor_are_refused(items):
    errors = _run(f"kind: ResourceList\nitems:{' ' if items.startswith('[') else chr(10)}{items}")[3]
    assert len(errors) == 1 and errors[0].endswith(
        "an alias of a node outside this item: trainc fn passes each item on as its own text, so items cannot "
        "share anchors"
    )
    alone = (
        "kind: ResourceList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: &d {x: y}, "
        "binaryData: *d}\n"
    )
    assert _run(alone)[3] == [] and _run(alone)[0] == alone.replace("kind: ResourceList", krm.HEADER.strip()).replace(
        "metadata: {", "metadata: {namespace: default, "
    )


def test_trainer_kinds_trainc_does_not_compile_pass_through_with_a_notice():
    optimization = (
        "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: OptimizationJob # tuned elsewhere\n"
        "  metadata:\n    name: tune\n    annotations: {config.kubernetes.io/path: 'jobs/tune.yaml'}\n"
        "  spec: {on: yes}\n"
    )
    text, output, notices, errors = _run("kind: ResourceList\nitems:\n" + optimization)
    placed = optimization.replace("  metadata:\n", "  metadata:\n    namespace: default\n")  # as build places it
    assert errors == [] and text == krm.HEADER + "items:\n" + placed + (
        'results:\n- message: "notice: jobs/tune.yaml: trainer.kubeflow.org/v1alpha1 OptimizationJob tune: trainc does '
        'not compile this Trainer kind; passed through unchanged"\n  severity: info\n'
    )
    assert notices == [
        "notice: jobs/tune.yaml: trainer.kubeflow.org/v1alpha1 OptimizationJob tune: trainc does not "
        "compile this Trainer kind; passed through unchanged"
    ]


def test_a_source_that_says_it_is_not_local_config_is_kept_so_with_a_notice():
    kept = RESOURCE_LIST.replace("NODES", "2").replace(
        "      config.kubernetes.io/path: 'jobs/demo.yaml'",
        "      config.kubernetes.io/local-config: 'false'\n      config.kubernetes.io/path: 'jobs/demo.yaml'",
    )
    _, output, notices, errors = _run(kept)
    assert (
        errors == [] and output["items"][1]["metadata"]["annotations"]["config.kubernetes.io/local-config"] == "false"
    )
    assert notices == [
        "notice: jobs/demo.yaml: TrainJob demo: config.kubernetes.io/local-config is 'false', so kpt "
        "live apply applies it as well as what trainc renders for it"
    ]


def test_passed_through_objects_that_set_no_namespace_get_the_packages_in_their_own_text():
    items = (
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n"
        "- apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata:\n    name: b # kept\n    namespace: ''\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: other}}\n"
        "- {apiVersion: v1, kind: Namespace, metadata: {name: team-x}}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: d, annotations: {config.kubernetes.io/local-config: "
        "'true'}}}\n"
        "- {apiVersion: kpt.dev/v1, kind: Kptfile, metadata: {name: pkg}}\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: e, annotations: {config.kubernetes.io/path: "
        ".argocd-source.yaml}}}\n"
    )
    config = "functionConfig: {apiVersion: v1, kind: ConfigMap, data: {namespace: NS}}\n"
    text, output, _, errors = _run(f"kind: ResourceList\n{config.replace('NS', 'team-x')}items:\n{items}")
    assert errors == []
    assert [(i["metadata"]["name"], i["metadata"].get("namespace")) for i in output["items"]] == [
        ("a", "team-x"),
        ("b", "team-x"),
        ("c", "other"),
        ("team-x", None),
        ("d", None),
        ("pkg", None),
        ("e", None),
    ]
    assert "  metadata:\n    name: b # kept\n    namespace: team-x\n" in text  # in place, the line's comment kept
    assert krm.run(text)[0] == text  # a second run changes nothing
    # a namespace YAML 1.1 reads as a boolean is quoted, so kubectl reads the string
    quoted = config.replace("NS", "'y'")
    text, output, _, errors = _run(f"kind: ResourceList\n{quoted}items:\n{items}")
    assert errors == [] and output["items"][0]["metadata"] == {"namespace": "y", "name": "a"}
    assert '{namespace: "y", name: a}' in text


def test_runtimes_come_from_the_runtime_paths_as_well_as_the_items(tmp_path):
    (tmp_path / "custom.yaml").write_text(
        (ROOT / "runtimes/torch-simple.yaml").read_text().replace("name: torch-simple", "name: platform-torch")
    )
    (tmp_path / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: not-a-runtime}\n")
    trainjob = (
        "kind: ResourceList\nitems:\n- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
        "  metadata: {name: demo}\n  spec: {runtimeRef: {name: platform-torch}}\n"
    )
    assert krm.run(trainjob)[2] == [
        "<stdin>:6:29: spec.runtimeRef.name: ClusterTrainingRuntime "
        '"platform-torch" not found; looked in the inputs, --runtimes and the '
        "bundled runtimes"
    ]
    output, notices, errors = krm.run(trainjob, Options(namespace="team-x", runtime_paths=(str(tmp_path),)))
    assert errors == [] and [item["kind"] for item in yaml.safe_load(output)["items"]] == ["TrainJob", "JobSet"]
    assert notices == [
        f"notice: {tmp_path / 'other.yaml'}:2:7: a ConfigMap under --runtimes, not a runtime: "
        "ignored (only runtimes are read there)"
    ]


def test_the_project_config_s_cluster_state_holds_on_the_kpt_route_as_on_build(tmp_path):
    """A package whose config names the platform's queues and the cluster's state: the function says of each
    queued TrainJob where it stands on that cluster, the words `trainc build` says in the same folder."""
    case = ROOT / "golden" / "kueue-placement"
    (tmp_path / "queues.yaml").write_text((case / "queues.yaml").read_text())
    (tmp_path / "state.json").write_text((case / "cluster" / "state.json").read_text())
    (tmp_path / ".trainc.yaml").write_text("kueue-paths: [queues.yaml]\ncluster-state: state.json\n")
    job = (case / "trainjobs.yaml").read_text().split("---")[1]
    (tmp_path / "job.yaml").write_text(job)
    items = yaml.safe_dump(
        {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [yaml.safe_load(job)]}
    )

    built, function = run("build", "job.yaml", cwd=tmp_path), run("fn", cwd=tmp_path, stdin=items)
    standing = next(line.split(": Kueue: ", 1)[1] for line in built.stderr.splitlines() if ": Kueue: " in line)
    results = [result["message"] for result in yaml.safe_load(function.stdout)["results"]]
    assert built.returncode == function.returncode == 0 and "on h100; 1 pending workload ahead" in standing
    assert any(message.endswith(f"team-a/finetune: Kueue: {standing}") for message in results), results
