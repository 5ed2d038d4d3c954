"""The components pass: the objects built beside the JobSet, last, and upstream's opt-in runtime snapshot."""

from __future__ import annotations

import pytest
import yaml
from helpers import STEP_RUNTIME, through, trainjob

from trainc.compiler.passes.components import components
from trainc.compiler.passes.resolve import resolve
from trainc.compiler.pipeline import PASSES
from trainc.errors import InputError


def test_the_runtime_snapshot_configmap_holds_the_runtime_and_comes_first():
    unit = through(PASSES, trainjob(), snapshot=True)
    snapshot = unit.objects[0]
    assert (snapshot["kind"], snapshot["metadata"]["name"]) == ("ConfigMap", "demo-runtime-snapshot")
    assert yaml.safe_load(snapshot["data"]["runtime"])["metadata"]["name"] == "torch-distributed"


def test_without_a_snapshot_or_a_plugin_that_builds_nothing_is_built():
    assert through(PASSES, trainjob()).objects == ()


def test_a_runtime_too_large_for_the_snapshot_is_an_error_on_the_runtime():
    runtime = STEP_RUNTIME.format(name="torch-distributed", policy="numNodes: 1").replace(
        "value: r}", "value: " + "x" * (1 << 20) + "}"
    )
    with pytest.raises(InputError, match="too large for the --runtime-snapshot ConfigMap"):
        through((resolve, components), trainjob(), runtime, snapshot=True)
