"""Every bundled runtime is valid, and user runtimes take precedence over bundled ones."""

from __future__ import annotations

import pytest

from trainc import catalog


@pytest.mark.parametrize("key", sorted(catalog.bundled(), key=str))
def test_bundled_runtime_is_valid(key):
    runtime = catalog.build([], "default").find(key[0], "default", key[2])
    assert runtime.kind == "ClusterTrainingRuntime" and runtime.name == key[2]


def test_user_runtime_overrides_bundled():
    bundled = catalog.build([], "default").find("ClusterTrainingRuntime", "x", "torch-distributed")
    mine = bundled.model_copy(update={"origin": None})
    assert catalog.build([mine], "default").find("ClusterTrainingRuntime", "x", "torch-distributed") is mine
