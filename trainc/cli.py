"""The `trainc` command line: the click tree and the options commands share. Each verb's flow is its module in
trainc/commands/ (exit codes there: 0 success, 1 invalid input, 2 usage)."""

from __future__ import annotations

import functools
import os
import sys

import click

from .errors import TraincError
from .formats.limits import MAX_INPUT_BYTES
from .trainer import releases


def _seed(path: str | None, required: bool = False):
    """The seed, read only when an MPI TrainJob needs one; messages name where its path came from."""
    from .compiler.sshkeys import SeedFile

    ctx = click.get_current_context()
    settings = ctx.meta[_SETTINGS]
    origin = settings.origin("ssh-key-seed")
    return SeedFile(path, origin or "--ssh-key-seed", required, **ctx.meta.get(_KEYS_META, {}), **settings.placement())


def _throwaway_seed():
    """For a command that never prints a key (validate, summary, explain): a fixed seed (no random key, no
    notice), with the run's --ssh-keys settings, so a sealed-secrets run without a usable certificate fails
    there as in `trainc build`."""
    from .compiler.sshkeys import MIN_SEED_BYTES, SeedFile

    return SeedFile(None, _seed=bytes(MIN_SEED_BYTES), **click.get_current_context().meta.get(_KEYS_META, {}))


def _options(**given):
    """The run's options (`trainc.engine.Options`): the command's resolved settings, then `given`."""
    from .engine import Options

    ctx = click.get_current_context()
    settings = ctx.meta[_SETTINGS]
    plugins = tuple(dict.fromkeys(settings.value("plugins"))) if settings.has("plugins") else ()
    return Options.from_settings(settings, plugins=plugins, max_input_bytes=_input_limit(), **given)


_SETTINGS = "trainc.settings"  # ctx.meta key of the command's resolved settings


def _settled(function):
    """The command run with its settings resolved once (trainc.settings: flags, environment, project config,
    the route), its setting parameters replaced by the resolved values; a bad setting is exit 1."""

    @functools.wraps(function)
    def settled(**params):
        from . import settings

        ctx = click.get_current_context()
        try:
            resolved = settings.resolve(ctx, params, _input_limit())
        except TraincError as error:
            from .commands import fail

            fail(error)
        ctx.meta[_SETTINGS] = resolved
        params.update({name: resolved.value(name) for name in settings.SETTINGS if name in params})
        ctx.meta[_KEYS_META] = {key: params.pop(name) for name, key in _KEYS if name in params}
        if "plugins" in params:
            _plugins(ctx, params.pop("plugins"))
        params.pop("trainer_version", None)  # the run's Options take these from the settings (`_options`)
        params.pop("kueue_paths", None)
        params.pop("cluster_state", None)
        if "as_user" in params:
            _admitted_as(params.pop("as_user"), params.pop("as_groups"))
        return function(**params)

    return settled


_INPUT_LIMIT = "trainc.max_input_bytes"  # ctx.meta key of --max-input-bytes, for the run's Options


def _keep_input_limit(ctx, param, value: int) -> None:
    ctx.meta[_INPUT_LIMIT] = value


def _input_limit() -> int:
    """The bound every reader of this command's run takes (`engine.Options.max_input_bytes`)."""
    return click.get_current_context().meta.get(_INPUT_LIMIT, MAX_INPUT_BYTES)


_max_input_bytes = click.option(
    "--max-input-bytes",
    type=click.IntRange(min=0),
    default=MAX_INPUT_BYTES,
    show_default=True,
    expose_value=False,
    envvar="TRAINC_MAX_INPUT_BYTES",
    callback=_keep_input_limit,
    help="Refuse inputs larger than this in all (env TRAINC_MAX_INPUT_BYTES).",
)


def _plugins(ctx, value) -> None:
    """The installed plugins every TrainJob of this run gets (`trainc.compiler.plugins.entrypoints`), loaded now so that a
    missing one is said once."""
    if not value:
        return
    from .compiler.plugins import entrypoints

    for name in dict.fromkeys(value):
        try:
            entrypoints.load(name)
        except entrypoints.PluginError as exc:
            raise click.BadParameter(str(exc), param_hint="--plugin") from None


_trainer_version = click.option(
    "--trainer-version",
    type=click.Choice(releases.NAMES),
    default=releases.DEFAULT.name,
    show_default=True,
    envvar="TRAINC_TRAINER_VERSION",
    help="The Kubeflow Trainer release to render for, as the cluster runs it (env TRAINC_TRAINER_VERSION; pin it "
    "in the project config so an upgrade of trainc changes nothing until the pin does).",
)


def _admitted_as(user: str | None, groups: tuple) -> None:
    """The identity admission policies see (request.userInfo, authorizer checks) travels in the run's Options;
    groups without a user are a usage error, as kubectl's --as-group."""
    if groups and not user:
        raise click.UsageError("--as-group (TRAINC_AS_GROUPS, as-groups) needs --as (TRAINC_AS, as): groups of whom?")


_plugin = click.option(
    "--plugin",
    "plugins",
    multiple=True,
    metavar="NAME",
    envvar="TRAINC_PLUGINS",
    help="An installed plugin (entry point in trainc.plugins) to run for every TrainJob "
    "(env TRAINC_PLUGINS, names separated by spaces; docs/guides/plugins.md).",
)


def _inputs(command=None, *, paths_required=True):
    """PATHS, --runtimes, -n and --max-input-bytes, read the same way by every command that compiles."""
    if command is None:
        return lambda command: _inputs(command, paths_required=paths_required)
    command = _settled(command)
    for option in reversed(
        (
            click.argument(
                "paths", nargs=-1, required=paths_required, type=click.Path(allow_dash=True, readable=False)
            ),
            click.option(
                "--runtimes",
                "runtime_paths",
                multiple=True,
                type=click.Path(),
                envvar="TRAINC_RUNTIMES",
                help="File or directory of (Cluster)TrainingRuntimes; overrides bundled runtimes of the same name "
                "(env TRAINC_RUNTIMES, paths separated by ':').",
            ),
            click.option(
                "-n",
                "--namespace",
                default="default",
                show_default=True,
                envvar="TRAINC_NAMESPACE",
                help="Namespace for TrainJobs, TrainingRuntimes and passed-through namespaced objects that set "
                "none (env TRAINC_NAMESPACE).",
            ),
            _max_input_bytes,
            _plugin,
            _trainer_version,
        )
    ):
        command = option(command)
    return command


_previous = click.option(
    "--previous",
    metavar="REV_OR_DIR",
    help="Check PATHS as updates of their previous versions: a directory holding them, or a git revision to read "
    "PATHS at, as its tree holds them (e.g. origin/main). Objects without one are new.",
)


_cluster_state = click.option(
    "--cluster-state",
    "cluster_state",
    type=click.Path(allow_dash=True),
    metavar="FILE",
    help="The cluster's queues and workloads as `kubectl get clusterqueues,localqueues,resourceflavors,cohorts,"
    "workloads -A -o json` prints them (`-`: stdin): says of each Kueue-managed TrainJob whether it is "
    "admissible now, on which flavor, would preempt, or waits, and for what (docs/guides/kueue.md).",
)


def _policies(command):
    """--policies and the identity they admit as (--as, --as-group, as kubectl's)."""
    for option in reversed(
        (
            click.option(
                "--policies",
                "policy_paths",
                multiple=True,
                type=click.Path(),
                metavar="PATH",
                help="ValidatingAdmissionPolicies, their bindings and params, and the RBAC objects their "
                "authorizer checks read (files or directories), evaluated against every output object; "
                "they do not pass through. Repeatable (docs/guides/policies.md).",
            ),
            click.option(
                "--kueue",
                "kueue_paths",
                multiple=True,
                type=click.Path(),
                metavar="PATH",
                help="The platform's Kueue objects (ClusterQueues, ResourceFlavors, Cohorts, LocalQueues; files "
                "or directories) the rendered JobSets' admissibility is checked against, as if they were "
                "among the inputs; they do not pass through. Repeatable (docs/guides/kueue.md).",
            ),
            click.option(
                "--as",
                "as_user",
                metavar="USER",
                envvar="TRAINC_AS",
                help="The user admission policies see as request.userInfo and authorizer checks ask about, as "
                "kubectl --as (env TRAINC_AS; under the Argo CD plugin: its application controller).",
            ),
            click.option(
                "--as-group",
                "as_groups",
                multiple=True,
                metavar="GROUP",
                envvar="TRAINC_AS_GROUPS",
                help="A group of that user, as kubectl --as-group; repeatable (env TRAINC_AS_GROUPS, separated "
                "by spaces).",
            ),
        )
    ):
        command = option(command)
    return command


_ssh_key_seed = click.option(
    "--ssh-key-seed",
    type=click.Path(),
    envvar="TRAINC_SSH_KEY_SEED_FILE",
    help="File holding the secret seed MPI SSH keys are derived from (env TRAINC_SSH_KEY_SEED_FILE; "
    "docs/guides/mpi.md).",
)
_KEYS_META = "trainc.ssh_keys"  # --ssh-keys, --sealed-secrets-cert, --ssh-key-scope: read by _seed
# parameter -> SeedFile argument: taken off the command's parameters by _settled, for _seed
_KEYS = (("ssh_keys", "mode"), ("sealed_secrets_cert", "cert"), ("ssh_key_scope", "scope"))


def _utf8(ctx, param, value):
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            raise click.BadParameter("is not valid UTF-8") from None
    return value


def _ssh_keys(command):
    """--ssh-keys MODE and its settings (docs/guides/mpi.md#keys-and-gitops)."""
    from .compiler.sshkeys import MODES

    for option in reversed(
        (
            click.option(
                "--ssh-keys",
                type=click.Choice(MODES),
                default=MODES[0],
                show_default=True,
                envvar="TRAINC_SSH_KEYS",
                help="How MPI SSH keys reach the cluster: a Secret derived from the seed, an External Secrets "
                "SSHKey generator, or a SealedSecret (env TRAINC_SSH_KEYS; "
                "docs/guides/mpi.md#keys-and-gitops).",
            ),
            click.option(
                "--sealed-secrets-cert",
                type=click.Path(dir_okay=False),
                metavar="FILE",
                envvar="TRAINC_SEALED_SECRETS_CERT",
                callback=_utf8,
                help="The Sealed Secrets controller's certificate (`kubeseal --fetch-cert`), for --ssh-keys "
                "sealed-secrets (env TRAINC_SEALED_SECRETS_CERT).",
            ),
            click.option(
                "--ssh-key-scope",
                metavar="TEXT",
                envvar="TRAINC_SSH_KEY_SCOPE",
                callback=_utf8,
                help="Bind keys to a tenant (e.g. the Argo CD project): the same job in another scope gets "
                "another key (env TRAINC_SSH_KEY_SCOPE).",
            ),
        )
    ):
        command = option(command)
    return command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trainc")
@click.option(
    "--root",
    metavar="DIR",
    envvar="TRAINC_ROOT",
    help="The repository being rendered (env TRAINC_ROOT): the project config is looked for up to it, and "
    "its paths, and those of the command line, must resolve inside it (the Argo CD plugin and the "
    "kustomize generator set it). Default: the git root, else the current directory, confining the "
    "config's paths only.",
)
def cli(root) -> None:
    """Compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

    Defaults for --runtimes, -n, --ssh-key-seed and --output-dir come from the
    project config (.trainc.yaml or [tool.trainc] in pyproject.toml, see
    docs/reference/config.md);
    `trainc config` shows every setting in effect and where it came from.
    """


def _output_format(ctx, param, value: str) -> str:
    if value not in ("yaml", "json"):
        raise click.BadParameter("-o is the output format (yaml|json); use --output-dir DIR to write files")
    return value


@cli.command()
@_inputs
@click.option(
    "-o",
    "--output",
    "output_format",
    default="yaml",
    show_default=True,
    metavar="yaml|json",
    callback=_output_format,
    help="Output format on stdout: a YAML stream, or a JSON v1 List as kubectl prints.",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Write the files of a rendered tree trainc owns instead of stdout (docs/routes/rendered-tree.md).",
)
@_ssh_key_seed
@_ssh_keys
@click.option(
    "--require-ssh-key-seed",
    is_flag=True,
    envvar="TRAINC_REQUIRE_SSH_KEY_SEED",
    help="An MPI TrainJob without a seed is an error, not a random key (env TRAINC_REQUIRE_SSH_KEY_SEED=1).",
)
@click.option("--trainer-only", is_flag=True, help="Output only the rendered objects; nothing passes through.")
@click.option("--include-runtimes", is_flag=True, help="Pass the runtimes among PATHS through too.")
@click.option("--allow-empty", is_flag=True, help="No documents in PATHS is not an error (an app meant to be empty).")
@click.option(
    "--runtime-snapshot",
    is_flag=True,
    help="Also emit upstream's <trainjob>-runtime-snapshot ConfigMap (the runtime used, as defaulted).",
)
@_previous
@_cluster_state
@_policies
@click.option(
    "-j",
    "--jobs",
    "workers",
    type=click.IntRange(min=1),
    envvar="TRAINC_JOBS",
    help="Processes to build with (env TRAINC_JOBS; default: the available cores); the output is the "
    "same with any number.",
)
@click.option(
    "--check",
    is_flag=True,
    help="With --output-dir: write nothing; exit 1 listing the files there that are stale, missing or left over.",
)
def build(
    paths,
    runtime_paths,
    namespace,
    output_format,
    output_dir,
    ssh_key_seed,
    require_ssh_key_seed,
    trainer_only,
    include_runtimes,
    allow_empty,
    runtime_snapshot,
    previous,
    policy_paths,
    workers,
    check,
):
    """Render the JobSet (and Secrets, ConfigMaps, PodGroups) for every TrainJob in PATHS, and pass every
    other document of PATHS through as it is, in an order `kubectl apply -f -` takes.

    PATHS are YAML or JSON files or directories (searched recursively for *.yaml,
    *.yml and *.json); `-` reads stdin. Runtimes found among them are used too.
    It refuses what `trainc validate` refuses; with --previous, as updates.
    """
    from .commands import build as flow

    _quick_exit()
    flow.main(
        paths,
        _options(
            ssh_key_seed=_seed(ssh_key_seed, require_ssh_key_seed),
            trainer_only=trainer_only,
            include_runtimes=include_runtimes,
            runtime_snapshot=runtime_snapshot,
            previous=previous,
            workers=workers,
        ),
        output_format,
        allow_empty,
        check,
    )


@cli.command()
@_inputs
@_previous
@_cluster_state
@_policies
@_ssh_keys
@click.option(
    "-o",
    "--output",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: lines on stderr; json: one record per problem on stdout.",
)
@click.option(
    "--format",
    "annotations",
    type=click.Choice(["github"]),
    help="github: GitHub Actions annotations (::error file=…::) on stdout, the text on stderr too.",
)
@click.option(
    "--skip-other-files",
    is_flag=True,
    help="Pass over files that mention neither trainer.kubeflow.org nor what it is checked against "
    "(kueue.x-k8s.io, admissionregistration.k8s.io), for hooks given every changed YAML file.",
)
def validate(paths, runtime_paths, namespace, previous, policy_paths, output_format, annotations, skip_other_files):
    """Check PATHS as the API server and Trainer's webhooks would on apply, then compile them.

    Checks the CRD schemas and CEL rules, the TrainJob and (Cluster)TrainingRuntime
    admission webhooks and everything `trainc build` refuses; with --previous, also
    the update rules (immutable fields; runtimePatches only while suspended).
    PATHS and --runtimes are read as by `trainc build`; runtimes among either are
    checked too (the bundled ones are not). Every problem is reported in one run.

    By default nothing is written to stdout. stderr gets one line per error,
    `FILE:LINE:COL: FIELD.PATH: MESSAGE` (the field path is the one the API server
    reports), warnings and notices, and a last summary line. `-o json` prints
    {"problems": [...], "summary": {...}} on stdout instead, each problem with
    file, line, column, field, message and severity (error, warning, notice).
    Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error (including
    a REV_OR_DIR that is neither a directory nor a git revision).
    """
    from .commands import validate as flow

    flow.main(
        paths, _options(ssh_key_seed=_throwaway_seed(), previous=previous), output_format, annotations, skip_other_files
    )


@cli.command()
@click.option(
    "--base",
    metavar="REV_OR_DIR",
    help="The old versions: a git revision to read PATHS (and --runtimes) at, or a directory holding them "
    "(default: HEAD; with --base-trainer-version, PATHS as they are).",
)
@click.option(
    "--base-trainer-version",
    type=click.Choice(releases.NAMES),
    metavar="|".join(releases.NAMES),
    help="Render the base at this Kubeflow Trainer release, the new side at --trainer-version: the upgrade "
    "report, every rendered object with its verdict, suspended and queued jobs called out.",
)
@_inputs
@_ssh_key_seed
@_ssh_keys
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json", "html"]),
    default="text",
    show_default=True,
    help="A unified-diff-style text, Markdown for a pull-request comment (with charts), "
    "JSON, or one self-contained HTML page (a CI artifact).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the text format: auto colours it on a terminal.",
)
@click.option(
    "--trainer-only", is_flag=True, help="Compare only the rendered objects, as `build --trainer-only` prints."
)
@_cluster_state
@_policies
def diff(
    base,
    base_trainer_version,
    paths,
    runtime_paths,
    namespace,
    ssh_key_seed,
    output_format,
    color,
    trainer_only,
    policy_paths,
):
    """Show what changing PATHS since --base does to the rendered objects, and whether the cluster accepts it.

    Both sides are what `trainc build` prints (the rendered objects and what
    passes through), compared object by object (kind, namespace, name), field
    by field; list items are named by their `name` (`env[PET_NNODES]`). Secret
    values are never shown, nor anything computed from them: only "(hidden)".
    Each changed object says what applying it does, or that the cluster will
    refuse the update (the checks of `build --previous`; immutable Secrets and
    ConfigMaps). Exit status as `kubectl diff`: 0 no changes, 1 changes,
    2 an error (invalid input included, unlike `build`'s 1).
    """
    from .commands import diff as flow

    flow.main(
        paths,
        _options(ssh_key_seed=_seed(ssh_key_seed), previous=base, trainer_only=trainer_only),
        output_format,
        color,
        base_trainer_version,
    )


@cli.command("summary")
@_inputs
@click.option(
    "--base",
    metavar="REV_OR_DIR",
    help="Also show what changed since: a git revision to read PATHS (and --runtimes) at, or a directory.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json", "html"]),
    default="text",
    show_default=True,
    help="Aligned tables, Markdown tables and charts for a pull-request comment, JSON, "
    "or one self-contained HTML page (a CI artifact).",
)
@_cluster_state
@_policies
@_ssh_keys
def summary_command(paths, runtime_paths, namespace, base, output_format, policy_paths):
    """Show what the TrainJobs in PATHS ask of the cluster: per TrainJob its Kueue queue, nodes x processes,
    GPUs, CPUs and memory per node and in total, then the totals per queue and per namespace.

    Amounts are requests as Kueue counts them (every pod; limits stand in for
    missing requests). With --base, also what the change adds or frees on each
    queue ("+32 nvidia.com/gpu on team-a/team-a-gpu"). Invalid input: errors as
    `trainc build` reports them, exit 1.
    """
    from .commands import summary as flow

    flow.main(paths, _options(ssh_key_seed=_throwaway_seed(), previous=base), output_format)


@cli.command()
@_inputs
@click.option("--job", metavar="NS/NAME", help="Only the objects rendered for this TrainJob (NAME: in -n's namespace).")
@click.option(
    "--field",
    metavar="PATH",
    help="Only this field (and the fields below it), e.g. "
    "'spec.replicatedJobs[node].template.spec.template.spec.containers[node].env[PET_NNODES]'.",
)
@_cluster_state
@_policies
@_ssh_keys
def explain(paths, runtime_paths, namespace, job, field, policy_paths):
    """Say, for every field of the rendered objects, which pass or plugin wrote it and from which input.

    One line per leaf field, sorted, grouped by object: `PATH ← WHO, from
    FILE:LINE:COL (INPUT.FIELD)`. List items are named by their `name` in
    brackets (`env[PET_NNODES]`), else by index (`args[0]`); map keys that are not
    plain words go in brackets too (`labels[kueue.x-k8s.io/queue-name]`). Values are
    not printed. Invalid input: errors as `trainc build` reports them, exit 1.
    """
    from .commands import explain as flow

    flow.main(paths, _options(ssh_key_seed=_throwaway_seed()), job, field)


@cli.command()
@click.argument("file", default="-", type=click.Path(allow_dash=True, dir_okay=False, readable=False))
@click.option(
    "-o",
    "--output",
    "output_format",
    type=click.Choice(["yaml", "table"]),
    default="yaml",
    show_default=True,
    help="YAML TrainJob status objects, or a table for people.",
)
@_max_input_bytes
def status(file, output_format):
    """Derive the TrainJob status Trainer's controller would write from a JobSet.

    FILE (default stdin) holds JobSets as YAML or JSON, one per document or in a
    List, e.g. `kubectl get jobset NAME -o yaml`. Each gives a TrainJob of the same
    name: Complete/Failed copied from the JobSet's Completed/Failed=True conditions,
    Suspended from spec.suspend (or Resumed after a suspension), jobsStatus from
    status.replicatedJobsStatus. The YAML output is one TrainJob document (metadata
    and status only) per JobSet. The table's STATE is trainc's one-word summary:
    Failed, Complete or Suspended from those conditions, else Running while a job
    is active, else Created.
    """
    from .commands import status as flow

    flow.main(file, output_format, _input_limit())


@cli.command("gc")
@_inputs(paths_required=False)
@click.option(
    "--live",
    "live_path",
    required=True,
    metavar="FILE",
    type=click.Path(allow_dash=True, dir_okay=False, readable=False),
    help="The JobSets in the cluster, as `kubectl get jobsets -A -o json` prints them (- reads stdin).",
)
@click.option(
    "--older-than",
    default="7d",
    show_default=True,
    metavar="DURATION",
    help="Only JobSets that finished more than this long ago (s, m, h, d: 36h, 1d12h).",
)
@click.option("--apply", is_flag=True, help="Remove the files listed (never a file that holds anything else).")
@click.option(
    "-o",
    "--output",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Lines for people, or JSON.",
)
@_ssh_keys
def gc(paths, runtime_paths, namespace, live_path, older_than, apply, output_format):
    """List the input files whose TrainJobs finished in the cluster more than --older-than ago; --apply removes
    them, so that committing the removal makes the GitOps tool prune what was rendered for them.

    PATHS (default: the current directory) are read and compiled as `trainc build`
    reads them; each rendered JobSet is looked up by namespace and name among the
    live ones. A TrainJob is finished when its JobSet is Complete or Failed, as
    `trainc status` derives it, at that condition's lastTransitionTime. A file goes
    only if every object in it is such a TrainJob; a file holding anything else is
    listed as kept, with what else it holds, and never touched. SOURCE_DATE_EPOCH
    pins "now". Invalid input (PATHS or FILE): errors as `trainc build` reports
    them, exit 1.
    """
    from .commands import gc as flow

    flow.main(
        paths, _options(ssh_key_seed=_throwaway_seed(), workers=None), live_path, older_than, apply, output_format
    )


@cli.command("fn")
@_ssh_key_seed
@_ssh_keys
@click.option(
    "-n",
    "--namespace",
    default="default",
    show_default=True,
    envvar="TRAINC_NAMESPACE",
    help="Namespace for TrainJobs that set none, unless the functionConfig or the package's Kptfile sets "
    "one (env TRAINC_NAMESPACE).",
)
@click.option(
    "--runtimes",
    "runtime_paths",
    multiple=True,
    type=click.Path(),
    envvar="TRAINC_RUNTIMES",
    help="File or directory of (Cluster)TrainingRuntimes besides the items, as build's --runtimes "
    "(env TRAINC_RUNTIMES, paths separated by ':'; else the project config's runtimes).",
)
@_policies
@_max_input_bytes
@_trainer_version
@_plugin
@_settled
def krm_function(ssh_key_seed, namespace, runtime_paths, policy_paths):
    """Run as a KRM function (kpt, kustomize): a ResourceList on stdin, one on stdout.

    TrainJobs and runtimes stay among the items, annotated
    config.kubernetes.io/local-config: "true"; the objects rendered for each
    TrainJob are added as <its directory>/rendered/<namespace>/<name>.yaml and
    replaced on the next run. Other items pass through as they came, a
    namespaced one that sets no namespace given the TrainJobs' (as build). A
    functionConfig ConfigMap may set `data.namespace` (nothing else); without
    it, the namespace the package's Kptfile gives its `exec: trainc fn` mutator
    (so `kpt fn eval` renders as `kpt fn render`), else -n. Runtimes come from
    the items and from --runtimes (TRAINC_RUNTIMES, the project config's
    runtimes): kpt runs the function in its own working directory, so the
    config is found from there, as for build.
    """
    from .commands import fn as flow

    flow.main(_options(ssh_key_seed=_seed(ssh_key_seed), trainer_only=True))


@cli.group(invoke_without_command=True)
@click.pass_context
def runtimes(ctx):
    """List the runtimes TrainJobs can name (the default), or show one.

    Bundled runtimes and those in PATHS and --runtimes (and the project config's),
    with kind, namespace, ML policy, source (bundled, or FILE:LINE) and whether it
    is used: a runtime in the inputs shadows a bundled one of the same kind and name.
    How TrainJobs find them: docs/commands/runtimes.md.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(runtimes_list)


@cli.command("config")
@_inputs(paths_required=False)
@_ssh_key_seed
@_ssh_keys
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR", help="As build's --output-dir.")
@_cluster_state
@_policies
def show_config(paths, runtime_paths, namespace, ssh_key_seed, output_dir, policy_paths):
    """Print the settings in effect and where each came from, as `git config --show-origin --list` does.

    One line per value, `ORIGIN<TAB>KEY=VALUE`: the root, each project config read
    (outermost first), then every setting (runtimes, namespace, ssh-key-seed,
    output-dir, plugins, policy-paths, kueue-paths, cluster-state, ssh-keys, sealed-secrets-cert, the identity
    policies admit as: as, as-groups), the house rules (`policies=NAME`) and the
    Trainer releases trainc renders for. ORIGIN is the flag, the
    environment variable, FILE:LINE:COL of the project config, the Argo CD plugin's
    parameter or destination (under TRAINC_ROUTE=argocd), or `default`. Takes the
    flags (and PATHS) the compiling commands take, so `trainc config -n team-a` shows
    their effect; a setting that cannot be used is an error, as in those commands.
    """
    from .commands import config as flow

    flow.main(click.get_current_context().meta[_SETTINGS])


@runtimes.command("list")
@_inputs(paths_required=False)
def runtimes_list(paths, runtime_paths, namespace):
    """List the runtimes, sorted by kind, namespace and name."""
    from .commands import runtimes as flow

    flow.main_list(paths, _options())


@runtimes.command("show")
@click.argument("name")
@_inputs(paths_required=False)
@click.option(
    "--kind", type=click.Choice(["ClusterTrainingRuntime", "TrainingRuntime"]), help="The kind, when a name is both."
)
def runtimes_show(name, paths, runtime_paths, namespace, kind):
    """Print runtime NAME (NAMESPACE/NAME for a TrainingRuntime) as defaulted, the one a TrainJob would use."""
    from .commands import runtimes as flow

    flow.main_show(name, paths, _options(), kind)


@cli.command("schema")
@click.argument(
    "kind", type=click.Choice(["TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"], case_sensitive=False)
)
@click.option(
    "--version",
    "api_version",
    type=click.Choice(["v1alpha1", "v2alpha1"]),
    default="v1alpha1",
    show_default=True,
    help="The trainer.kubeflow.org API version.",
)
def json_schema(kind, api_version):
    """Print the JSON Schema (draft 2020-12) of KIND, for editors and CI (e.g. kubeconform).

    It has the CRDs' descriptions, refuses unknown fields, and checks types, enums,
    patterns and ranges; `trainc validate` also checks the CEL rules and webhooks.
    The same schemas are in the repository under schemas/trainer.kubeflow.org/.
    """
    from .commands import schema as flow

    flow.main(kind, api_version)


@cli.command()
@_trainer_version
def version(trainer_version):
    """Print the versions of trainc, Python, PyYAML (and libyaml), the upstream Trainer revision
    trainc follows, the CRD schema versions it reads, and the Kubeflow Trainer releases it renders for with
    the one in effect (--trainer-version, its environment variable or the project config)."""
    from .commands import version as flow

    flow.main(click.get_current_context(), trainer_version)


@cli.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell completion script for SHELL.

    \b
    bash: eval "$(trainc completion bash)"   (in ~/.bashrc)
    zsh:  eval "$(trainc completion zsh)"    (in ~/.zshrc)
    fish: trainc completion fish > ~/.config/fish/completions/trainc.fish
    """
    from click.shell_completion import get_completion_class

    from .commands import write_out

    write_out(get_completion_class(shell)(cli, {}, "trainc", "_TRAINC_COMPLETE").source())


@cli.command("run")
@_inputs
@click.option("--job", metavar="NS/NAME", help="The TrainJob to run when PATHS hold several (NAME: in -n's namespace).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Stop every pod after S seconds (exit 1).",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Keep the pods' directories (mounted files, logs per container) in DIR.",
)
@click.option("--dry-run", is_flag=True, help="Print each pod's resolved command, env and mounts; start nothing.")
@click.option(
    "--env-file",
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="KEY=VALUE lines added to every pod's env; they stand in for ConfigMaps and Secrets not among the inputs.",
)
@click.option(
    "--mount",
    "mounts",
    multiple=True,
    metavar="NAME=DIR",
    help="Use local DIR for the pod volume NAME (needed for PVCs, hostPath, ...).",
)
@_ssh_keys
@click.option(
    "--max-pods",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    metavar="N",  # plan.MAX_PODS
    help="Refuse a JobSet of more than N pods (each one process or more on this machine).",
)
@_policies
def run_command(paths, runtime_paths, namespace, job, timeout, keep, dry_run, env_file, mounts, max_pods, policy_paths):
    """Compile the TrainJob in PATHS and run its JobSet's pods here, as local processes.

    Images are not pulled: each container's command runs in the current
    environment (PATH, Python, torch, mpirun), in the current directory. Replicated
    jobs start in dependsOn order (initializers, then the trainer; the MPI launcher
    once its nodes run), each Job's pods at once; init containers run first. Env is
    resolved as the kubelet does ($(VAR), fieldRefs, ConfigMap and Secret refs);
    pod DNS names become 127.0.0.1 and declared ports move to free local ports;
    ConfigMap and Secret volumes are written to a directory per pod, emptyDirs are
    temporary directories, and mount paths in command, args and env point there.

    Each pod's output is printed prefixed with its name, progress goes to stderr,
    and at the end the TrainJob status the controller would write. Exit status: 0
    when the JobSet would be Complete (its successPolicy holds), 1 when a pod fails,
    on --timeout or on bad input (nothing started), 130 on Ctrl-C; every pod is
    stopped before trainc exits.
    """
    from .commands import run as flow

    flow.main(
        paths,
        _options(),
        job,
        timeout,
        keep,
        dry_run,
        env_file,
        mounts,
        max_pods,
        click.get_current_context().meta.get(_KEYS_META, {}).get("mode"),
    )


_QUICK_EXIT = "quick_exit"  # the console script's run (ctx.obj): its command holds nothing to clean up at exit


def _quick_exit() -> None:
    """Under the console script, exit without tearing down (`_exit_now`) once the command ends."""
    process = click.get_current_context().obj
    if isinstance(process, dict):
        process[_QUICK_EXIT] = True


def main() -> None:
    """The console script: the command line under the operator's run bound (`trainc.bounds`)."""
    import gc

    from . import bounds

    # A command is one short run over JSON trees, which hold no cycles: the young objects are still collected,
    # but the whole heap (every TrainJob read so far) is never traversed again and again (about 5% of a build)
    gc.set_threshold(10_000, 10, 1_000_000)
    bounds.supervised(_main)


def _main() -> None:
    process: dict = {}  # what the command asks of the process it runs in (`_quick_exit`)
    try:
        cli.main(prog_name="trainc", obj=process)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit as done:
        if process.get(_QUICK_EXIT) and (done.code is None or isinstance(done.code, int)):
            _exit_now(done.code or 0)
        raise


def _exit_now(code: int) -> None:
    """Exit without freeing every object one by one (about 15 ms after a build of 1000 TrainJobs), what is
    buffered written first; returns if that fails, for the usual exit to report it."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
