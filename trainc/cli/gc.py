"""`trainc gc`: its flags and help; what it does is `trainc/commands/gc.py`."""

from __future__ import annotations

import click

from . import call
from .shared import _inputs, _output, _ssh_keys


@click.command("gc")
@_inputs(paths_required=False)
@click.option(
    "--live",
    "live_path",
    required=True,
    metavar="FILE",
    type=click.Path(allow_dash=True, dir_okay=False, readable=False),
    help="The JobSets in the cluster, as `kubectl get jobsets -A -o json` prints them (- reads stdin).",
)
@click.option(
    "--older-than",
    default="7d",
    show_default=True,
    metavar="DURATION",
    help="Only JobSets that finished more than this long ago (s, m, h, d: 36h, 1d12h).",
)
@click.option("--apply", is_flag=True, help="Remove the files listed (never a file that holds anything else).")
@_output(["text", "json"], "Lines for people, or JSON.")
@_ssh_keys
def gc(paths, runtime_paths, namespace, live_path, older_than, apply, output_format):
    """List the input files whose TrainJobs finished in the cluster more than --older-than ago; --apply removes
    them, so that committing the removal makes the GitOps tool prune what was rendered for them.

    PATHS (default: the current directory) are read and compiled as `trainc build`
    reads them; each rendered JobSet is looked up by namespace and name among the
    live ones. A TrainJob is finished when its JobSet is Complete or Failed, as
    `trainc status` derives it, at that condition's lastTransitionTime. A file goes
    only if every object in it is such a TrainJob; a file holding anything else is
    listed as kept, with what else it holds, and never touched. SOURCE_DATE_EPOCH
    pins "now". Invalid input (PATHS or FILE): errors as `trainc build` reports
    them, exit 1.
    """
    from ..commands import gc as flow

    flow.main(
        paths,
        call.options(ssh_key_seed=call.throwaway_seed(), workers=None),
        live_path,
        older_than,
        apply,
        output_format,
    )
