"""The `trainc` command line. Exit codes: 0 success, 1 invalid input, 2 usage."""

from __future__ import annotations

import os
import sys

import click

from .errors import TraincError

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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trainc")
def cli() -> None:
    """Compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--runtimes", "runtime_paths", multiple=True, type=click.Path(exists=True),
              help="File or directory of (Cluster)TrainingRuntimes; overrides bundled runtimes of the same name.")
@click.option("-n", "--namespace", default="default", show_default=True,
              help="Namespace for TrainJobs and TrainingRuntimes that set none.")
@click.option("-o", "--output-dir", type=click.Path(file_okay=False),
              help="Write one file per TrainJob, DIR/<namespace>/<name>.yaml, instead of stdout.")
@click.option("--ssh-key-seed", type=click.Path(dir_okay=False), envvar="TRAINC_SSH_KEY_SEED_FILE",
              help="File holding the secret seed MPI SSH keys are derived from (env TRAINC_SSH_KEY_SEED_FILE).")
def build(paths, runtime_paths, namespace, output_dir, ssh_key_seed):
    """Render the JobSet (and Secrets, ConfigMaps, PodGroups) for every TrainJob in PATHS.

    PATHS are YAML files or directories (searched recursively for *.yaml and
    *.yml); `-` reads stdin. Runtimes found among them are used too.
    """
    from .build import build as build_all
    from .emit import dump

    try:
        output = build_all(paths, runtime_paths, namespace=namespace, ssh_key_seed=_seed(ssh_key_seed))
    except TraincError as error:
        _fail(error)
    for notice in output.notices:
        click.echo(notice, err=True)
    if output_dir is None:
        sys.stdout.write(dump(output.documents()))
        return
    for trainjob, objects in output.jobs:
        folder = os.path.join(output_dir, trainjob.namespace)
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, f"{trainjob.name}.yaml")
        with open(target + ".tmp", "w", encoding="utf-8") as handle:
            handle.write(dump(objects))
        os.replace(target + ".tmp", target)


def main() -> None:
    try:
        cli.main(prog_name="trainc")
    except KeyboardInterrupt:
        sys.exit(130)
