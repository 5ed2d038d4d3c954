"""`trainc config`: the settings in effect and where each came from (`trainc.settings` resolves them, for every
command, before it runs)."""

from __future__ import annotations

import os

from ..errors import InputErrors, one_line
from . import fail, write_out


def main(resolved) -> None:
    """One `ORIGIN<TAB>KEY=VALUE` line per value of the resolved settings, then one per house rule of each
    config (outermost first, as they are layered), the price table's place and currency, then the values
    trainer-version may take, on stdout; house rules or prices that cannot be read fail as in build."""
    from ..engine import house_rules
    from ..trainer import releases

    lines = resolved.lines()
    for path in resolved.configs:
        rules, errors = house_rules(path)
        if errors:
            fail(InputErrors(errors))
        lines += [f"{one_line(os.path.relpath(path))}\tpolicies={one_line(rule.name)}" for rule in rules]
    from ..formats import prices

    table, errors = prices.load(resolved.configs)
    if errors:
        fail(InputErrors(errors))
    if table is not None:  # where the price table is, in its currency (the prices: `trainc summary`)
        lines.append(f"{one_line(table.where)}\tprices={table.currency}")
    lines.append(f"trainc\ttrainer-versions={','.join(releases.NAMES)}")
    write_out("".join(line + "\n" for line in lines))
