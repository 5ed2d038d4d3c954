"""`trainc completion`: its declaration; the scripts are click's (`click.shell_completion`), over the whole group."""

from __future__ import annotations

import click


@click.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell):
    """Print the shell completion script for SHELL.

    \b
    bash: eval "$(trainc completion bash)"   (in ~/.bashrc)
    zsh:  eval "$(trainc completion zsh)"    (in ~/.zshrc)
    fish: trainc completion fish > ~/.config/fish/completions/trainc.fish
    """
    from click.shell_completion import get_completion_class

    from ..commands import write_out

    write_out(
        get_completion_class(shell)(
            click.get_current_context().find_root().command, {}, "trainc", "_TRAINC_COMPLETE"
        ).source()
    )
