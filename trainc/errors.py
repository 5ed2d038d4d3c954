"""Errors that point at the input: file, line, column and field path; and `Record`, the base of every record class
(these errors' own first).

Positions are looked up only when an error is rendered, so the hot path never
pays for them. Finding one reads text, which is the formats layer's (`formats/position.py`); this module sits
below it and never imports it: the formats package installs its lookup in `locator` when it is imported,
which it is before any input (any Origin with text) exists.

Record: typing.NamedTuple's class syntax, made as collections.namedtuple makes the class, in one step.
typing.NamedTuple checks every field's annotation, and under `from __future__ import annotations` each is a
string it compiles; collections.namedtuple compiles the source of each class's `__new__`; and setting the class
body's attributes one by one on the made class updates its slots each time: about 0.1 ms a class, and a run with
every check makes forty before its first byte. Here `__new__` is compiled once per number of fields, its
arguments renamed, and the class made with its body in one `type()` call. A Record is the same class otherwise: a
tuple with its fields, defaults, `_make`, `_replace`, `_asdict`, the class body's methods, properties and
docstring, pickled by its module and name; its annotations are kept as written, never evaluated.
"""

from __future__ import annotations

import re
import sys
from collections import _tuplegetter  # the C field accessor collections.namedtuple gives each field
from functools import partial
from types import FunctionType

# what the class body may not set, as typing.NamedTuple refuses it; and what the namedtuple sets itself
_REFUSED = frozenset(
    ("__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace", "_asdict")
)
_OWN = frozenset(("__module__", "__name__", "__annotations__"))
_NEW_GLOBALS = {"_tuple_new": tuple.__new__, "__builtins__": {}}
_NEW_CODE: dict = {}  # number of fields -> the code of a __new__ taking that many, its arguments f0, f1, ...


class _Made(type):
    def __new__(mcs, name: str, bases: tuple, namespace: dict):
        if not bases:  # Record itself
            return super().__new__(mcs, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        fields = tuple(map(sys.intern, annotations))
        defaults = tuple(namespace[field] for field in fields if field in namespace)
        if any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows one with a default")
        made = _tuple_namespace(name, fields, defaults)
        for key, value in namespace.items():
            if key in _REFUSED:
                raise AttributeError(f"{name}: cannot overwrite NamedTuple attribute {key}")
            if key not in _OWN and key not in fields:
                made[key] = value
        made["__module__"], made["__annotations__"] = namespace["__module__"], dict(annotations)
        return type(name, (tuple,), made)


def _tuple_namespace(name: str, fields: tuple, defaults: tuple) -> dict:
    """What collections.namedtuple(name, fields, defaults=defaults) puts in its class."""
    arguments, count = ", ".join(fields) + "," * (len(fields) == 1), len(fields)
    code = _NEW_CODE.get(count)
    if code is None:
        listed = "".join(f", f{index}" for index in range(count))
        code = _NEW_CODE[count] = eval(
            f"lambda _cls{listed}: _tuple_new(_cls, ({listed[2:]}{',' * (count == 1)}))", _NEW_GLOBALS
        ).__code__
    new = FunctionType(code.replace(co_varnames=("_cls", *fields)), _NEW_GLOBALS, "__new__")
    new.__doc__, new.__defaults__ = f"Create new instance of {name}({arguments})", defaults
    shown = "(" + ", ".join(f"{field}=%r" for field in fields) + ")"

    @classmethod
    def _make(cls, iterable):
        result = tuple.__new__(cls, iterable)
        if len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    def _replace(self, /, **changes):
        result = self._make(map(changes.pop, fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return result

    def __repr__(self):
        return self.__class__.__name__ + shown % self

    def _asdict(self):
        return dict(zip(self._fields, self))

    def __getnewargs__(self):
        return tuple(self)

    for method in (new, _make.__func__, _replace, __repr__, _asdict, __getnewargs__):
        method.__qualname__ = f"{name}.{method.__name__}"
    made = {
        "__doc__": f"{name}({arguments})",
        "__slots__": (),
        "_fields": fields,
        "_field_defaults": dict(zip(fields[count - len(defaults) :], defaults)),
        "__new__": new,
        "_make": _make,
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": fields,
    }
    for index, field in enumerate(fields):
        made[field] = _tuplegetter(index, sys.intern(f"Alias for field number {index}"))
    return made


class Record(metaclass=_Made):
    """The base of a record class: `class Placement(Record):` with annotated fields, as with typing.NamedTuple."""


Path = tuple  # field path: keys (str) and list indexes (int)
SHOWN = 256  # characters of a value (or key) a message shows (a name has at most 253): never a 1 MB line
# a value a message quotes, "as JSON" or 'as repr' (not an apostrophe: no letter before it), past SHOWN characters
_LONG_QUOTED = (  # compiled on the first message shortened (re's cache)
    r'"((?:[^"\\\n]|\\.){%d})(?:[^"\\\n]|\\.)+"|(?<!\w)\'((?:[^\'\\\n]|\\.){%d})(?:[^\'\\\n]|\\.)+\'(?!\w)'
    % (SHOWN, SHOWN)
)


def shorten(text: str) -> str:
    """`text` with every quoted value longer than SHOWN characters cut to its first SHOWN, then `…`."""
    if len(text) <= SHOWN:
        return text
    return re.sub(_LONG_QUOTED, lambda m: f'"{m.group(1)}…"' if m.group(1) is not None else f"'{m.group(2)}…'", text)


def one_line(text: str) -> str:
    """`text` with non-printable characters (line breaks, NUL, ANSI escapes, …) escaped, so one
    error stays one line of the `file:line:col: field.path: message` output, whatever the input held."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def did_you_mean(word: str, choices) -> str:
    """`did you mean "a", "b"?` naming up to three `choices` near a misspelt `word`, or "" when none is: the one
    suggestion every "unknown field"/"not found" message makes. The cutoff is high (a one- or two-letter slip):
    difflib's default, 0.6, would offer `numProcPerNode` for `numNode`."""
    import difflib
    import json

    found = difflib.get_close_matches(word, sorted(choices), n=3, cutoff=0.8)
    return f"did you mean {', '.join(json.dumps(name) for name in found)}?" if found else ""


class Name(str):
    """A path part that selects a list item by its `name` key (`env[PET_NNODES]`), where an int selects by index."""


WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # a key printed after a dot: ASCII, as `explain --field` reads it


def _no_text(origin, path, *, key: bool = False) -> tuple[int, int]:
    return (1, 1)


# (origin, path, *, key) -> 1-based (line, column): formats/position.locate once trainc.formats is imported
locator = _no_text


def defined_twice(what: str, first: Origin) -> str:
    """The one message for two inputs that are one object (`what`: `Kind namespace/name`, api.described)."""
    line, column = locator(first, ("metadata", "name"))
    return f"{what} is defined twice (first in {first.file}:{line}:{column})"


def render_path(path: Path) -> str:
    """`spec.trainer.env[2].name`: the one way every message and command prints a field path (and
    `trainc explain --field` reads it back, k8s/fieldpath.parse). A key that is not an ASCII word
    (`labels[trainer.kubeflow.org/x]`, `[ä]`), an index and a Name go in brackets."""
    out = []
    for part in path:
        word = isinstance(part, str) and not isinstance(part, Name) and WORD.fullmatch(part)
        if isinstance(part, str) and len(part) > SHOWN:
            part = part[:SHOWN] + "…"
        out.append((f".{part}" if out else part) if word else f"[{part}]")
    return "".join(out)


class Origin(Record):
    """Where an object came from; `text` is kept to locate fields on error.

    `base` is the object's path inside its document: () for a top-level object,
    ("items", 3) for the fourth item of a `List` or a KRM `ResourceList`.
    """

    file: str
    index: int = 0
    text: str | None = None
    base: tuple = ()


class TraincError(Exception):
    """An error the user can fix; never shown with a traceback."""

    def render(self) -> str:
        return str(self)


class InputError(TraincError):
    """A problem with one field of one input document."""

    def __init__(
        self, origin: Origin | None, path: Path, message: str, *, key: bool = False, mark: tuple[int, int] | None = None
    ):
        super().__init__(message)
        self.origin, self.path, self.message, self.key, self.mark = origin, tuple(path), message, key, mark

    def __reduce__(self):  # pickled from its fields: a parallel build's workers send errors back
        return partial(InputError, key=self.key, mark=self.mark), (self.origin, self.path, self.message)

    def position(self) -> tuple[str, int, int] | None:
        """(file, line, column) the error points at; None for an error of no input."""
        if self.origin is None:
            return None
        line, column = self.mark or locator(self.origin, self.path, key=self.key)
        return self.origin.file, line, column

    def render(self) -> str:
        return _located_line(self.position(), self.path, self.message)


def _located_line(position: tuple[str, int, int] | None, path: Path, message: str) -> str:
    """`file:line:col: field.path: message`, each part there when known, on one line."""
    where = "" if position is None else "{}:{}:{}: ".format(*position)
    field, message = render_path(path), shorten(message)
    return one_line(f"{where}{field}: {message}" if field else f"{where}{message}")


class Notice(Record):
    """A warning or notice for the user, kept as its parts (not as its printed line) so that `trainc validate`
    reports its file, line and column as it does an error's, and a parallel build's workers send it back whole.

    `path` is the field printed before the message (as in an error); `at` is the field the position points at
    when it is not printed (the message names it, or the notice is about a whole object); `mark` a position
    already known. A notice of no one input (origin None) prints as `severity: message`.
    """

    severity: str  # "warning" or "notice"
    origin: Origin | None
    path: Path
    message: str
    at: Path | None = None
    mark: tuple[int, int] | None = None

    def position(self) -> tuple[str, int, int] | None:
        if self.origin is None:
            return None
        line, column = self.mark or locator(self.origin, self.path if self.at is None else self.at)
        return self.origin.file, line, column

    def render(self) -> str:
        return f"{self.severity}: " + _located_line(self.position(), self.path, self.message)

    __str__ = render  # printed as rendered: every place that prints notices echoes them as they come


class PreviousError(ValueError):
    """REV_OR_DIR is neither a directory nor a revision of the inputs' git repository (a usage error)."""


class InputErrors(TraincError):
    """Several independent input errors, reported together in input order."""

    def __init__(self, errors: list[InputError], notices: list[Notice] = ()):
        super().__init__(f"{len(errors)} errors")
        self.errors = errors
        self.notices = list(notices)  # warnings found on the way, for `trainc validate` to print as well

    def render(self) -> str:
        return "\n".join(e.render() for e in self.errors)


def caught(run, *args):
    """(run(*args), []) — or (None, the InputErrors it raised), for callers that report every problem."""
    try:
        return run(*args), []
    except InputErrors as exc:
        return None, list(exc.errors)
    except InputError as exc:
        return None, [exc]
