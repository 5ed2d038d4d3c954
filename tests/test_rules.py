"""Rules written once (issue 16, step 4): each pinned here where two copies of it used to disagree."""

from trainc.errors import did_you_mean


def test_did_you_mean_names_only_near_choices_up_to_three():
    assert did_you_mean("numNode", ["numNodes", "numProcPerNode", "image"]) == 'did you mean "numNodes"?'
    assert did_you_mean("torch-distribute", ["torch-distributed", "torch-distributed-with-cache"]) == (
        'did you mean "torch-distributed"?')
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
