"""`trainc validate`: its flags and help; what it does is `trainc/commands/validate.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _cluster_state, _inputs, _jobs, _output, _policies, _previous, _ssh_keys


@click.command()
@_inputs
@_previous
@_cluster_state
@_policies
@_ssh_keys
@_output(["text", "json"], "text: lines on stderr; json: one record per problem on stdout.")
@click.option(
    "--format",
    "annotations",
    type=click.Choice(["github"]),
    help="github: GitHub Actions annotations (::error file=…::) on stdout, the text on stderr too.",
)
@click.option(
    "--skip-other-files",
    is_flag=True,
    help="Pass over files that mention neither trainer.kubeflow.org nor what it is checked against "
    "(kueue.x-k8s.io, admissionregistration.k8s.io), for hooks given every changed YAML file.",
)
@_jobs
def validate(
    paths, runtime_paths, namespace, previous, policy_paths, output_format, annotations, skip_other_files, workers
):
    """Check PATHS as the API server and Trainer's webhooks would on apply, then compile them.

    Checks the CRD schemas and CEL rules, the TrainJob and (Cluster)TrainingRuntime
    admission webhooks and everything `trainc build` refuses; with --previous, also
    the update rules (immutable fields; runtimePatches only while suspended).
    PATHS and --runtimes are read as by `trainc build`; runtimes among either are
    checked too (the bundled ones are not). Every problem is reported in one run.

    By default nothing is written to stdout. stderr gets one line per error,
    `FILE:LINE:COL: FIELD.PATH: MESSAGE` (the field path is the one the API server
    reports), warnings and notices, and a last summary line. `-o json` prints
    {"problems": [...], "summary": {...}} on stdout instead, each problem with
    file, line, column, field, message and severity (error, warning, notice).
    Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error (including
    a REV_OR_DIR that is neither a directory nor a git revision).
    """
    from ..commands import validate as flow

    flow.main(
        paths,
        call.options(ssh_key_seed=call.throwaway_seed(), previous=previous, workers=workers),
        output_format,
        annotations,
        skip_other_files,
    )
