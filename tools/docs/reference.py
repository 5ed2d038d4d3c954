"""The docs' generated references: each command's flags from its click declaration (trainc/cli/) and the
project config keys from the settings table (trainc/settings.py), so neither can drift from the code.

docs/hooks.py replaces a line `::: trainc-command VERB` (or `::: trainc-settings`) of a page with what
`command(VERB)` (or `settings()`) returns; tests/test_docs.py checks that every command, flag and key has
its entry."""

from __future__ import annotations

import inspect
import re

import click

BLOCK = re.compile(r"^::: trainc-(command|settings|global)(?: +(\S+))? *$", re.MULTILINE)


def cli() -> click.Group:
    from trainc.cli import cli as group

    return group


def subcommands(group: click.Group) -> dict[str, click.Command]:
    """A group's commands by name, as its --help lists them (trainc's group imports each one only when asked)."""
    ctx = click.Context(group, info_name="trainc")
    return {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}


def verbs() -> list[str]:
    """The top-level commands that exist, each of which needs a page docs/commands/<verb>.md."""
    return sorted(subcommands(cli()))


def _commands(verb: str) -> list[tuple[str, click.Command]]:
    """The command and, for a group, its subcommands: (`runtimes list`, command); "" is `trainc` itself, whose
    options come before any command."""
    if not verb:
        return [("", cli())]
    command = subcommands(cli())[verb]
    found = [(verb, command)]
    if isinstance(command, click.Group):
        found += [(f"{verb} {name}", sub) for name, sub in sorted(subcommands(command).items())]
    return found


DOCS_PATH = re.compile(r"\bdocs/([\w/-]+)\.md(#[\w-]+)?")


def _linked(text: str) -> str:
    """A help text's `docs/guides/mpi.md` as a link, from a page one level down (docs/commands/, docs/reference/);
    `mkdocs build --strict` then checks that the page and its anchor exist."""
    return DOCS_PATH.sub(lambda m: f"[{m.group(1)}](../{m.group(1)}.md{m.group(2) or ''})", text)


def _cell(text: str) -> str:
    """One table cell: `|` escaped outside code spans (inside them Python-Markdown's tables keep it as is)."""
    pieces = " ".join(text.split()).split("`")
    return "`".join(piece if index % 2 else piece.replace("|", "\\|") for index, piece in enumerate(pieces))


def _default(option: click.Option) -> str:
    if option.is_flag or option.default is None or option.multiple or not option.show_default:
        return ""
    return f"`{option.default}`"


def _names(param: click.Parameter) -> str:
    if isinstance(param, click.Argument):
        return f"`{param.human_readable_name}`" + (" ..." if param.nargs == -1 else "")
    names = ", ".join(f"`{name}`" for name in param.opts)
    if param.is_flag:
        return names
    metavar = param.metavar or ("CHOICE" if isinstance(param.type, click.Choice) else param.type.name.upper())
    return f"{names} `{metavar.replace(' RANGE', '')}`"


def _envvar(param: click.Parameter) -> str:
    envvar = getattr(param, "envvar", None)
    return f"`{envvar}`" if isinstance(envvar, str) else ""


def flags(command: click.Command) -> list[str]:
    """Every option name of the command, `--help` excluded: what the reference must list."""
    return [name for param in command.params if isinstance(param, click.Option) for name in param.opts]


def command(verb: str) -> str:
    """The reference of `trainc VERB` (and its subcommands): usage, the help text, a table of its parameters."""
    out = []
    for name, cmd in _commands(verb):
        ctx = click.Context(cmd, info_name=f"trainc {name}")
        pieces = cmd.collect_usage_pieces(ctx)
        out += [
            f"### `trainc {name}`" if name != verb else "",
            "",
            "```text",
            " ".join(["trainc", *([name] if name else []), *pieces]),
            "```",
            "",
        ]
        for paragraph in inspect.cleandoc(cmd.help or "").split("\n\n"):
            if paragraph.startswith("\b\n"):  # click's verbatim block
                out += ["```text", *paragraph[2:].splitlines(), "```", ""]
            elif paragraph.strip():
                out += [_linked(" ".join(paragraph.split())), ""]
        rows = [(param, _names(param)) for param in cmd.params if not getattr(param, "hidden", False)]
        if rows:
            out += ["| Parameter | Environment | Default | What it does |", "| --- | --- | --- | --- |"]
            for param, names in rows:
                what = getattr(param, "help", None) or ""
                if isinstance(param, click.Argument):
                    what = "Positional argument" + (" (required)" if param.required else "")
                    if isinstance(param.type, click.Choice):
                        what += ": one of " + ", ".join(f"`{choice}`" for choice in param.type.choices)
                elif isinstance(param.type, click.Choice):
                    what += " One of " + ", ".join(f"`{choice}`" for choice in param.type.choices) + "."
                if getattr(param, "multiple", False) and "Repeatable" not in what:
                    what += " Repeatable."
                default = _default(param) if isinstance(param, click.Option) else ""
                out.append(f"| {_cell(names)} | {_envvar(param)} | {default} | {_linked(_cell(what))} |")
            out.append("")
    return "\n".join(line for line in out).strip("\n") + "\n"


def settings() -> str:
    """The project config keys (trainc.settings.SETTINGS, plus the house rules), with the flag and environment
    variable each stands for and the commands that take it."""
    from trainc.formats import projectconfig
    from trainc.settings import SETTINGS

    takes = {}
    for verb in verbs():
        for name, cmd in _commands(verb):
            for param in cmd.params:
                takes.setdefault(param.name, []).append(f"`{name}`")
    out = ["| Key | Flag | Environment | Commands | Holds |", "| --- | --- | --- | --- | --- |"]
    rows = {key: (name, envvar, flag) for name, (key, envvar, flag) in SETTINGS.items()}
    rows.update({key: (name, None, "") for key, (name, _, _) in projectconfig.KEYS.items() if key not in rows})
    for key, (name, envvar, flag) in rows.items():
        _, is_path, is_list = projectconfig.KEYS.get(key, (name, False, False))
        holds = ("a list of paths" if is_path else "a list of names") if is_list else ("a path" if is_path else "text")
        out.append(
            f"| `{key}` | {f'`{flag}`' if flag else ''} | {f'`{envvar}`' if envvar else ''} | "
            f"{', '.join(dict.fromkeys(takes.get(name, [])))} | {holds} |"
        )
    out.append(
        f"| `{projectconfig.HOUSE_RULES}` | | | `build`, `validate` and every command that compiles | "
        "a list of house rules (see [Admission policies and house rules](../guides/policies.md)) |"
    )
    out.append(
        f"| `{projectconfig.PRICES}` | | | `summary`, `diff`, and the house rules and policies of every command "
        "that compiles | the price table (see [Cost and capacity](../guides/cost-capacity.md)) |"
    )
    return "\n".join(out) + "\n"


def expand(markdown: str) -> str:
    """A page's Markdown with each `::: trainc-...` line replaced by the reference it names."""

    def replace(match: re.Match) -> str:
        if match.group(1) == "settings":
            return settings()
        if match.group(1) == "global":
            return command("")
        verb = match.group(2)
        if verb not in verbs():
            raise ValueError(f"::: trainc-command {verb}: no such command (commands: {', '.join(verbs())})")
        return command(verb)

    return BLOCK.sub(replace, markdown)
