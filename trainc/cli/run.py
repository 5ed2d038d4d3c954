"""`trainc run`: its flags and help; what it does is `trainc/commands/run.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _inputs, _policies, _ssh_keys


@click.command("run")
@_inputs
@click.option("--job", metavar="NS/NAME", help="The TrainJob to run when PATHS hold several (NAME: in -n's namespace).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="S",
    help="Stop every pod after S seconds (exit 1).",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Keep the pods' directories (mounted files, logs per container) in DIR.",
)
@click.option("--dry-run", is_flag=True, help="Print each pod's resolved command, env and mounts; start nothing.")
@click.option(
    "--env-file",
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="KEY=VALUE lines added to every pod's env; they stand in for ConfigMaps and Secrets not among the inputs.",
)
@click.option(
    "--mount",
    "mounts",
    multiple=True,
    metavar="NAME=DIR",
    help="Use local DIR for the pod volume NAME (needed for PVCs, hostPath, ...).",
)
@_ssh_keys
@click.option(
    "--max-pods",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    metavar="N",  # plan.MAX_PODS
    help="Refuse a JobSet of more than N pods (each one process or more on this machine).",
)
@_policies
def run(paths, runtime_paths, namespace, job, timeout, keep, dry_run, env_file, mounts, max_pods, policy_paths):
    """Compile the TrainJob in PATHS and run its JobSet's pods here, as local processes.

    Images are not pulled: each container's command runs in the current
    environment (PATH, Python, torch, mpirun), in the current directory. Replicated
    jobs start in dependsOn order (initializers, then the trainer; the MPI launcher
    once its nodes run), each Job's pods at once; init containers run first. Env is
    resolved as the kubelet does ($(VAR), fieldRefs, ConfigMap and Secret refs);
    pod DNS names become 127.0.0.1 and declared ports move to free local ports;
    ConfigMap and Secret volumes are written to a directory per pod, emptyDirs are
    temporary directories, and mount paths in command, args and env point there.

    Each pod's output is printed prefixed with its name, progress goes to stderr,
    and at the end the TrainJob status the controller would write. Exit status: 0
    when the JobSet would be Complete (its successPolicy holds), 1 when a pod fails,
    on --timeout or on bad input (nothing started), 130 on Ctrl-C; every pod is
    stopped before trainc exits.
    """
    from ..commands import run as flow

    flow.main(
        paths,
        call.options(),
        job,
        timeout,
        keep,
        dry_run,
        env_file,
        mounts,
        max_pods,
        call.current().keys.get("mode"),
    )
