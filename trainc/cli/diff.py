"""`trainc diff`: its flags and help; what it does is `trainc/commands/diff.py`."""

from __future__ import annotations

import click

from ..trainer import releases
from . import call
from .shared import _cluster_state, _inputs, _jobs, _policies, _review_format, _ssh_key_seed, _ssh_keys


@click.command()
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
@_review_format(
    "A unified-diff-style text, Markdown for a pull-request comment (with charts), "
    "JSON, or one self-contained HTML page (a CI artifact)."
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
@_jobs
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
    workers,
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
    from ..commands import diff as flow

    flow.main(
        paths,
        call.options(ssh_key_seed=call.seed(ssh_key_seed), previous=base, trainer_only=trainer_only, workers=workers),
        output_format,
        color,
        base_trainer_version,
    )
