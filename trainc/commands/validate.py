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
        summary = {
            "valid": failure is None,
            "errors": len(problems),
            "warnings": sum(r.severity == "warning" for r in records),
        }
        return to_json(records, summary), []
    summary = (
        f"invalid: {plural(len(problems), 'error')}"
        if failure is not None
        else f"valid: {plural(output.trainjobs, 'TrainJob')}, {plural(output.runtimes, 'runtime')}"
    )
    text = [failure.render()] if failure is not None else []
    return (to_github(records) if annotations else ""), text + [notice.render() for notice in notices] + [summary]


def to_json(problems: list[Problem], summary: dict) -> str:
    return (
        json.dumps({"problems": [asdict(p) for p in problems], "summary": summary}, indent=2, ensure_ascii=False) + "\n"
    )


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
        properties = [
            (name, value)
            for name, value in (("file", file), ("line", problem.line), ("col", problem.column))
            if value is not None
        ]
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


def main(paths, options, output_format, annotations, skip_other_files) -> None:
    """`trainc validate`: the run, nothing written, every problem reported (the exit status says if any)."""
    from .. import engine
    from ..errors import PreviousError

    if annotations and output_format == "json":
        raise click.UsageError("--format github and -o json are two outputs: choose one")
    try:
        result = engine.run(engine.Inputs(tuple(paths), skip_other_files=skip_other_files), options)
    except PreviousError as exc:
        raise click.BadParameter(str(exc), param_hint="--previous") from None
    output, failure = result, None
    if result.errors:
        output, failure = None, InputErrors(result.errors, notices=[*result.notices, *_selected(result)])
    else:
        result.notices += result.manifests.notices
    stdout, stderr = outcome(output, failure, output_format, annotations)
    if stdout:
        write_out(stdout)
    for line in stderr:
        click.echo(line, err=True)
    if output is None:
        sys.exit(EXIT_INVALID)


def _selected(result) -> list:
    return result.manifests.notices if result.manifests is not None else []
