"""`trainc runtimes`: the runtimes a TrainJob can name, and which one a name resolves to.

A runtime in the inputs or under --runtimes shadows a bundled one of the same
kind and name, as `build` resolves it; both are listed, the bundled one marked.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import engine
from ..compiler.plugins import entrypoints, registry
from ..errors import InputError, InputErrors, TraincError, did_you_mean
from ..formats import position
from ..formats.table import aligned
from ..trainer import api, catalog

HEADER = ("KIND", "NAMESPACE", "NAME", "POLICY", "SOURCE", "USED")


@dataclass(frozen=True)
class Entry:
    key: tuple  # catalog key: (kind, namespace or None, name)
    source: str  # "bundled" or file:line
    runtime: object  # Runtime, or a zero-argument loader of a bundled one
    shadowed_by: str | None = None

    @property
    def loaded(self) -> api.Runtime:
        return self.runtime() if callable(self.runtime) else self.runtime


def _user_runtimes(paths, options) -> list:
    """The runtimes among the inputs (TrainJobs are not read: their problems are `validate`'s business)."""
    found, clashes = catalog.collect(
        engine.runtimes([*paths, *options.runtime_paths], options), options.namespace, include_bundled=False
    )
    if clashes:
        raise InputErrors(clashes)
    return list(found.runtimes.values())


def _place(origin) -> str:
    line, _ = position.locate(origin, ())
    return f"{origin.file}:{line}"


def entries(paths=(), options=engine.Options()) -> list[Entry]:
    """Every runtime of the run's inputs (PATHS, `options.runtime_paths`), user ones before the bundled ones they
    shadow, sorted by kind, namespace, name."""
    users = {catalog.key_of(runtime, options.namespace): runtime for runtime in _user_runtimes(paths, options)}
    found = [Entry(key, _place(runtime.origin), runtime) for key, runtime in users.items()]
    for key, loader in catalog.bundled().items():
        shadow = users.get(key)
        found.append(Entry(key, "bundled", loader, _place(shadow.origin) if shadow is not None else None))
    return sorted(found, key=lambda e: (e.key[0], e.key[1] or "", e.key[2], e.source == "bundled"))


def policy(runtime: api.Runtime) -> str:
    """The runtime's frameworks and gang schedulers (PlainML when it has neither), then the plugins it asks for."""
    names = [
        plugin.label(runtime)
        for plugin in registry.PLUGINS
        if plugin is not registry.PLAIN and plugin.active(runtime) is not None
    ] or [registry.PLAIN.title]
    asked = entrypoints.names(runtime.metadata.annotations.get(entrypoints.ANNOTATION, ""))
    return ", ".join([*names, *(_plugin(name) for name in asked)])


def _plugin(name: str) -> str:
    """`plugin NAME`, loaded to tell whether it is there, as a build would."""
    try:
        entrypoints.load(name)
    except entrypoints.PluginError:
        return f"plugin {name} (not installed)"
    return f"plugin {name}"


def plugins_line(plugins: tuple) -> str:
    """The plugins every TrainJob runs (--plugin, the project config), when there are any."""
    if not plugins:
        return ""
    return f"plugins for every TrainJob: {', '.join(plugins)}\n"


def table(found: list[Entry]) -> str:
    rows = [HEADER] + [
        (
            e.key[0],
            e.key[1] or "-",
            e.key[2],
            policy(e.loaded),
            e.source,
            f"no: shadowed by {e.shadowed_by}" if e.shadowed_by else "yes",
        )
        for e in found
    ]
    return aligned(rows, gap="  ")


def show(found: list[Entry], wanted: str, kind: str | None) -> api.Runtime:
    """The runtime `wanted` (NAME, or NAMESPACE/NAME for a TrainingRuntime) resolves to."""
    namespace, _, name = wanted.rpartition("/")
    used = [e for e in found if e.shadowed_by is None and (kind is None or e.key[0] == kind)]
    matches = [e for e in used if e.key[2] == name and (not namespace or e.key[1] == namespace)]
    if len(matches) == 1:
        return matches[0].loaded
    if matches:
        listed = ", ".join(f"{e.key[0]} {_spelled(e)} ({e.source})" for e in matches)
        raise InputError(
            None, (), f'"{wanted}" names {len(matches)} runtimes: {listed}; choose one with --kind or NAMESPACE/NAME'
        )
    hint = did_you_mean(wanted, {_spelled(e) for e in used})
    raise InputError(
        None, (), f'runtime "{wanted}" not found; `trainc runtimes list` lists them' + (f"; {hint}" if hint else "")
    )


def _spelled(entry: Entry) -> str:
    return f"{entry.key[1]}/{entry.key[2]}" if entry.key[1] else entry.key[2]


def main_list(paths, options) -> None:
    """`trainc runtimes list`: the table, then the installed plugins."""
    from . import fail, write_out

    try:
        found = entries(paths, options)
    except TraincError as error:
        fail(error)
    write_out(table(found) + plugins_line(options.plugins))


def main_show(name, paths, options, kind) -> None:
    """`trainc runtimes show`: the runtime NAME names, as defaulted."""
    from ..formats.serialize import dump_all
    from . import fail, write_out

    try:
        runtime = show(entries(paths, options), name, kind)
    except TraincError as error:
        fail(error)
    write_out(dump_all([runtime.document]))
