"""The `trainc` command line. Exit codes: 0 success, 1 invalid input, 2 usage."""

from __future__ import annotations

import errno
import os
import sys

import click

from .errors import InputErrors, TraincError

EXIT_INVALID = 1
EXIT_DIFF_ERROR = 2  # `trainc diff` exits as `kubectl diff`: 1 means differences
_CHUNK = 1 << 20  # characters of output encoded and written at a time


def _fail(error: TraincError) -> None:
    click.echo(error.render(), err=True)
    sys.exit(EXIT_INVALID)


def _seed(path: str | None, required: bool = False):
    """The seed, read only when an MPI TrainJob needs one; messages name where its path came from."""
    from click.core import ParameterSource

    from .sshkeys import SeedFile

    source = click.get_current_context().get_parameter_source("ssh_key_seed")
    label = {ParameterSource.ENVIRONMENT: "TRAINC_SSH_KEY_SEED_FILE",
             ParameterSource.DEFAULT_MAP: "the project configuration"}.get(source, "--ssh-key-seed")
    return SeedFile(path, label, required)


def _inputs(command):
    """PATHS, --runtimes and -n, read the same way by every command that compiles."""
    for option in reversed((
        click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True, readable=False)),
        click.option("--runtimes", "runtime_paths", multiple=True, type=click.Path(exists=True),
                     envvar="TRAINC_RUNTIMES",
                     help="File or directory of (Cluster)TrainingRuntimes; overrides bundled runtimes of the same name "
                          "(env TRAINC_RUNTIMES, paths separated by os.pathsep)."),
        click.option("-n", "--namespace", default="default", show_default=True, envvar="TRAINC_NAMESPACE",
                     help="Namespace for TrainJobs and TrainingRuntimes that set none (env TRAINC_NAMESPACE)."),
    )):
        command = option(command)
    return command


_previous = click.option(
    "--previous", metavar="REV_OR_DIR",
    help="Check PATHS as updates of their previous versions: a directory holding them, or a git revision to read "
         "the same files at (e.g. origin/main). Objects without one are new.")


def _load_previous(previous, paths, runtime_paths, namespace):
    """The previous versions --previous names (None without it); a REV_OR_DIR that is neither is a usage error."""
    if previous is None:
        return None
    from . import validation
    from .validation.previous import PreviousError

    try:
        return validation.previous.load(previous, [*paths, *runtime_paths], namespace)
    except PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--previous") from None


_ssh_key_seed = click.option(
    "--ssh-key-seed", type=click.Path(dir_okay=False), envvar="TRAINC_SSH_KEY_SEED_FILE",
    help="File holding the secret seed MPI SSH keys are derived from (env TRAINC_SSH_KEY_SEED_FILE).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trainc")
def cli() -> None:
    """Compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create."""


def _output_format(ctx, param, value: str) -> str:
    if value not in ("yaml", "json"):
        raise click.BadParameter("-o is the output format (yaml|json); use --output-dir DIR to write files")
    return value


@cli.command()
@_inputs
@click.option("-o", "--output", "output_format", default="yaml", show_default=True, metavar="yaml|json",
              callback=_output_format,
              help="Output format on stdout: a YAML stream, or a JSON v1 List as kubectl prints.")
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write the files of a rendered tree trainc owns instead of stdout (see README).")
@_ssh_key_seed
@click.option("--require-ssh-key-seed", is_flag=True, envvar="TRAINC_REQUIRE_SSH_KEY_SEED",
              help="An MPI TrainJob without a seed is an error, not a random key (env TRAINC_REQUIRE_SSH_KEY_SEED=1).")
@click.option("--trainer-only", is_flag=True, help="Output only the rendered objects; nothing passes through.")
@click.option("--include-runtimes", is_flag=True, help="Pass the runtimes among PATHS through too.")
@click.option("--allow-empty", is_flag=True, help="No documents in PATHS is not an error (an app meant to be empty).")
@click.option("--runtime-snapshot", is_flag=True,
              help="Also emit upstream's <trainjob>-runtime-snapshot ConfigMap (the runtime used, as defaulted).")
@_previous
@click.option("-j", "--jobs", "workers", type=click.IntRange(min=1), envvar="TRAINC_JOBS",
              help="Processes to build with (env TRAINC_JOBS; default: the available cores); the output is the "
                   "same with any number.")
def build(paths, runtime_paths, namespace, output_format, output_dir, ssh_key_seed, require_ssh_key_seed,
          trainer_only, include_runtimes, allow_empty, runtime_snapshot, previous, workers):
    """Render the JobSet (and Secrets, ConfigMaps, PodGroups) for every TrainJob in PATHS, and pass every
    other document of PATHS through as it is, in an order `kubectl apply -f -` takes.

    PATHS are YAML or JSON files or directories (searched recursively for *.yaml,
    *.yml and *.json); `-` reads stdin. Runtimes found among them are used too.
    It refuses what `trainc validate` refuses; with --previous, as updates.
    """
    from . import parallel, passthrough

    if output_dir is not None and output_format != "yaml":
        raise click.UsageError("--output-dir writes YAML files; -o json is for stdout")
    seed = _seed(ssh_key_seed, require_ssh_key_seed)
    try:
        output = parallel.build(paths, runtime_paths, workers=workers or parallel.available_cores(),
                                namespace=namespace, ssh_key_seed=seed, runtime_snapshot=runtime_snapshot,
                                output_dir=output_dir, previous=_load_previous(previous, paths, runtime_paths, namespace))
        manifests = passthrough.select(output, namespace=namespace, trainer_only=trainer_only,
                                       include_runtimes=include_runtimes, files=output_dir is not None)
    except TraincError as error:
        _fail(error)
    for notice in (*seed.warnings, *output.notices, *manifests.notices):
        click.echo(notice, err=True)
    empty = passthrough.why_empty(output, paths)
    if empty is not None and not allow_empty:
        _fail(TraincError(f"Error: {empty}"))
    if output_dir is None:
        if output_format == "json":
            from .jsonlist import dump_list

            _emit(dump_list(manifests.objects()))
        else:
            _emit(manifests.yaml())
        return
    from . import outputdir

    try:
        outputdir.write(output_dir, outputdir.files(manifests))
    except outputdir.OutputDirError as exc:
        _fail(TraincError(f"Error: {exc}"))


def _emit(text: str) -> None:
    """The output on stdout, written whole to its descriptor: a full disk, a file size limit or a closed
    stdout is an error line and exit 1, never a cut output with exit 0 nor a traceback."""
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "stdout is closed")
        try:
            descriptor = sys.stdout.fileno()
        except (AttributeError, ValueError, OSError):  # not a real file (a test's capture): its own write
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        sys.stdout.flush()
        for start in range(0, len(text), _CHUNK):  # encoded a slice at a time: no second copy of a large output
            data = memoryview(text[start:start + _CHUNK].encode("utf-8"))
            while data:
                data = data[os.write(descriptor, data):]
    except BrokenPipeError:  # the reader went away (`| head`): quiet, and nothing left to flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_INVALID)
    except OSError as exc:
        click.echo(f"Error: cannot write the output: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_INVALID)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


@cli.command()
@_inputs
@_previous
def validate(paths, runtime_paths, namespace, previous):
    """Check PATHS as the API server and Trainer's webhooks would on apply, then compile them.

    Checks the CRD schemas and CEL rules, the TrainJob and (Cluster)TrainingRuntime
    admission webhooks and everything `trainc build` refuses; with --previous, also
    the update rules (immutable fields; runtimePatches only while suspended).
    PATHS and --runtimes are read as by `trainc build`; runtimes among either are
    checked too (the bundled ones are not).

    Nothing is written to stdout. stderr gets one line per error,
    `FILE:LINE:COL: FIELD.PATH: MESSAGE` (the field path is the one the API server
    reports), warnings and notices, and a last summary line. Exit status: 0 valid
    (warnings allowed), 1 invalid, 2 usage error (including a REV_OR_DIR that is
    neither a directory nor a git revision).
    """
    from . import build as builder
    from . import sshkeys

    try:
        before = _load_previous(previous, paths, runtime_paths, namespace)
        # The output is discarded, so MPI keys come from a throwaway seed (no random key, no notice).
        output = builder.build(paths, runtime_paths, namespace=namespace, previous=before,
                               ssh_key_seed=bytes(sshkeys.MIN_SEED_BYTES))
    except TraincError as error:
        click.echo(error.render(), err=True)
        count = len(error.errors) if isinstance(error, InputErrors) else 1
        click.echo(f"invalid: {_plural(count, 'error')}", err=True)
        sys.exit(EXIT_INVALID)
    for notice in output.notices:
        click.echo(notice, err=True)
    click.echo(f"valid: {_plural(output.trainjobs, 'TrainJob')}, {_plural(output.runtimes, 'runtime')}", err=True)


@cli.command()
@click.option("--base", default="HEAD", show_default=True, metavar="REV_OR_DIR",
              help="The old versions: a git revision to read PATHS (and --runtimes) at, or a directory holding them.")
@_inputs
@_ssh_key_seed
@click.option("--format", "output_format", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="A unified-diff-style text, or Markdown for a pull-request comment.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text format: auto colours it on a terminal.")
@click.option("--trainer-only", is_flag=True, help="Compare only the rendered objects, as `build --trainer-only` prints.")
def diff(base, paths, runtime_paths, namespace, ssh_key_seed, output_format, color, trainer_only):
    """Show what changing PATHS since --base does to the rendered objects, and whether the cluster accepts it.

    Both sides are what `trainc build` prints (the rendered objects and what
    passes through), compared object by object (kind, namespace, name), field
    by field; list items are named by their `name` (`env[PET_NNODES]`). Secret
    values are never shown, only a short hash.
    Each changed object says what applying it does, or that the cluster will
    refuse the update (the checks of `build --previous`; immutable Secrets and
    ConfigMaps). Exit status as `kubectl diff`: 0 no changes, 1 changes,
    2 an error (invalid input included, unlike `build`'s 1).
    """
    from . import diff as differ
    from . import sshkeys
    from .validation.previous import PreviousError

    if "-" in paths:  # each side is compiled (and checked) from the files, so they are read more than once
        raise click.BadParameter("stdin (-) cannot be compared: pass files or directories", param_hint="PATHS")
    seed = _seed(ssh_key_seed)
    key_seed = seed
    if seed.path is None:  # both sides from one throwaway seed, so unchanged keys compare equal
        click.echo("notice: no --ssh-key-seed: MPI SSH keys are compared as unchanged; `trainc build` without a seed "
                   "makes a new key every run", err=True)
        key_seed = bytes(sshkeys.MIN_SEED_BYTES)
    try:
        diffs = differ.compare(paths, runtime_paths, base=base, namespace=namespace, ssh_key_seed=key_seed,
                               trainer_only=trainer_only)
    except PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--base") from None
    except TraincError as error:
        click.echo(error.render(), err=True)
        sys.exit(EXIT_DIFF_ERROR)
    for warning in seed.warnings:
        click.echo(warning, err=True)
    if output_format == "markdown":
        _emit(differ.markdown(diffs))
    else:
        colored = color == "always" or (color == "auto" and sys.stdout is not None and sys.stdout.isatty())
        _emit(differ.text(diffs, colored))
    sys.exit(1 if diffs else 0)


@cli.command()
@_inputs
@click.option("--job", metavar="NAMESPACE/NAME", help="Only the objects rendered for this TrainJob.")
@click.option("--field", metavar="PATH",
              help="Only this field (and the fields below it), e.g. "
                   "'spec.replicatedJobs[node].template.spec.template.spec.containers[node].env[PET_NNODES]'.")
def explain(paths, runtime_paths, namespace, job, field):
    """Say, for every field of the rendered objects, which pass or plugin wrote it and from which input.

    One line per leaf field, sorted, grouped by object: `PATH ← WHO, from
    FILE:LINE:COL (INPUT.FIELD)`. List items are named by their `name` in
    brackets (`env[PET_NNODES]`), else by index (`args[0]`); map keys that are not
    plain words go in brackets too (`labels[kueue.x-k8s.io/queue-name]`). Values are
    not printed. Invalid input: errors as `trainc build` reports them, exit 1.
    """
    from .explain import ExplainError
    from .explain import explain as explain_fields

    try:
        text = explain_fields(paths, runtime_paths, namespace=namespace, job=job, field=field)
    except ExplainError as exc:
        raise click.BadParameter(str(exc), param_hint="--field" if field and "field" in str(exc) else "--job") from None
    except TraincError as error:
        _fail(error)
    _emit(text)


@cli.command()
@click.argument("file", default="-", type=click.Path(allow_dash=True, dir_okay=False, readable=False))
@click.option("-o", "--output", "output_format", type=click.Choice(["yaml", "table"]), default="yaml",
              show_default=True, help="YAML TrainJob status objects, or a table for people.")
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
    from . import status as derive

    try:
        statuses = derive.read(file)
    except TraincError as error:
        _fail(error)
    _emit(derive.table(statuses) if output_format == "table" else derive.dump(statuses))


@cli.command("fn")
@_ssh_key_seed
def krm_function(ssh_key_seed):
    """Run as a KRM function (kpt, kustomize): a ResourceList on stdin, one on stdout.

    TrainJobs and runtimes stay among the items, annotated
    config.kubernetes.io/local-config: "true"; the objects rendered for each
    TrainJob are added as <its directory>/rendered/<namespace>/<name>.yaml and
    replaced on the next run. Other items pass through as they came. A
    functionConfig ConfigMap may set `data.namespace` (nothing else).
    """
    from . import krm, source

    try:
        text = source.read("-")
    except TraincError as error:
        _fail(error)
    rendered, notices, errors = krm.run(text, _seed(ssh_key_seed))
    _emit(rendered)
    for line in notices + errors:
        click.echo(line, err=True)
    if errors:
        sys.exit(EXIT_INVALID)


@cli.command("run")
@_inputs
@click.option("--job", metavar="NS/NAME", help="The TrainJob to run when PATHS hold several (NAME: in -n's namespace).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="S",
              help="Stop every pod after S seconds (exit 1).")
@click.option("--keep", type=click.Path(file_okay=False), metavar="DIR",
              help="Keep the pods' directories (mounted files, logs per container) in DIR.")
@click.option("--dry-run", is_flag=True, help="Print each pod's resolved command, env and mounts; start nothing.")
@click.option("--env-file", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="KEY=VALUE lines added to every pod's env; they stand in for ConfigMaps and Secrets not among "
                   "the inputs.")
@click.option("--mount", "mounts", multiple=True, metavar="NAME=DIR",
              help="Use local DIR for the pod volume NAME (needed for PVCs, hostPath, ...).")
def run_command(paths, runtime_paths, namespace, job, timeout, keep, dry_run, env_file, mounts):
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
    from . import run as local

    mounted = {}
    for mount in mounts:
        name, equals, directory = mount.partition("=")
        if not equals or not name or not os.path.isdir(directory):
            raise click.BadParameter(f"{mount!r}: expected NAME=DIR with an existing DIR", param_hint="--mount")
        mounted[name] = directory
    try:
        variables = local.read_env_file(env_file) if env_file else {}
        code, text = local.run(local.Options(paths, runtime_paths, namespace, job, timeout, keep, dry_run, variables,
                                             mounted))
    except local.Usage as error:
        raise click.UsageError(str(error)) from None
    except TraincError as error:
        _fail(error)
    _emit(text)
    sys.exit(code)


def main() -> None:
    try:
        cli.main(prog_name="trainc")
    except KeyboardInterrupt:
        sys.exit(130)
