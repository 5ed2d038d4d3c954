"""The verbs, one module each: what a command prints of the one run, `trainc.engine.run` (trainc/cli/ only
declares the flags and builds the run's options).

What they share is here: the exit codes, failing with an error line, a usage error, and writing stdout whole.
None of it imports click: `trainc build`'s plain command line is read without it (`trainc.cli.quick`).
"""

from __future__ import annotations

import errno
import os
import sys

from ..errors import TraincError

EXIT_INVALID = 1
EXIT_DIFF_ERROR = 2  # `trainc diff` exits as `kubectl diff`: 1 means differences
_CHUNK = 1 << 20  # characters of output encoded and written at a time
_LINES_AT_ONCE = 1 << 16  # characters of notices written at a time


class Usage(Exception):
    """A command line that cannot be run as given (exit 2), found by a flow: click says it under the command's
    usage line, as its own usage errors; `param_hint` names the option it is about."""

    def __init__(self, message: str, param_hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.param_hint = param_hint


def echo(*lines) -> None:
    """Lines on stderr, at once (notices, an error), in a few writes however many (a large build's notices in
    writes of about _LINES_AT_ONCE characters, not one each nor one copy of them all); nowhere when the process has
    no stderr."""
    if sys.stderr is None:
        return
    held, size = [], 0
    for line in lines:
        text = f"{line}\n"
        held.append(text)
        size += len(text)
        if size >= _LINES_AT_ONCE:
            sys.stderr.write("".join(held))
            held, size = [], 0
    if held:
        sys.stderr.write("".join(held))
    sys.stderr.flush()


def fail(error: TraincError) -> None:
    echo(error.render())
    sys.exit(EXIT_INVALID)


def write_out(text: str | list[str]) -> None:
    """The output on stdout, written whole to its descriptor: a full disk, a file size limit or a closed
    stdout is an error line and exit 1, never a cut output with exit 0 nor a traceback. `text` may be the
    output's pieces, all made already, so that a large output is never joined into one more copy."""
    pieces = [text] if isinstance(text, str) else text
    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "stdout is closed")
        try:
            descriptor = sys.stdout.fileno()
        except (AttributeError, ValueError, OSError):  # not a real file (a test's capture): its own write
            sys.stdout.write("".join(pieces))
            sys.stdout.flush()
            return
        sys.stdout.flush()
        for data in _encoded(pieces):
            while data:
                data = data[os.write(descriptor, data) :]
    except BrokenPipeError:  # the reader went away (`| head`): quiet, and nothing left to flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_INVALID)
    except OSError as exc:
        echo(f"Error: cannot write the output: {exc.strerror or exc}")
        sys.exit(EXIT_INVALID)


def _encoded(pieces):
    """The pieces as UTF-8, about _CHUNK characters at a time: no second copy of a large output, and few writes
    for many small pieces."""
    held, size = [], 0
    for piece in pieces:
        for start in range(0, len(piece), _CHUNK):
            part = piece[start : start + _CHUNK]
            held.append(part)
            size += len(part)
            if size >= _CHUNK:
                yield memoryview("".join(held).encode("utf-8"))
                held, size = [], 0
    if held:
        yield memoryview("".join(held).encode("utf-8"))
