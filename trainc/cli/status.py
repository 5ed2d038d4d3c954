"""`trainc status`: its flags and help; what it does is `trainc/commands/status.py`."""

from __future__ import annotations

import click

from .shared import _input_limit, _max_input_bytes, _output


@click.command()
@click.argument("file", default="-", type=click.Path(allow_dash=True, dir_okay=False, readable=False))
@_output(["yaml", "table"], "YAML TrainJob status objects, or a table for people.")
@_max_input_bytes
def status(file, output_format):
    """Derive the TrainJob status Trainer's controller would write from a JobSet.

    FILE (default stdin) holds JobSets as YAML or JSON, one per document or in a
    List, e.g. `kubectl get jobset NAME -o yaml`. Each gives a TrainJob of the same
    name: Complete/Failed copied from the JobSet's Completed/Failed=True conditions,
    Suspended from spec.suspend (or Resumed after a suspension), jobsStatus from
    status.replicatedJobsStatus. The YAML output is one TrainJob document (metadata
    and status only) per JobSet. The table's STATE is trainc's one-word summary:
    Failed, Complete or Suspended from those conditions, else Running while a job
    is active, else Created.
    """
    from ..commands import status as flow

    flow.main(file, output_format, _input_limit())
