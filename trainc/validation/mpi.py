"""[TJ] MPI policy rules (upstream MPI plugin Validate, spec §10).

With runLauncherAsNode, a TrainJob asking for two or more nodes needs the
runtime to have both a `launcher` and a `node` job; and the trainer must not
set the OpenMPI env the plugin owns.
"""

from __future__ import annotations

from ..compiler.ir import NODE, Unit
from ..compiler.plugins.mpi import LAUNCHER, RESERVED_ENV
from ..errors import InputError
from .base import error, reserved_env


def check(unit: Unit, change) -> list[InputError]:
    policy = unit.ml_policy
    if policy is None or policy.mpi is None or unit.trainer is None:
        return []
    errors = []
    nodes = unit.trainer.num_nodes if unit.trainer.num_nodes is not None else 1
    if nodes >= 2 and policy.mpi.run_launcher_as_node:
        names = {rjob.get("name") for rjob in unit.replicated_jobs}
        if LAUNCHER not in names or NODE not in names:
            errors.append(error(
                unit.trainjob.origin, ("spec", "trainer", "numNodes"),
                "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher "
                "and node",
            ))
    return errors + reserved_env(unit, RESERVED_ENV)
