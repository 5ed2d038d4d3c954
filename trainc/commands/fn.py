"""`trainc fn`: trainc as a KRM function (kpt, kustomize), following the KRM generator convention.

Reads a `config.kubernetes.io/v1` ResourceList on stdin and writes one on stdout
(the KRM functions specification). TrainJobs and runtimes are the package's
source: they stay among the items, annotated `config.kubernetes.io/local-config:
"true"` so that kpt and kustomize never apply them, and the objects rendered for
each TrainJob are added beside it, in `<its directory>/rendered/<namespace>/<name>.yaml`
(`config.kubernetes.io/path`), marked `trainc.kubeflow.org/rendered-from`. Items
so marked are what an earlier run rendered: they are dropped and rendered anew,
so running the function again changes nothing. Every other item comes back as
the text it came in (`krmtext.py`), a namespaced object that sets no namespace
given the run's, as build places it (`namespaced.py`).

Errors are KRM `results` (with `resourceRef` and the item's `file`) and, as
everywhere in trainc, `file:line:col: field.path: message` lines on stderr,
located in the user's own file when the function can read it; the exit status
is then 1 and the host writes nothing.
"""

from __future__ import annotations

import os
import posixpath
import sys

import click

from .. import inputs as inputset
from ..compiler import mpikeys
from ..errors import InputError, InputErrors, Notice, Origin, TraincError, one_line, render_path
from ..formats import krm, krmtext, source
from ..formats.krm import HEADER, LOCAL_CONFIG
from ..output.manifests import RENDERED_FROM
from ..k8s import namespaced
from ..trainer import api
from . import EXIT_INVALID, fail, write_out

RENDERED_DIR = "rendered"
_TRAINER = api.GROUP + "/"
_CONFIG_KEYS = {"apiVersion", "kind", "metadata", "data"}
_CONFIG_DATA = {"namespace"}


def _namespace(origin: Origin, resource_list: dict, default: str) -> str:
    """The namespace of TrainJobs that set none: the functionConfig's `data.namespace` (kpt passes
    `kpt fn eval --exec "trainc fn" -- namespace=team-a`, or the Kptfile's `configMap:` under `kpt fn render`,
    as that ConfigMap), else the package Kptfile's own `configMap.namespace` for trainc (so `kpt fn eval`
    renders as `kpt fn render` does), else `default` (-n, TRAINC_NAMESPACE, the project config's namespace).

    An error in the functionConfig's data points at the Kptfile's mutator when that is what kpt passed; else,
    in a host's ResourceList, it names the functionConfig without a position (kpt's own arguments, or its
    --fn-config file, which kpt does not name), never a line of `<stdin>`.
    """
    items = resource_list.get("items") or []
    mutator = _kptfile_mutator(items)
    config = resource_list.get("functionConfig")
    if config is None:
        return _mutator_namespace(origin, items, mutator) or default
    data = config.get("data") if isinstance(config, dict) else None
    in_kptfile = mutator is not None and data == mutator[2].get("configMap")
    # a host's ResourceList (items with paths) is no file of the user's: no `<stdin>` position then
    hosted = any(krm.first(krm.annotations(item), krm.PATHS) is not None for item in items)

    def problem(path: tuple, message: str, key: bool = False) -> InputError:
        if in_kptfile and path[:1] == ("data",):
            return InputError(
                krm.item_origin(origin, mutator[0]),
                ("pipeline", "mutators", mutator[1], "configMap") + path[1:],
                message,
                key=key,
            )
        return InputError(None if hosted else origin, ("functionConfig",) + path, message, key=key)

    if not isinstance(config, dict) or config.get("kind") != "ConfigMap" or config.get("apiVersion") != "v1":
        raise problem((), "must be a v1 ConfigMap (its data.namespace sets the default namespace)")
    unknown = sorted(set(config) - _CONFIG_KEYS)
    if unknown:
        raise problem((unknown[0],), "unknown field: a ConfigMap has apiVersion, kind, metadata and data", key=True)
    if data is None:
        return _mutator_namespace(origin, items, mutator) or default
    if not isinstance(data, dict):
        raise problem(("data",), "must be a mapping (a ConfigMap's data)")
    unknown = sorted(set(data) - _CONFIG_DATA)
    if unknown:
        raise problem(("data", unknown[0]), "unknown setting: trainc fn takes only namespace", key=True)
    namespace = data.get("namespace")
    if namespace is None:
        return _mutator_namespace(origin, items, mutator) or default
    if api.namespace_problem(namespace) is not None:
        raise problem(("data", "namespace"), _BAD_NAMESPACE)
    return namespace


_BAD_NAMESPACE = (
    "the default namespace must be a DNS-1123 label (lower case alphanumerics or '-', at most 63 characters)"
)


def _kptfile_mutator(items: list) -> tuple[int, int, dict] | None:
    """(item index, mutator index, mutator) of the package Kptfile's one `exec: trainc fn` mutator, if any.
    kpt hands functions the package's Kptfile as an item (its path `Kptfile`), under `fn eval` too."""
    for index, item in enumerate(items):
        if (
            not isinstance(item, dict)
            or item.get("apiVersion") != "kpt.dev/v1"
            or item.get("kind") != "Kptfile"
            or krm.first(krm.annotations(item), krm.PATHS) != "Kptfile"
        ):
            continue
        pipeline = item.get("pipeline")
        mutators = pipeline.get("mutators") if isinstance(pipeline, dict) else None
        found = [
            (index, number, mutator)
            for number, mutator in enumerate(mutators if isinstance(mutators, list) else ())
            if isinstance(mutator, dict)
            and isinstance(mutator.get("exec"), str)
            and [posixpath.basename(word) for word in mutator["exec"].split()[:2]] == ["trainc", "fn"]
        ]
        return found[0] if len(found) == 1 else None
    return None


def _mutator_namespace(origin: Origin, items: list, mutator) -> str | None:
    """The Kptfile mutator's `configMap.namespace` (checked as the functionConfig would be), or None."""
    if mutator is None:
        return None
    config = mutator[2].get("configMap")
    namespace = config.get("namespace") if isinstance(config, dict) else None
    if namespace is None:
        return None
    if api.namespace_problem(namespace) is not None:
        raise InputError(
            krm.item_origin(origin, mutator[0]),
            ("pipeline", "mutators", mutator[1], "configMap", "namespace"),
            _BAD_NAMESPACE,
        )
    return namespace


def _is_trainer(obj) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("apiVersion"), str) and obj["apiVersion"].startswith(_TRAINER)


def _sources(origin: Origin, items: list, notices: list) -> tuple[list, set]:
    """(origin, object) of every item to compile, and the indexes of the items that are Trainer sources;
    the rendered items of an earlier run are left out, and Trainer kinds trainc does not compile pass
    through with a notice, as in `trainc build`."""
    documents, trainer = [], set()
    for index, item in enumerate(items):
        if RENDERED_FROM in krm.annotations(item) or inputset.hidden_path(
            krm.first(krm.annotations(item), krm.PATHS) or ""
        ):
            continue  # an earlier run's output, or a file trainc does not read in a directory (`inputs.py`)
        if api.uncompiled(item):
            name = item.get("metadata", {}).get("name") if isinstance(item.get("metadata"), dict) else None
            notices.append(
                Notice(
                    "notice",
                    None,
                    (),
                    f"{krm.first(krm.annotations(item), krm.PATHS) or origin.file}: "
                    f"{item['apiVersion']} {item['kind']} {name}: trainc does not compile this "
                    "Trainer kind; passed through unchanged",
                )
            )
            continue
        for member_origin, member in source.items(krm.item_origin(origin, index), item):
            if _is_trainer(member) and member is not item:
                raise InputError(
                    member_origin,
                    (),
                    "trainc fn reads Trainer objects as items of their own, not "
                    "inside a List (kpt keeps a List as one resource)",
                )
            documents.append((member_origin, member))
        if _is_trainer(item):
            trainer.add(index)
    return documents, trainer


def _rendered_path(trainjob, items: list) -> str:
    """`<directory of the TrainJob's file>/rendered/<namespace>/<name>.yaml`, normalised; a TrainJob whose path
    leads out of the package (absolute, or up past its top) is an error: kpt would write the file there."""
    annotations = krm.annotations(items[trainjob.origin.base[1]])
    given = krm.first(annotations, krm.PATHS) or ""
    directory = posixpath.normpath(posixpath.dirname(given) or ".")
    if directory.startswith("/") or directory == ".." or directory.startswith("../"):
        key = next(key for key in krm.PATHS if annotations.get(key) == given)
        raise InputError(
            trainjob.origin,
            ("metadata", "annotations", key),
            (
                f"{given!r} is outside the package: trainc fn renders a TrainJob's objects beside its file, so only a "
                "relative path without '..' past the package's top can hold one"
            ),
        )
    path = posixpath.join(directory, RENDERED_DIR, trainjob.namespace, trainjob.name + ".yaml")
    return path.removeprefix("./")


def _rendered(output, items: list, kept: list) -> list[dict]:
    """The rendered objects, each annotated with its place in the package and the TrainJob it came from;
    a file of the package that holds `kept` items is never rendered into (kpt would refuse two objects at
    one place)."""
    taken = {krm.first(krm.annotations(items[index]), krm.PATHS): index for index in kept}
    rendered = []
    for trainjob, objects in output.jobs:
        path = _rendered_path(trainjob, items)
        if path in taken:
            raise InputError(
                trainjob.origin,
                ("metadata", "name"),
                f"trainc fn renders this TrainJob into {path}, which holds other resources: move them",
            )
        for index, obj in enumerate(objects):
            place = {key: path for key in krm.PATHS} | {key: str(index) for key in krm.INDEXES}
            metadata = obj.setdefault("metadata", {})
            metadata["annotations"] = {
                **metadata.get("annotations", {}),
                **place,
                RENDERED_FROM: f"{trainjob.namespace}/{trainjob.name}",
            }
            rendered.append(obj)
    return rendered


def _user_files(item, limit: int | None = None) -> list[tuple[str, list]]:
    """(path to show, documents) of each file the item may have been read from: under the package path
    `kpt fn render` gives, or else relative to the current directory or one of its subdirectories (kpt
    runs exec functions where it was started, and `kpt fn eval jobs/` says nothing of `jobs/`)."""
    annotations = krm.annotations(item)
    path = krm.first(annotations, krm.PATHS)
    if path is None or os.path.isabs(path):
        return []
    package = annotations.get(krm.PACKAGE_PATH)
    if isinstance(package, str):
        candidates = [os.path.join(package, path)]
    else:
        try:
            with os.scandir(".") as entries:
                directories = sorted(
                    entry.name for entry in entries if entry.is_dir() and not entry.name.startswith(".")
                )
        except OSError:
            directories = []
        candidates = [path, *(os.path.join(directory, path) for directory in directories)]
    found = []
    for candidate in candidates:
        if os.path.isfile(candidate):
            shown = os.path.relpath(candidate) if os.path.isabs(candidate) else candidate
            try:
                found.append((shown, list(source.load_text(source.read(candidate, source.Budget(limit)), shown))))
            except TraincError:
                continue
    return found


def _identity(obj) -> tuple | None:
    if not isinstance(obj, dict):
        return None
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return obj.get("apiVersion"), obj.get("kind"), metadata.get("name")


class _Report:
    """An error as a KRM result and as a stderr line (a notice as a line), in the user's file where it can be."""

    def __init__(self, items: list, limit: int | None = None):
        self.items, self.files, self.limit = items, {}, limit  # the user's files read within the run's bound

    def item_of(self, error: InputError | Notice):
        base = error.origin.base if error.origin is not None else ()
        if len(base) >= 2 and base[0] == "items" and isinstance(base[1], int) and base[1] < len(self.items):
            return self.items[base[1]]
        return None

    def result(self, error: InputError) -> dict:
        return krm.result(error, self.item_of(error))

    def line(self, problem: InputError | Notice) -> str:
        """An error or a notice as a stderr line; a notice keeps its `severity: ` head."""
        item = self.item_of(problem)
        if item is None:
            return problem.render()
        field = problem.origin.base[2:] + problem.path
        found = self._in_user_file(item)
        if found is not None:
            if isinstance(problem, InputError):
                return InputError(found, field, problem.message, key=problem.key).render()
            at = problem.origin.base[2:] + (problem.path if problem.at is None else problem.at)
            return problem._replace(origin=found, path=field, at=at, mark=None).render()  # mark: in the stdin text
        path = krm.first(krm.annotations(item), krm.PATHS)
        if path is None:
            return problem.render()
        where, head = render_path(field), f"{problem.severity}: " if isinstance(problem, Notice) else ""
        return head + one_line(f"{path}: {where}: {problem.message}" if where else f"{path}: {problem.message}")

    def _in_user_file(self, item) -> Origin | None:
        """The origin of the item's document in the user's file: the one file whose document at the item's
        index is this object."""
        key = id(item)
        if key not in self.files:
            self.files[key] = _user_files(item, self.limit)
        index = krm.first(krm.annotations(item), krm.INDEXES) or "0"
        if not index.isdigit():
            return None
        matches = [
            documents[int(index)][0]
            for _, documents in self.files[key]
            if int(index) < len(documents) and _identity(documents[int(index)][1]) == _identity(item)
        ]
        return matches[0] if len(matches) == 1 else None


def run(text: str, options=None) -> tuple[str, list[str], list[str]]:
    """(ResourceList text, notices, error lines); error lines non-empty means failure. The items are the run's
    inputs (`trainc.engine`) under `options`: its namespace for TrainJobs that set none, unless the
    functionConfig or the Kptfile sets one; its runtime paths the runtimes besides the items (the platform's,
    outside the package), read as build's --runtimes. What passes through is kpt's to pass: the output set is
    the rendered objects (`trainer_only`)."""
    from .. import engine

    options = options or engine.Options()
    report = _Report([], options.max_input_bytes)
    try:
        origin, resource_list = krm.read(text)
        report.items = items = resource_list.get("items") or []
        namespace = _namespace(origin, resource_list, options.namespace)
        notices: list[Notice] = []
        documents, trainer = _sources(origin, items, notices)
        options = options._replace(
            namespace=namespace,
            trainer_only=True,
            runtime_paths=tuple(_runtime_files(options.runtime_paths, items, options.root)),
        )
        output = engine.run(engine.Inputs(documents=tuple(documents)), options).checked()
        notices += output.notices + _applied_sources(items, trainer)  # after the compile checked their metadata
        lines = [report.line(notice) for notice in notices]
        if mpikeys.holds_plain_key(obj for _, objects in output.jobs for obj in objects):
            lines.append(mpikeys.PLAIN_NOTICE.format(where="the package's rendered/ files"))
        kept = [index for index, item in enumerate(items) if RENDERED_FROM not in krm.annotations(item)]
        rendered = _rendered(output, items, kept)
        texts = _item_texts(origin, text, items, kept, trainer, namespace)
    except TraincError as error:
        errors = error.errors if isinstance(error, InputErrors) else [error]
        results = [report.result(e) for e in errors if isinstance(e, InputError)]
        return (
            HEADER + "items: []\n" + krm.results(results),
            [],
            [report.line(e) if isinstance(e, InputError) else e.render() for e in errors],
        )
    body = "".join(texts) + (krm.block_entries(rendered) if rendered else "")
    results = [{"message": line, "severity": "info"} for line in lines]
    return HEADER + ("items:\n" + body if body else "items: []\n") + krm.results(results), lines, []


def _runtime_files(runtime_paths, items: list, root: str | None = None) -> list[str]:
    """The files of `runtime_paths` that are not among the package's items: a runtime file reached both ways (a
    package at the repository root holding the config's platform/runtimes) is read once, as build reads a file
    reached through PATHS and --runtimes."""
    if not runtime_paths:
        return []
    own = set()
    for item in items:
        if isinstance(item, dict) and item.get("kind") in api.RUNTIME_KINDS:
            annotations = krm.annotations(item)
            path, package = krm.first(annotations, krm.PATHS), annotations.get(krm.PACKAGE_PATH)
            if path is not None:  # under the package path `kpt fn render` gives, else from where kpt runs
                own.add(_file_identity(os.path.join(package, path) if isinstance(package, str) else path))
    own.discard(None)
    return [
        file for file in inputset.listed(runtime_paths, root=root) if file == "-" or _file_identity(file) not in own
    ]


def _file_identity(path: str) -> tuple | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _applied_sources(items: list, trainer: set) -> list[Notice]:
    """Notices for Trainer sources that keep `local-config` other than "true": kpt live apply applies them."""
    notices = []
    for index in sorted(trainer):
        value = krm.annotations(items[index]).get(LOCAL_CONFIG, "true")
        if value != "true":
            item = items[index]
            notices.append(
                Notice(
                    "notice",
                    None,
                    (),
                    f"{krm.first(krm.annotations(item), krm.PATHS) or 'item ' + str(index)}: {item.get('kind')} "
                    f"{item['metadata'].get('name')}: {LOCAL_CONFIG} is {value!r}, so kpt live apply applies it as well as "
                    "what trainc renders for it",
                )
            )
    return notices


def _item_texts(origin: Origin, text: str, items: list, kept: list, trainer: set, namespace: str) -> list[str]:
    """The kept items' own text, Trainer sources annotated local-config unless they say otherwise, and the
    objects passed through that set no namespace given `namespace`, as build places them."""
    try:
        spans = krmtext.items(text)
    except krmtext.SharedText as shared:
        raise InputError(
            krm.item_origin(origin, shared.index),
            (),
            "an alias of a node outside this item: trainc fn passes each item on as its own text, "
            "so items cannot share anchors",
        ) from None
    for index in trainer:
        if LOCAL_CONFIG not in krm.annotations(items[index]) and not spans[index].annotate(LOCAL_CONFIG, "true"):
            raise InputError(
                krm.item_origin(origin, index),
                ("metadata", "annotations"),
                "must be a mapping, to mark the item local-config",
            )
    for index in kept:
        if (
            index not in trainer
            and _takes_namespace(items[index])
            and not spans[index].place(namespaced.scalar(namespace))
        ):
            raise InputError(
                krm.item_origin(origin, index),
                ("metadata", "namespace"),
                "must be absent or a scalar on one line: trainc fn sets the package's namespace here",
            )
    return [spans[index].text() for index in kept]


def _takes_namespace(item) -> bool:
    """Whether a passed-through item lands in the package's namespace (namespaced.py: one rule for every
    route): a namespaced object that sets none. What kpt never applies is left alone: local-config items,
    kpt's own kinds (the Kptfile), a `List` (kpt keeps it as one resource), files trainc does not read."""
    if not (
        isinstance(item, dict)
        and isinstance(item.get("apiVersion"), str)
        and isinstance(item.get("kind"), str)
        and isinstance(item.get("metadata"), dict)
    ):
        return False
    annotations = krm.annotations(item)
    if (
        annotations.get(LOCAL_CONFIG) == "true"
        or item["kind"] == "List"
        or item["apiVersion"].partition("/")[0].endswith("kpt.dev")
        or inputset.hidden_path(krm.first(annotations, krm.PATHS) or "")
    ):
        return False
    return namespaced.takes_namespace(item)


def main(options) -> None:
    """`trainc fn`: the ResourceList on stdin run through `run`, the result on stdout, errors also on stderr."""
    try:
        text = source.read("-", source.Budget(options.max_input_bytes))
    except TraincError as error:
        fail(error)
    rendered, notices, errors = run(text, options)
    write_out(rendered)
    for line in notices + errors:
        click.echo(line, err=True)
    if errors:
        sys.exit(EXIT_INVALID)
