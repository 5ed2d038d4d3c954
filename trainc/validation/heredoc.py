"""A lint, not an admission rule: code in an unquoted bash heredoc is rewritten by bash before it runs.

The Kubeflow SDK (0.5) embeds a CustomTrainer's function in `bash -c` as
`read -r -d '' SCRIPT << EOM ... EOM`: with the delimiter unquoted, bash expands
`$VAR`, `$(...)` and backticks in the body, so `f"${x}"` or a docstring quoting
`$HOME` reaches Python changed. A heredoc whose delimiter is quoted (`<<'EOM'`,
`<<"EOM"`, `<<\\EOM`) is kept verbatim (trainc.authoring writes those). The
cluster accepts either, so this is a warning.
"""

from __future__ import annotations

import re

from ..errors import Notice
from ..trainer.api import TrainJob

_OPERATOR = r"(?<!<)<<(-?)[ \t]*([^\s;&|<>()]+)"  # compiled on the first `<<` met
_QUOTES = r"[\"'\\]"  # any quoting in the word: the body is kept as written


def warnings(trainjob: TrainJob) -> list[Notice]:
    """One `warning:` line per trainer command or args entry holding an unquoted heredoc with `$` or backticks,
    at the file's line and column of the first of them (else, where the text cannot be mapped, at the field)."""
    trainer = trainjob.spec.trainer
    if trainer is None:
        return []
    found = []
    for field in ("command", "args"):
        for index, text in enumerate(getattr(trainer, field) or ()):
            if "<<" not in text:  # the common case costs one substring test
                continue
            path = ("spec", "trainer", field, index)
            starts = [0]
            for line in text.split("\n"):
                starts.append(starts[-1] + len(line) + 1)
            from ..formats import position  # a heredoc to warn of: rare

            for opened, delimiter, expanded in expanded_heredocs(text):
                line = text[starts[expanded - 1] : starts[expanded] - 1]
                column = min(at for at in (line.find("$"), line.find("`")) if at >= 0)
                code = position.in_value(trainjob.origin, path, text, starts[expanded - 1] + column)
                operator = position.in_value(
                    trainjob.origin,
                    path,
                    text,
                    starts[opened - 1] + _operator(text[starts[opened - 1] : starts[opened] - 1], delimiter),
                )
                if code is not None and operator is not None:
                    message = (
                        f"$ or a backtick in an unquoted heredoc (<<{delimiter}, opened at {operator[0]}:"
                        f"{operator[1]}), which bash expands before the code runs; quote the delimiter "
                        f"(<<'{delimiter}') to keep the code as written"
                    )
                else:
                    message = (
                        f"line {opened} opens an unquoted heredoc (<<{delimiter}) and its line {expanded} holds "
                        f"$ or a backtick, which bash expands before the code runs; quote the delimiter "
                        f"(<<'{delimiter}') to keep the code as written"
                    )
                found.append(Notice("warning", trainjob.origin, path, message, mark=code))
    return found


def _operator(line: str, delimiter: str) -> int:
    """The column of the operator of the heredoc `delimiter` opens in `line`."""
    return next(match.start() for match in re.finditer(_OPERATOR, line) if match[2] == delimiter)


def expanded_heredocs(script: str) -> list[tuple[int, str, int]]:
    """(line of the operator, delimiter, first body line with `$` or a backtick) of each heredoc bash would expand."""
    lines = script.split("\n")
    found, number = [], 0
    while number < len(lines):
        pending = [(m[1] == "-", m[2]) for m in re.finditer(_OPERATOR, lines[number])]
        opened_at = number + 1
        number += 1
        for strip_tabs, word in pending:  # bodies follow the line, in the order of the operators
            delimiter = re.sub(_QUOTES, "", word)
            body = []
            while number < len(lines):
                text = lines[number].lstrip("\t") if strip_tabs else lines[number]
                number += 1
                if text == delimiter:
                    break
                body.append((number, text))
            expanded = [line for line, text in body if "$" in text or "`" in text]
            if delimiter == word and expanded:
                found.append((opened_at, word, expanded[0]))
    return found
