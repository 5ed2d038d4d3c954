"""`trainc explain`: its flags and help; what it does is `trainc/commands/explain.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _cluster_state, _inputs, _policies, _ssh_keys


@click.command()
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
    from ..commands import explain as flow

    flow.main(paths, call.options(ssh_key_seed=call.throwaway_seed()), job, field)
