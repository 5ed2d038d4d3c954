"""Rules written once (issue 16, step 4): each pinned here where two copies of it used to disagree."""

from trainc.errors import did_you_mean


def test_did_you_mean_names_only_near_choices_up_to_three():
    assert did_you_mean("numNode", ["numNodes", "numProcPerNode", "image"]) == 'did you mean "numNodes"?'
    assert did_you_mean("torch-distribute", ["torch-distributed", "torch-distributed-with-cache"]) == (
        'did you mean "torch-distributed"?')
    assert did_you_mean("nodes", ["node1", "node2", "node3", "node", "other"]).count(",") == 2  # three at most
    assert did_you_mean("zzz", ["numNodes"]) == ""
