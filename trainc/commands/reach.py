"""The TrainJobs a runtime change reaches, for `trainc diff` of runtimes alone (`trainc diff platform/runtimes`).

A runtime renders nothing itself: its edit reaches the JobSets of the TrainJobs that use it, which the cluster
may refuse to update. Those TrainJobs are looked for in the repository the run belongs to (its root: the git
repository's root, or `--root`), read by the input rule as `trainc build` reads a directory (names starting
with `.` skipped, trainc's rendered files and the output directory left out), within the run's byte bound.
A TrainJob is reached when its runtimeRef names a runtime of PATHS that changed since the base (or is gone).
One run has one set of settings: a TrainJob governed by another project config than PATHS' (an app's own
`.trainc.yaml`, which may set another namespace or runtimes) is named with the command that compares it, and
not compared here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import inputs as inputset
from ..errors import Notice
from ..formats import projectconfig
from ..trainer import api
from ..trainer.previous import key

SHOWN = 5  # TrainJobs named in the heading, files not searched named on stderr; the others counted


@dataclass
class Reach:
    """What a runtime change reaches in the repository."""

    runtimes: list = field(default_factory=list)  # `Kind name` of each runtime that changed (or is gone)
    files: list = field(default_factory=list)  # the files holding reached TrainJobs the run's configs govern
    trainjobs: dict = field(default_factory=dict)  # (namespace, name) -> (file, `Kind name` of its runtime)
    notices: list = field(default_factory=list)  # reached TrainJobs governed by another config; unread files

    def heading(self, base: str) -> str:
        """The diff's first line: which runtimes changed, and which TrainJobs' JobSets that reaches."""
        changed = ", ".join(self.runtimes)
        if not self.trainjobs:
            return f"{changed} changed since {base}; no TrainJob of the repository that uses it is compared here"
        names = [f"{namespace}/{name}" for namespace, name in sorted(self.trainjobs)]
        shown = ", ".join(names[:SHOWN]) + (f", … {len(names) - SHOWN} more" if len(names) > SHOWN else "")
        return (
            f"{changed} changed since {base}; it reaches the JobSets of {len(names)} "
            f"TrainJob{'s' * (len(names) != 1)} of the repository: {shown}"
        )

    def json(self) -> dict:
        return {
            "runtimes": self.runtimes,
            "trainjobs": [
                {"namespace": namespace, "name": name, "file": file, "runtime": runtime}
                for (namespace, name), (file, runtime) in sorted(self.trainjobs.items())
            ],
        }


def changed(before, runtimes: list) -> dict:
    """{runtime key: `Kind name`} of the runtimes of PATHS that differ from their previous version, or that
    the previous versions hold and PATHS no longer do."""
    found = {
        key(runtime): api.described(runtime.kind, runtime.metadata.namespace, runtime.name)
        for runtime in runtimes
        if (then := before.find(runtime)) is not None and then != runtime.document
    }
    now = {key(runtime) for runtime in runtimes}
    found.update(
        {
            key(runtime): api.described(runtime.kind, runtime.metadata.namespace, runtime.name)
            for runtime in before.runtimes()
            if key(runtime) not in now
        }
    )
    return found


def find(paths, options, runtimes: dict, base: str) -> Reach:
    """The TrainJobs of the repository whose runtimeRef names one of `runtimes` ({key: `Kind name`})."""
    reach = Reach(runtimes=sorted(runtimes.values()))
    root = options.root or _repository(paths)
    if root is None:
        return reach
    reader = options.reader()
    given = inputset.files(paths, options.runtime_paths, root=root)
    own = {os.path.realpath(file) for file in [*given.inputs, *given.runtimes]}
    candidates = [
        file
        for file in inputset.files([os.path.relpath(root)], (), options.apart, root).inputs
        if os.path.realpath(file) not in own and reader.may_matter(file)
    ]
    governing = _governing(options.config)
    errors: list = []
    for origin, data in reader.documents(candidates, errors):
        runtime = _reached(data, options.namespace, runtimes)
        if runtime is None:
            continue
        metadata = data.get("metadata") or {}
        file = origin.file
        configs = tuple(
            map(os.path.realpath, projectconfig.chain(os.path.dirname(os.path.realpath(file)), os.path.realpath(root)))
        )
        if configs != governing:
            config = os.path.relpath(configs[-1]) if configs else "no project config"
            reach.notices.append(
                Notice(
                    "notice",
                    origin,
                    (),
                    (
                        f"TrainJob {metadata.get('name')} uses {runtime} but is governed by {config}, not by the runtimes' "
                        f"settings: compare it with `trainc diff --base {base} {os.path.relpath(os.path.dirname(file))}`"
                    ),
                )
            )
            continue
        namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else options.namespace
        reach.trainjobs[(namespace, metadata["name"])] = (file, runtime)
        if file not in reach.files:
            reach.files.append(file)
    reach.notices += [
        Notice(
            "notice",
            error.origin,
            error.path,
            f"not searched for TrainJobs the runtime change reaches: {error.message}",
            mark=error.position()[1:] if error.position() else None,
        )
        for error in errors[:SHOWN]
    ]
    if len(errors) > SHOWN:  # a repository past the run's bound: every later file says so
        reach.notices.append(Notice("notice", None, (), f"… and {len(errors) - SHOWN} more files not searched"))
    return reach


def _reached(data, namespace: str, runtimes: dict) -> str | None:
    """`Kind name` of the changed runtime a TrainJob document names, if any (a document that is no TrainJob, or
    names its runtime unreadably, names none)."""
    if (
        not isinstance(data, dict)
        or data.get("kind") != "TrainJob"
        or not str(data.get("apiVersion", "")).startswith(api.GROUP + "/")
    ):
        return None
    metadata, spec = data.get("metadata"), data.get("spec")
    ref = spec.get("runtimeRef") if isinstance(spec, dict) else None
    if (
        not isinstance(metadata, dict)
        or not isinstance(metadata.get("name"), str)
        or not isinstance(ref, dict)
        or not isinstance(ref.get("name"), str)
    ):
        return None
    kind = ref.get("kind", "ClusterTrainingRuntime")
    own = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else namespace
    return runtimes.get(api.identity(kind, own, ref["name"])) if isinstance(kind, str) else None


def _governing(config) -> tuple:
    """The project configs governing the run (outermost first), as absolute paths."""
    found = (config,) if isinstance(config, str) else tuple(config or ())
    return tuple(os.path.realpath(path) for path in found)


def _repository(paths) -> str | None:
    """The git repository holding PATHS (the Python API gives no root)."""
    folders = [os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".") for path in paths]
    return projectconfig._git_root(os.path.commonpath(folders)) if folders else None


def base_of(base: str, before, reach: Reach, options):
    """What the reached TrainJobs' files are compared against: a git revision, where the diff reads them as it
    reads PATHS; a directory (it holds the previous runtimes, `before`), their TrainJobs as they are now beside
    what the directory holds."""
    if not os.path.isdir(base):
        return base
    now = inputset.read_previous(None, reach.files, options.namespace, (), options.reader())
    return now._replace(trees={**now.trees, **before.trees}, objects={**now.objects, **before.objects})
