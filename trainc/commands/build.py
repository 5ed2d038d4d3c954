"""`trainc build`: its flags' checks and its flow over `trainc.parallel` (the build), `trainc.policy` and
`trainc.output` (the output set, on stdout or as a rendered tree), as kustomize's commands/build is over krusty."""

from __future__ import annotations

import sys

import click

from ..errors import TraincError
from . import EXIT_INVALID, fail, write_out


def main(paths, runtime_paths, namespace, output_format, output_dir, seed, trainer_only, include_runtimes,
         allow_empty, runtime_snapshot, previous, policy_paths, workers, check, config):
    """The build of PATHS on stdout (YAML or a JSON List), or written to (or checked against) --output-dir."""
    from .. import parallel, policy
    from ..output import manifests as passthrough

    if check and output_dir is None:
        raise click.UsageError("--check compares with a rendered tree: give it with --output-dir")
    if output_dir == "-":
        raise click.UsageError("--output-dir - would make a folder named '-': to print to stdout, leave --output-dir "
                               "out (for a folder of that name, write ./-)")
    if output_dir is not None and output_format != "yaml":
        raise click.UsageError("--output-dir writes YAML files; -o json is for stdout")
    try:
        before = load_previous(previous, paths, runtime_paths, namespace)
        output = parallel.build(paths, runtime_paths, workers=workers or parallel.available_cores(),
                                namespace=namespace, ssh_key_seed=seed, runtime_snapshot=runtime_snapshot,
                                output_dir=output_dir, previous=before)
        output.notices += policy.check(output, namespace=namespace, previous=before, paths=policy_paths,
                                       config=config)
        manifests = passthrough.select(output, namespace=namespace, trainer_only=trainer_only,
                                       include_runtimes=include_runtimes, files=output_dir is not None)
    except TraincError as error:
        fail(error)
    for notice in (*seed.warnings, *output.notices, *manifests.notices, *passthrough.only_runtimes(output, manifests)):
        click.echo(notice, err=True)
    empty = passthrough.why_empty(output, paths)
    if empty is not None and not allow_empty:
        fail(TraincError(f"Error: {empty}"))
    if output_dir is None:
        if output_format == "json":
            from ..formats.jsonlist import dump_list

            write_out(dump_list(manifests.objects()))
        else:
            write_out(manifests.yaml())
        return
    _write(manifests, output_dir, check, paths)


def _write(manifests, output_dir: str, check: bool, paths=None) -> None:
    """The rendered tree written to DIR (or, with --check, compared with it)."""
    from ..output import outputdir

    contents = outputdir.files(manifests)
    if check:
        _check(contents, output_dir, paths)
        return
    try:
        for notice in outputdir.write(output_dir, contents, paths):
            click.echo(notice, err=True)
    except outputdir.OutputDirError as exc:
        fail(TraincError(f"Error: {exc}"))
    if any(secret for _, secret in contents.values()):  # else no object is read back (a parallel build's are bytes)
        _plain_key_notice(manifests.objects(), output_dir)


def _plain_key_notice(objects, where: str) -> None:
    """Said once when files about to be committed hold an MPI private key in clear."""
    from ..compiler.mpikeys import PLAIN_NOTICE, holds_plain_key

    if holds_plain_key(objects):
        click.echo(PLAIN_NOTICE.format(where=where), err=True)


def _check(contents: dict, output_dir: str, paths=None) -> None:
    from ..output import check

    found = check.problems(contents, output_dir, paths)
    for line in found:
        click.echo(line, err=True)
    if found:
        sys.exit(EXIT_INVALID)


def load_previous(previous, paths, runtime_paths, namespace):
    """The previous versions --previous names (None without it); a REV_OR_DIR that is neither is a usage error."""
    if previous is None:
        return None
    from ..trainer import previous as previous_versions

    try:
        return previous_versions.load(previous, paths, namespace, runtime_paths)
    except previous_versions.PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--previous") from None
