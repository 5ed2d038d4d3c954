"""`trainc diff`: what a change to the inputs does to the rendered objects, and whether the cluster takes it.

Both sides are compiled by the one build: the base is read as `--previous`
reads previous versions (a directory, or the input files at a git revision),
and compiled with its own runtimes, falling back to the current ones as the
JobSet update check does. Objects are matched by kind, namespace and name;
fields are compared by path, list items by their `name` (`fieldpath`).
Secret values never reach the output: they are replaced by a short hash
before comparing. Whether the cluster refuses an update is the `--previous`
check itself (TrainJob transition rules, the JobSet webhook's update rules),
plus the API server's rule that an immutable Secret or ConfigMap keeps its data.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field

from . import build, fieldpath, passthrough
from .depth import room_for_depth
from .errors import InputErrors
from .serialize import dump_all
from .validation import previous as previous_versions

REFUSED = "the cluster will refuse this update: delete and re-create, or rename the TrainJob"
RUNTIME_REFUSED = "the cluster will refuse this update: delete and re-create the runtime"
CREATED = "applying creates it"
UPDATED = "applying updates it in place"
REMOVED = "no longer rendered: `kubectl apply` leaves it in the cluster; a pruning apply (Argo CD, Flux) deletes it"
_MISSING = object()
_SECRET_FIELDS = ("data", "stringData")
_IMMUTABLE_DATA = ("data", "binaryData", "stringData", "immutable")


@dataclass
class ObjectDiff:
    kind: str
    namespace: str
    name: str
    change: str  # added, removed or changed
    effect: str
    reasons: list = field(default_factory=list)  # why the cluster refuses the update
    hunks: list = field(default_factory=list)  # (path, old or _MISSING, new or _MISSING)

    @property
    def title(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


def compare(paths, runtime_paths=(), *, base: str = "HEAD", namespace: str = "default", ssh_key_seed=None,
            trainer_only: bool = False) -> list[ObjectDiff]:
    """The differences between what `trainc build` prints for PATHS at `base` and now (the rendered objects
    and, unless `trainer_only`, what passes through), in (kind, namespace, name) order.

    Raises PreviousError for a base that is neither a directory nor a revision,
    InputErrors when either side does not compile."""
    before = previous_versions.load(base, [*paths, *runtime_paths], namespace)
    current_runtimes = build.load(paths, runtime_paths, namespace)[1]
    old = build.build_parsed([obj for obj in before.objects.values() if obj.kind == "TrainJob"],
                             before.runtimes_then(current_runtimes), namespace=namespace, ssh_key_seed=ssh_key_seed)
    try:  # the update checks of `build --previous`; most changes pass them, and this is the new side then
        new, refusals = build.build(paths, runtime_paths, namespace=namespace, ssh_key_seed=ssh_key_seed,
                                    previous=before), {}
    except InputErrors as exc:
        new = build.build(paths, runtime_paths, namespace=namespace, ssh_key_seed=ssh_key_seed)
        refusals = _refusals(exc.errors, new.jobs, current_runtimes)
    old.others, old.uncompiled = before.others, before.uncompiled
    old_objects = {_key(obj): obj for obj in passthrough.select(old, namespace=namespace,
                                                                trainer_only=trainer_only).objects()}
    new_objects = {_key(obj): obj for obj in passthrough.select(new, namespace=namespace,
                                                                trainer_only=trainer_only).objects()}
    found = []
    for key in sorted(old_objects.keys() | new_objects.keys() | refusals.keys()):
        if key in old_objects or key in new_objects:
            with room_for_depth(2):  # a level of the walk of both trees: a generator frame and its `yield from`
                found.extend(_object_diff(key, old_objects.get(key), new_objects.get(key), refusals.get(key, [])))
        else:  # a runtime: not rendered, but an update the cluster refuses
            found.append(ObjectDiff(*key, "changed", RUNTIME_REFUSED, refusals[key]))
    return found


def _key(obj: dict) -> tuple:
    metadata = obj.get("metadata") or {}
    return (obj["kind"], metadata.get("namespace") or "", metadata["name"])


def _refusals(errors: list, jobs, runtimes) -> dict:
    """{object key: [rendered errors]} of the update checks: a TrainJob's go to its JobSet, a runtime's to the
    runtime."""
    owners = {_origin(trainjob.origin): ("JobSet", trainjob.namespace, trainjob.name) for trainjob, _ in jobs}
    owners.update({_origin(runtime.origin): (runtime.kind, runtime.metadata.namespace or "", runtime.name)
                   for runtime in runtimes})
    found: dict = {}
    for error in errors:
        found.setdefault(owners.get(_origin(error.origin)), []).append(error.render())
    found.pop(None, None)  # every update check names a TrainJob or a runtime
    return found


def _origin(origin) -> tuple | None:
    return None if origin is None else (origin.file, origin.index, origin.base)


def _object_diff(key: tuple, old: dict | None, new: dict | None, refusals: list) -> list[ObjectDiff]:
    kind, namespace, name = key
    if old is None:
        return [ObjectDiff(kind, namespace, name, "added", CREATED, hunks=[((), _MISSING, _redact(new))])]
    if new is None:
        return [ObjectDiff(kind, namespace, name, "removed", REMOVED, hunks=[((), _redact(old), _MISSING)])]
    hunks = list(_changes(_redact(old), _redact(new), ()))
    if not hunks:
        return []
    reasons = list(refusals)
    if old.get("immutable") is True and any(path[0] in _IMMUTABLE_DATA for path, _, _ in hunks):
        reasons.append(f"{kind} {name!r} is immutable: its data cannot change")
    return [ObjectDiff(kind, namespace, name, "changed", REFUSED if reasons else UPDATED, reasons, hunks)]


def _redact(obj: dict) -> dict:
    """A Secret with every value replaced by a short hash of it; other objects as they are."""
    if obj.get("kind") != "Secret":
        return obj
    return {key: {name: _hidden(value) for name, value in value.items()} if key in _SECRET_FIELDS
            and isinstance(value, dict) else value for key, value in obj.items()}


def _hidden(value) -> str:
    return f"(hidden, sha256 {hashlib.sha256(str(value).encode()).hexdigest()[:8]})"


def _changes(old, new, path: tuple):
    """(path, old, new) for every place the trees differ; _MISSING where a side has nothing."""
    if isinstance(old, dict) and isinstance(new, dict):
        for name in [*new, *(name for name in old if name not in new)]:
            yield from _changes(old.get(name, _MISSING), new.get(name, _MISSING), (*path, name))
    elif isinstance(old, list) and isinstance(new, list):
        if fieldpath.named(old) and fieldpath.named(new):
            before = {item["name"]: item for item in old}
            after = {item["name"]: item for item in new}
            for name in [*after, *(name for name in before if name not in after)]:
                yield from _changes(before.get(name, _MISSING), after.get(name, _MISSING),
                                    (*path, fieldpath.Name(name)))
        else:
            for index in range(max(len(old), len(new))):
                yield from _changes(old[index] if index < len(old) else _MISSING,
                                    new[index] if index < len(new) else _MISSING, (*path, index))
    elif old != new or type(old) is not type(new):
        yield (path, old, new)


def _lines(value) -> list[str]:
    if value is _MISSING:
        return []
    return dump_all([value]).removeprefix("---").removeprefix("\n").removeprefix(" ").splitlines()


def hunk_lines(hunk) -> list[tuple[str, str]]:
    """(style, line) of one hunk: its path, then the old lines (-) and the new ones (+)."""
    path, old, new = hunk
    out = [("path", f"@@ {fieldpath.render(path)} @@")] if path else []
    if isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new):
        return out + _text_lines(old, new)
    out += [("old", f"- {line}") for line in _lines(old)]
    out += [("new", f"+ {line}") for line in _lines(new)]
    return out


def _text_lines(old: str, new: str) -> list[tuple[str, str]]:
    """Multi-line text (a hostfile, a script) compared line by line, three lines of context."""
    styles = {"-": "old", "+": "new", " ": "plain", "@": "path"}
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm=""))[2:]
    return [(styles[line[:1]], line if line.startswith("@@") else f"{line[:1]} {line[1:]}") for line in lines]


def summary(diffs: list[ObjectDiff]) -> str:
    counts = {change: sum(d.change == change for d in diffs) for change in ("added", "changed", "removed")}
    refused = sum(bool(d.reasons) for d in diffs)
    text = ", ".join(f"{count} {change}" for change, count in counts.items())
    return f"{text} ({refused} refused by the cluster)" if refused else text


def text(diffs: list[ObjectDiff], color: bool = False) -> str:
    import click

    styles = {"title": {"bold": True}, "refused": {"fg": "red", "bold": True}, "reason": {"fg": "red"},
              "path": {"fg": "cyan"}, "old": {"fg": "red"}, "new": {"fg": "green"}, "plain": {}}
    out = []
    for diff in diffs:
        lines = [("title", f"{diff.title} {diff.change}: {diff.effect}")]
        lines += [("reason", f"! {reason}") for reason in diff.reasons]
        lines += [line for hunk in diff.hunks for line in hunk_lines(hunk)]
        out += [click.style(line, **styles[style]) if color else line for style, line in lines]
        out.append("")
    out.append(summary(diffs) if diffs else "no changes")
    return "\n".join(out) + "\n"


def markdown(diffs: list[ObjectDiff]) -> str:
    """A pull-request comment: a summary table, then one fenced `diff` block per object."""
    if not diffs:
        return "**trainc diff**: no changes\n"
    out = [f"**trainc diff**: {summary(diffs)}", "", "| Object | Change | Applying it |", "| --- | --- | --- |"]
    out += [f"| `{_cell(diff.title)}` | {diff.change} | {_cell(diff.effect)} |" for diff in diffs]
    for diff in diffs:
        out += ["", f"#### `{_cell(diff.title)}` {diff.change}", ""]
        out += [f"> {_cell(reason)}" for reason in diff.reasons] + ([""] if diff.reasons else [])
        body = [line for hunk in diff.hunks for _, line in hunk_lines(hunk)]
        longest = max((len(run) for line in body for run in re.findall("`+", line)), default=0)
        fence = "`" * max(3, longest + 1)  # a value holding ``` cannot close the block
        out += [fence + "diff", *body, fence]
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")
