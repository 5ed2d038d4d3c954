"""The options several commands share, declared once here and applied by the command modules beside it, and
click's reading of a command line made into the command's `call.Call` (`_settled`)."""

from __future__ import annotations

import functools

import click

from ..formats.limits import MAX_INPUT_BYTES
from ..settings import COMMANDLINE
from ..trainer import releases
from . import call


def _settled(function):
    """The command run as `call.settle` runs it (settings resolved once); its usage errors said as click's."""

    @functools.wraps(function)
    def settled(**params):
        from ..commands import Usage

        ctx = click.get_current_context()
        try:
            return call.settle(call.Call(_invocation(ctx), ctx.obj, _input_limit()), function, params)
        except Usage as usage:
            if usage.param_hint is None:
                raise click.UsageError(usage.message) from None
            raise click.BadParameter(usage.message, param_hint=usage.param_hint) from None

    return settled


def _invocation(ctx):
    """How click read the command line of `ctx`, as the settings take it."""
    from ..settings import Invocation

    top = ctx.find_root()
    root = top.params.get("root")
    sources = {name: getattr(ctx.get_parameter_source(name), "name", None) for name in ctx.params}
    return Invocation(sources, root, root is not None and top.get_parameter_source("root").name == COMMANDLINE)


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


_trainer_version = click.option(
    "--trainer-version",
    type=click.Choice(releases.NAMES),
    default=releases.DEFAULT.name,
    show_default=True,
    envvar="TRAINC_TRAINER_VERSION",
    help="The Kubeflow Trainer release to render for, as the cluster runs it (env TRAINC_TRAINER_VERSION; pin it "
    "in the project config so an upgrade of trainc changes nothing until the pin does).",
)


_plugin = click.option(
    "--plugin",
    "plugins",
    multiple=True,
    metavar="NAME",
    envvar="TRAINC_PLUGINS",
    help="An installed plugin (entry point in trainc.plugins) to run for every TrainJob "
    "(env TRAINC_PLUGINS, names separated by spaces; docs/guides/plugins.md).",
)


def _stacked(command, *options):
    """`command` with `options` applied as decorators written in that order (the first listed first in --help)."""
    for option in reversed(options):
        command = option(command)
    return command


def _inputs(command=None, *, paths_required=True):
    """PATHS, --runtimes, -n and --max-input-bytes, read the same way by every command that compiles."""
    if command is None:
        return lambda command: _inputs(command, paths_required=paths_required)
    command = _settled(command)
    return _stacked(
        command,
        click.argument("paths", nargs=-1, required=paths_required, type=click.Path(allow_dash=True, readable=False)),
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


def _output(choices: list, help: str):
    """-o/--output, one of `choices` (the first by default): the form a command prints its report in."""
    return click.option(
        "-o", "--output", "output_format", type=click.Choice(choices), default=choices[0], show_default=True, help=help
    )


def _review_format(help: str):
    """--format of what a reviewer reads of a pull request (diff, summary)."""
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(["text", "markdown", "json", "html"]),
        default="text",
        show_default=True,
        help=help,
    )


_previous = click.option(
    "--previous",
    metavar="REV_OR_DIR",
    help="Check PATHS as updates of their previous versions: a directory holding them, or a git revision to read "
    "PATHS at, as its tree holds them (e.g. origin/main). Objects without one are new.",
)


_jobs = click.option(
    "-j",
    "--jobs",
    "workers",
    type=click.IntRange(min=1),
    envvar="TRAINC_JOBS",
    help="Processes to compile and check with (env TRAINC_JOBS; default: the available cores); the output is the "
    "same with any number.",
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
    return _stacked(
        command,
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
            help="A group of that user, as kubectl --as-group; repeatable (env TRAINC_AS_GROUPS, separated by spaces).",
        ),
    )


_ssh_key_seed = click.option(
    "--ssh-key-seed",
    type=click.Path(),
    envvar="TRAINC_SSH_KEY_SEED_FILE",
    help="File holding the secret seed MPI SSH keys are derived from (env TRAINC_SSH_KEY_SEED_FILE; "
    "docs/guides/mpi.md).",
)


def _utf8(ctx, param, value):
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            raise click.BadParameter("is not valid UTF-8") from None
    return value


def _ssh_keys(command):
    """--ssh-keys MODE and its settings (docs/guides/mpi.md#keys-and-gitops)."""
    from ..compiler.sshkeys import MODES

    return _stacked(
        command,
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
