"""`trainc version`: its flags and help; what it does is `trainc/commands/version.py`."""

from __future__ import annotations

import click

from .shared import _invocation, _trainer_version


@click.command()
@_trainer_version
def version(trainer_version):
    """Print the versions of trainc, Python, PyYAML (and libyaml), the upstream Trainer revision
    trainc follows, the CRD schema versions it reads, and the Kubeflow Trainer releases it renders for with
    the one in effect (--trainer-version, its environment variable or the project config)."""
    from ..commands import version as flow

    flow.main(_invocation(click.get_current_context()), trainer_version)
