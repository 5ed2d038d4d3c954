"""The mlpolicy pass: pods per replicated job as upstream's PodSets count them, before any plugin."""

from __future__ import annotations

from helpers import STEP_RUNTIME, through, trainjob

from trainc.compiler.passes.mlpolicy import mlpolicy
from trainc.compiler.passes.resolve import resolve

SIDECAR = """
        - name: sidecar
          template:
            spec:
              parallelism: 3
              template: {spec: {containers: [{name: s, image: s}]}}
"""


def test_the_trainer_step_counts_mlpolicy_num_nodes_other_jobs_their_parallelism():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 4") + SIDECAR
    assert through((resolve, mlpolicy), trainjob(extra=""), runtime).counts == {"node": 4, "sidecar": 3}


def test_no_num_nodes_is_one_and_the_trainjob_overrides_it():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="torch: {}")
    assert through((resolve, mlpolicy), trainjob(extra=""), runtime).counts == {"node": 1}
    assert through((resolve, mlpolicy), trainjob(), runtime).counts == {"node": 2}  # trainer.numNodes: 2


def test_a_count_is_never_below_one():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1") + SIDECAR.replace(
        "parallelism: 3", "parallelism: 0"
    )
    assert through((resolve, mlpolicy), trainjob(extra=""), runtime).counts["sidecar"] == 1
