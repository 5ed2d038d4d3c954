"""`trainc explain`: for each rendered field, the pass or plugin that wrote it and the input it came from.

The build records provenance as it compiles (`provenance.py`); this module only
reads it. Each leaf field of a rendered object takes the record nearest it (the
field itself, else the list item or map that holds it, upwards). A JobSet field
no pass recorded is the runtime template's: the JobSet mirrors the runtime's
`spec.template`, so it is found at the same path there (list items by name);
present in the runtime as defaulted but absent from its text, it is an API
default (the CRD schema's). What `emit` adds (names, the TrainJob label, Kueue
labels, suspend) is told apart by its path. Values are never printed: an MPI
Secret's key stays out of the output.
"""

from __future__ import annotations

import click

from ..compiler.emit import KUEUE_LABELS, TRAINJOB_LABEL
from ..compiler.provenance import Provenance, Source
from ..errors import Name, TraincError, render_path
from ..formats.position import locate
from ..k8s import fieldpath
from ..validation import cost as costing
from ..validation import kueue, requests
from . import fail, write_out

ARROW = "←"


class ExplainError(ValueError):
    """--job or --field names nothing among the rendered objects (a usage error)."""


def explain(paths, options, *, job: str | None = None, field: str | None = None) -> str:
    """Who wrote each field of the objects the run (`trainc.engine`, recording provenance) renders."""

    from .. import engine

    output = engine.run(engine.Inputs(tuple(paths)), options._replace(provenance=True)).checked()
    recorder, namespace = output.provenance, options.namespace
    if job is not None and "/" not in job:  # NAME alone is in -n's namespace, as `trainc run --job` takes it
        job = f"{namespace}/{job}"
    jobs = [
        (trainjob, objects)
        for trainjob, objects in output.jobs
        if job is None or f"{trainjob.namespace}/{trainjob.name}" == job
    ]
    if job is not None and not jobs:
        raise ExplainError(f"no TrainJob {job} is rendered from the inputs (NAMESPACE/NAME, or NAME in -n's namespace)")
    try:
        parts = fieldpath.parse(field) if field is not None else None
    except ValueError as exc:
        raise ExplainError(f"{field!r}: {exc}") from None
    out = []
    placed = {(each.namespace, each.name): each for each in requests.jobs(output)} if parts is None else {}
    for trainjob, objects in jobs:
        unit = recorder.units[trainjob.namespace, trainjob.name]
        for obj in objects:
            lines = _object_lines(obj, unit, recorder, parts)
            if lines:
                metadata = obj["metadata"]
                out += [f"{obj['kind']} {metadata.get('namespace', '')}/{metadata['name']}", *lines, ""]
        found = placed.get((trainjob.namespace, trainjob.name))
        if found is not None and found.placement is not None and found.placement.attempts:
            out += _placement_lines(found)
        cost = output.costs.get((trainjob.namespace, trainjob.name)) if parts is None else None
        if cost is not None:  # by the project config's prices
            out += [f"Cost {trainjob.namespace}/{trainjob.name}: {costing.words(cost, output.prices.currency)}", ""]
    if not out and parts is not None:
        raise ExplainError(f"no rendered object has the field {field!r}")
    return "\n".join(out)


def _placement_lines(job) -> list[str]:
    """Where Kueue's flavor assigner puts the job's pod sets, each flavor it tried and why it passed it over: on
    an empty cluster, then on the cluster state (--cluster-state)."""
    where = f"ClusterQueue {job.cluster_queue} (LocalQueue {job.namespace}/{job.queue})"
    out = [
        f"Kueue {job.namespace}/{job.name}: {where}, on an empty cluster",
        *(f"  {line}" for line in kueue.explained(job.placement, job.pod_sets)),
    ]
    standing = job.standing
    if standing is not None and standing.attempts:
        live = kueue.Placement(standing.flavors, attempts=standing.attempts)
        out += [
            f"  on the cluster state: {standing.words()}",
            *(f"    {line}" for line in kueue.explained(live, job.pod_sets)),
        ]
    return [*out, ""]


def _object_lines(obj: dict, unit, recorder: Provenance, parts) -> list[str]:
    target = ()
    if parts is not None:
        target = fieldpath.resolve(obj, parts)
        if target is None:
            return []
    shadow = obj
    if obj["kind"] == "JobSet":  # the unit's own trees, which the records name
        shadow = {"metadata": {"labels": unit.labels, "annotations": unit.annotations}, "spec": unit.jobset}
    lines = []
    for path, chain in _leaves(obj, shadow, (), []):
        if path[: len(target)] == target:
            described = _describe(obj, path, recorder.find(chain), unit)
            lines.append(f"  {render_path(path)} {ARROW} {described}{_image_note(obj, path, described, unit)}")
    return sorted(lines)


def _image_note(obj: dict, path: tuple, described: str, unit) -> str:
    """Why an MPI node pod's trainer container keeps the runtime's image although the TrainJob sets one: until
    Trainer v2.4, spec.trainer.image reaches only the job of the `trainer` ancestor step (the launcher)."""
    trainer = unit.trainjob.spec.trainer
    if (
        obj["kind"] != "JobSet"
        or path[-1:] != ("image",)
        or path[-2:-1] != ("node",)
        or trainer is None
        or trainer.image is None
        or unit.ml_policy is None
        or unit.ml_policy.mpi is None
        or described.startswith("trainer override")
    ):
        return ""
    at = "{}:{}".format(*locate(unit.trainjob.origin, ("spec", "trainer", "image")))
    return (
        f"; spec.trainer.image ({unit.trainjob.origin.file}:{at}) reaches only the launcher, as upstream until "
        "v2.4 (--trainer-version): these MPI node pods run the runtime's image, which must hold the same code and "
        "packages"
    )


def _leaves(node, shadow, path: tuple, chain: list):
    """(path, chain) of every leaf: scalars and empty maps and lists; the chain pairs each level's node of the
    compiled tree (None where it has none) with the key taken from it."""
    if isinstance(node, dict) and node:
        for key, value in node.items():
            inner = shadow.get(key) if isinstance(shadow, dict) else None
            yield from _leaves(value, inner, (*path, key), [*chain, (shadow, key)])
    elif isinstance(node, list) and node:
        named = fieldpath.named(node)
        for index, value in enumerate(node):
            inner = shadow[index] if isinstance(shadow, list) and index < len(shadow) else None
            step = Name(value["name"]) if named else index
            yield from _leaves(value, inner, (*path, step), [*chain, (shadow, index)])
    else:
        yield path, chain


def _describe(obj: dict, path: tuple, found, unit) -> str:
    if found is None:
        source, below = _emitted(obj, path, unit)
    else:
        source, below = found
    if not source.mirror:
        return _from(source.by, source.origin, source.path)
    document = unit.trainjob.document if source.origin is unit.trainjob.origin else unit.runtime.document
    at = fieldpath.indexes(document, (*source.path, *below))
    if at is None:  # below the mirrored input, something the input does not hold
        return _from(source.by, source.origin, source.path)
    if locate(source.origin, at, exact=True) is None:
        return f"API default ({source.by}: {render_path(at)})"
    return _from(source.by, source.origin, at)


def _from(by: str, origin, path: tuple) -> str:
    if origin is None:
        return by
    line, column = locate(origin, path)
    return f"{by}, from {origin.file}:{line}:{column}" + (f" ({render_path(path)})" if path else "")


def _emitted(obj: dict, path: tuple, unit) -> tuple[Source, tuple]:
    """What no pass recorded: `emit`'s own fields, else (in a JobSet) the runtime template's."""
    trainjob = unit.trainjob
    if path in (("apiVersion",), ("kind",)):
        return Source("trainc"), ()
    if path in (("metadata", "name"), ("metadata", "labels", TRAINJOB_LABEL)):
        return Source("trainc: named after the TrainJob", trainjob.origin, ("metadata", "name")), ()
    if path == ("metadata", "namespace"):
        if locate(trainjob.origin, path, exact=True) is None:
            return Source("trainc: the default namespace (-n)"), ()
        return Source("trainc: the TrainJob's namespace", trainjob.origin, path), ()
    if path[:2] == ("metadata", "labels") and path[2:] and path[2] in KUEUE_LABELS:
        return Source("TrainJob Kueue label", trainjob.origin, path), ()
    if path == ("spec", "suspend"):
        return Source("TrainJob suspend", trainjob.origin, path), ()
    if obj["kind"] != "JobSet":
        return Source("trainc"), ()
    runtime = unit.runtime
    return Source(f"runtime {runtime.kind}/{runtime.name}", runtime.origin, ("spec", "template"), mirror=True), path


def main(paths, options, job, field) -> None:
    """`trainc explain`: who wrote each field, on stdout; a --job or --field that names nothing is a usage error."""
    try:
        text = explain(paths, options, job=job, field=field)
    except ExplainError as exc:
        raise click.BadParameter(str(exc), param_hint="--field" if field and "field" in str(exc) else "--job") from None
    except TraincError as error:
        fail(error)
    write_out(text)
