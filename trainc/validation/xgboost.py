"""[TJ] XGBoost policy rule (upstream XGBoost plugin Validate): one Forbidden error per reserved DMLC_* env entry."""

from __future__ import annotations

from ..compiler.ir import Unit
from ..compiler.plugins.xgboost import RESERVED_ENV
from ..errors import InputError
from .base import error


def check(unit: Unit, change) -> list[InputError]:
    policy = unit.ml_policy
    if policy is None or policy.xgboost is None or unit.trainer is None:
        return []
    return [
        error(unit.trainjob.origin, ("spec", "trainer", "env", index),
              f"{variable['name']} is reserved for the XGBoost runtime")
        for index, variable in enumerate(unit.trainer.env or ())
        if variable["name"] in RESERVED_ENV
    ]
