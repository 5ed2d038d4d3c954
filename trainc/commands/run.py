"""`trainc run`: its flags read (--mount, --env-file) and the TrainJob run here by `trainc.run`."""

from __future__ import annotations

import os
import sys

import click

from .. import run as local
from ..errors import TraincError
from . import fail, write_out


def main(paths, options, job, timeout, keep, dry_run, env_file, mounts, max_pods, mode) -> None:
    """The exit status is the run's: 0 when the JobSet would be Complete, 1 when a pod fails (or bad input)."""
    mounted = {}
    for mount in mounts:
        name, equals, directory = mount.partition("=")
        if not equals or not name or not os.path.isdir(directory):
            raise click.BadParameter(f"{mount!r}: expected NAME=DIR with an existing DIR", param_hint="--mount")
        mounted[name] = directory
    if mode != "seed":
        from ..compiler.mpikeys import EXTERNAL_NOTICE

        click.echo(EXTERNAL_NOTICE.format(mode=mode), err=True)
    try:
        variables = local.read_env_file(env_file, options.max_input_bytes) if env_file else {}
        code, text = local.run(local.Options(paths, options, job, timeout, keep, dry_run, variables, mounted, max_pods))
    except local.Usage as error:
        raise click.UsageError(str(error)) from None
    except TraincError as error:
        fail(error)
    write_out(text)
    sys.exit(code)
