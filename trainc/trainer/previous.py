"""The previous versions of the inputs, for update checks (`trainc validate --previous REV_OR_DIR`).

REV_OR_DIR is a directory holding the previous versions (searched like the
inputs), or a git revision: PATHS (and --runtimes) are then read as the tree
at that revision holds them (`inputs.at_revision`), so a file deleted since
holds removed objects and a moved one its objects where they were. Objects are
matched by identity (kind, namespace and name), never by file; an object
without a previous version is being created. Previous versions are defaulted
like the inputs, as the API server stored them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import inputs as inputset
from ..errors import InputError, InputErrors, Origin, caught
from ..formats import source, yamltext
from . import api


class PreviousError(ValueError):
    """REV_OR_DIR is neither a directory nor a revision of the inputs' git repository (a usage error)."""


def key(obj) -> tuple:
    return api.identity(obj.kind, obj.metadata.namespace, obj.name)


@dataclass(frozen=True)
class Previous:
    trees: dict = field(default_factory=dict)  # key -> defaulted document
    objects: dict = field(default_factory=dict)  # key -> the parsed previous TrainJob or runtime
    others: list = field(default_factory=list)  # (origin, object) of other API groups, as `build` passes them
    uncompiled: list = field(default_factory=list)  # (origin, object) of Trainer kinds trainc does not compile
    release: object = None  # the Trainer release their objects were rendered at (releases.Release); None: this run's

    def find(self, obj) -> dict | None:
        return self.trees.get(key(obj))

    def runtimes(self) -> list:
        return [obj for obj in self.objects.values() if obj.kind != "TrainJob"]

    def runtimes_then(self, current: list) -> list:
        """The runtimes previous versions compile with: their own, else the current ones."""
        known = {key(runtime) for runtime in self.runtimes()}
        return self.runtimes() + [runtime for runtime in current if key(runtime) not in known]


def load(rev_or_dir: str | None, paths, namespace: str = "default", runtime_paths=(), reader=None) -> Previous:
    """The previous versions of PATHS and --runtimes (of which only runtimes are read); None: PATHS as they are
    (read by `reader`), for a change of Trainer release alone. Raises PreviousError for a REV_OR_DIR that is
    neither, InputErrors for previous versions that cannot be read."""
    errors: list = []
    if rev_or_dir is None:
        found, reader = inputset.files(paths, runtime_paths), reader or inputset.Reader()
        documents, runtime_documents = reader.documents(found.inputs, errors), reader.documents(found.runtimes, errors)
    elif os.path.isdir(rev_or_dir):
        documents, runtime_documents = inputset.Reader().documents(inputset.listed([rev_or_dir]), errors), []
    else:
        try:
            texts, runtime_texts = inputset.at_revision(rev_or_dir, paths, runtime_paths)
        except inputset.RevisionError as exc:
            raise PreviousError(str(exc)) from None
        documents = inputset.documents(_decoded(texts), errors)
        runtime_documents = inputset.documents(_decoded(runtime_texts), errors)
    previous, seen = Previous(), {}
    for origin, data in [*documents, *inputset.runtimes_only(runtime_documents, [])]:
        _add(origin, data, namespace, previous, seen, errors)
    if errors:
        raise InputErrors(sorted(errors, key=_place))
    return previous


def _place(error: InputError) -> tuple:
    return error.position() or ("", 0, 0)


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
        errors.append(InputError(origin, ("metadata", "name"), f"{api.described(*found)} has two previous versions "
                                                               f"(first in {yamltext.name_place(seen[found])})"))
        return
    seen[found], previous.trees[found], previous.objects[found] = origin, data, parsed


def _decoded(texts) -> list:
    """(label, reader of its text) for (label, bytes) pairs read at a revision."""
    return [(label, lambda label=label, data=data: source.decode(data, label)) for label, data in texts]
