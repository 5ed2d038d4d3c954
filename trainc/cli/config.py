"""`trainc config`: its flags and help; what it does is `trainc/commands/config.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _cluster_state, _inputs, _policies, _ssh_key_seed, _ssh_keys


@click.command("config")
@_inputs(paths_required=False)
@_ssh_key_seed
@_ssh_keys
@click.option("--output-dir", type=click.Path(file_okay=False), metavar="DIR", help="As build's --output-dir.")
@_cluster_state
@_policies
def config(paths, runtime_paths, namespace, ssh_key_seed, output_dir, policy_paths):
    """Print the settings in effect and where each came from, as `git config --show-origin --list` does.

    One line per value, `ORIGIN<TAB>KEY=VALUE`: the root, each project config read
    (outermost first), then every setting (runtimes, namespace, ssh-key-seed,
    output-dir, plugins, policy-paths, kueue-paths, cluster-state, ssh-keys, sealed-secrets-cert, the identity
    policies admit as: as, as-groups), the house rules (`policies=NAME`) and the
    Trainer releases trainc renders for. ORIGIN is the flag, the
    environment variable, FILE:LINE:COL of the project config, the Argo CD plugin's
    parameter or destination (under TRAINC_ROUTE=argocd), or `default`. Takes the
    flags (and PATHS) the compiling commands take, so `trainc config -n team-a` shows
    their effect; a setting that cannot be used is an error, as in those commands.
    """
    from ..commands import config as flow

    flow.main(call.current().settings)
