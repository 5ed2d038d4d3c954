"""Read the input set and compile every TrainJob: the part of the run (`trainc.engine`) that is one TrainJob at a
time. `STAGES` is the per-TrainJob sequence, in order; the engine threads every TrainJob through it, on one core
or several (`parallel`).

Nothing here raises for bad input: every problem is collected, so the run can report all of them at once.
"""

from __future__ import annotations

import copy

from . import inputs as inputset
from . import validation
from .compiler import emit, pipeline
from .compiler.plugins import entrypoints
from .errors import InputError, Notice, caught, defined_twice
from .k8s import enforced
from .trainer import api, catalog, unresolved


class Output:
    """Rendered objects per TrainJob, in output order, plus notices for stderr and what passes through.

    This and the run's other records of state are plain classes: a dataclass compiles its methods at every
    start of trainc, about half a millisecond each."""

    def __init__(self, trainjobs: int = 0, runtimes: int = 0, errors: list | None = None, namespace: str = "default"):
        self.jobs: list = []  # [(TrainJob, [objects])]
        self.notices: list = []
        self.trainjobs = trainjobs  # how many TrainJobs and user runtimes were checked
        self.runtimes = runtimes
        self.files = 0  # how many input files (PATHS) were read, and documents found in them
        self.inputs = 0
        self.others: list = []  # (origin, object) of other API groups, in input order
        self.uncompiled: list = []  # (origin, object) of Trainer kinds trainc does not compile
        self.runtime_inputs: list = []  # (origin, object) of the runtimes among PATHS
        self.user_runtimes: list = []  # the runtimes read (PATHS and --runtimes), parsed
        self.errors: list = [] if errors is None else errors  # InputErrors of every stage, in input order per stage
        self.refusals: list = []  # those of them that only an update (--previous) refuses
        self.namespace = namespace  # of what sets none: Kueue's queues are read in it, as the API server stores them

    def documents(self) -> list[dict]:
        return [obj for _, objs in self.jobs for obj in objs]


class Inputs:
    def __init__(self, trainjobs: list | None = None, runtimes: list | None = None, unread: bool = False):
        self.trainjobs: list = [] if trainjobs is None else trainjobs
        self.runtimes: list = [] if runtimes is None else runtimes
        self.others: list = []
        self.uncompiled: list = []
        self.runtime_inputs: list = []  # the runtimes among PATHS, as written (parsing defaults them)
        self.unparsed: list = []  # (origin, data, errors) of Trainer documents not read as objects
        self.unread = unread  # a file could not be read at all: a runtime may be missing for that reason alone
        self.notices: list = []  # what --runtimes held besides runtimes, ignored


def parse(documents, namespace: str, errors, inputs: Inputs, runtimes_only: bool = False):
    """Typed TrainJobs and runtimes; Trainer documents that fail go to `inputs.unparsed` (their errors to
    `errors`); other objects go to `inputs`, and the runtimes as written, unless `runtimes_only` (--runtimes)."""
    collect = not runtimes_only
    for origin, data in documents:
        if collect and api.uncompiled(data):
            inputs.uncompiled.append((origin, data))
            continue
        written = None
        if collect and isinstance(data, dict) and data.get("kind") in api.RUNTIME_KINDS:
            written = copy.deepcopy(data)
        parsed, problems = caught(api.parse, origin, data, namespace)
        errors.extend(problems)
        if problems:
            inputs.unparsed.append((origin, data, problems))
        if parsed is not None:
            if written is not None:
                inputs.runtime_inputs.append((origin, written))
            yield parsed
        elif collect and not problems:
            inputs.others.append((origin, data))


def read(documents, runtime_documents, namespace: str, errors: list) -> Inputs:
    """What the documents of PATHS (and those of --runtimes, of which only runtimes count) hold."""
    inputs = Inputs(unread=bool(errors))
    for parsed in parse(documents, namespace, errors, inputs):
        (inputs.trainjobs if parsed.kind == "TrainJob" else inputs.runtimes).append(parsed)
    inputs.runtimes += parse(
        inputset.runtimes_only(runtime_documents, inputs.notices), namespace, errors, inputs, runtimes_only=True
    )
    return inputs


def compile_all(inputs: Inputs, namespace: str, errors: list, previous, keep=None, **context) -> Output:
    """Every runtime checked and every TrainJob threaded through STAGES, in output order; the errors of the
    read (`errors`) come first in the output's."""
    runtimes, problems = catalog.collect(inputs.runtimes, namespace)
    errors.extend(problems)
    ctx = pipeline.Context(runtimes, **context)
    doubtful = unresolved.doubtful(inputs, namespace)
    errors.extend(unresolved.runtimes_of_unparsed(inputs.unparsed, runtimes, doubtful, namespace, ctx.runtimes_words))
    output = Output(len(inputs.trainjobs), len(inputs.runtimes), errors, namespace)
    check_runtimes(inputs.runtimes, previous, output, ctx.release)
    for index, first in in_order([sort_key(trainjob) for trainjob in inputs.trainjobs]):
        trainjob, first = inputs.trainjobs[index], None if first is None else inputs.trainjobs[first]
        if first is None and doubtful(trainjob.spec.runtime_ref, trainjob.namespace, ctx.catalog):
            continue
        job = compile_trainjob(trainjob, first, ctx, previous, inputs.runtimes)
        output.errors += job.errors + job.refusals
        output.refusals += job.refusals
        output.notices += job.notices
        if job.objects is not None:
            output.jobs.append((trainjob, job.objects if keep is None else keep(job.objects)))
    output.notices[:0] = inputs.notices
    output.errors.sort(key=error_place)
    output.others, output.uncompiled = inputs.others, inputs.uncompiled
    output.runtime_inputs, output.user_runtimes = inputs.runtime_inputs, inputs.runtimes
    return output


def error_place(error: InputError) -> tuple:
    return error.position() or ("", 0, 0)


def sort_key(trainjob) -> tuple:
    """Output order: by namespace and name; the input's place breaks ties, so a TrainJob defined twice
    is reported the same way in any file order."""
    origin = trainjob.origin
    return (trainjob.namespace, trainjob.name, origin.file, origin.index, origin.base)


def in_order(keys) -> list[tuple[int, int | None]]:
    """(index into `keys`, index of the first definition when it is a repeat, else None) in output order."""
    seen, out = {}, []
    for index in sorted(range(len(keys)), key=keys.__getitem__):
        namespace, name = keys[index][:2]
        out.append((index, seen.get((namespace, name))))
        seen.setdefault((namespace, name), index)
    return out


def check_runtimes(runtimes, previous, output: Output, release) -> None:
    """The runtime webhook of `release` on every user runtime; with previous versions, the CRD transition rules
    first (an update's refusals)."""
    for runtime in runtimes:
        refused = validation.runtime_transition(runtime, previous)
        problems, warnings = validation.check_runtime(runtime, previous, release)
        output.errors.extend(problems + refused)
        output.refusals.extend(refused)
        output.notices.extend(warnings)


# --- one TrainJob -------------------------------------------------------------------------------------------


class Job:
    """One TrainJob on its way through STAGES. A stage that adds `errors` ends the TrainJob's way; `refusals`
    (what only an update refuses) are reported and the way goes on to its objects, so the run's later stages
    (Kueue, policies, house rules) report theirs too."""

    def __init__(self, trainjob, first, ctx: pipeline.Context, previous, runtimes: list):
        self.trainjob = trainjob
        self.first = first  # the TrainJob of the same name before it, if any
        self.ctx = ctx
        self.previous = previous  # validation.Previous, or None
        self.runtimes = runtimes
        self.change: validation.Change | None = None
        self.unit = None
        self.objects: list | None = None
        self.errors: list = []
        self.refusals: list = []
        self.notices: list = []
        self.done = False  # nothing is rendered for it, and that is no error (MultiKueue)

    def described(self) -> str:
        return f"{self.trainjob.namespace}/{self.trainjob.name}"


def unique(job: Job) -> None:
    """A second TrainJob of the same namespace and name."""
    if job.first is not None:
        message = defined_twice(api.described("TrainJob", job.trainjob.namespace, job.trainjob.name), job.first.origin)
        job.errors.append(InputError(job.trainjob.origin, ("metadata", "name"), message))


def transition(job: Job) -> None:
    """The CRD's transition rules against the previous version (`--previous`): what the API server refuses
    of an update before any webhook runs."""
    job.change, refused = validation.trainjob_transition(job.trainjob, job.previous)
    job.refusals += refused


def webhooks(job: Job) -> None:
    """The TrainJob webhook, as on create, against upstream's RuntimeInfo (the unit after pipeline.FRONT)."""
    admitted, problems = caught(validation.check_trainjob, job.trainjob, job.ctx)
    job.errors += problems if admitted is None else admitted[0]
    job.unit = None if admitted is None else admitted[1]


def update_webhooks(job: Job) -> None:
    """The TrainJob webhook's update rules (runtimePatches only while suspended, ...); not reached when the API
    server refused the update already (the update stages keep upstream's order: the first refusal is the one)."""
    if job.change is not None and not job.refusals:
        job.refusals += validation.trainjob_rules(job.unit, job.change)


def multikueue(job: Job) -> None:
    """A TrainJob MultiKueue runs on a worker cluster: nothing rendered here, and said."""
    if job.trainjob.spec.managed_by == api.KUEUE_MULTIKUEUE:
        job.notices.append(
            Notice(
                "notice",
                job.trainjob.origin,
                (),
                f"{job.described()}: managedBy "
                f"{api.KUEUE_MULTIKUEUE}: MultiKueue runs this TrainJob on a worker cluster, so no "
                "objects are rendered for it",
                at=("spec", "managedBy"),
            )
        )
        job.done = True


def passes(job: Job) -> None:
    """The rest of pipeline.PASSES: the unit compiled."""
    job.unit, problems = caught(pipeline.finish, job.unit, job.ctx)
    job.errors += problems


def jobset(job: Job) -> None:
    """The JobSet webhook's create rules on the compiled JobSet."""
    job.errors += validation.check_jobset(job.unit)


def jobset_update(job: Job) -> None:
    """The JobSet webhook's (and Kueue's) update rules, against the JobSet the previous version compiles to;
    not reached when the TrainJob's update is refused already."""
    if job.previous is not None and not job.refusals:
        from .validation import jobset_update as jobset_updates

        job.refusals += jobset_updates.check(job.unit, job.previous, job.ctx, list(job.runtimes))


def lints(job: Job) -> None:
    """What the cluster accepts but does not do as written."""
    job.notices += [*job.unit.notices, *validation.trainjob_warnings(job.trainjob)]
    if job.trainjob.spec.active_deadline_seconds is not None and enforced.attempts({"spec": job.unit.jobset}) is None:
        job.notices.append(
            Notice(
                "notice",
                job.trainjob.origin,
                (),
                f"{job.described()}: spec.activeDeadlineSeconds ends each run of its "
                f"Jobs, but the JobSet's failurePolicy restarts them without counting ({enforced.UNCOUNTED_RESTART}), so "
                "nothing bounds the total: see docs/reference/differences.md#activedeadlineseconds",
                at=("spec", "activeDeadlineSeconds"),
            )
        )


def objects(job: Job) -> None:
    """The objects the controller would create (emit)."""
    job.objects = emit.objects(job.unit)


def plugin_checks(job: Job) -> None:
    """The house rules of installed plugins (their `check`), on the rendered objects."""
    job.errors += entrypoints.check(job.unit, job.objects, job.ctx.plugins)
    if job.errors:
        job.objects = None


def self_deleting(job: Job) -> None:
    """A JobSet that deletes itself, which a GitOps tool then creates again."""
    ttl = job.objects[-1]["spec"].get("ttlSecondsAfterFinished")
    if ttl is not None:
        job.notices.append(
            Notice(
                "notice",
                job.trainjob.origin,
                (),
                f"{job.described()}: the JobSet deletes itself {ttl}s after it "
                "finishes (ttlSecondsAfterFinished); a GitOps tool that still finds it in git (Argo CD, Flux) "
                "then creates it again and the training runs again: see "
                "docs/routes/ci.md#self-deleting-jobsets-under-gitops",
            )
        )


STAGES = (
    unique,
    transition,
    webhooks,
    update_webhooks,
    multikueue,
    passes,
    jobset,
    jobset_update,
    lints,
    objects,
    plugin_checks,
    self_deleting,
)


def compile_trainjob(trainjob, first, ctx, previous, runtimes) -> Job:
    """`trainjob` through STAGES, until a stage finds an error (or it is done)."""
    job = Job(trainjob, first, ctx, previous, runtimes)
    for stage in STAGES:
        stage(job)
        if job.errors or job.done:
            job.notices = [] if job.errors else job.notices
            break
    return job
