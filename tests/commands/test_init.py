"""What the verbs share (`trainc/commands/__init__.py`): notices on stderr in a few writes, in order."""

from __future__ import annotations

import io

from trainc import commands


class Counted(io.StringIO):
    def __init__(self):
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_many_notices_go_out_in_a_few_writes_in_order(monkeypatch):
    """A large build says two notices per TrainJob: written one by one they cost a write (a system call on a
    line-buffered stderr) each; joined at once, a copy of them all."""
    stderr = Counted()
    monkeypatch.setattr("sys.stderr", stderr)
    lines = [f"notice: jobs/job-{index}.yaml:4:3: team/job-{index}: 2.50 USD an hour" for index in range(20000)]
    commands.echo(*lines)
    assert stderr.getvalue() == "".join(f"{line}\n" for line in lines)
    size = len(stderr.getvalue())
    assert size // commands._LINES_AT_ONCE <= stderr.writes <= size // commands._LINES_AT_ONCE + 1


def test_one_line_and_none(monkeypatch):
    stderr = Counted()
    monkeypatch.setattr("sys.stderr", stderr)
    commands.echo("Error: one")
    commands.echo()
    assert (stderr.getvalue(), stderr.writes) == ("Error: one\n", 1)
    monkeypatch.setattr("sys.stderr", None)
    commands.echo("nowhere")  # a process without stderr
