"""resolve: find the TrainJob's runtime and seed the unit from its JobSet template."""

from __future__ import annotations


from ...errors import InputError, Notice
from ...k8s.omitempty import JOBSET_SPEC, reencoded
from ...trainer.api import GROUP, RUNTIME_KINDS
from ...trainer.catalog import deprecation, not_found
from ..ir import Unit


def resolve(unit: Unit, ctx) -> Unit:
    trainjob = unit.trainjob
    ref = trainjob.spec.runtime_ref
    if ref.api_group != GROUP or ref.kind not in RUNTIME_KINDS:
        raise InputError(trainjob.origin, ("spec", "runtimeRef"), f"unsupported runtime: {_registry_key(ref)}")
    runtime = ctx.catalog.find(ref.kind, trainjob.namespace, ref.name)
    if runtime is None:
        missing = not_found(ctx.catalog, ref, trainjob.namespace, ctx.runtimes_words)
        raise InputError(trainjob.origin, ("spec", "runtimeRef", "name"), missing)
    notices = unit.notices
    deprecated = deprecation(runtime)
    if deprecated is not None:
        message = f"{trainjob.namespace}/{trainjob.name}: Referenced {deprecated}"
        notices += (Notice("warning", trainjob.origin, (), message, at=("spec", "runtimeRef", "name")),)
    template = runtime.spec.template
    return unit.replace(
        runtime=runtime,
        jobset=reencoded(template.spec, JOBSET_SPEC),
        labels=dict(template.metadata.labels),
        annotations=dict(template.metadata.annotations),
        notices=notices,
        release=ctx.release,  # for the webhook rules, which get the unit alone
    )


def _registry_key(ref) -> str:
    """Upstream's runtime registry key, Go's GroupKind.String(): `<kind>.<group>`, or the kind alone without a group."""
    return f"{ref.kind}.{ref.api_group}" if ref.api_group else ref.kind
