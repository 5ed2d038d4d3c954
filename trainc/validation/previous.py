"""The previous versions of the inputs, for update checks (`trainc validate --previous REV_OR_DIR`).

REV_OR_DIR is a directory holding the previous versions (searched like the
inputs), or a git revision: each input file is then read as it was at that
revision (`git show REV:./file`, run in the file's folder, so any working
directory works). A file absent at the revision holds only new objects.
Objects are matched by kind, namespace and name; an object without a previous
version is being created. Previous versions are defaulted like the inputs,
as the API server stored them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import api, source
from .. import inputs as inputset
from ..errors import InputError, InputErrors, Origin, caught


class PreviousError(ValueError):
    """REV_OR_DIR is neither a directory nor a revision of the inputs' git repository (a usage error)."""


def key(obj) -> tuple:
    """(kind, namespace, name); ClusterTrainingRuntimes have no namespace."""
    namespace = None if obj.kind == "ClusterTrainingRuntime" else obj.metadata.namespace
    return (obj.kind, namespace, obj.name)


@dataclass(frozen=True)
class Previous:
    trees: dict = field(default_factory=dict)  # key -> defaulted document
    objects: dict = field(default_factory=dict)  # key -> the parsed previous TrainJob or runtime
    others: list = field(default_factory=list)  # (origin, object) of other API groups, as `build` passes them
    uncompiled: list = field(default_factory=list)  # (origin, object) of Trainer kinds trainc does not compile

    def find(self, obj) -> dict | None:
        return self.trees.get(key(obj))

    def runtimes(self) -> list:
        return [obj for obj in self.objects.values() if obj.kind != "TrainJob"]

    def runtimes_then(self, current: list) -> list:
        """The runtimes previous versions compile with: their own, else the current ones."""
        known = {key(runtime) for runtime in self.runtimes()}
        return self.runtimes() + [runtime for runtime in current if key(runtime) not in known]


def tree(obj) -> dict:
    """The input document of a parsed object, defaulted as the API server stores it."""
    return obj.document


def load(rev_or_dir: str, files: list[str], namespace: str) -> Previous:
    if os.path.isdir(rev_or_dir):
        texts = [(path, lambda path=path: source.read(path)) for path in inputset.listed([rev_or_dir])]
    else:
        texts = _at_revision(rev_or_dir, [f for f in inputset.listed(files) if os.path.isfile(f)])
    previous, errors, seen = Previous(), [], {}
    for name, read in texts:
        documents, problems = caught(lambda: list(source.load_text(read(), name)))
        errors.extend(problems)
        for document in documents or ():
            for origin, data in source.items(*document):  # `List`s hold their objects, as in the inputs
                _add(origin, data, namespace, previous, seen, errors)
    if errors:
        raise InputErrors(errors)
    return previous


def _add(origin: Origin, data, namespace: str, previous: Previous, seen: dict, errors: list) -> None:
    if api.uncompiled(data):
        previous.uncompiled.append((origin, data))
        return
    parsed, problems = caught(api.parse, origin, data, namespace)
    errors.extend(problems)
    if parsed is None:
        if not problems:
            previous.others.append((origin, data))
        return
    found = key(parsed)
    if found in seen:
        errors.append(InputError(origin, ("metadata", "name"),
                                 f"{parsed.kind} {parsed.name!r} has two previous versions (first in {seen[found]})"))
        return
    seen[found], previous.trees[found], previous.objects[found] = origin.file, data, parsed


def _at_revision(rev: str, files: list[str]) -> list:
    """(REV:path, reader of its text) for every input file that exists at `rev`."""
    if not files:
        raise PreviousError(f"{rev!r} is not a directory, and no input file (stdin has no history) can be read at it")
    prefixes, found = {}, []
    for path in files:
        folder, name = os.path.split(os.path.realpath(path))  # a symlinked input: the file it names
        if folder not in prefixes:
            prefixes[folder] = _prefix(rev, folder)
        shown = _git(folder, "show", f"{rev}:./{name}")
        if shown.returncode != 0:
            continue
        label = f"{rev}:{prefixes[folder]}{name}"
        found.append((label, lambda label=label, data=shown.stdout: _decode(label, data)))
    return found


def _decode(label: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(Origin(label), (), "not UTF-8 text") from None


def _prefix(rev: str, folder: str) -> str:
    """The folder's path in its repository, after checking that `rev` is a commit there."""
    if _git(folder, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").returncode != 0:
        raise PreviousError(f"{rev!r} is neither a directory nor a git revision of the repository holding {folder}")
    return _git(folder, "rev-parse", "--show-prefix").stdout.decode().strip()


def _git(folder: str, *args: str) -> subprocess.CompletedProcess:
    import subprocess  # only --previous REV needs it

    try:
        return subprocess.run(["git", "-C", folder, *args], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PreviousError(f"cannot run git: {exc}") from None
