"""One namespace for the whole output: passed-through namespaced objects that set none land where the
TrainJobs' objects do (-n, TRAINC_NAMESPACE, the project config, the Argo CD destination)."""

from __future__ import annotations

import json

import yaml
from helpers import run, trainjob, write

CONFIGMAP = """\
# settings the training reads
apiVersion: v1
kind: ConfigMap
metadata:
  # referenced by the TrainJob's envFrom
  name: settings   # keep
  labels: {team: a}
data:
  epochs: "3"
"""
OTHERS = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: checkpoints}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: team-queue
spec:
  clusterQueue: cluster-queue
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cluster-queue
spec: {}
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-b
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: elsewhere
  namespace: team-c
"""


def placed(stdout: str) -> dict:
    return {(d["kind"], d["metadata"]["name"]): d["metadata"].get("namespace") for d in yaml.safe_load_all(stdout)}


def test_passed_through_namespaced_objects_land_beside_the_jobset(tmp_path):
    write(tmp_path, "job.yaml", trainjob().replace("  namespace: team-a\n", ""))
    write(tmp_path, "settings.yaml", CONFIGMAP)
    write(tmp_path, "others.yaml", OTHERS)
    result = run("build", "-n", "team-b", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert placed(result.stdout) == {
        ("Namespace", "team-b"): None,
        ("ClusterQueue", "cluster-queue"): None,  # cluster-scoped: left alone
        ("ConfigMap", "settings"): "team-b",
        ("ConfigMap", "elsewhere"): "team-c",  # set: kept
        ("PersistentVolumeClaim", "checkpoints"): "team-b",
        ("LocalQueue", "team-queue"): "team-b",
        ("JobSet", "demo"): "team-b",
    }
    # the document's own text, comments and all, the namespace its metadata's first key
    assert (
        "---\n# settings the training reads\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        "  # referenced by the TrainJob's envFrom\n  namespace: team-b\n  name: settings   # keep\n"
        "  labels: {team: a}\n"
    ) in result.stdout
    assert "metadata: {namespace: team-b, name: checkpoints}" in result.stdout
    listed = json.loads(run("build", "-n", "team-b", "-o", "json", ".", cwd=tmp_path).stdout)
    assert {(o["kind"], o["metadata"].get("namespace")) for o in listed["items"]} >= {
        ("ConfigMap", "team-b"),
        ("Namespace", None),
    }


def test_the_same_object_with_and_without_the_namespace_is_one_object(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    write(tmp_path, "a.yaml", CONFIGMAP)
    write(
        tmp_path, "b.yaml", CONFIGMAP.replace("  name: settings   # keep\n", "  name: settings\n  namespace: team-a\n")
    )
    result = run("build", "-n", "team-a", ".", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert "ConfigMap team-a/settings is defined twice" in result.stderr


def test_output_dir_files_them_under_their_namespace(tmp_path):
    write(tmp_path, "jobs/job.yaml", trainjob())
    write(tmp_path, "jobs/settings.yaml", CONFIGMAP)
    result = run("build", "-n", "team-a", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "team-a" / "configmap.settings.yaml").is_file()
    assert not (tmp_path / "out" / "_cluster").exists()


def test_a_namespace_yaml_would_read_as_another_type_is_quoted(tmp_path):
    write(tmp_path, "job.yaml", trainjob().replace("  namespace: team-a\n", ""))
    write(tmp_path, "settings.yaml", CONFIGMAP)
    result = run("build", "-n", "123", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert '  namespace: "123"\n' in result.stdout
    assert placed(result.stdout)[("ConfigMap", "settings")] == "123"


def test_the_namespace_comes_from_the_project_config_too(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".trainc.yaml", "namespace: team-r\n")
    write(tmp_path, "app/job.yaml", trainjob().replace("  namespace: team-a\n", ""))
    write(tmp_path, "app/settings.yaml", CONFIGMAP)
    result = run("build", "app", cwd=tmp_path)
    assert placed(result.stdout)[("ConfigMap", "settings")] == placed(result.stdout)[("JobSet", "demo")] == "team-r"


INSERTED = [
    CONFIGMAP,
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {x: y}}\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:   {  name: a}  # c\n",
    "kind: ConfigMap\nmetadata:\n    name: a\ndata: {}\n",
    "kind: ConfigMap\nmetadata:\n  namespace: b\n  name: a\n",
    "kind: ConfigMap\nmetadata: {}\n",
    "kind: ConfigMap\nmetadata: x\n",
    "kind: ConfigMap\n",
    "kind: ConfigMap\nmetadata:\n  annotations:\n    note: |\n      x\n  name: a\n",
    "kind: ConfigMap\nmetadata:\n  name: &n a\n",  # not of blockyaml's shape: libyaml's nodes place it
]


def test_the_namespace_goes_where_libyaml_s_nodes_put_it():
    """The namespace line is added at the place blockyaml finds off the lines, the one libyaml's nodes give."""
    from trainc.formats import blockyaml
    from trainc.k8s import namespaced

    lined = 0
    for text in INSERTED:
        found = namespaced._lined(text)
        assert found is blockyaml.UNSURE or found == namespaced._composed(text), text
        lined += found is not blockyaml.UNSURE
    assert lined == len(INSERTED) - 1
    assert namespaced.insert(INSERTED[1], "team-a").startswith(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: team-a, name: a"
    )
    assert "metadata:\n  # referenced by the TrainJob's envFrom\n  namespace: team-a\n  name: settings" in (
        namespaced.insert(CONFIGMAP, "team-a")
    )
    assert namespaced.insert(INSERTED[4], "team-a") is None and namespaced.insert(INSERTED[5], "team-a") is None
