"""`trainc fn`: its flags and help; what it does is `trainc/commands/fn.py`."""

from __future__ import annotations

import click

from . import call
from .shared import (
    _cluster_state,
    _jobs,
    _max_input_bytes,
    _plugin,
    _policies,
    _settled,
    _ssh_key_seed,
    _ssh_keys,
    _trainer_version,
)


@click.command("fn")
@_ssh_key_seed
@_ssh_keys
@click.option(
    "-n",
    "--namespace",
    default="default",
    show_default=True,
    envvar="TRAINC_NAMESPACE",
    help="Namespace for TrainJobs that set none, unless the functionConfig or the package's Kptfile sets "
    "one (env TRAINC_NAMESPACE).",
)
@click.option(
    "--runtimes",
    "runtime_paths",
    multiple=True,
    type=click.Path(),
    envvar="TRAINC_RUNTIMES",
    help="File or directory of (Cluster)TrainingRuntimes besides the items, as build's --runtimes "
    "(env TRAINC_RUNTIMES, paths separated by ':'; else the project config's runtimes).",
)
@_policies
@_cluster_state
@_max_input_bytes
@_trainer_version
@_plugin
@_jobs
@_settled
def fn(ssh_key_seed, namespace, runtime_paths, policy_paths, workers):
    """Run as a KRM function (kpt, kustomize): a ResourceList on stdin, one on stdout.

    TrainJobs and runtimes stay among the items, annotated
    config.kubernetes.io/local-config: "true"; the objects rendered for each
    TrainJob are added as <its directory>/rendered/<namespace>/<name>.yaml and
    replaced on the next run. Other items pass through as they came, a
    namespaced one that sets no namespace given the TrainJobs' (as build). A
    functionConfig ConfigMap may set `data.namespace` (nothing else); without
    it, the namespace the package's Kptfile gives its `exec: trainc fn` mutator
    (so `kpt fn eval` renders as `kpt fn render`), else -n. Runtimes come from
    the items and from --runtimes (TRAINC_RUNTIMES, the project config's
    runtimes): kpt runs the function in its own working directory, so the
    config is found from there, as for build.
    """
    from ..commands import fn as flow

    flow.main(call.options(ssh_key_seed=call.seed(ssh_key_seed), trainer_only=True, workers=workers))
