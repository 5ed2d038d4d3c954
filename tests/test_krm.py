"""`trainc fn`: the KRM function protocol (ResourceList in, ResourceList out), and kpt driving it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import yaml

from conftest import ROOT, need
from trainc import krm

RESOURCE_LIST = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg}
  data: {namespace: team-x}
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: team-x}
- apiVersion: trainer.kubeflow.org/v1alpha1
  kind: TrainJob
  metadata:
    name: demo
    annotations: {config.kubernetes.io/path: jobs/demo.yaml}
  spec:
    runtimeRef: {name: torch-distributed}
    trainer: {numNodes: NODES}
"""


def test_trainjobs_are_replaced_and_other_items_pass_through():
    text, notices, errors = krm.run(RESOURCE_LIST.replace("NODES", "2"), None)
    assert errors == [] and notices == []
    output = yaml.safe_load(text)
    assert [(i["kind"], i["metadata"].get("namespace")) for i in output["items"]] == [
        ("Namespace", None), ("JobSet", "team-x")]
    assert output["functionConfig"]["data"] == {"namespace": "team-x"}
    assert output["items"][1]["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2


def test_errors_become_results_and_stderr_lines():
    text, _, errors = krm.run(RESOURCE_LIST.replace("NODES", "two"), None)
    assert errors == ["<stdin>:19:25: spec.trainer.numNodes: must be an integer, not string"]
    assert yaml.safe_load(text)["results"] == [{
        "message": "must be an integer, not string", "severity": "error",
        "field": {"path": "spec.trainer.numNodes"}, "file": {"path": "jobs/demo.yaml"}}]


def test_not_a_resource_list():
    _, _, errors = krm.run("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", None)
    assert errors == ["<stdin>:1:1: expected one config.kubernetes.io/v1 ResourceList on stdin"]


def test_cli_exit_codes():
    ok = subprocess.run([sys.executable, "-m", "trainc", "fn"], input=RESOURCE_LIST.replace("NODES", "2"),
                        capture_output=True, text=True, cwd=ROOT, timeout=60)
    bad = subprocess.run([sys.executable, "-m", "trainc", "fn"], input=RESOURCE_LIST.replace("NODES", "-1"),
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (ok.returncode, bad.returncode) == (0, 1)
    assert "kind: JobSet" in ok.stdout and "results:" in bad.stdout


def test_kpt_runs_trainc_as_an_exec_function(tmp_path):
    need(shutil.which("kpt") is not None, "kpt is not installed")
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "demo.yaml").write_text((ROOT / "examples/torch-ddp.yaml").read_text())
    result = subprocess.run(
        ["kpt", "fn", "eval", str(tmp_path / "jobs"), "--exec", f"{sys.executable} -m trainc fn", "--output", "unwrap"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert [d["kind"] for d in yaml.safe_load_all(result.stdout)] == ["JobSet"]


def test_function_config_data_must_be_a_mapping_and_namespace_a_label():
    _, _, errors = krm.run(RESOURCE_LIST.replace("NODES", "2").replace("data: {namespace: team-x}", "data: [1]"), None)
    assert errors == ["<stdin>:7:9: functionConfig.data: must be a mapping (a ConfigMap's data)"]
    _, _, errors = krm.run(RESOURCE_LIST.replace("NODES", "2").replace("team-x}", "Team_X}"), None)
    assert errors == ["<stdin>:7:21: functionConfig.data.namespace: the default namespace must be a DNS-1123 label "
                      "(lower case alphanumerics or '-', at most 63 characters)"]


def test_list_items_are_read_item_by_item_as_build_reads_them():
    listed = RESOURCE_LIST.replace("NODES", "2").replace("items:\n- apiVersion: v1\n  kind: Namespace", (
        "items:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Namespace\n"
        "    metadata: {name: team-y}\n- apiVersion: v1\n  kind: Namespace"))
    text, _, errors = krm.run(listed, None)
    assert errors == []
    assert [i["kind"] for i in yaml.safe_load(text)["items"]] == ["Namespace", "Namespace", "JobSet"]
