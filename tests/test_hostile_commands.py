"""Hostile input to `diff`, `status`, `run` and `fn` (issue 15, Found 7): a clear error or a right answer, never a
traceback, an exit 0 with unreadable output, or a rendered path outside the package."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml


def trainc(*args, cwd=None, stdin=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "trainc", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        input=stdin,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_diff_of_an_object_with_a_null_namespace(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "base/cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: null\n")
    result = trainc("diff", "--base", "base", "cm.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.endswith("1 added, 0 changed, 1 removed\n")


@pytest.mark.parametrize("levels", [990, 999])
def test_diff_of_a_document_as_deep_as_build_takes(tmp_path, levels):
    def deep(value):
        return f"apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: d\nspec: {'{a: ' * levels}{value}{'}' * levels}\n"

    (tmp_path / "base").mkdir()
    (tmp_path / "base/d.yaml").write_text(deep(1))
    (tmp_path / "d.yaml").write_text(deep(2))
    assert trainc("build", "d.yaml", cwd=tmp_path).returncode == 0
    for args in ([], ["--format", "markdown"]):
        result = trainc("diff", "--base", "base", "d.yaml", *args, cwd=tmp_path)
        assert (result.returncode, result.stderr) == (1, ""), result.stderr[-300:]
        assert "0 added, 1 changed, 0 removed" in result.stdout


JOBSET = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: a}\nspec: {suspend: true}\n"


@pytest.mark.parametrize("epoch", ["99999999999999999999", "253402300800", "9" * 5000])
def test_status_with_a_source_date_epoch_past_year_9999(epoch):
    result = trainc("status", stdin=JOBSET, env={"SOURCE_DATE_EPOCH": epoch})
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: SOURCE_DATE_EPOCH={epoch[:40]}: after 9999-12-31T23:59:59Z, the last time an "
        "RFC 3339 timestamp holds\n"
    )


def test_status_with_the_last_second_of_year_9999():
    result = trainc("status", stdin=JOBSET, env={"SOURCE_DATE_EPOCH": "253402300799"})
    assert result.returncode == 0
    assert 'lastTransitionTime: "9999-12-31T23:59:59Z"' in result.stdout


RESOURCE_LIST = {
    "apiVersion": "config.kubernetes.io/v1",
    "kind": "ResourceList",
    "items": [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "x\x7fy\x85z\u2028w\x9f"}}
    ],
}


@pytest.mark.parametrize("indent", [None, 1])
def test_fn_passes_raw_characters_of_json_strings_on_as_yaml_reads_them(indent):
    """DEL, C1 controls and YAML's own line breaks may stand raw in a JSON string: escaped in the YAML out."""
    result = trainc("fn", stdin=json.dumps(RESOURCE_LIST, ensure_ascii=False, indent=indent))
    assert (result.returncode, result.stderr) == (0, "")
    placed = [{**item, "metadata": {"namespace": "default", **item["metadata"]}} for item in RESOURCE_LIST["items"]]
    assert yaml.load(result.stdout, Loader=yaml.CSafeLoader)["items"] == placed  # in -n's namespace, as build does


def test_fn_after_a_byte_order_mark_with_flow_items():
    text = (
        "\ufeff{apiVersion: config.kubernetes.io/v1, kind: ResourceList, items: [{apiVersion: v1, kind: ConfigMap, "
        "metadata: {name: a}, data: {k: v}}]}\n"
    )
    result = trainc("fn", stdin=text)
    assert (result.returncode, result.stderr) == (0, "")
    assert yaml.load(result.stdout, Loader=yaml.CSafeLoader)["items"] == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"namespace": "default", "name": "a"}, "data": {"k": "v"}}
    ]


def trainjob_at(path: str) -> str:
    return (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n  metadata:\n    name: demo\n"
        f"    annotations:\n      config.kubernetes.io/path: {json.dumps(path)}\n"
        "  spec:\n    runtimeRef: {name: torch-distributed}\n"
    )


@pytest.mark.parametrize("path", ["../../outside/job.yaml", "/etc/job.yaml", "a/../../job.yaml", "../job.yaml"])
def test_fn_renders_nothing_outside_the_package(path):
    result = trainc("fn", stdin=trainjob_at(path))
    assert result.returncode == 1
    assert result.stderr == (
        f"{path}: metadata.annotations[config.kubernetes.io/path]: {path!r} is outside the "
        "package: trainc fn renders a TrainJob's objects beside its file, so only a relative path "
        "without '..' past the package's top can hold one\n"
    )


@pytest.mark.parametrize(
    "path, rendered",
    [
        ("a/./b/../job.yaml", "a/rendered/default/demo.yaml"),
        ("./job.yaml", "rendered/default/demo.yaml"),
        ("a/b/../../job.yaml", "rendered/default/demo.yaml"),
    ],
)
def test_fn_normalises_the_rendered_path(path, rendered):
    result = trainc("fn", stdin=trainjob_at(path))
    assert result.returncode == 0, result.stderr
    items = yaml.load(result.stdout, Loader=yaml.CSafeLoader)["items"]
    paths = {item["metadata"]["annotations"]["config.kubernetes.io/path"] for item in items[1:]}
    assert paths == {rendered}
