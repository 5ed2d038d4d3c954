"""The `trainc` command line: the click group and the console script. Each command is declared in its module
here, `trainc/cli/<verb>.py`, imported only when that command runs or a help lists it, so `trainc build` builds
no other command's options; the options several share are `shared`. Each verb's flow is its module in
trainc/commands/ (exit codes there: 0 success, 1 invalid input, 2 usage)."""

from __future__ import annotations

import os
import sys

import click

from .shared import QUICK_EXIT

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
        return getattr(__import__(f"{__name__}.{cmd_name}", fromlist=[cmd_name]), cmd_name)

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


def main() -> None:
    """The console script: the command line under the operator's run bound (`trainc.bounds`)."""
    import gc

    from .. import bounds

    # A command is one short run over JSON trees, which hold no cycles: the young objects are still collected,
    # but the whole heap (every TrainJob read so far) is never traversed again and again (about 5% of a build)
    gc.set_threshold(10_000, 10, 1_000_000)
    bounds.supervised(_main)


def _main() -> None:
    process: dict = {}  # what the command asks of the process it runs in (`shared._quick_exit`)
    try:
        cli.main(prog_name="trainc", obj=process)
    except KeyboardInterrupt:
        sys.exit(130)
    except SystemExit as done:
        if process.get(QUICK_EXIT) and (done.code is None or isinstance(done.code, int)):
            _exit_now(done.code or 0)
        raise


def _exit_now(code: int) -> None:
    """Exit without freeing every object one by one (about 15 ms after a build of 1000 TrainJobs), what is
    buffered written first; returns if that fails, for the usual exit to report it."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
