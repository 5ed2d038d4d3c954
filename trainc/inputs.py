"""The input set: which files a run reads, read once each within the run's byte bound.

Every command that reads manifests (build, validate, diff, explain, run, runtimes)
lists its files here, so they all see the same objects.

The rule: PATHS and --runtimes name files or directories; a directory is walked
recursively for `*.yaml`, `*.yml` and `*.json` files (kubectl's `-f DIR -R` set),
and **names starting with `.` are skipped there**, files and directories alike.
Those are tool configs, never manifests: `.trainc.yaml`, `.pre-commit-config.yaml`,
`.github/workflows/`, `.gitlab-ci.yml`, Argo CD's parameter overrides
`.argocd-source.yaml` and `.argocd-source-<app>.yaml`, `.git/`. (Argo CD's directory
source reads them and drops, by their text, YAML that does not look like a
manifest; kubectl `-R` reads them and fails; trainc skips them by name, which a
user can see and predict.) A file named explicitly is read whatever its name.

Each file is read once, whatever routes reach it (a runtime directory inside
PATHS and also given by --runtimes): the same file is the same device and inode,
and the first place it is reached names it. A file reached through PATHS is an
input (its other objects pass through); under --runtimes only runtimes are read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from . import api, source
from .errors import InputError, Origin, SHOWN, caught, one_line

SUFFIXES = (".yaml", ".yml", ".json")


def hidden(name: str) -> bool:
    """Whether a directory walk passes over this file or directory name (see the module's rule)."""
    return name.startswith(".")


def manifest_name(name: str) -> bool:
    return name.endswith(SUFFIXES) and not hidden(name)


@dataclass(frozen=True)
class Files:
    """The files of a run: PATHS' and those of --runtimes not among them, each in walk order."""

    inputs: list
    runtimes: list


def files(paths, runtime_paths=(), output_dir: str | None = None) -> Files:
    """The input set of PATHS and --runtimes; files under `output_dir` (a rendered tree inside PATHS) are
    not inputs."""
    seen: set = set()
    inputs = listed(paths, seen)
    if output_dir is not None:
        rendered = os.path.realpath(output_dir)
        inputs = [file for file in inputs if file == "-" or os.path.commonpath(
            [rendered, os.path.realpath(file)]) != rendered]
    return Files(inputs, listed(runtime_paths, seen))


def listed(paths, seen: set | None = None) -> list[str]:
    """Directories expanded by the rule, sorted; each file once (by device and inode: a link is the file it
    names) across every call sharing `seen`. A directory that cannot be listed is an error, never an empty set
    of inputs (which a GitOps sync would turn into pruning everything)."""
    found_files, seen = [], set() if seen is None else seen
    for path in paths:
        if path != "-" and os.path.isdir(path):
            found = sorted((_joined(folder, name), identity) for folder, name in _walk(path)
                           for identity in [_regular_file(os.path.join(folder, name))] if identity is not None)
        else:  # read as given; what cannot be read is reported then
            found = [(path, path if path == "-" else _regular_file(path) or path)]
        for file, identity in found:
            if identity not in seen:
                seen.add(identity)
                found_files.append(file)
    return found_files


def _walk(top: str):
    """(folder, name) of every manifest-named file under `top`, hidden directories not entered."""
    for folder, directories, names in os.walk(top, onerror=_unlisted):
        directories[:] = [name for name in directories if not hidden(name)]
        yield from ((folder, name) for name in names if manifest_name(name))


def _regular_file(path: str) -> tuple[int, int] | None:
    """(device, inode) of a regular file (links followed), else None: one stat, where isfile and realpath took
    a stat per path component."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _joined(folder: str, name: str) -> str:
    """`folder/name` spelled as pathlib spells it: no empty or `.` parts, `..` kept (a link may lead elsewhere)."""
    root = "//" if folder.startswith("//") and not folder.startswith("///") else "/" if folder.startswith("/") else ""
    return root + "/".join([*(part for part in folder.split("/") if part not in ("", ".")), name])


def _unlisted(exc: OSError):
    raise InputError(Origin(exc.filename), (), f"cannot read the directory: {exc.strerror}")


class Reader:
    """The reads of one run: each file's text read once, all of them within the run's byte bound
    (`--max-input-bytes`), however many times the run needs them (`trainc diff` compiles PATHS twice)."""

    def __init__(self, budget: source.Budget | None = None):
        self.budget = budget or source.Budget()
        self._texts: dict = {}

    def text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = source.read(path, self.budget)
        return self._texts[path]

    def documents(self, file_list, errors: list) -> list:
        """(origin, object) for every object in `file_list`, `List`s expanded; what cannot be read goes to
        `errors`."""
        found = []
        for path in file_list:
            texts, problems = caught(lambda: list(source.load_text(self.text(path), source.name(path))))
            errors.extend(problems)
            for origin, document in texts or ():
                found.extend(source.items(origin, document))
        return found


def runtimes_only(documents, notices: list) -> list:
    """The (Cluster)TrainingRuntimes among documents read under --runtimes; anything else is ignored with a
    notice, never passed through (a runtime directory outside the app must not add objects to it)."""
    found = []
    for origin, data in documents:
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind in api.RUNTIME_KINDS:
            found.append((origin, data))
            continue
        named = isinstance(kind, str) and kind
        line, column = source.locate(origin, ("kind",) if named else ())
        what = f"a {kind[:SHOWN]}" if named else "a document"
        notices.append(one_line(f"notice: {origin.file}:{line}:{column}: {what} under --runtimes, not a "
                                "runtime: ignored (only runtimes are read there)"))
    return found


def identity(obj: dict) -> tuple:
    """(group, kind, namespace, name): what makes two manifests one object in the cluster, wherever they are
    written. `namespace` is "" for an object that sets none."""
    metadata = obj.get("metadata") or {}
    return (obj["apiVersion"].rpartition("/")[0], obj["kind"], metadata.get("namespace") or "", metadata["name"])
