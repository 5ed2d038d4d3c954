"""Admission checks: what the API server and Trainer's webhooks would refuse (spec §10).

The CRD schema and its CEL rules are checked when inputs are parsed
(`k8s/openapi.py`, `cel.py`); this package adds the rest, so that `trainc build`
refuses what a cluster would refuse and `trainc validate` can say so alone:

- every user runtime: the runtime webhook [RT] (`runtime`);
- every TrainJob, against upstream's RuntimeInfo (runtime resolved and
  patched, no plugin run): the TrainJob webhook rules [TJ] of upstream's JobSet
  plugin (`initializers`, `patches`), then each active plugin's own (its
  record's `validate`, beside its code in trainc.compiler.plugins), in registry
  order (upstream runs its plugins in Go map order; trainc pins this one);
- with previous versions (`--previous`), the CRD transition rules
  (`immutable`) first: the API server rejects those before any webhook runs;
- every compiled JobSet: the JobSet webhook's name and size rules [JS]
  (`jobset`), which upstream only meets when it creates the JobSet; with
  previous versions, its update rules on the re-rendered JobSet (`jobset_update`).

Each rule takes the unit and the update (`Change`, or None on create) and
returns InputErrors at upstream's field paths.
"""

from __future__ import annotations

from ..compiler.ir import Unit
from ..compiler.plugins.registry import PLUGINS
from ..errors import InputError, Notice, Record
from ..k8s import openapi as schema
from ..trainer.releases import DEFAULT, Release
from . import heredoc, initializers, jobset, patches, runtime
from .base import info


class Change(Record):
    """An update: the new and old documents, both defaulted."""

    new: dict
    old: dict


JOBSET_RULES = (initializers.check, patches.check)  # upstream's JobSet plugin, before the policy plugins


def runtime_transition(runtime_obj, previous) -> list[InputError]:
    """The CRD's transition rules for an update of a user runtime (none on create): `previous` is a
    trainer.previous.Previous, or None (that module is imported only by an update's checks, --previous)."""
    old = previous.find(runtime_obj) if previous is not None else None
    if old is None:
        return []
    from . import immutable

    return immutable.check(runtime_obj.origin, runtime_obj.document, old, _schema("trainingruntime", runtime_obj))


def check_runtime(runtime_obj, previous=None, release: Release = DEFAULT) -> tuple[list[InputError], list[Notice]]:
    """(errors, warnings) of the runtime webhook of `release` for one user runtime, on create or on update."""
    old = previous.find(runtime_obj) if previous is not None else None
    created = old is None
    errors = runtime.name_lengths(runtime_obj, old, release) + runtime.check(runtime_obj, created=created)
    return errors, runtime.warnings(runtime_obj, created=created)


def trainjob_transition(trainjob, previous) -> tuple[Change | None, list[InputError]]:
    """(the update, or None on create; the CRD's transition rules' errors for it)."""
    old = previous.find(trainjob) if previous is not None else None
    if old is None:
        return None, []
    change = Change(trainjob.document, old)
    from . import immutable

    return change, immutable.check(trainjob.origin, change.new, old, _schema("trainjob", trainjob))


def check_trainjob(trainjob, ctx) -> tuple[list[InputError], Unit | None]:
    """(errors of the webhook rules on create, the admitted unit); resolving its runtime may raise InputError.

    The unit is upstream's RuntimeInfo (pipeline.FRONT run); the build finishes it.
    """
    unit = info(trainjob, ctx)
    return trainjob_rules(unit, None), unit


def trainjob_rules(unit: Unit, change: Change | None) -> list[InputError]:
    """The TrainJob webhook's rules: upstream's JobSet plugin's, then each active plugin's, on create (`change`
    None) or on update."""
    rules = [
        *JOBSET_RULES,
        *(plugin.validate for plugin in PLUGINS if plugin.validate is not None and plugin.runs(unit)),
    ]
    return [found for rule in rules for found in rule(unit, change)]


def trainjob_warnings(trainjob) -> list[Notice]:
    """Lints for an admitted TrainJob: what the cluster accepts but will not run as written."""
    return heredoc.warnings(trainjob)


def check_jobset(unit) -> list[InputError]:
    """The JobSet webhook's create rules on one compiled TrainJob's JobSet (its update rules: `jobset_update`)."""
    return jobset.check(unit)


def _schema(name: str, obj) -> dict:
    return schema.load(f"{name}.{obj.api_version.partition('/')[2]}")
