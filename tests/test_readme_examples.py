"""The README's ```console examples are trainc's exact output (stdout, then stderr), run from the repository."""

from __future__ import annotations

import re
import shlex

import pytest
from conftest import ROOT
from helpers import run

BLOCK = re.compile(r"^```console\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def examples() -> list[tuple[str, str]]:
    found = []
    for block in BLOCK.findall((ROOT / "README.md").read_text()):
        for chunk in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, _, output = chunk.partition("\n")
            found.append((command, output))
    return found


def test_the_readme_has_examples():
    assert len(examples()) >= 5


@pytest.mark.parametrize("command, output", examples(), ids=[command for command, _ in examples()])
def test_example(command, output):
    program, *args = shlex.split(command)
    assert program == "trainc"
    result = run(*args, cwd=ROOT)
    assert result.stdout + result.stderr == output
