"""The override pass: the TrainJob's trainer fields onto the trainer step (upstream Builder.Trainer)."""

from __future__ import annotations

from helpers import through, trainjob

from trainc.compiler.passes.mlpolicy import mlpolicy
from trainc.compiler.passes.override import override
from trainc.compiler.passes.resolve import resolve

TRAINER = """\
  trainer:
    image: user/image:2
    command: [python]
    args: []
    env: [{name: FROM_RUNTIME, value: user}, {name: MINE, value: m}]
    resourcesPerNode: {limits: {nvidia.com/gpu: 2}}
"""


def node(extra: str) -> dict:
    [rjob] = through((resolve, mlpolicy, override), trainjob(extra=extra)).replicated_jobs
    [container] = rjob["template"]["spec"]["template"]["spec"]["containers"]
    return container


def test_the_trainer_fields_replace_and_upsert_the_runtimes():
    assert node(TRAINER) == {
        "name": "node",
        "image": "user/image:2",
        "command": ["python"],  # args: [] set but empty: removed
        "env": [{"name": "FROM_RUNTIME", "value": "user"}, {"name": "MINE", "value": "m"}],  # the user's value wins
        "resources": {"limits": {"nvidia.com/gpu": "2"}},
    }


def test_no_trainer_leaves_the_runtimes_container():
    assert node("") == {"name": "node", "image": "runtime/image:1", "env": [{"name": "FROM_RUNTIME", "value": "r"}]}
