"""The live JobSets gc ages (trainer/live.py): their state as `trainc status` derives it, when they finished, and
what kubectl's RFC 3339 times read as."""

from __future__ import annotations

import pytest

from trainc.errors import InputErrors
from trainc.trainer import live

JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {{name: a, namespace: ns}}
status:
  conditions:
    - {{type: Completed, status: "{completed}", lastTransitionTime: "2026-01-02T03:04:05Z"}}
    - {{type: Failed, status: "True", reason: FailedJobs, lastTransitionTime: "2026-01-03T00:00:00+01:00"}}
"""


@pytest.mark.parametrize(
    ("stamp", "seconds"),
    [
        ("2026-01-02T03:04:05Z", 1767323045),
        ("2026-01-02T03:04:05.999999999Z", 1767323045),  # a fraction (metav1.MicroTime) is dropped
        ("2026-01-02T04:04:05+01:00", 1767323045),
        ("2026-01-02 03:04:05Z", None),
        ("2026-01-02T03:04:05", None),
        ("2026-13-02T03:04:05Z", None),
        ("2026-01-02t03:04:05z", None),
        ("٢٠٢٦-01-02T03:04:05Z", None),
        ("", None),
    ],
)
def test_times_as_go_reads_rfc3339(stamp, seconds):
    assert live.parse_time(stamp) == seconds


def test_failed_wins_and_its_condition_times_it(tmp_path):
    path = tmp_path / "live.yaml"
    path.write_text(JOBSET.format(completed="True"))
    assert live.read(str(path)) == {("ns", "a"): live.JobSet("ns", "a", "Failed", "FailedJobs", 1767394800)}
    path.write_text(JOBSET.format(completed="False").replace('Failed, status: "True"', 'Failed, status: "False"'))
    assert live.read(str(path))[("ns", "a")].finished is None  # neither is True: not finished


def test_every_problem_at_once(tmp_path):
    path = tmp_path / "live.yaml"
    path.write_text(
        JOBSET.format(completed="True").replace("+01:00", "+1")
        + "---\n"
        + JOBSET.format(completed="True").replace("name: a, namespace: ns", "name: b")
    )
    with pytest.raises(InputErrors) as raised:
        live.read(str(path))
    assert [error.render() for error in raised.value.errors] == [
        f"{path}:7:78: status.conditions[1].lastTransitionTime: '2026-01-03T00:00:00+1' is not an RFC 3339 time "
        "(e.g. 2026-01-02T15:04:05Z)",
        f"{path}:11:11: metadata: metadata.namespace is required: a live JobSet is matched to its TrainJob by "
        "namespace and name (kubectl get jobsets -A -o json prints both)",
    ]
