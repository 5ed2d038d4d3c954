"""The CEL compile cache: a program compiled once is read back (cel-cpp's checked AST, deserialized) in later
runs, about 0.05 ms where compiling took 0.2-1.5 ms each; a policy-checked build compiles dozens.

Entries live in TRAINC_CACHE_DIR (default `$XDG_CACHE_HOME/trainc`, else `~/.cache/trainc`), under `cel/`; an
empty TRAINC_CACHE_DIR turns the cache off. Each holds the expression, its variables, the environment that
compiled it and the versions of cel-cpp and of trainc's CEL libraries it was compiled with; an entry that
does not match all of them, or does not read, is compiled again and written anew. A cache that cannot be
written is no error: the run compiles, as without one. What is read back means what compiling means: the same
checked AST, planned in the same environment.

Bounded for a machine many repositories render on (a shared Argo CD sidecar): an entry is at most 64 KiB (a
larger program is compiled every time), and each of the 256 folders entries are spread over holds at most 64,
the oldest written making room for a new one: 1 GiB at the very most, a few megabytes in practice.
"""

from __future__ import annotations

import os
import stat
import zlib
from contextlib import suppress
from functools import cache

_MAGIC = b"trainc-cel 1\n"
_MAX_ENTRY = 64 << 10  # bytes: a larger program is compiled every time, never written
_PER_FOLDER = 64  # entries in one of the 256 folders; the oldest makes room


def read(expression: str, names: tuple, envs: dict):
    """The program cached for `expression` over `names`, planned in its environment (`envs[kind](names)`); None
    when there is none that matches."""
    path = _path(expression, names)
    if path is None:
        return None
    try:  # a regular file only, its name no link: nothing in the cache folder can make a run wait or read elsewhere
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as stream:
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return None
            data = stream.read(_MAX_ENTRY + 1)
        except OSError:
            return None
    fields = _fields(data)
    if fields is None:
        return None
    tag, kind, variables, text, checked = fields
    if tag != _tag() or variables != "\0".join(names) or text != expression or kind not in envs:
        return None
    try:
        return envs[kind](names).deserialize(checked)
    except Exception:  # noqa: BLE001 - an entry cel-cpp does not take is compiled again
        return None


def write(expression: str, names: tuple, kind: str, program) -> None:
    """Keep `program` (compiled in the environment named `kind`) for the next run; silent when it cannot."""
    path = _path(expression, names)
    if path is None:
        return
    try:
        checked = program.serialize()
    except Exception:  # noqa: BLE001 - a program that does not serialize is compiled every time
        return
    texts = [_tag(), kind, "\0".join(names), expression]
    data = _MAGIC + b"".join(_sized(text.encode("utf-8", "surrogatepass")) for text in texts) + checked
    if len(data) > _MAX_ENTRY:
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _make_room(os.path.dirname(path))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(temporary, flags, 0o644), "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)  # whole or not at all, should another run write it meanwhile
    except OSError:  # not written: the run compiles, as without a cache
        with suppress(OSError):  # never made (the folder or the file could not be): nothing to take back
            os.unlink(temporary)


def _make_room(folder: str) -> None:
    """Remove the oldest entries of a full folder."""
    with os.scandir(folder) as listing:
        entries = [entry for entry in listing if entry.is_file(follow_symlinks=False)]
    if len(entries) < _PER_FOLDER:
        return
    entries.sort(key=lambda entry: entry.stat(follow_symlinks=False).st_mtime_ns)
    for entry in entries[: len(entries) - _PER_FOLDER + 1]:
        with suppress(FileNotFoundError):  # another run made room meanwhile
            os.unlink(entry.path)


def _sized(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def _fields(data: bytes) -> tuple | None:
    """(tag, kind, variables, expression, checked AST) of an entry, None when it does not read."""
    if not data.startswith(_MAGIC) or len(data) > _MAX_ENTRY:
        return None
    at, texts = len(_MAGIC), []
    for _ in range(4):
        size = int.from_bytes(data[at : at + 4], "big")
        if at + 4 + size > len(data):
            return None
        try:
            texts.append(data[at + 4 : at + 4 + size].decode("utf-8", "surrogatepass"))
        except UnicodeDecodeError:
            return None
        at += 4 + size
    return (*texts, data[at:])


def _path(expression: str, names: tuple) -> str | None:
    folder = _folder()
    if folder is None:
        return None
    key = "\0".join((*names, expression)).encode("utf-8", "surrogatepass")
    digest = f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}{len(key):x}"
    return os.path.join(folder, digest[:2], digest)


def _folder() -> str | None:
    """Where the entries live, None with the cache off."""
    given = os.environ.get("TRAINC_CACHE_DIR")
    if given is not None:
        return os.path.join(given, "cel") if given else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "trainc", "cel")


@cache
def _tag() -> str:
    """What an entry was compiled with: cel-cpp's build and trainc's CEL libraries (as installed files)."""
    from cel_expr_python import cel

    here = os.path.dirname(os.path.abspath(__file__))
    marks = []
    for file in (cel.__file__, os.path.join(here, "celengine.py"), os.path.join(here, "celauthz.py")):
        try:
            found = os.stat(file)
            marks.append(f"{found.st_size}:{found.st_mtime_ns}")
        except (OSError, TypeError):
            marks.append("?")
    return " ".join(marks)
