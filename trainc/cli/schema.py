"""`trainc schema`: its flags and help; what it does is `trainc/commands/schema.py`."""

from __future__ import annotations

import click


@click.command("schema")
@click.argument(
    "kind", type=click.Choice(["TrainJob", "TrainingRuntime", "ClusterTrainingRuntime"], case_sensitive=False)
)
@click.option(
    "--version",
    "api_version",
    type=click.Choice(["v1alpha1", "v2alpha1"]),
    default="v1alpha1",
    show_default=True,
    help="The trainer.kubeflow.org API version.",
)
def schema(kind, api_version):
    """Print the JSON Schema (draft 2020-12) of KIND, for editors and CI (e.g. kubeconform).

    It has the CRDs' descriptions, refuses unknown fields, and checks types, enums,
    patterns and ranges; `trainc validate` also checks the CEL rules and webhooks.
    The same schemas are in the repository under schemas/trainer.kubeflow.org/.
    """
    from ..commands import schema as flow

    flow.main(kind, api_version)
