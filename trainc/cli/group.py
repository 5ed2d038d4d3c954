"""The `trainc` click group: its own options, and each command imported from its module when it runs or is
listed."""

from __future__ import annotations

import click

# the commands, each the attribute of its name in trainc/cli/<name>.py
VERBS = tuple("build completion config diff explain fn gc run runtimes schema status summary validate version".split())


class _Verbs(click.Group):
    """click's lazily loaded subcommands: a command's module is imported when it runs or is listed (by --help or
    shell completion), never at start-up; listed sorted, as click.Group lists its commands."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(VERBS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in VERBS:
            return None
        # __import__, not importlib.import_module: -X importtime, which the start-up figures come from, lists it
        return getattr(__import__(f"{__package__}.{cmd_name}", fromlist=[cmd_name]), cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click's; an unknown command's error suggests the close names ("Did you mean 'build'?"), which click
        (8.2 and later) takes from the commands registered up front: none here."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as error:
            if not hasattr(error, "command_name"):  # another usage error, or a click that suggests nothing
                raise
            raise type(error)(error.command_name, possibilities=VERBS, ctx=ctx) from None


@click.group(cls=_Verbs, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="trainc")
@click.option(
    "--root",
    metavar="DIR",
    envvar="TRAINC_ROOT",
    help="The repository being rendered (env TRAINC_ROOT): the project config is looked for up to it, and "
    "its paths, and those of the command line, must resolve inside it (the Argo CD plugin and the "
    "kustomize generator set it). Default: the git root, else the current directory, confining the "
    "config's paths only.",
)
def cli(root) -> None:
    """Compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

    Defaults for --runtimes, -n, --ssh-key-seed and --output-dir come from the
    project config (.trainc.yaml or [tool.trainc] in pyproject.toml, see
    docs/reference/config.md);
    `trainc config` shows every setting in effect and where it came from.
    """
