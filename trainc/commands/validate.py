"""`trainc validate`'s results for machines: JSON records and GitHub Actions annotations.

Errors come as InputErrors, warnings and notices as Notices: both carry their
input, field path and message, turned into the same record shape so every
consumer sees one list.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass

import click

from ..errors import InputError, InputErrors, Notice, TraincError, one_line, plural, render_path
from . import EXIT_INVALID, write_out


@dataclass(frozen=True)
class Problem:
    file: str | None
    line: int | None
    column: int | None
    field: str
    message: str
    severity: str  # error, warning or notice


def from_error(error: TraincError) -> list[Problem]:
    found = error.errors if isinstance(error, InputErrors) else [error]
    return [_problem(e) for e in found]


def _problem(error) -> Problem:
    if not isinstance(error, InputError):
        return Problem(None, None, None, "", one_line(str(error)), "error")
    file, line, column = error.position() or (None, None, None)
    return Problem(file, line, column, render_path(error.path), one_line(error.message), "error")


def from_notice(notice: Notice) -> Problem:
    file, line, column = notice.position() or (None, None, None)
    return Problem(file, line, column, render_path(notice.path), one_line(notice.message), notice.severity)


def outcome(output, failure: TraincError | None, output_format: str, annotations: str | None) -> tuple[str, list]:
    """(stdout, stderr lines) of `trainc validate`, from the build's output or the error it raised."""
    notices = output.notices if failure is None else getattr(failure, "notices", [])
    problems = from_error(failure) if failure is not None else []
    records = problems + [from_notice(notice) for notice in notices]
    if output_format == "json":
        summary = {"valid": failure is None, "errors": len(problems),
                   "warnings": sum(r.severity == "warning" for r in records)}
        return to_json(records, summary), []
    summary = (f"invalid: {plural(len(problems), 'error')}" if failure is not None else
               f"valid: {plural(output.trainjobs, 'TrainJob')}, {plural(output.runtimes, 'runtime')}")
    text = [failure.render()] if failure is not None else []
    return (to_github(records) if annotations else ""), text + [notice.render() for notice in notices] + [summary]


def to_json(problems: list[Problem], summary: dict) -> str:
    return json.dumps({"problems": [asdict(p) for p in problems], "summary": summary}, indent=2,
                      ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    """As @actions/core escapes a command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """As @actions/core escapes a command's property values."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def to_github(problems: list[Problem]) -> str:
    """One workflow command per problem: `::error file=F,line=L,col=C::field: message`, F relative to the
    root of the file's git repository, as GitHub places annotations, whatever the working directory."""
    lines, roots = [], {}
    for problem in problems:
        file = _in_repository(problem.file, roots)
        properties = [(name, value) for name, value in
                      (("file", file), ("line", problem.line), ("col", problem.column)) if value is not None]
        head = ",".join(f"{name}={_escape_property(str(value))}" for name, value in properties)
        message = f"{problem.field}: {problem.message}" if problem.field else problem.message
        lines.append(f"::{problem.severity}{' ' + head if head else ''}::{_escape_data(message)}\n")
    return "".join(lines)


def _in_repository(file: str | None, roots: dict) -> str | None:
    """`file`'s path from the root of its git repository (the nearest folder holding `.git`); as it is when it
    is in none, or names no file (stdin, a base version `REV:path`)."""
    if file is None or not os.path.isfile(file):
        return file
    path = os.path.abspath(file)
    folder = os.path.dirname(path)
    if folder not in roots:
        root = folder
        while not os.path.exists(os.path.join(root, ".git")) and os.path.dirname(root) != root:
            root = os.path.dirname(root)
        roots[folder] = root if os.path.exists(os.path.join(root, ".git")) else None
    return file if roots[folder] is None else os.path.relpath(path, roots[folder]).replace(os.sep, "/")


def main(paths, runtime_paths, namespace, previous, policy_paths, output_format, annotations, skip_other_files,
         config) -> None:
    """`trainc validate`: `build` without writing, every problem reported (the exit status says if any)."""
    from .. import build as builder
    from .. import inputs, policy
    from ..compiler import sshkeys
    from ..output import manifests
    from .build import load_previous

    if annotations and output_format == "json":
        raise click.UsageError("--format github and -o json are two outputs: choose one")
    reader = inputs.Reader()  # what --skip-other-files reads is read once
    if skip_other_files:
        paths = [path for path in paths if reader.may_hold_trainer(path)]
    try:
        before = load_previous(previous, paths, runtime_paths, namespace)
        # `build` without writing: the output is discarded, so MPI keys come from a throwaway seed (no random key,
        # no notice); what passes through is checked as `build` checks it (names, duplicates, collisions).
        output = builder.build(paths, runtime_paths, namespace=namespace, previous=before,
                               ssh_key_seed=bytes(sshkeys.MIN_SEED_BYTES), reader=reader)
        output.notices += manifests.select(output, namespace=namespace).notices
        output.notices += policy.check(output, namespace=namespace, previous=before, paths=policy_paths,
                                       config=config)
    except TraincError as error:
        output, failure = None, error
    stdout, stderr = outcome(output, failure if output is None else None, output_format, annotations)
    if stdout:
        write_out(stdout)
    for line in stderr:
        click.echo(line, err=True)
    if output is None:
        sys.exit(EXIT_INVALID)
