"""patch: the TrainJob's runtimePatches onto the resolved runtime, before any plugin (spec §1.5).

Upstream (TrainingRuntime.newRuntimeInfo and mergeRuntimePatches):
1. the JobSet labels/annotations are the runtime template's, overlaid by each
   patch's `template.metadata` labels/annotations in list order (other metadata
   fields are ignored);
2. each patch's `template.spec` is strategic-merged into the JobSet spec in list
   order, so a later manager wins on the same field (what upstream's merge
   refuses, such as a runtime list item lacking its merge key, `name`, is an
   error at the patch, as the TrainJob would fail);
3. the replicated jobs are then stably re-sorted by their index in the runtime;
   a job only a patch names has no index and sorts like the runtime's first job.

Upstream re-encodes a patch from its Go types before merging (`gotypes`), and
`omitempty` drops Go zero values: `tolerations: []` leaves the runtime's
tolerations alone rather than clearing them, `readOnly: false` patches
nothing. Which fields a patch may touch is the TrainJob CRD schema's
business (other fields are unknown-field errors). The KEP's future
`opaqueRuntimeSpec` targets runtime kinds trainc cannot compile, so it fails
the TrainJob instead of being dropped.
"""

from __future__ import annotations


from ...errors import InputError, InputErrors
from ...k8s import strategic
from ...k8s.omitempty import JOBSET_SPEC_PATCH, reencode
from ..ir import Unit
from ..provenance import Source


def patch(unit: Unit, ctx) -> Unit:
    patches = unit.trainjob.spec.runtime_patches
    if not patches:
        return unit
    _check(unit, patches)
    labels, annotations = dict(unit.labels), dict(unit.annotations)
    for entry in patches:
        metadata = _template(entry).get("metadata") or {}
        labels.update(metadata.get("labels") or {})
        annotations.update(metadata.get("annotations") or {})
    order = {rjob["name"]: index for index, rjob in enumerate(unit.replicated_jobs)}
    jobset, merged = unit.jobset, []
    for index, entry in enumerate(patches):
        spec = _template(entry).get("spec")
        if spec is not None:
            merged.append((index, entry, reencode(spec, JOBSET_SPEC_PATCH)))
            try:
                jobset = strategic.merge(jobset, merged[-1][2])
            except ValueError as exc:  # what upstream's merge refuses too, e.g. a runtime list item without its key
                raise InputError(
                    unit.trainjob.origin,
                    ("spec", "runtimePatches", index, "trainingRuntimeSpec", "template", "spec"),
                    f"cannot apply this patch to the runtime: {exc}",
                ) from None
    if jobset.get("replicatedJobs"):
        jobset["replicatedJobs"].sort(key=lambda rjob: order.get(rjob["name"], 0))
    if ctx.provenance is not None:  # each merge copies the tree, so patches are recorded on the last one, in order
        for index, entry in enumerate(patches):
            metadata = _template(entry).get("metadata") or {}
            for field, written in (("labels", labels), ("annotations", annotations)):
                source = _source(unit, index, entry, "metadata", field)
                ctx.provenance.overlay(written, metadata.get(field) or {}, source)
        for index, entry, spec in merged:
            ctx.provenance.overlay(jobset, spec, _source(unit, index, entry, "spec"), unit.jobset)
    return unit.replace(jobset=jobset, labels=labels, annotations=annotations)


def _source(unit: Unit, index: int, entry: dict, *path) -> Source:
    path = ("spec", "runtimePatches", index, "trainingRuntimeSpec", "template", *path)
    return Source(f"runtimePatches[manager={entry.get('manager')}]", unit.trainjob.origin, path, mirror=True)


def _template(entry: dict) -> dict:
    return (entry.get("trainingRuntimeSpec") or {}).get("template") or {}


def _check(unit: Unit, patches: list) -> None:
    """The KEP's one-spec rule, and no opaque patches for (Cluster)TrainingRuntimes."""
    origin, ref = unit.trainjob.origin, unit.trainjob.spec.runtime_ref
    errors = []
    for index, entry in enumerate(patches):
        if "opaqueRuntimeSpec" not in entry:
            continue
        if "trainingRuntimeSpec" in entry:
            errors.append(InputError(origin, ("spec", "runtimePatches", index), "only one spec can be set"))
            continue
        errors.append(
            InputError(
                origin,
                ("spec", "runtimePatches", index, "opaqueRuntimeSpec"),
                "opaque patches target runtimes other than TrainingRuntime and ClusterTrainingRuntime (a KEP-2170 "
                f'future extension), which trainc does not support yet; patch {ref.kind} "{ref.name}" with '
                "trainingRuntimeSpec instead",
                key=True,
            )
        )
    if errors:
        raise InputErrors(errors)
