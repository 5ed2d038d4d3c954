"""Rules written once (issue 16, step 4): each pinned here where two copies of it used to disagree."""

from trainc.errors import did_you_mean


def test_did_you_mean_names_only_near_choices_up_to_three():
    assert did_you_mean("numNode", ["numNodes", "numProcPerNode", "image"]) == 'did you mean "numNodes"?'
    assert did_you_mean("torch-distribute", ["torch-distributed", "torch-distributed-with-cache"]) == (
        'did you mean "torch-distributed"?'
    )
    assert did_you_mean("nodes", ["node1", "node2", "node3", "node", "other"]).count(",") == 2  # three at most
    assert did_you_mean("zzz", ["numNodes"]) == ""


def test_one_field_path_rendering_which_explain_reads_back():
    from trainc.errors import Name, render_path
    from trainc.k8s import fieldpath

    path = ("metadata", "labels", "ä")  # `isalnum` printed `.ä`, which `explain --field` refused
    assert render_path(path) == "metadata.labels[ä]"
    assert fieldpath.parse(render_path(path)) == path
    keys = ("spec", "template", "labels", "trainer.kubeflow.org/x", "_a-b", "9lives", Name("node"), "-x")
    assert render_path(keys) == "spec.template.labels[trainer.kubeflow.org/x]._a-b[9lives][node][-x]"
    assert fieldpath.parse(render_path(keys)) == keys
    assert render_path(("env", 2, "name")) == "env[2].name"


def test_one_scope_rule_for_trainer_objects():
    from trainc.trainer.api import described, identity

    assert identity("ClusterTrainingRuntime", "team-a", "r") == ("ClusterTrainingRuntime", None, "r")
    assert identity("TrainingRuntime", "team-a", "r") == ("TrainingRuntime", "team-a", "r")
    assert identity("TrainJob", "team-a", "j") == ("TrainJob", "team-a", "j")
    assert described(*identity("ClusterTrainingRuntime", "team-a", "r")) == "ClusterTrainingRuntime r"
    assert described("TrainingRuntime", "team-a", "r") == "TrainingRuntime team-a/r"


def test_defined_twice_is_worded_once_for_trainjobs_runtimes_and_other_objects(tmp_path):
    from helpers import run, write

    runtime = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata:\n  name: mine\n"
        "  namespace: team-a\nspec:\n  template:\n    spec:\n      replicatedJobs:\n        - name: node\n"
        "          template: {spec: {template: {spec: {containers: [{name: node, image: i}]}}}}\n"
    )
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-a\n"
    write(tmp_path, "a.yaml", runtime + "---\n" + config_map)
    write(tmp_path, "b.yaml", runtime + "---\n" + config_map)
    result = run("build", "a.yaml", "b.yaml", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert "b.yaml:4:9: metadata.name: TrainingRuntime team-a/mine is defined twice (first in a.yaml:4:9)" in (
        result.stderr.splitlines()
    )


def test_one_tree_walk_for_diff_hunks_and_update_checks():
    from trainc.errors import Name
    from trainc.k8s.treediff import MISSING, changes, first_change

    old = {"env": [{"name": "A", "value": "1"}, {"name": "B"}], "n": 1, "tolerations": []}
    new = {"env": [{"name": "B"}, {"name": "A", "value": "2"}], "n": 1.0}
    # `trainc diff`: items by name, every difference, type-strict
    assert list(changes(old, new, named=True)) == [
        (("env", Name("A"), "value"), "1", "2"),
        (("n",), 1, 1.0),
        (("tolerations",), [], MISSING),
    ]
    # the API server's comparison: by index, [] is absent, 1 is 1.0
    assert first_change(old, new, ("spec",)) == ("spec", "env", 0, "name")
    assert first_change({"a": [], "b": None, "n": 1}, {"n": 1.0}) is None
    assert first_change([{"name": "a"}], [{"name": "a"}, {"name": "b"}], ("spec", "replicatedJobs")) == (
        "spec",
        "replicatedJobs",
        1,
    )
