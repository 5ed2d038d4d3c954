"""The previous versions of the inputs, for update checks (`trainc validate --previous REV_OR_DIR`; read by
`inputs.read_previous`).

Objects are matched by identity (kind, namespace and name), never by file; an
object without a previous version is being created. Previous versions are
defaulted like the inputs, as the API server stored them.
"""

from __future__ import annotations

from ..errors import InputError, Origin, Record, caught
from . import api


def key(obj) -> tuple:
    return api.identity(obj.kind, obj.metadata.namespace, obj.name)


class Previous(Record):
    trees: dict  # key -> defaulted document
    objects: dict  # key -> the parsed previous TrainJob or runtime
    others: list  # (origin, object) of other API groups, as `build` passes them
    uncompiled: list  # (origin, object) of Trainer kinds trainc does not compile
    release: object = None  # the Trainer release their objects were rendered at (releases.Release); None: this run's

    def find(self, obj) -> dict | None:
        return self.trees.get(key(obj))

    def runtimes(self) -> list:
        return [obj for obj in self.objects.values() if obj.kind != "TrainJob"]

    def runtimes_then(self, current: list) -> list:
        """The runtimes previous versions compile with: their own, else the current ones."""
        known = {key(runtime) for runtime in self.runtimes()}
        return self.runtimes() + [runtime for runtime in current if key(runtime) not in known]


def collect(documents, namespace: str, errors: list) -> Previous:
    """The previous versions among (origin, document) pairs read by the input rule (`inputs.read_previous`);
    their problems go to `errors`."""
    previous, seen = Previous({}, {}, [], []), {}
    for origin, data in documents:
        _add(origin, data, namespace, previous, seen, errors)
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
        from ..formats import position  # and YAML with it: only for this error

        errors.append(
            InputError(
                origin,
                ("metadata", "name"),
                f"{api.described(*found)} has two previous versions (first in {position.name_place(seen[found])})",
            )
        )
        return
    seen[found], previous.trees[found], previous.objects[found] = origin, data, parsed
