"""`trainc build --output-dir DIR --check`: is a committed rendered tree what build would write now?

For CI and pre-commit: compares, writes nothing. A file build would write that
is absent or different is stale or missing; a file the last build wrote (it is
listed in DIR's manifest and still headed by trainc's line) that build would now
remove is left over; one rendered from an input the run was not given is not
(build keeps it: `outputdir.write`).
"""

from __future__ import annotations

import os

from ..errors import plural
from .outputdir import HEADER_START, MANIFEST, given, listed, source_of


def problems(contents: dict[str, tuple[str, bool]], output_dir: str, inputs=None) -> list[str]:
    """One line per stale, missing or left-over file, sorted by path, and a summary; none when up to date."""
    found = []
    for relative, (text, _) in contents.items():
        current = _read(os.path.join(output_dir, relative))
        if current != text:
            found.append((relative, "missing" if current is None else "stale"))
    written_before = listed(_read(os.path.join(output_dir, MANIFEST)) or "")
    for relative in sorted(written_before - contents.keys()):
        text = _read(os.path.join(output_dir, relative)) or ""
        if text.startswith(HEADER_START) and given(source_of(text), inputs):  # else not trainc's, or others'
            found.append((relative, "left over (the build would remove it)"))
    if not found:
        return []
    summary = f"{output_dir} is out of date: {plural(len(found), 'file')} (re-run the build without --check)"
    return [f"{os.path.join(output_dir, relative)}: {what}" for relative, what in sorted(found)] + [summary]


def _read(path: str) -> str | None:
    """The file's text (bytes that are not UTF-8 replaced: never what build writes); None when there is none,
    "" when it cannot be read (a directory, no permission), which is not what build writes either."""
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return ""
