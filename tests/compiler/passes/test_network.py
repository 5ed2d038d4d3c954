"""The network pass: parallelism and completions from the pod counts, one replica for an ancestor step, and the
pod endpoints upstream's PreBuildSync names."""

from __future__ import annotations

from helpers import STEP_RUNTIME, through, trainjob

from trainc.compiler.passes.mlpolicy import mlpolicy
from trainc.compiler.passes.network import network
from trainc.compiler.passes.resolve import resolve


def test_counts_become_parallelism_and_completions_and_endpoints():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1").replace("replicas: 1", "replicas: 3")
    unit = through((resolve, mlpolicy, network), trainjob(), runtime)
    [node] = unit.replicated_jobs
    assert node["replicas"] == 1  # an ancestor step runs one replica
    assert (node["template"]["spec"]["parallelism"], node["template"]["spec"]["completions"]) == (2, 2)
    # the runtime's replicas, as upstream lists endpoints before forcing one replica (spec §3.1 steps 6, 9)
    assert list(unit.endpoints["node"])[:3] == ["demo-node-0-0.demo", "demo-node-0-1.demo", "demo-node-1-0.demo"]


def test_the_subdomain_is_the_jobsets_own_when_set():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1").replace(
        "    spec:\n      replicatedJobs:", "    spec:\n      network: {subdomain: pods}\n      replicatedJobs:"
    )
    assert list(through((resolve, mlpolicy, network), trainjob(), runtime).endpoints["node"]) == [
        "demo-node-0-0.pods",
        "demo-node-0-1.pods",
    ]
