"""`validate -o json`, `validate --format github` and `runtimes list` on every golden case: their exact output,
kept as snapshots (tests/__snapshots__/test_golden_tools.ambr; `--snapshot-update` after an intended change)."""

from __future__ import annotations

import os
import re

import pytest
from click.testing import CliRunner
from conftest import GOLDEN, ROOT

from trainc.cli import cli

CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "expected.out.yaml").exists())


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2 mixes stderr into stdout by default
    except TypeError:
        return CliRunner()


def trainc(*args) -> str:
    result = runner().invoke(cli, list(args), catch_exceptions=False)
    return f"$ trainc {' '.join(args)}\n{result.stdout}{result.stderr}exit {result.exit_code}\n"


@pytest.mark.parametrize("case", CASES)
def test_tools(case, snapshot, monkeypatch):
    monkeypatch.chdir(ROOT)
    folder = f"golden/{case}"
    listing = trainc("runtimes", "list", folder).splitlines(keepends=True)
    # the bundled runtimes a case leaves as they are: tests/test_runtimes_cmd.py has the full listing
    listing = "".join(line for line in listing if not re.search(r"\sbundled\s+yes$", line))
    # the case's inputs: its folder also holds the rendered output, which `validate` (as `build`) would refuse as
    # objects named like the ones it renders
    files = sorted(
        os.path.relpath(path, ROOT)
        for path in (GOLDEN / case).iterdir()
        if path.suffix in (".yaml", ".json") and not path.name.endswith(".out.yaml")
    )
    assert (
        trainc("validate", "-o", "json", *files) + trainc("validate", "--format", "github", *files) + listing
        == snapshot
    )
