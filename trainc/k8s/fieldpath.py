"""Field paths with merge-key selectors, as `trainc diff` prints them (errors.render_path) and `trainc explain
--field` reads them.

`spec.replicatedJobs[node].template.spec.template.spec.containers[node].env[PET_NNODES].value`:
a map key follows a dot (or goes in brackets, `labels[trainer.kubeflow.org/trainjob-name]`,
when it is not a plain word); a list item is selected by its `name` in brackets
when every item of the list has a distinct name (env, containers, volumes,
volumeMounts, ports, replicatedJobs, …), else by its index (`args[0]`).
"""

from __future__ import annotations

from ..errors import WORD, Name


def named(items: list) -> bool:
    """Whether every item is a map with a distinct string `name`, so items are selected by it."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    return all(isinstance(name, str) for name in names) and len(set(names)) == len(names)


def parse(text: str) -> tuple:
    """The parts of a rendered path: words and bracketed text (str), to be matched against a tree by `lookup`."""
    parts, at = [], 0
    while at < len(text):
        if text[at] == "[":
            end = text.find("]", at)
            if end < 0:
                raise ValueError(f"unclosed [ at character {at + 1}")
            parts.append(text[at + 1 : end])
            at = end + 1
        else:
            if text[at] == "." and parts:
                at += 1
            match = WORD.match(text, at)
            if match is None:
                raise ValueError(f"expected a field name at character {at + 1}")
            parts.append(match.group())
            at = match.end()
    if not parts:
        raise ValueError("empty path")
    return tuple(parts)


def resolve(tree, parts) -> tuple | None:
    """The path (keys, Names and indexes) of `parts` in `tree`, None when it names nothing there."""
    found = []
    for part in parts:
        if isinstance(tree, dict) and part in tree:
            found.append(part)
            tree = tree[part]
        elif isinstance(tree, list):
            if named(tree):
                index = next((i for i, item in enumerate(tree) if item["name"] == part), None)
                step = Name(part)
            else:
                index = int(part) if part.isdigit() and int(part) < len(tree) else None
                step = index
            if index is None:
                return None
            found.append(step)
            tree = tree[index]
        else:
            return None
    return tuple(found)


def indexes(tree, path) -> tuple | None:
    """`path` with Names replaced by the items' indexes in `tree` (for position.locate), None when absent."""
    out = []
    for part in path:
        if isinstance(part, Name) or (isinstance(part, str) and isinstance(tree, list)):
            index = None
            if isinstance(tree, list):
                index = next(
                    (i for i, item in enumerate(tree) if isinstance(item, dict) and item.get("name") == part), None
                )
            if index is None:
                return None
            out.append(index)
            tree = tree[index]
        elif isinstance(part, int):
            if not isinstance(tree, list) or part >= len(tree):
                return None
            out.append(part)
            tree = tree[part]
        else:
            if not isinstance(tree, dict) or part not in tree:
                return None
            out.append(part)
            tree = tree[part]
    return tuple(out)
