"""`trainc run`'s kubelet rules alone: `$(VAR)` expansion (Kubernetes' expansion tests' cases), its escape, and
the hostfile merge that lets Open MPI start every rank on one host."""

from __future__ import annotations

import random

import pytest

from trainc.k8s.kubelet import escape, expand
from trainc.run.loopback import hostfile

VARIABLES = {"VAR_A": "A", "VAR_B": "B", "VAR_EMPTY": ""}


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("$(VAR_A)", "A"),
        ("___$(VAR_B)___", "___B___"),
        ("$(VAR_A)-1", "A-1"),
        ("$(VAR_A)$(VAR_B)", "AB"),
        ("$(VAR_EMPTY)", ""),
        ("$(VAR_DNE)", "$(VAR_DNE)"),
        ("$$(VAR_A)", "$(VAR_A)"),
        ("$$$(VAR_A)", "$A"),
        ("f000-$$VAR_A", "f000-$VAR_A"),
        ("$VAR_A", "$VAR_A"),
        ("$(VAR_A", "$(VAR_A"),
        ("$()", "$()"),
        ("$$", "$"),
        ("$$$$", "$$"),
        ("$", "$"),
        ("a$", "a$"),
        ("", ""),
    ],
)
def test_expand(text, expanded):
    assert expand(text, VARIABLES) == expanded


def test_escape_survives_expansion():
    alphabet = "$()VAR_AB \n`\\"
    generator = random.Random(0)
    for _ in range(2000):
        text = "".join(generator.choice(alphabet) for _ in range(generator.randrange(12)))
        assert expand(escape(text), VARIABLES) == text


def test_hostfile_lines_on_loopback_merge():
    assert hostfile("127.0.0.1 slots=2\n127.0.0.1 slots=2\n") == "127.0.0.1 slots=4\n"
    assert hostfile("127.0.0.1:2\nother:1\n127.0.0.1:3\n") == "127.0.0.1:5\nother:1\n"
    assert hostfile("127.0.0.1 slots=2\n") == "127.0.0.1 slots=2\n"  # one line: nothing to merge
    assert hostfile("127.0.0.1 slots=2\n127.0.0.1 slots=1\nnot a host line\n") == (
        "127.0.0.1 slots=2\n127.0.0.1 slots=1\nnot a host line\n"
    )  # not a hostfile: left alone
