"""Where runtimes come from: the inputs and --runtimes first, then the bundled ones.

A TrainingRuntime is looked up in the TrainJob's namespace, a
ClusterTrainingRuntime by name only, exactly as upstream's registry does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from .api import Runtime
from .errors import InputError

Key = tuple  # (kind, namespace or None, name)


def key_of(runtime: Runtime, default_namespace: str) -> Key:
    if runtime.kind == "TrainingRuntime":
        return (runtime.kind, runtime.metadata.namespace or default_namespace, runtime.name)
    return (runtime.kind, None, runtime.name)


@dataclass(frozen=True)
class Catalog:
    runtimes: dict  # Key -> Runtime

    def find(self, kind: str, namespace: str, name: str) -> Runtime | None:
        return self.runtimes.get((kind, namespace if kind == "TrainingRuntime" else None, name))

    def namespaces_with(self, kind: str, name: str) -> list[str]:
        return sorted(ns for k, ns, n in self.runtimes if k == kind and n == name and ns is not None)


@cache
def bundled() -> tuple[Runtime, ...]:
    """The runtimes shipped in `runtimes/`, parsed once per process."""
    from . import api, source
    from .data import data_dir

    found = []
    for entry in sorted(data_dir("runtimes").glob("*.yaml")):
        for origin, data in source.load_text(entry.read_text(), f"<bundled>/{entry.name}"):
            found.append(api.parse(origin, data))
    return tuple(found)


def build(user: list[Runtime], default_namespace: str, *, include_bundled: bool = True) -> Catalog:
    """User runtimes override bundled ones of the same kind and name; two user ones clash."""
    runtimes = {key_of(r, default_namespace): r for r in (bundled() if include_bundled else ())}
    seen = {}
    errors = []
    for runtime in user:
        key = key_of(runtime, default_namespace)
        if key in seen:
            first = seen[key].origin
            errors.append(
                InputError(runtime.origin, ("metadata", "name"),
                           f"{runtime.kind} {runtime.name!r} is defined twice (first in {first.file})")
            )
            continue
        seen[key] = runtimes[key] = runtime
    if errors:
        from .errors import InputErrors

        raise InputErrors(errors)
    return Catalog(runtimes)
