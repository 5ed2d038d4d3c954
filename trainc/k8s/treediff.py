"""Where two JSON trees differ: the one walk behind `trainc diff`'s hunks and the JobSet update checks.

Maps are compared key by key (the new tree's order, then keys only the old one
has); lists item by item, or, with `named`, by each item's `name` when every
item of both lists has a distinct one (`fieldpath.named`), as `trainc diff`
shows them. With `semantic`, trees compare as Go's semantic equality compares
the objects the API server decoded: null, [] and {} are the same as absent, and
a number is equal to the same number of another JSON spelling (1 and 1.0).
"""

from __future__ import annotations

from ..errors import Name
from . import fieldpath

MISSING = object()  # what a side holds where only the other has a value


def _absent(value) -> bool:
    return value is MISSING or (value is None or value == [] or value == {})


def changes(old, new, path: tuple = (), *, named: bool = False, semantic: bool = False):
    """(path, old, new) for every place the trees differ, MISSING where a side has nothing."""
    if semantic and _absent(old) and _absent(new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for name in [*new, *(name for name in old if name not in new)]:
            yield from changes(
                old.get(name, MISSING), new.get(name, MISSING), (*path, name), named=named, semantic=semantic
            )
    elif isinstance(old, list) and isinstance(new, list):
        if named and fieldpath.named(old) and fieldpath.named(new):
            before = {item["name"]: item for item in old}
            after = {item["name"]: item for item in new}
            for name in [*after, *(name for name in before if name not in after)]:
                yield from changes(
                    before.get(name, MISSING),
                    after.get(name, MISSING),
                    (*path, Name(name)),
                    named=named,
                    semantic=semantic,
                )
        else:
            for index in range(max(len(old), len(new))):
                yield from changes(
                    old[index] if index < len(old) else MISSING,
                    new[index] if index < len(new) else MISSING,
                    (*path, index),
                    named=named,
                    semantic=semantic,
                )
    elif old != new or (not semantic and type(old) is not type(new)):
        yield (path, old, new)


def first_change(old, new, path: tuple = ()) -> tuple | None:
    """The path of the first place two trees differ as the API server compares them (`semantic`), or None."""
    return next((found for found, _, _ in changes(old, new, path, semantic=True)), None)
