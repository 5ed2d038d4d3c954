"""Plugins from installed distributions, without forking trainc: the `trainc.plugins` entry-point group.

An entry point names a `trainc.plugins.Plugin` record (the public name of `registry.Plugin`), the same record
the built-in plugins are:
`enforce(unit, ctx)` runs after the built-in ML policies (an ML-policy plugin), `build(unit, ctx)` after the
built-in builders (objects beside the JobSet), and `check(unit, objects)` on each TrainJob's rendered objects
(a house rule: every message it returns is an error at the TrainJob). A plugin is loaded only when asked for:

- by a runtime, in its annotation `trainc.io/plugins: "name[,name...]"`: it then runs for the TrainJobs
  compiled from that runtime;
- by the project config (`plugins: [name, ...]`), `--plugin NAME` or `TRAINC_PLUGINS`: it runs for every
  TrainJob.

The group's name is public and stable (a plugin author types it); the group trainc once read,
`trainc.compiler.plugins` (an internal module path), is still read, below it: a name in both is the public one's.

Nothing here touches `importlib.metadata` until a plugin is asked for, so start-up stays lazy.
"""

from __future__ import annotations

from functools import lru_cache

from ...errors import InputError, TraincError

GROUP = "trainc.plugins"
FORMER_GROUPS = ("trainc.compiler.plugins",)
ANNOTATION = "trainc.io/plugins"


class PluginError(TraincError):
    """A plugin asked for by name that is not installed or does not load as a plugin."""


def names(text: str) -> list[str]:
    """`a, b` -> ['a', 'b']: the names an annotation lists."""
    return [name.strip() for name in text.split(",") if name.strip()]


def installed() -> dict:
    """{name: entry point} of the `trainc.plugins` group (and the former group), over every installed
    distribution."""
    from importlib.metadata import entry_points

    found = {}
    for group in (*FORMER_GROUPS, GROUP):  # the public group last: its name wins
        found.update((entry.name, entry) for entry in entry_points(group=group))
    return found


@lru_cache(maxsize=None)
def load(name: str):
    """The Plugin record the entry point `name` names; PluginError when there is none or it is not one."""
    from .registry import Plugin

    found = installed()
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise PluginError(f"no installed plugin {name!r} in the entry-point group {GROUP} (installed: {known})")
    entry = found[name]
    try:
        plugin = entry.load()
    except Exception as exc:  # the distribution's own code: any failure is reported, never a traceback
        raise PluginError(f"plugin {name!r} ({entry.value}) does not load: {type(exc).__name__}: {exc}") from None
    if not isinstance(plugin, Plugin):
        raise PluginError(f"plugin {name!r} ({entry.value}) is not a trainc.plugins.Plugin ({type(plugin).__name__})")
    return plugin


def for_unit(unit, requested: tuple = ()) -> list:
    """The plugins this TrainJob runs: those `requested` for every TrainJob (--plugin, TRAINC_PLUGINS, the
    project config: the run's `pipeline.Context.plugins`), then its runtime's, each once, in order."""
    annotations = unit.runtime.metadata.annotations if unit.runtime is not None else {}
    wanted = [*requested, *names(annotations.get(ANNOTATION, ""))]
    if not wanted:
        return []
    found = []
    for name in dict.fromkeys(wanted):
        try:
            found.append(load(name))
        except PluginError as exc:
            if name in requested:
                raise
            raise InputError(unit.runtime.origin, ("metadata", "annotations", ANNOTATION), str(exc)) from None
    return found


def call(plugin, hook, unit, *args):
    """`hook(unit, *args)` of an installed plugin: an InputError it raises is the TrainJob's error as a built-in
    plugin's is; any other failure of its code becomes one too, never a traceback."""
    try:
        return hook(unit, *args)
    except TraincError:
        raise
    except Exception as exc:
        raise InputError(
            unit.trainjob.origin, (), f"plugin {plugin.name!r} failed: {type(exc).__name__}: {exc}"
        ) from None


def enforce(unit, ctx):
    """The unit after the ML-policy hooks of its plugins (after the built-in ML policies)."""
    for plugin in for_unit(unit, ctx.plugins):
        if plugin.enforce is not None:
            unit = call(plugin, plugin.enforce, unit, ctx)
    return unit


def check(unit, objects: list, requested: tuple = ()) -> list[InputError]:
    """The house rules' verdicts on one TrainJob's rendered objects, as errors at the TrainJob."""
    errors = []
    for plugin in for_unit(unit, requested):
        if plugin.check is not None:
            errors += [
                InputError(unit.trainjob.origin, (), f"{plugin.name}: {message}")
                for message in call(plugin, plugin.check, unit, objects)
            ]
    return errors


def describe() -> list[str]:
    """`plugin NAME: DISTRIBUTION VERSION (module:attribute)` for every installed plugin, sorted."""
    lines = []
    for name, entry in sorted(installed().items()):
        dist = entry.dist
        owner = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "unknown distribution"
        lines.append(f"plugin {name}: {owner} ({entry.value})")
    return lines
