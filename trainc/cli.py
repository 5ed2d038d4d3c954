"""The `trainc` command line. Exit codes: 0 success, 1 invalid input, 2 usage."""

from __future__ import annotations

import errno
import os
import sys

import click

from .errors import InputErrors, TraincError

EXIT_INVALID = 1


def _fail(error: TraincError) -> None:
    click.echo(error.render(), err=True)
    sys.exit(EXIT_INVALID)


def _seed(path: str | None) -> bytes | None:
    if path is None:
        return None
    from .sshkeys import load_seed

    try:
        return load_seed(path)
    except (OSError, ValueError) as exc:
        raise click.BadParameter(str(exc), param_hint="--ssh-key-seed") from None


def _inputs(command):
    """PATHS, --runtimes and -n, read the same way by every command that compiles."""
    for option in reversed((
        click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True, readable=False)),
        click.option("--runtimes", "runtime_paths", multiple=True, type=click.Path(exists=True),
                     help="File or directory of (Cluster)TrainingRuntimes; overrides bundled runtimes of the same name."),
        click.option("-n", "--namespace", default="default", show_default=True,
                     help="Namespace for TrainJobs and TrainingRuntimes that set none."),
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


@cli.command()
@_inputs
@click.option("-o", "--output-dir", type=click.Path(file_okay=False),
              help="Write one file per TrainJob, DIR/<namespace>/<name>.yaml, instead of stdout.")
@_ssh_key_seed
@click.option("--runtime-snapshot", is_flag=True,
              help="Also emit upstream's <trainjob>-runtime-snapshot ConfigMap (the runtime used, as defaulted).")
@_previous
@click.option("-j", "--jobs", "workers", type=click.IntRange(min=1), envvar="TRAINC_JOBS",
              help="Processes to build with (env TRAINC_JOBS; default: the available cores). The output is "
                   "the same with any number.")
def build(paths, runtime_paths, namespace, output_dir, ssh_key_seed, runtime_snapshot, previous, workers):
    """Render the JobSet (and Secrets, ConfigMaps, PodGroups) for every TrainJob in PATHS.

    PATHS are YAML or JSON files or directories (searched recursively for *.yaml,
    *.yml and *.json); `-` reads stdin. Runtimes found among them are used too.
    It refuses what `trainc validate` refuses; with --previous, as updates.
    """
    from . import parallel, staging

    stage = staging.Spool() if output_dir is None else staging.Directory(output_dir)
    try:
        output = parallel.build(paths, runtime_paths, stage.add, workers=workers or parallel.available_cores(),
                                namespace=namespace, ssh_key_seed=_seed(ssh_key_seed), runtime_snapshot=runtime_snapshot,
                                previous=_load_previous(previous, paths, runtime_paths, namespace))
    except TraincError as error:
        stage.discard()
        _fail(error)
    except BaseException:
        stage.discard()
        raise
    if stage.failed is not None:
        stage.discard()
        if output_dir is None:
            _write_failed(stage.failed)
        raise click.FileError(stage.failed.filename or output_dir, hint=stage.failed.strerror) from None
    for notice in output.notices:
        click.echo(notice, err=True)
    if output_dir is None:
        _emit(stage.copy_to)
        stage.discard()
    else:
        stage.commit()


def _emit(write) -> None:
    """`write(stdout)`, the output; a full disk or a closed stdout is an error line and exit 1, not a traceback."""
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "stdout is closed")
        write(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`| head`): quiet, and nothing left to flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_INVALID)
    except OSError as exc:
        _write_failed(exc)


def _write_failed(exc: OSError) -> None:
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
    text = derive.table(statuses) if output_format == "table" else derive.dump(statuses)
    _emit(lambda stdout: stdout.write(text))


@cli.command("fn")
@_ssh_key_seed
def krm_function(ssh_key_seed):
    """Run as a KRM function (kustomize, kpt): a ResourceList on stdin, one on stdout.

    TrainJobs and runtimes among the items are replaced by the rendered objects;
    other items pass through. A functionConfig ConfigMap may set `data.namespace`.
    """
    from . import krm, source

    try:
        text = source.read("-")
    except TraincError as error:
        _fail(error)
    rendered, notices, errors = krm.run(text, _seed(ssh_key_seed))
    _emit(lambda stdout: stdout.write(rendered))
    for line in notices + errors:
        click.echo(line, err=True)
    if errors:
        sys.exit(EXIT_INVALID)


def main() -> None:
    try:
        cli.main(prog_name="trainc")
    except KeyboardInterrupt:
        sys.exit(130)
