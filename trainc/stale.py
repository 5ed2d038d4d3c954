"""`trainc build --check`: is a committed rendered tree what build would write now?

For CI and pre-commit: compares, writes nothing. A file build would write that
is absent or different is stale; a `<namespace>/<name>.yaml` under the output
directory that build would not write (its TrainJob was removed or renamed) is
left over.
"""

from __future__ import annotations

import os

from .errors import plural


def problems(files: dict[str, str], output_dir: str) -> list[str]:
    """One line per stale, missing or left-over file, sorted by path, and a summary; none when up to date."""
    found = []
    for target, text in files.items():
        try:
            with open(target, encoding="utf-8") as handle:
                current = handle.read()
        except FileNotFoundError:
            found.append((target, "missing"))
            continue
        if current != text:
            found.append((target, "stale"))
    for path in _rendered(output_dir):
        if path not in files:
            found.append((path, "left over (build would not write it: delete it)"))
    if not found:
        return []
    summary = (f"{output_dir} is out of date: {plural(len(found), 'file')} (re-run the build without --check; "
               "delete left-over files)")
    return [f"{path}: {what}" for path, what in sorted(found)] + [summary]


def _rendered(output_dir: str) -> list[str]:
    """The files in build's layout, DIR/<namespace>/<name>.yaml."""
    if not os.path.isdir(output_dir):
        return []
    return [os.path.join(output_dir, namespace, name)
            for namespace in sorted(os.listdir(output_dir)) if os.path.isdir(os.path.join(output_dir, namespace))
            for name in sorted(os.listdir(os.path.join(output_dir, namespace))) if name.endswith(".yaml")]
