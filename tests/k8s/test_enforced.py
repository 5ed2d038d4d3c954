"""A rendered JobSet's enforced bound: the longest Job deadline times the JobSet's attempts, or None."""

from __future__ import annotations

import pytest

from trainc.k8s.enforced import attempts, enforced_bound, job_deadline


def _jobset(*deadlines, failure_policy=None) -> dict:
    rjobs = [
        {"name": f"j{i}", "template": {"spec": {} if d is None else {"activeDeadlineSeconds": d}}}
        for i, d in enumerate(deadlines)
    ]
    spec = {"replicatedJobs": rjobs, **({"failurePolicy": failure_policy} if failure_policy is not None else {})}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "spec": spec}


@pytest.mark.parametrize(
    ("jobset", "bound"),
    [
        (_jobset(3600), 3600),  # no failurePolicy: the first failed Job fails the JobSet
        (_jobset(600, 3600, failure_policy={"maxRestarts": 2}), 3600 * 3),  # a restart recreates every Job
        (
            _jobset(
                3600,
                failure_policy={
                    "rules": [{"action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded"]}],
                    "maxRestarts": 1,
                },
            ),
            3600 * 2,
        ),  # other failures still restart
        (_jobset(3600, None), None),  # one Job without a deadline runs without end
        (
            _jobset(
                3600,
                failure_policy={
                    "maxRestarts": 5,
                    "rules": [
                        {"action": "RestartJobSetAndIgnoreMaxRestarts", "onJobFailureReasons": ["PodFailurePolicy"]}
                    ],
                },
            ),
            None,
        ),
        ({"kind": "JobSet", "spec": {}}, None),
    ],
)
def test_enforced_bound(jobset, bound):
    assert enforced_bound(jobset) == bound


def test_the_parts():
    assert job_deadline({"template": {"spec": {"activeDeadlineSeconds": True}}}) is None
    assert attempts(_jobset(1, failure_policy={})) == 1
    assert attempts(_jobset(1, failure_policy={"maxRestarts": 4, "rules": [{"action": "RestartJobSet"}]})) == 5


def test_the_golden_case_bound():
    import yaml

    from conftest import GOLDEN

    [jobset] = yaml.safe_load_all((GOLDEN / "deadline-every-job" / "expected.out.yaml").read_text())
    assert enforced_bound(jobset) == 7200 * 3
