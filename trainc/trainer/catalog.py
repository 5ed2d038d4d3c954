"""Where runtimes come from: the inputs and --runtimes first, then the bundled ones.

A TrainingRuntime is looked up in the TrainJob's namespace, a
ClusterTrainingRuntime by name only, exactly as upstream's registry does.
Bundled runtimes are read and validated only when a TrainJob uses one, so start-up does
not pay for the whole library.
"""

from __future__ import annotations

import os
from functools import cache, partial

from ..errors import InputError, InputErrors, Origin, Record, defined_twice, did_you_mean
from .api import Runtime, described, identity

Key = tuple  # (kind, namespace or None, name)
SUPPORT_LABEL = "trainer.kubeflow.org/support"
# How messages name where runtimes come from besides the inputs ("runtime not found"), unless the run says otherwise
# (`engine.Options.runtimes_words`: the plugin's parameter under Argo CD, the config's key under pre-commit).
RUNTIMES_WORDS = "--runtimes"


def deprecation(runtime: Runtime) -> str | None:
    """`ClusterTrainingRuntime "X" is deprecated …` for a ClusterTrainingRuntime labeled `support: deprecated`
    (upstream's IsSupportDeprecated), else None: the TrainJob webhook warns "Referenced " + this, the
    ClusterTrainingRuntime webhook this as it is."""
    if runtime.kind != "ClusterTrainingRuntime" or runtime.metadata.labels.get(SUPPORT_LABEL) != "deprecated":
        return None
    return (
        f'ClusterTrainingRuntime "{runtime.name}" is deprecated and will be removed in a future release of '
        "Kubeflow Trainer. See runtime deprecation policy: "
        "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy"
    )


def key_of(runtime: Runtime, default_namespace: str) -> Key:
    return identity(runtime.kind, runtime.metadata.namespace or default_namespace, runtime.name)


class Catalog(Record):
    runtimes: dict  # Key -> Runtime, or a zero-argument loader for a bundled one

    def find(self, kind: str, namespace: str, name: str) -> Runtime | None:
        found = self.runtimes.get(identity(kind, namespace, name))
        return found() if callable(found) else found

    def names(self, kind: str, namespace: str | None) -> list[str]:
        """The names a runtimeRef of `kind` can find from `namespace`."""
        _, scope, _ = identity(kind, namespace, "")
        return sorted(n for k, ns, n in self.runtimes if k == kind and ns == scope)

    def namespaces_with(self, kind: str, name: str) -> list[str]:
        return sorted(ns for k, ns, n in self.runtimes if k == kind and n == name and ns is not None)


@cache
def _bundled_runtime(file_name: str) -> Runtime:
    from ..formats import source
    from ..shipped import data_dir, read_text
    from . import api

    try:
        text = read_text("runtimes", file_name)
    except OSError as exc:  # an installation this user cannot read (a checkout in another user's home)
        raise InputError(
            Origin(os.path.join(data_dir("runtimes"), file_name)),
            (),
            f"cannot read the bundled runtime: {exc.strerror or exc}",
        ) from None
    [(origin, data)] = source.load_text(text, f"<bundled>/{file_name}")
    return api.parse(origin, data)


def bundled() -> dict:
    """Key -> loader for each runtime shipped in `runtimes/`: `<name>.yaml` holds the ClusterTrainingRuntime
    `<name>` and nothing else, so only the files of the runtimes TrainJobs use are read. Raises InputError
    when the folder cannot be listed."""
    return {
        ("ClusterTrainingRuntime", None, name): partial(_bundled_runtime, f"{name}.yaml") for name in _bundled_names()
    }


@cache  # shipped with trainc: the same for the whole process, listed once
def _bundled_names() -> tuple:
    from ..shipped import data_dir

    folder = data_dir("runtimes")
    try:
        entries = os.listdir(folder)
    except OSError as exc:
        raise InputError(Origin(folder), (), f"cannot read the bundled runtimes: {exc.strerror or exc}") from None
    return tuple(
        entry[: -len(".yaml")] for entry in sorted(entries) if entry.endswith(".yaml") and not entry.startswith(".")
    )


def build(user: list[Runtime], default_namespace: str, *, include_bundled: bool = True) -> Catalog:
    """User runtimes override bundled ones of the same kind and name; two user ones clash (an InputErrors)."""
    found, errors = collect(user, default_namespace, include_bundled=include_bundled)
    if errors:
        raise InputErrors(errors)
    return found


def collect(user: list[Runtime], default_namespace: str, *, include_bundled: bool = True) -> tuple[Catalog, list]:
    """The catalog and the clashes found building it (the first of two clashing runtimes is kept)."""
    runtimes, errors = {}, []
    if include_bundled:
        try:
            runtimes = bundled()
        except InputError as error:
            errors.append(error)
    seen = {}
    # the input's place decides which of two clashing runtimes is "first", whatever the file order
    for runtime in sorted(user, key=lambda r: (r.origin.file, r.origin.index, r.origin.base) if r.origin else ()):
        key = key_of(runtime, default_namespace)
        if key in seen:
            errors.append(
                InputError(runtime.origin, ("metadata", "name"), defined_twice(described(*key), seen[key].origin))
            )
            continue
        seen[key] = runtimes[key] = runtime
    return Catalog(runtimes), errors


def not_found(catalog: Catalog, ref, namespace: str, runtimes_words: str = RUNTIMES_WORDS) -> str:
    """What a runtimeRef naming no runtime says: where trainc looked (`runtimes_words`: where runtimes come from
    besides the inputs), where that name is, the nearest names."""
    if ref.kind == "TrainingRuntime":
        message = f'TrainingRuntime "{ref.name}" not found in namespace "{namespace}"'
        elsewhere = catalog.namespaces_with("TrainingRuntime", ref.name)
        if elsewhere:
            message += (
                f" (it exists in namespace {', '.join(repr(ns) for ns in elsewhere)}; a TrainingRuntime must be in"
                " the TrainJob's namespace, or use a ClusterTrainingRuntime)"
            )
        message += f"; looked in the inputs, {runtimes_words} and the bundled runtimes"
        return message + _nearest(catalog, ref, namespace)
    message = (
        f'ClusterTrainingRuntime "{ref.name}" not found; looked in the inputs, {runtimes_words} and '
        "the bundled runtimes"
    )
    if catalog.namespaces_with("TrainingRuntime", ref.name):
        return message + f' (a TrainingRuntime "{ref.name}" exists: set runtimeRef.kind: TrainingRuntime)'
    return message + _nearest(catalog, ref, namespace)


def _nearest(catalog, ref, namespace: str) -> str:
    hint = did_you_mean(ref.name, catalog.names(ref.kind, namespace))
    return f"; {hint}" if hint else ""
