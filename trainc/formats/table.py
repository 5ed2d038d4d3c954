"""Tables for people: aligned text columns (`trainc status`, `summary`, `runtimes`) and GitHub Markdown tables
(`summary`, `diff --format markdown`), the one writer each prints with.

A cell is one line whatever the input held (`errors.one_line`), and a Markdown cell's `|` is escaped, so
no name from an input can break a row.
"""

from __future__ import annotations

from ..errors import one_line


def aligned(rows: list[tuple], gap: str = "   ") -> str:
    """The rows (the first is the header) as left-aligned columns `gap` apart, each line ending in a newline."""
    rows = [tuple(one_line(cell) for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join(gap.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n" for row in rows)


def markdown(rows: list[tuple]) -> list[str]:
    """The rows (the first is the header) as the lines of a GitHub Markdown table."""
    cells = [[one_line(cell).replace("|", "\\|") for cell in row] for row in rows]
    return [
        f"| {' | '.join(cells[0])} |",
        f"|{'|'.join(' --- ' for _ in cells[0])}|",
        *(f"| {' | '.join(row)} |" for row in cells[1:]),
    ]
