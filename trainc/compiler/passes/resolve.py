"""resolve: find the TrainJob's runtime and seed the unit from its JobSet template."""

from __future__ import annotations

from dataclasses import replace

from ... import settings
from ...errors import InputError, Notice, did_you_mean
from ...k8s.omitempty import JOBSET_SPEC, reencode
from ...trainer.api import GROUP, RUNTIME_KINDS
from ...trainer.catalog import deprecation
from ..ir import Unit


def resolve(unit: Unit, ctx) -> Unit:
    trainjob = unit.trainjob
    ref = trainjob.spec.runtime_ref
    if ref.api_group != GROUP or ref.kind not in RUNTIME_KINDS:
        raise InputError(trainjob.origin, ("spec", "runtimeRef"), f"unsupported runtime: {_registry_key(ref)}")
    runtime = ctx.catalog.find(ref.kind, trainjob.namespace, ref.name)
    if runtime is None:
        raise InputError(trainjob.origin, ("spec", "runtimeRef", "name"), not_found(ctx.catalog, ref, trainjob.namespace))
    notices = unit.notices
    deprecated = deprecation(runtime)
    if deprecated is not None:
        message = f"{trainjob.namespace}/{trainjob.name}: Referenced {deprecated}"
        notices += (Notice("warning", trainjob.origin, (), message, at=("spec", "runtimeRef", "name")),)
    template = runtime.spec.template
    return replace(
        unit,
        runtime=runtime,
        jobset=reencode(template.spec, JOBSET_SPEC),
        labels=dict(template.metadata.labels),
        annotations=dict(template.metadata.annotations),
        notices=notices,
    )


def _registry_key(ref) -> str:
    """Upstream's runtime registry key, Go's GroupKind.String(): `<kind>.<group>`, or the kind alone without a group."""
    return f"{ref.kind}.{ref.api_group}" if ref.api_group else ref.kind


def not_found(catalog, ref, namespace: str) -> str:
    if ref.kind == "TrainingRuntime":
        message = f'TrainingRuntime "{ref.name}" not found in namespace "{namespace}"'
        elsewhere = catalog.namespaces_with("TrainingRuntime", ref.name)
        if elsewhere:
            message += (
                f" (it exists in namespace {', '.join(repr(ns) for ns in elsewhere)}; a TrainingRuntime must be in"
                " the TrainJob's namespace, or use a ClusterTrainingRuntime)"
            )
        message += f"; looked in the inputs, {settings.runtimes_words} and the bundled runtimes"
        return message + _nearest(catalog, ref, namespace)
    message = (f'ClusterTrainingRuntime "{ref.name}" not found; looked in the inputs, {settings.runtimes_words} and '
               'the bundled runtimes')
    if catalog.namespaces_with("TrainingRuntime", ref.name):
        return message + f' (a TrainingRuntime "{ref.name}" exists: set runtimeRef.kind: TrainingRuntime)'
    return message + _nearest(catalog, ref, namespace)


def _nearest(catalog, ref, namespace: str) -> str:
    hint = did_you_mean(ref.name, catalog.names(ref.kind, namespace))
    return f"; {hint}" if hint else ""
