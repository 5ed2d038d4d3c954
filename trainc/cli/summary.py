"""`trainc summary`: its flags and help; what it does is `trainc/commands/summary.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _cluster_state, _inputs, _jobs, _policies, _review_format, _ssh_keys


@click.command("summary")
@_inputs
@click.option(
    "--base",
    metavar="REV_OR_DIR",
    help="Also show what changed since: a git revision to read PATHS (and --runtimes) at, or a directory.",
)
@_review_format(
    "Aligned tables, Markdown tables and charts for a pull-request comment, JSON, "
    "or one self-contained HTML page (a CI artifact)."
)
@_cluster_state
@_policies
@_ssh_keys
@_jobs
def summary(paths, runtime_paths, namespace, base, output_format, policy_paths, workers):
    """Show what the TrainJobs in PATHS ask of the cluster: per TrainJob its Kueue queue, nodes x processes,
    GPUs, CPUs and memory per node and in total, then the totals per queue and per namespace.

    Amounts are requests as Kueue counts them (every pod; limits stand in for
    missing requests). With --base, also what the change adds or frees on each
    queue ("+32 nvidia.com/gpu on team-a/team-a-gpu"). Invalid input: errors as
    `trainc build` reports them, exit 1.
    """
    from ..commands import summary as flow

    flow.main(paths, call.options(ssh_key_seed=call.throwaway_seed(), previous=base, workers=workers), output_format)
