"""Read the inputs: files or stdin within a byte budget, YAML (`yamltext.py`) or JSON (`jsontext.py`) documents.

What a file means, and where an error is reported, never depends on unrelated
text: every stream is parsed and composed by libyaml alone (PyYAML's own scanner
is consulted for the nesting verdict only, `yamlshape.py`), but for text of the
common block shape, which `blockyaml.py` reads to the same data without it (and
without importing it). Input is read from regular files or stdin, within a byte
budget per run (`Budget`).

kubectl turns YAML into JSON with go-yaml v2, so plain scalars are read as its
resolver reads them (`goyaml.py`: `y` and `on` are booleans, `12:30` and
timestamps are strings, `1e3` is a number), numbers as the JSON it sends them as
(`2.0` is 2), and duplicate keys are refused (kubectl's strict decoding does too).

A stream whose first non-blank character is `{` is JSON (`jsontext.py`), as
kubectl and the API server sniff it; like kubectl, trainc refuses such text
that is not JSON rather than reading it as YAML.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from ..errors import InputError, Origin
from . import blockyaml, limits
from .regular_file import NOT_REGULAR, read_regular


_JSON_START = re.compile(r"\s*\{")


def is_json(text: str) -> bool:
    """A JSON stream: its first non-blank character is `{` (`jsontext` reads it, imported then)."""
    return _JSON_START.match(text) is not None


def _reader_error(origin: Origin, exc) -> InputError:
    """A character YAML forbids (a yaml.reader.ReaderError): the error has an offset only (libyaml counts UTF-8
    bytes)."""
    from . import yamltext

    text = origin.text or ""
    offset = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
    message = f"invalid YAML: unacceptable character #x{exc.character:04x}: {exc.reason}"
    return InputError(origin, (), message, mark=yamltext.line_column(text, offset))


def _mark_error(origin: Origin, exc) -> InputError:
    import yaml

    if isinstance(exc, yaml.reader.ReaderError):
        return _reader_error(origin, exc)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    message = f"invalid YAML: {getattr(exc, 'problem', None) or exc}"
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    where = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    if context and context_mark is not None:
        at = (context_mark.line + 1, context_mark.column + 1)
        message += f" ({context})" if at == where else f" ({context} at line {at[0]}, column {at[1]})"
    return InputError(origin, (), message, mark=where)


def load_text(text: str, file: str) -> Iterator[tuple[Origin, object]]:
    """Yield (origin, document) for each non-empty document of a YAML stream or JSON stream."""
    if is_json(text):
        from . import jsontext

        try:
            decoded = jsontext.values(text)
        except jsontext.JsonError as exc:
            message, offset = exc.args
            raise InputError(
                Origin(file, text=text), (), f"invalid JSON: {message}", mark=jsontext.line_column(text, offset)
            ) from None
        for index, data in enumerate(decoded):
            if data is not None:
                yield Origin(file, index, text), data
        return
    documents = blockyaml.documents(text)
    for index, data in enumerate(_libyaml(text, file) if documents is None else documents):
        if data is not None:
            yield Origin(file, index, text), data


def _libyaml(text: str, file: str) -> list:
    import yaml

    from . import yamltext

    try:
        return yamltext.load_all(text)
    except yaml.YAMLError as exc:
        raise _mark_error(Origin(file, text=text), exc) from None


def items(origin: Origin, document) -> Iterator[tuple[Origin, object]]:
    """The objects of a document: a `List` (e.g. `kubectl get -o yaml`) gives its items, as kubectl apply does."""
    if isinstance(document, dict) and document.get("kind") == "List" and isinstance(document.get("items"), list):
        for index, item in enumerate(document["items"]):
            yield origin._replace(base=origin.base + ("items", index)), item
    else:
        yield origin, document


STDIN = "<stdin>"  # the name of `-` in messages, in every command
_CHUNK = 1 << 20


def name(path: str) -> str:
    return STDIN if path == "-" else path


class Budget:
    """The input bytes a run may still read (`--max-input-bytes`): every input is read at most that far,
    so /dev/zero or a runaway pipe is an error, not an exhausted memory."""

    def __init__(self, limit: int | None = None):
        self.limit = self.left = limits.MAX_INPUT_BYTES if limit is None else limit

    def take(self, handle, file: str) -> bytes:
        """What `handle` holds, read in chunks (one read of the limit would allocate all of it at once)."""
        chunks, size = [], 0
        while size <= self.left:
            chunk = handle.read(min(_CHUNK, self.left + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        self.charge(len(data), file)
        return data

    def charge(self, size: int, file: str) -> None:
        """Count `size` bytes of `file` as read; an error past the limit."""
        if size > self.left:
            raise InputError(
                Origin(file),
                (),
                f"the inputs of this run exceed {self.limit} bytes (raise the limit "
                "with --max-input-bytes or TRAINC_MAX_INPUT_BYTES)",
            )
        self.left -= size


def read(path: str, budget: Budget | None = None) -> str:
    """The text of a regular file, or of stdin for `-`, read within `budget` (the run's bound by default)."""
    return decode(read_bytes(path, budget), name(path))


def decode(data: bytes, file: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(Origin(file), (), "not UTF-8 text") from None


def read_bytes(path: str, budget: Budget | None = None) -> bytes:
    """What a regular file, or stdin for `-`, holds, read within `budget` (the run's bound by default).
    A pipe or device given by path is refused: opening a FIFO without a writer would block forever."""
    budget, file = budget or Budget(), name(path)
    try:
        if path == "-":
            if sys.stdin is None:  # started with stdin closed (`<&-`)
                raise InputError(Origin(file), (), "cannot read: stdin is closed")
            return budget.take(sys.stdin.buffer, file)
        data = read_regular(path, budget.left)
        budget.charge(len(data), file)
        return data
    except OSError as exc:
        hint = " (a pipe or device: pass its text on stdin, as -)" if exc.strerror == NOT_REGULAR else ""
        raise InputError(Origin(file), (), f"cannot read: {exc.strerror or exc}{hint}") from None
