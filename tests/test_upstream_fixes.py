"""Discrepancies with upstream found while porting its end-to-end tests, one focused test each."""

from __future__ import annotations

import re

import pytest
from conftest import GOLDEN

from helpers import build
from trainc.errors import InputErrors

CASE = GOLDEN / "upstream-trt-numnodes-from-runtime-container-from-trainjob"


def with_depends_on(tmp_path, job: str, target: str) -> list[str]:
    """The case's runtime and TrainJob, the runtime's `job` depending on `target`."""
    depends_on = f"        dependsOn:\n        - name: {target}\n          status: Ready\n"
    text, count = re.subn(
        f"(?m)^      - name: {job}\n", lambda item: item.group() + depends_on, (CASE / "runtime.yaml").read_text()
    )
    assert count == 1
    runtime = tmp_path / "runtime.yaml"
    runtime.write_text(text)
    return [str(runtime), str(CASE / "trainjob.yaml")]


def test_jobset_webhook_lets_a_replicated_job_depend_on_itself(tmp_path):
    """sigs.k8s.io/jobset ValidateCreate adds a replicated job's name to the known names before checking its
    dependsOn, so `node` may depend on `node`; only the first job may have no dependsOn at all."""
    [jobset] = build(with_depends_on(tmp_path, "node", "node")).documents()
    assert jobset["spec"]["replicatedJobs"][2]["dependsOn"] == [{"name": "node", "status": "Ready"}]
    with pytest.raises(InputErrors) as caught:
        build(with_depends_on(tmp_path, "dataset-initializer", "dataset-initializer"))
    assert [error.message for error in caught.value.errors] == [
        "the JobSet webhook refuses replicated job 'dataset-initializer' depending on 'dataset-initializer': "
        "only on an earlier replicated job"
    ]
