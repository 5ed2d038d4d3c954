"""`trainc runtimes`: its flags and help; what it does is `trainc/commands/runtimes.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _inputs


@click.group(invoke_without_command=True)
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


@runtimes.command("list")
@_inputs(paths_required=False)
def runtimes_list(paths, runtime_paths, namespace):
    """List the runtimes, sorted by kind, namespace and name."""
    from ..commands import runtimes as flow

    flow.main_list(paths, call.options())


@runtimes.command("show")
@click.argument("name")
@_inputs(paths_required=False)
@click.option(
    "--kind", type=click.Choice(["ClusterTrainingRuntime", "TrainingRuntime"]), help="The kind, when a name is both."
)
def runtimes_show(name, paths, runtime_paths, namespace, kind):
    """Print runtime NAME (NAMESPACE/NAME for a TrainingRuntime) as defaulted, the one a TrainJob would use."""
    from ..commands import runtimes as flow

    flow.main_show(name, paths, call.options(), kind)
