"""`trainc config`: the settings in effect and where each came from (`trainc.settings` resolves them, for every
command, before it runs)."""

from __future__ import annotations

from . import write_out


def main(resolved) -> None:
    """One `ORIGIN<TAB>KEY=VALUE` line per value of the resolved settings, on stdout, then the values
    trainer-version may take."""
    from ..trainer import releases

    supported = f"trainc\ttrainer-versions={','.join(releases.NAMES)}\n"
    write_out("".join(line + "\n" for line in resolved.lines()) + supported)
