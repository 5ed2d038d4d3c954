"""Every plugin, one record each, in the one order trainc runs them (upstream runs them in Go map order).

A record holds what a plugin does at each extension point; a plugin fills only those it needs:

- `active(runtime)`: what the plugin acts on, the runtime's policy (or the gang scheduler's config), None
  when the runtime does not ask for it. Callers run the other hooks only when it is not None (`runs`), so
  no hook checks its policy again. An installed plugin has none: it runs wherever it is asked for by name.
- `validate(unit, change)`: upstream's TrainJob webhook rules of the plugin (its Validate), run on the
  RuntimeInfo before compiling (`trainc.validation`); InputErrors at upstream's field paths.
- `enforce(unit, ctx)`: mutates the unit for its policy (EnforceMLPolicy / EnforcePodGroupPolicy).
- `build(unit, ctx)`: appends the objects it emits beside the JobSet to `unit.objects` (and any notice to
  `unit.notices`). enforce and build take the pipeline Context (whose `provenance`, when set, they tell
  what they wrote) and return a Unit.
- `check(unit, objects)`: messages about the rendered objects, each an error (a house rule); only
  installed plugins (`trainc.compiler.plugins.entrypoints`) use it.
- `title`: how `trainc runtimes` names the policy (default: the name), formatted with what `active` returned.
- `after_plain`: an ML framework that PlainML still runs before (XGBoost, Flux build on its numNodes and env).

A new framework is one module here and one record in `FRAMEWORKS`; its module is imported when a runtime first
asks for it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from ...errors import Record

ML, GANG = "ml_policy", "pod_group_policy"  # where a runtime spec holds the policies


class Plugin(Record):
    name: str
    active: Callable | None = None
    validate: Callable | None = None
    enforce: Callable | None = None
    build: Callable | None = None
    check: Callable | None = None
    title: str = ""
    after_plain: bool = False

    def runs(self, unit) -> bool:
        """Whether this plugin runs for the unit: its runtime asks for it (an installed one: it was asked for)."""
        return self.active is None or self.active(unit.runtime) is not None

    def label(self, runtime) -> str:
        """How `trainc runtimes` names the policy of a runtime this plugin runs for."""
        return (self.title or self.name).format(self.active(runtime))


def _policy(group: str, field: str) -> Callable:
    """`active` of a built-in plugin: the runtime's `<group>.<field>` (mlPolicy.torch, podGroupPolicy.volcano)."""

    def active(runtime):
        policies = getattr(runtime.spec, group)
        return getattr(policies, field) if policies is not None else None

    return active


def _hook(module: str, name: str) -> Callable:
    """The plugin module's function `name`, imported on its first call: a run imports only the plugins its
    runtimes ask for (MPI's brings the SSH keys and sealing)."""
    found = None

    def hook(*args):
        nonlocal found
        if found is None:
            found = getattr(import_module(f"{__package__}.{module}"), name)
        return found(*args)

    return hook


def _plain(runtime):
    """PlainML acts on the runtime spec (numNodes, env) unless a framework that does that itself is active."""
    if any(plugin.active(runtime) is not None for plugin in FRAMEWORKS if not plugin.after_plain):
        return None
    return runtime.spec


PLAIN = Plugin("plainml", _plain, enforce=_hook("plainml", "enforce"), title="PlainML")
FRAMEWORKS = (
    Plugin("torch", _policy(ML, "torch"), _hook("torch", "validate"), _hook("torch", "enforce"), title="Torch"),
    Plugin(
        "mpi",
        _policy(ML, "mpi"),
        _hook("mpi", "validate"),
        _hook("mpi", "enforce"),
        _hook("mpi", "build"),
        title="MPI ({0.mpi_implementation})",
    ),
    Plugin("jax", _policy(ML, "jax"), enforce=_hook("jax", "enforce"), title="JAX"),
    Plugin(
        "xgboost",
        _policy(ML, "xgboost"),
        _hook("xgboost", "validate"),
        _hook("xgboost", "enforce"),
        title="XGBoost",
        after_plain=True,
    ),
    Plugin(
        "flux",
        _policy(ML, "flux"),
        _hook("flux", "validate"),
        _hook("flux", "enforce"),
        _hook("flux", "build"),
        title="Flux",
        after_plain=True,
    ),
)
ML_POLICIES = (PLAIN, *FRAMEWORKS)
GANG_SCHEDULERS = (
    Plugin(
        "coscheduling",
        _policy(GANG, "coscheduling"),
        enforce=_hook("coscheduling", "enforce"),
        build=_hook("coscheduling", "build"),
    ),
    Plugin(
        "volcano",
        _policy(GANG, "volcano"),
        _hook("volcano", "validate"),
        _hook("volcano", "enforce"),
        _hook("volcano", "build"),
    ),
)
PLUGINS = ML_POLICIES + GANG_SCHEDULERS  # builders run in this order: dependents before the JobSet
