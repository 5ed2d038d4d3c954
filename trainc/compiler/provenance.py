"""Where each rendered field came from, recorded while compiling, for `trainc explain`.

Off unless asked for: the pipeline Context's `provenance` is None, and each write
site in a pass or plugin records with one guarded call of one shape,

    if ctx.provenance is not None:
        ctx.provenance.record(node, key, Source(...))

so a build pays one attribute test per write site and builds no Source. A
record names a node of the tree being built (a map, or a list item) and one key
of it, or None for the whole node; a later record of the same place wins, as
the later write did. A `mirror` source says the node copies the input at
`path`: a field below it is found at the same relative path in the input (list
items by name). What no pass records is the runtime template's, mirrored from
the runtime's `spec.template` (`explain.py`).
"""

from __future__ import annotations

from ..errors import Origin, Record
from ..k8s import fieldpath

TRAINER_OVERRIDE = "trainer override"


class Source(Record):
    by: str  # the pass, plugin, runtime or patch that wrote the field
    origin: Origin | None = None  # the input document the value came from
    path: tuple = ()  # the input field in that document
    mirror: bool = False  # the recorded node copies the input at `path`, field for field


class Provenance:
    def __init__(self) -> None:
        self._marks: dict = {}  # (id(node), key) -> (node, Source); the node is kept so its id stays unique
        self.units: dict = {}  # (namespace, name) -> the compiled Unit

    def record(self, node, key, source: Source) -> None:
        self._marks[id(node), key] = (node, source)

    def items(self, items, source: Source) -> None:
        """Record list items a pass added (env variables, volumes, mounts, ports), each as a whole."""
        for item in items:
            self.record(item, None, source)

    def trainer_env(self, unit, env: list) -> None:
        """Record the TrainJob's `trainer.env`, as upserted (whichever pass or plugin does it)."""
        for index, variable in enumerate(env):
            path = ("spec", "trainer", "env", index)
            self.record(variable, None, Source(TRAINER_OVERRIDE, unit.trainjob.origin, path, mirror=True))

    def overlay(self, target, overlay, source: Source, before=None) -> None:
        """Record every field of `overlay` (a patch merged into `target`; `before` is the tree it was merged
        into) as written by `source` at its place. A list item the patch adds is the patch's as a whole; one it
        merges into is matched by name (when names tell items apart, else by value) and keeps the name (the merge
        key) of the item it merges into."""
        if isinstance(overlay, dict) and isinstance(target, dict):
            for key, value in overlay.items():
                if key not in target:
                    continue
                inner = Source(source.by, source.origin, (*source.path, key), source.mirror)
                was = before.get(key) if isinstance(before, dict) else None
                if isinstance(value, (dict, list)) and isinstance(target[key], type(value)):
                    self.overlay(target[key], value, inner, was)
                else:
                    self.record(target, key, inner)
        elif isinstance(overlay, list) and isinstance(target, list):
            named = {item.get("name"): item for item in target if isinstance(item, dict) and "name" in item}
            existed = {item.get("name"): item for item in before or () if isinstance(item, dict) and "name" in item}
            for index, item in enumerate(overlay):
                inner = Source(source.by, source.origin, (*source.path, index), source.mirror)
                name = item.get("name") if isinstance(item, dict) and fieldpath.named(target) else None
                if name is not None and name in named and name in existed:
                    fields = {key: value for key, value in item.items() if key != "name"}
                    self.overlay(named[name], fields, inner, existed[name])
                    continue
                added = named.get(name) if name is not None else next((t for t in target if t == item), None)
                if isinstance(added, (dict, list)):
                    self.record(added, None, inner)

    def finish(self, unit) -> None:
        """Keep the compiled unit: its trees are the nodes the records name."""
        self.units[unit.trainjob.namespace, unit.name] = unit

    def find(self, chain: list) -> tuple[Source, tuple] | None:
        """The source recorded nearest a leaf on its chain [(node, key), ...] (root first; a node is None
        where the compiled tree has no counterpart), and the path from the recorded node down to the leaf."""
        for depth in range(len(chain) - 1, -1, -1):
            node, key = chain[depth]
            if node is None:
                continue
            below = tuple(part for _, part in chain[depth + 1 :])
            for mark, rest in (((id(node), key), below), ((id(node), None), (key, *below))):
                found = self._marks.get(mark)
                if found is not None and found[0] is node:
                    return found[1], rest
        return None


def trainjob(unit, by: str, *path) -> Source:
    """A source in the unit's TrainJob; `path` only when the TrainJob sets that field."""
    return _input(by, unit.trainjob, path)


def runtime(unit, by: str, *path) -> Source:
    return _input(by, unit.runtime, path)


def _input(by: str, obj, path: tuple) -> Source:
    """A source at `path` in `obj`'s document (list items may be named), or at the deepest part of it there."""
    for end in range(len(path), 0, -1):
        found = fieldpath.indexes(obj.document, path[:end])
        if found is not None:
            return Source(by, obj.origin, found)
    return Source(by, obj.origin)
