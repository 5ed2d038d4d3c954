"""`trainc build`: its flags and help as click reads them; what it runs is `plain.build`, which a plain command
line reaches without click, and what that does is `trainc/commands/build.py`."""

from __future__ import annotations

import click

from . import plain
from .shared import _cluster_state, _inputs, _jobs, _policies, _previous, _ssh_key_seed, _ssh_keys


def _output_format(ctx, param, value: str) -> str:
    if value not in ("yaml", "json"):
        raise click.BadParameter("-o is the output format (yaml|json); use --output-dir DIR to write files")
    return value


@click.command()
@_inputs
@click.option(
    "-o",
    "--output",
    "output_format",
    default="yaml",
    show_default=True,
    metavar="yaml|json",
    callback=_output_format,
    help="Output format on stdout: a YAML stream, or a JSON v1 List as kubectl prints.",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Write the files of a rendered tree trainc owns instead of stdout (docs/routes/rendered-tree.md).",
)
@_ssh_key_seed
@_ssh_keys
@click.option(
    "--require-ssh-key-seed",
    is_flag=True,
    envvar="TRAINC_REQUIRE_SSH_KEY_SEED",
    help="An MPI TrainJob without a seed is an error, not a random key (env TRAINC_REQUIRE_SSH_KEY_SEED=1).",
)
@click.option("--trainer-only", is_flag=True, help="Output only the rendered objects; nothing passes through.")
@click.option("--include-runtimes", is_flag=True, help="Pass the runtimes among PATHS through too.")
@click.option("--allow-empty", is_flag=True, help="No documents in PATHS is not an error (an app meant to be empty).")
@click.option(
    "--runtime-snapshot",
    is_flag=True,
    help="Also emit upstream's <trainjob>-runtime-snapshot ConfigMap (the runtime used, as defaulted).",
)
@_previous
@_cluster_state
@_policies
@_jobs
@click.option(
    "--check",
    is_flag=True,
    help="With --output-dir: write nothing; exit 1 listing the files there that are stale, missing or left over.",
)
def build(**params):
    """Render the JobSet (and Secrets, ConfigMaps, PodGroups) for every TrainJob in PATHS, and pass every
    other document of PATHS through as it is, in an order `kubectl apply -f -` takes.

    PATHS are YAML or JSON files or directories (searched recursively for *.yaml,
    *.yml and *.json); `-` reads stdin. Runtimes found among them are used too.
    It refuses what `trainc validate` refuses; with --previous, as updates.
    """
    plain.build(**params)
