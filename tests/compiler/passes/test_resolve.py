"""The resolve pass: the TrainJob's runtime found as upstream's registry finds it, the unit seeded from it."""

from __future__ import annotations

import pytest
from helpers import STEP_RUNTIME, through, trainjob

from trainc.compiler.passes.resolve import resolve
from trainc.errors import InputError


def test_the_runtime_seeds_the_jobset_labels_and_annotations():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1").replace(
        "  template:\n    spec:", "  template:\n    metadata: {labels: {team: a}, annotations: {note: b}}\n    spec:"
    )
    unit = through((resolve,), trainjob(), runtime)
    assert unit.runtime.name == "torch-distributed"
    assert (unit.labels, unit.annotations) == ({"team": "a"}, {"note": "b"})
    assert [rjob["name"] for rjob in unit.replicated_jobs] == ["node"]


def test_a_missing_runtime_says_where_it_looked_and_the_nearest_name():
    with pytest.raises(InputError) as caught:
        through((resolve,), trainjob(runtime="torch-distribute"))
    assert caught.value.path == ("spec", "runtimeRef", "name")
    assert caught.value.message == (
        'ClusterTrainingRuntime "torch-distribute" not found; looked in the inputs, '
        '--runtimes and the bundled runtimes; did you mean "torch-distributed"?'
    )


def test_a_runtime_ref_of_another_group_is_unsupported():
    job = trainjob(extra="").replace(
        "    name: torch-distributed\n", "    name: torch-distributed\n    apiGroup: x.io\n"
    )
    with pytest.raises(InputError, match=r"unsupported runtime: ClusterTrainingRuntime\.x\.io"):
        through((resolve,), job)


def test_a_deprecated_runtime_warns_on_the_runtime_ref():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1").replace(
        "  name: torch-distributed\n",
        "  name: torch-distributed\n  labels: {trainer.kubeflow.org/support: deprecated}\n",
    )
    [notice] = through((resolve,), trainjob(), runtime).notices
    assert notice.at == ("spec", "runtimeRef", "name")
    assert notice.message.startswith('team-a/demo: Referenced ClusterTrainingRuntime "torch-distributed" is deprecated')
