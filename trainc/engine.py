"""The one run of trainc: read the input set, register runtimes, compile every TrainJob, admit what it renders,
and return one Result. As kustomize's `krusty.MakeKustomizer(options).Run(fs, path)`, every route calls `run`
with the Options its settings resolved to, and only chooses what to print: `trainc build`, `validate`, `diff`
(both sides), `summary`, `explain`, `fn` (kpt, kustomize's KRM route), `run`, the Python API, and through them
the Argo CD plugin, the kustomize generator and the pre-commit hooks. A check added to the run is on every route.

The run is the tuple `RUN`, in order; each TrainJob goes through `build.STAGES`. Every stage's errors are
collected, none stops the others: a run reports every problem at once (an update refusal beside a policy
denial). Errors are in stage order, each stage's in input order; an update's refusals (`--previous`) are also
listed apart, for `trainc diff`, which shows them as the cluster's verdict on a change.
"""

from __future__ import annotations

from . import build, parallel
from . import inputs as inputset
from .compiler.provenance import Provenance
from .errors import InputError, InputErrors, Notice, Record, locator
from .formats import blockyaml, source
from .formats.limits import MAX_INPUT_BYTES
from .inputs import read_previous
from .trainer import releases
from .trainer.catalog import RUNTIMES_WORDS


class Options(Record):
    """Everything a run depends on besides its inputs, frozen: built once from the resolved settings
    (`from_settings`), or given by the Python API. A setting is one field here, named as in settings.SETTINGS."""

    namespace: str = "default"  # for TrainJobs, runtimes and passed-through namespaced objects that set none
    runtime_paths: tuple = ()  # --runtimes: of their files only runtimes are read
    ssh_key_seed: object = None  # bytes, or a compiler.sshkeys.SeedFile (it carries --ssh-keys and the certificate)
    base_ssh_key_seed: object = None  # what the previous versions were rendered with, if not ssh_key_seed (diff)
    plugins: tuple = ()  # installed plugins every TrainJob runs
    policy_paths: tuple = ()  # --policies: ValidatingAdmissionPolicies, bindings and params, not passed through
    kueue_paths: tuple = ()  # --kueue: the platform's Kueue objects, checked against, not passed through
    cluster_state: str | None = None  # --cluster-state: the cluster's queues and workloads (kubectl get ... -o json)
    output_dir: str | None = None  # a rendered tree: its files are no inputs; objects must map to distinct files
    config: tuple | str | None = None  # the project configs the settings came from, outermost first: house rules
    house_rules: tuple | None = None  # house rules given directly (else the config's)
    prices: object = None  # a formats.prices.Prices given directly (else the config's `prices`, if any)
    previous: object = None  # REV_OR_DIR (or previous_versions.Previous): check PATHS as updates of those
    runtime_snapshot: bool = False  # also emit upstream's <trainjob>-runtime-snapshot ConfigMap
    provenance: bool = False  # record who wrote each field (Result.provenance, for `trainc explain`)
    trainer_only: bool = False  # the output set is the rendered objects only (the host passes the rest on)
    include_runtimes: bool = False  # the runtimes among PATHS are in the output set too
    workers: int | None = 1  # processes to compile with (None: the available cores); the Result is the same
    trainer_version: str | None = None  # the Kubeflow Trainer release to render for (None: releases.DEFAULT, newest)
    as_user: str | None = None  # who applies, for policies' request.userInfo and authorizer checks (--as)
    as_groups: tuple = ()  # and their groups (--as-group)
    max_input_bytes: int = MAX_INPUT_BYTES  # the run's byte bound on everything it reads (--max-input-bytes)
    root: str | None = None  # the repository: a link met walking a directory must lead inside it (`inputs.listed`)
    runtimes_words: str = RUNTIMES_WORDS  # how "runtime not found" names where runtimes come from besides the inputs

    @classmethod
    def from_settings(cls, settings, **given) -> Options:
        """The options of a command's resolved settings (`trainc.settings.Settings`): every setting that is an
        option here, the root and how messages name the runtimes' source, then `given` (what the command's own
        flags say)."""
        from .settings import SETTINGS

        names = set(cls._fields)
        found = {name: settings.value(name) for name in SETTINGS if name in names and settings.has(name)}
        return cls(
            **{
                **found,
                "config": settings.configs or settings.config,
                "root": settings.root.value,
                "runtimes_words": settings.runtimes_words(settings.route),
                **given,
            }
        )

    @property
    def checks_after_build(self) -> bool:
        """Whether a stage after the build may speak of TrainJobs whatever the inputs hold: the platform's queues or
        the cluster's state (kueue), a project config (cost, house rules), policies, house rules or prices."""
        return bool(
            self.kueue_paths
            or self.cluster_state is not None
            or self.policy_paths
            or self.config
            or self.house_rules
            or self.prices is not None
        )

    @property
    def apart(self) -> tuple:
        """What the run reads apart from its inputs, never as one of them however PATHS reach it (a directory
        holding the platform's files too, a hook given every changed file): the rendered tree (--output-dir), the
        platform's Kueue objects and policies (--kueue, --policies) and the cluster state (--cluster-state)."""
        given = (self.output_dir, *self.kueue_paths, *self.policy_paths, self.cluster_state)
        return tuple(path for path in given if path is not None and path != "-")

    @property
    def release(self) -> releases.Release:
        """The Kubeflow Trainer release the run renders for."""
        return releases.named(self.trainer_version) if self.trainer_version else releases.DEFAULT

    def reader(self) -> inputset.Reader:
        """A reader for one run: within its byte bound, confined to its root."""
        return inputset.Reader(source.Budget(self.max_input_bytes), self.root)


class Inputs(Record):
    """What a run reads: files, directories and `-` (stdin), by the input rule (`trainc.inputs`), within the
    run's byte bound; and (origin, object) pairs read already (a ResourceList's items, the Python API's objects)."""

    paths: tuple = ()
    documents: tuple = ()
    skip_other_files: bool = False  # pass over files that name no group the run reads (inputs.MATTERS: hooks)


class Result(build.Output):
    """What a run found: the rendered objects per TrainJob and what passes through (`build.Output`), the
    output set in apply order (`manifests`), notices, and every stage's errors, each with its position."""

    def __init__(self):
        super().__init__()
        self.manifests = None  # output.manifests.Manifests, or None when the output set has errors
        self.previous = None  # previous_versions.Previous, with --previous
        self.base: build.Output | None = None  # what the previous versions compile to (their objects, in the cluster)
        self.unreadable: set = set()  # (namespace, name) of previous TrainJobs that do not compile
        self.base_problems: list = []  # why
        self.provenance: Provenance | None = None
        self.kueue_documents: list = []  # (origin, object) Kueue reads: the cluster's, inputs', --kueue's
        self.base_kueue_documents: list = []  # the same at the base: the previous versions' in the inputs' place
        self.queues = None  # validation.kueue.Queues: what Kueue read of them
        self.placements: dict = {}  # (namespace, name) -> kueue.Placement on those queues, the cluster empty
        self.standings: dict = {}  # (namespace, name) -> clusterstate.Standing (--cluster-state)
        self.standing_notices: list = []  # their notices (summary shows them in its tables)
        self.cost_notices: list = []  # each TrainJob's cost, a notice (summary shows it in its tables)
        self.prices = None  # the price table of the run (formats.prices.Prices), None without one
        self.costs: dict = {}  # (namespace, name) -> validation.cost.Cost of each TrainJob
        self.base_costs: dict = {}  # the same at the base (--previous)

    def base_queues(self) -> list:
        """The documents Kueue reads for the previous versions (--previous): the cluster's and the platform's
        queues, with the previous versions' objects in place of the inputs'."""
        return self.base_kueue_documents or (self.previous.others if self.previous is not None else [])

    def failures(self, refusals: bool = True) -> list:
        """The errors; without an update's `refusals` (what `trainc diff` shows as the cluster's verdict)."""
        if refusals:
            return self.errors
        refused = {id(error) for error in self.refusals}
        return [error for error in self.errors if id(error) not in refused]

    def checked(self, refusals: bool = True) -> Result:
        """The result; raises InputErrors for its errors (with its notices), as every command fails."""
        errors = self.failures(refusals)
        if errors:
            raise InputErrors(errors, notices=self.notices)
        return self


class _Run:
    def __init__(self, inputs: Inputs, options: Options, reader: inputset.Reader):
        self.inputs, self.options = inputs, options
        self.reader = reader  # every read within the run's one bound
        self.result = Result()
        self.read: dict = {}  # the texts a one-process build read, not yet placed in (`blockyaml.remembering`)


def run(inputs: Inputs, options: Options = Options()) -> Result:
    """The run of `inputs` under `options`: every stage of RUN, in order. Raises PreviousError for a
    --previous that is neither a directory nor a revision (a usage error); every other problem is in the
    Result's errors."""
    state = _Run(inputs, options, options.reader())
    for stage in RUN:
        stage(state)
    seen: set = set()  # an error two stages find (a Kueue object without a name: Kueue's and the output set's) once
    state.result.errors = [
        error for error in state.result.errors if not (error.render() in seen or seen.add(error.render()))
    ]
    return state.result


def input_files(state: _Run) -> None:
    """PATHS, less (with skip_other_files) the files that cannot hold what the run compiles or admits against:
    what is passed over is not read into the run, what is kept is read once."""
    if state.inputs.skip_other_files:
        paths = tuple(path for path in state.inputs.paths if state.reader.may_matter(path))
        state.inputs = state.inputs._replace(paths=paths)


def previous(state: _Run) -> None:
    """The previous versions of the inputs (--previous): their update rules apply, and what they compile to is
    what the cluster holds."""
    given = state.options.previous
    if isinstance(given, str):
        try:
            options = state.options
            given = read_previous(
                given, state.inputs.paths, options.namespace, options.runtime_paths, state.reader, options.apart
            )
        except (InputError, InputErrors) as unread:  # no update check without them; the other stages go on
            state.result.errors += unread.errors if isinstance(unread, InputErrors) else [unread]
            given = None
    state.result.previous = given


def compiled(state: _Run) -> None:
    """Read the input set, register its runtimes, thread every TrainJob through build.STAGES: on several
    processes when the run is large (`parallel`: the same result), else in this one."""
    options, result = state.options, state.result
    found = inputset.files(state.inputs.paths, options.runtime_paths, options.apart, options.root)
    recorder = Provenance() if options.provenance else None
    context = dict(
        ssh_key_seed=options.ssh_key_seed,
        runtime_snapshot=options.runtime_snapshot,
        plugins=options.plugins,
        release=options.release,
        runtimes_words=options.runtimes_words,
    )
    output, workers = None, _workers(options)
    if not state.inputs.documents and recorder is None:
        output = parallel.build(
            found,
            workers=workers,
            namespace=options.namespace,
            limit=options.max_input_bytes,
            anchored=options.checks_after_build,
            previous=result.previous,
            **context,
        )
    if output is None:
        errors: list = []
        with blockyaml.remembering(state.read):  # the placed stage places messages in these texts, unread again
            documents = [*state.inputs.documents, *state.reader.documents(found.inputs, errors)]
            runtimes = state.reader.documents(found.runtimes, errors)
        inputs = build.read(documents, runtimes, options.namespace, errors)
        output = build.compile_all(
            inputs,
            options.namespace,
            errors,
            result.previous,
            parallel.marshalled if workers > 1 else None,
            provenance=recorder,
            **context,
        )
        output.files, output.inputs = len(found.inputs), len(documents)
    earlier = result.errors  # the previous versions' problems come first
    vars(result).update(vars(output))
    result.errors[:0], result.provenance = earlier, recorder


def base(state: _Run) -> None:
    """With previous versions, what they compile to (with their own runtimes, else the current ones): the
    objects an update replaces. A previous TrainJob that does not compile (or whose runtime has errors) is
    unreadable, left out."""
    result, options = state.result, state.options
    if result.previous is None:
        return
    before = result.previous
    trainjobs = [obj for obj in before.objects.values() if obj.kind == "TrainJob"]
    runtimes = before.runtimes_then(result.user_runtimes)
    output = build.compile_all(
        build.Inputs(trainjobs=trainjobs, runtimes=runtimes),
        options.namespace,
        [],
        None,
        ssh_key_seed=options.base_ssh_key_seed or options.ssh_key_seed,
        plugins=options.plugins,
        release=before.release or options.release,  # the release they were rendered at
        runtimes_words=options.runtimes_words,
    )
    broken = {_place(error.origin) for error in output.errors}
    bad = {(runtime.kind, runtime.name) for runtime in runtimes if _place(runtime.origin) in broken}
    left = {
        id(trainjob)
        for trainjob in trainjobs
        if _place(trainjob.origin) not in broken
        and (trainjob.spec.runtime_ref.kind, trainjob.spec.runtime_ref.name) not in bad
    }
    owned = {_place(obj.origin) for obj in [*trainjobs, *runtimes]}
    result.base_problems = output.errors
    if any(_place(error.origin) not in owned for error in output.errors):  # no smaller base would compile
        return
    result.unreadable = {(trainjob.namespace, trainjob.name) for trainjob in trainjobs if id(trainjob) not in left}
    output.jobs = [(trainjob, objects) for trainjob, objects in output.jobs if id(trainjob) in left]
    output.others, output.uncompiled = before.others, before.uncompiled
    result.base = output


def _workers(options: Options) -> int:
    """The processes the run may work on."""
    return options.workers or parallel.available_cores()


def _place(origin) -> tuple | None:
    return None if origin is None else (origin.file, origin.index, origin.base)


def kueue(state: _Run) -> None:
    """Whether Kueue would ever admit the rendered JobSets, on the queues among the inputs, the platform's
    (--kueue: read within the run's bound, never passed through) and the cluster's (--cluster-state); with a
    cluster state, where each stands on it."""
    path = state.options.cluster_state
    if not state.result.others and not state.options.kueue_paths and path is None:
        return  # no queue, LimitRange, ...: nothing to check against
    staleness = inputset.Staleness(path, state.inputs.paths) if path is not None else None  # git answers meanwhile
    try:
        _queues(state, staleness)
    finally:
        if staleness is not None:
            staleness.notice()  # waited for, should the standings not have asked


def _queues(state: _Run, staleness) -> None:
    """The kueue stage's work; with a cluster state, `staleness` (inputs.Staleness) says whether it is older than
    the inputs' commit."""
    from .validation import kueue as queues

    result, read = state.result, []
    platform = (
        state.reader.documents(state.reader.listed(list(state.options.kueue_paths)), read)
        if state.options.kueue_paths
        else []
    )
    cluster = _cluster_state(state) if state.options.cluster_state is not None else None
    # the cluster's queues, the inputs' replacing them by name, the platform's theirs
    cluster_documents = cluster.documents if cluster is not None else ()
    known = [*cluster_documents, *result.others, *platform]
    if result.previous is not None:  # what the base is placed and priced on
        result.base_kueue_documents = [*cluster_documents, *result.previous.others, *platform]
    visit = _standing(cluster) if cluster is not None else None
    errors, notices, result.queues, visited = queues.check(
        result.jobs, known, state.options.namespace, result.placements, visit, _workers(state.options)
    )
    origins: dict = {}  # (namespace, name) -> where a standing's notice points
    for key, standing, origin in visited:
        result.standings[key], origins[key] = standing, origin
    _marked(result, errors)  # before they are put in the order of their places
    result.errors += sorted([*read, *errors], key=build.error_place)
    result.notices += notices
    result.kueue_documents = known
    if cluster is not None:
        _standings(state, cluster, origins, staleness)
        # the cluster state says more of a TrainJob it places than its notice here: "namespace/name: ..." (neither
        # name holds ": "), looked up, as every TrainJob may have one
        placed = {f"{namespace}/{name}" for namespace, name in result.standings}
        ours = {id(notice) for notice in notices}
        result.notices = [
            notice
            for notice in result.notices
            if not (id(notice) in ours and notice.message.partition(": ")[0] in placed)
        ]


def _cluster_state(state: _Run):
    """The --cluster-state file read within the run's bound (a clusterstate.State), or None when it has errors
    (in the result's)."""
    from .formats import source
    from .validation import clusterstate
    from .validation import kueue as queues

    result, path = state.result, state.options.cluster_state
    if path == "-" and "-" in state.inputs.paths:
        result.errors.append(InputError(None, (), "--cluster-state -: stdin is already read for PATHS (-)"))
        return None
    errors: list = []
    cluster = clusterstate.read(state.reader.documents([path], errors), source.name(path), errors)
    errors += queues.read(cluster.documents, state.options.namespace)[1]
    result.errors += sorted(errors, key=build.error_place)
    return None if errors else cluster


def _standing(cluster):
    """What the Kueue check calls on each workload (`kueue.check`'s visit): where the TrainJob stands on the
    cluster, admitted, admissible now, preempting or waiting, as ((namespace, name), the standing, where its
    notice points); None when Kueue does not manage it there."""
    from .validation import clusterstate

    def visit(work, jobset: dict, merged):
        found = clusterstate.standing(work, (jobset.get("metadata") or {}).get("labels") or {}, cluster, merged)
        return None if found is None else ((work.namespace, work.name), found, (work.origin, work.at))

    return visit


def _standings(state: _Run, cluster, origins: dict, staleness) -> None:
    """The standings' notices, one per Kueue-managed TrainJob; a snapshot older than the inputs' commit is a
    notice too."""
    from .validation import clusterstate

    result, merged = state.result, state.result.queues
    result.standing_notices = clusterstate.notices(result.standings, origins)
    result.notices += [*result.standing_notices, *clusterstate.unreported(cluster, merged)]
    stale = staleness.notice()
    if stale is not None:
        result.notices.append(stale)


def cost(state: _Run) -> None:
    """With a price table (the project config's `prices`, or Options.prices), what each TrainJob costs an hour
    and at most (`validation.cost`), here and at the base: for summary, diff, house rules and policies."""
    result, options = state.result, state.options
    if options.prices is None and options.config is None:
        return  # no table: nothing to price
    from .formats import prices

    table, errors = (options.prices, []) if options.prices is not None else prices.load(options.config)
    result.errors += errors
    if table is None:
        return
    from .validation import cost as costs

    result.prices, result.costs = table, costs.costs(result, table, workers=_workers(options))
    result.cost_notices = [
        Notice(
            "notice",
            trainjob.origin,
            (),
            f"{key[0]}/{key[1]}: {costs.words(result.costs[key], table.currency)}",
            at=("metadata",),
        )
        for trainjob, _ in result.jobs
        if (key := (trainjob.namespace, trainjob.name)) in result.costs
    ]
    result.notices += result.cost_notices
    if result.base is not None:
        result.base_costs = costs.costs(result.base, table, result.base_queues(), _workers(options))


def policies(state: _Run) -> None:
    """ValidatingAdmissionPolicies (the inputs' and --policies') and the project config's house rules, on every
    rendered and passed-through object; with previous versions, as UPDATEs of what the cluster holds."""
    from . import policy

    result, options = state.result, state.options
    old = {}
    if result.base is not None:
        for obj in [*(obj for _, obj in (*result.base.others, *result.base.uncompiled)), *result.base.documents()]:
            key = policy.identity(obj, options.namespace)
            if key is not None:
                old[key] = obj
    errors, notices = policy.check(
        result,
        namespace=options.namespace,
        old=old,
        paths=options.policy_paths,
        house_rules=options.house_rules,
        config=options.config,
        reader=state.reader,
        user=policy.impersonated(options.as_user, options.as_groups),
        costs=result.costs,
        currency=result.prices.currency if result.prices else None,
        workers=_workers(options),
    )
    result.errors += errors
    result.notices += notices


def output_set(state: _Run) -> None:
    """The objects the run outputs, in apply order: what kubectl apply could not take (an object without a
    name, two with one identity, two for one --output-dir file) is an error."""
    from .errors import caught
    from .output import manifests

    result, options = state.result, state.options
    result.manifests, errors = caught(
        lambda: manifests.select(
            result,
            namespace=options.namespace,
            trainer_only=options.trainer_only,
            include_runtimes=options.include_runtimes,
            files=options.output_dir is not None,
        )
    )
    result.errors += errors


def placed(state: _Run) -> None:
    """Where what the stages said points, found file by file (`_marked`): of the TrainJobs a parallel build
    compiled (whose origins keep only their file and index), the line a one-process build points at; of the
    others, in the text at hand, each read once (printed in output order, a file's messages are far apart)."""
    result = state.result
    with blockyaml.remembering(state.read):
        replaced = _marked(result, [*result.errors, *result.notices])
    if replaced:
        for name in ("notices", "standing_notices", "cost_notices"):
            setattr(result, name, [replaced.get(id(notice), notice) for notice in getattr(result, name)])


def _marked(result: Result, said: list) -> dict:
    """Marks for the errors and notices of `said` with a text at hand or about a TrainJob a parallel build
    compiled: each file's positions found in turn (its text outlined once, a textless one read once), kept as
    marks (not as texts). An error gets its mark; a notice, immutable, is replaced: {id(notice): the notice with
    its mark}. A place its worker found (`parallel.ANCHORS`) is not sought again."""
    anchored = {
        (trainjob.origin.file, trainjob.origin.index, trainjob.origin.base): getattr(trainjob, "marks", ())
        for trainjob, _ in result.jobs
        if trainjob.origin is not None and trainjob.origin.text is None
    }
    textless = {place[:2] for place in anchored}
    work = sorted(
        (
            each
            for each in said
            if each.mark is None
            and each.origin is not None
            and (each.origin.text is not None or (each.origin.file, each.origin.index) in textless)
        ),
        key=lambda each: each.origin.file,
    )
    text, file, replaced = None, None, {}
    for each in work:
        notice = isinstance(each, Notice)
        path, key = (each.path if each.at is None else each.at, False) if notice else (each.path, each.key)
        marks = anchored.get((each.origin.file, each.origin.index, each.origin.base), ())
        mark = marks[parallel.ANCHORS.index(path)] if not key and marks and path in parallel.ANCHORS else None
        if mark is None and each.origin.text is not None:
            mark = locator(each.origin, path, key=key)
        elif mark is None:
            if each.origin.file != file:
                file, text = each.origin.file, reread(each.origin.file)
            if text is None:
                continue
            mark = locator(each.origin._replace(text=text), path, key=key)
        if notice:
            replaced[id(each)] = each._replace(mark=mark)
        else:
            each.mark = mark
    return replaced


def reread(file: str) -> str | None:
    """A file's text read again, where a parallel build kept only its name (`parallel.Placed`); None when it cannot
    be read now (its messages then point at no line, as they would have)."""
    try:
        return source.read(file)
    except Exception:  # the position is a nicety: the message stands without it
        return None


RUN = (
    input_files,
    previous,
    compiled,
    base,
    kueue,
    cost,
    policies,
    output_set,
    placed,
)


def runtimes(paths, options: Options = Options()) -> list:
    """The runtimes among `paths`, TrainJobs left unread (`trainc runtimes`): the run's read stage alone;
    raises InputErrors."""
    errors: list = []
    reader, namespace = options.reader(), options.namespace
    documents = [
        (origin, data)
        for origin, data in reader.documents(reader.listed(paths), errors)
        if not (isinstance(data, dict) and data.get("kind") == "TrainJob")
    ]
    found = build.read(documents, (), namespace, errors).runtimes
    if errors:
        raise InputErrors(sorted(errors, key=build.error_place))
    return found


def house_rules(config) -> tuple[list, list]:
    """(house rules, errors) of the project configs `config` (outermost first), as the policies stage reads
    them: what `trainc config` lists."""
    from .policy import house

    return house.load(config)
