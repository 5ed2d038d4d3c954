"""What `trainc build` prints besides the rendered objects: every other document of the inputs, as it came
(in the build's namespace when it is namespaced and sets none: namespaced.py).

With a GitOps tool that deploys only what a generator prints (an Argo CD plugin), the build's output must be
the app's whole set of manifests, so the documents trainc does not compile (ConfigMaps, PVCs, Namespaces,
LocalQueues, Trainer kinds it has no renderer for) pass through as their original text, comments kept.
A document read from JSON, or an item of a `kind: List`, has no text of its own in YAML and is written from
its data (the same object). They are ordered so that `kubectl apply -f -` takes the stream in one go, as
kustomize's legacy order does: Namespaces, CRDs and other prerequisites first, admission webhooks last.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache

from ..errors import InputError, InputErrors, Notice, Origin, Record, defined_twice
from ..formats import blockyaml, source
from ..formats.serialize import dump_all
from ..k8s.identity import rendered_identity
from ..k8s.names import DNS1035_LABEL
from ..trainer import api

# kustomize's legacy order (api/resid/gvk.go): these kinds first, in this order, webhooks last, the rest between.
ORDER_FIRST = (
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
)
ORDER_LAST = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
CLUSTER_DIRECTORY = "_cluster"  # cluster-scoped objects, in --output-dir (no namespace can be named so)
_MARKER = r"---(?:[ \t]+(#.*)?)?$"  # a `---` line holding nothing else (a comment at most)


class Document(Record):
    """An input object printed as it came, but for the namespace trainc gave it."""

    origin: Origin
    data: dict
    given_namespace: str | None = None  # the namespace trainc gave it (it set none), see namespaced.py

    @property
    def group(self) -> str:
        return self.data["apiVersion"].rpartition("/")[0]

    @property
    def kind(self) -> str:
        return self.data["kind"]

    @property
    def namespace(self) -> str:
        return self.data["metadata"].get("namespace") or ""

    @property
    def name(self) -> str:
        return self.data["metadata"]["name"]

    def order(self) -> tuple:
        """Kind (kustomize's legacy order), then namespace and name, then input position, so any file
        order gives the same stream."""
        if self.kind in ORDER_FIRST:
            rank = ORDER_FIRST.index(self.kind)
        elif self.kind in ORDER_LAST:
            rank = len(ORDER_FIRST) + 1 + ORDER_LAST.index(self.kind)
        else:
            rank = len(ORDER_FIRST)
        origin = self.origin
        return (
            rank,
            self.kind,
            self.group,
            self.data["apiVersion"],
            self.namespace,
            self.name,
            origin.file,
            origin.index,
            origin.base,
        )

    @property
    def last(self) -> bool:
        """Applied after everything else (webhooks, which could refuse the rest)."""
        return self.kind in ORDER_LAST

    def text(self) -> str:
        """The document's own YAML text (comments kept), with the namespace trainc gave it, or YAML written
        from its data where it has none."""
        text = self._text()
        if self.given_namespace is None or text is None:
            return text or dump_all([self.data]).removeprefix("---\n")
        from ..k8s.namespaced import insert

        return insert(text, self.given_namespace) or dump_all([self.data]).removeprefix("---\n")

    def _text(self) -> str | None:
        origin = self.origin
        if origin.base == () and origin.text is not None and not source.is_json(origin.text):
            start, end = _spans(origin.text)[origin.index]
            text = _standalone(origin.text[start:end].removeprefix("\ufeff"))  # a file's BOM starts no document
            if text is not None:
                return text if text.endswith(("\n", "\r")) else text + "\n"
        return None

    def path(self) -> str:
        """Its file in --output-dir: `<namespace>/<kind>.<name>.yaml`, `_cluster/...` when it is
        cluster-scoped (TrainJob names hold no `.`, so never the file of a TrainJob)."""
        return f"{self.namespace or CLUSTER_DIRECTORY}/{self.kind.lower()}.{self.name}.yaml"


@lru_cache(maxsize=4)  # a file's documents pass through in turn: it is cut once, not once per document
def _spans(text: str) -> tuple:
    """(start, end) of each document of a file's text."""
    spans = blockyaml.spans(text)
    if spans is None:
        from ..formats import yamltext  # only to pass such an input's YAML through as it is written

        spans = yamltext.document_spans(text)
    return tuple(spans)


def _standalone(text: str) -> str | None:
    """The document's text without its `---` line, to follow the stream's own; None when that line holds
    content (`--- |`) or directives precede it: such text cannot stand in another stream as it is."""
    lines = text.splitlines(keepends=True)
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("%"):
            return None
        if line.startswith("---"):
            marker = re.match(_MARKER, line.rstrip("\r\n"))
            if marker is None:
                return None
            comment = marker.group(1)
            kept = [comment + line[len(line.rstrip("\r\n")) :]] if comment else []
            return "".join(lines[:number] + kept + lines[number + 1 :])
        return text
    return None


class Manifests:
    """What a build outputs, in apply order: pass-through documents, the rendered objects per TrainJob,
    then the pass-through documents applied last."""

    def __init__(self, jobs: list):
        self.first: list = []  # [Document]
        self.jobs = jobs  # [(TrainJob, [objects])]
        self.last: list = []  # [Document]
        self.notices: list = []

    def objects(self) -> list[dict]:
        rendered = (o for _, objs in self.jobs for o in objs)
        return [*(d.data for d in self.first), *rendered, *(d.data for d in self.last)]

    def yaml(self) -> str:
        """One YAML stream, each document starting with `---`."""
        return "".join(self.yaml_pieces())

    def yaml_pieces(self) -> list[str]:
        """The YAML stream in pieces (per TrainJob, per document), for a writer that needs no one copy of it."""
        return [
            *("---\n" + d.text() for d in self.first),
            *(dump(objs) for _, objs in self.jobs),
            *("---\n" + d.text() for d in self.last),
        ]


def dump(documents) -> str:
    """A YAML stream of `documents`; a TrainJob's objects that carry their text (`yaml`, rendered by a
    parallel build's worker) give that text."""
    rendered = getattr(documents, "yaml", None)
    return rendered if rendered is not None else dump_all(documents)


def why_empty(output, paths) -> str | None:
    """Why the inputs hold no documents at all, for the error that keeps an empty render from pruning a
    GitOps app; None when they hold some."""
    if output.inputs:
        return None
    where = ", ".join(source.name(path) for path in paths)
    found = f"no *.yaml, *.yml or *.json files in {where}" if not output.files else f"no documents in {where}"
    return (
        f"{found}: an empty render would make a GitOps sync prune everything the app deployed; pass "
        "--allow-empty if the app is meant to be empty"
    )


def only_runtimes(output, manifests: Manifests) -> list[Notice]:
    """A notice when the inputs hold documents but nothing is output because they are all runtimes (`trainc
    build runtimes/`), which only --include-runtimes outputs: an empty output, said rather than silent."""
    if manifests.first or manifests.jobs or manifests.last or not output.runtime_inputs:
        return []
    count = len(output.runtime_inputs)
    return [
        Notice(
            "notice",
            None,
            (),
            f"nothing to output: the inputs hold only {count} runtime{'s' * (count > 1)}, "
            "which are used to render TrainJobs but not output (--include-runtimes outputs them)",
        )
    ]


RENDERED_FROM = "trainc.kubeflow.org/rendered-from"  # `trainc fn` marks what it renders (kpt's hydrated files)


def rendered_by_trainc(data) -> bool:
    """Whether an input is trainc's own output, committed by a kpt pipeline (`kpt fn render` writes what
    `trainc fn` renders, marked `rendered-from`): never an input, as a file headed by `--output-dir`'s line is
    not; the TrainJob it came from renders it again."""
    metadata = data.get("metadata") if isinstance(data, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return isinstance(annotations, dict) and RENDERED_FROM in annotations


def select(
    output, *, namespace: str, trainer_only: bool = False, include_runtimes: bool = False, files: bool = False
) -> Manifests:
    """The manifests of a build: its rendered objects and, unless `trainer_only`, what passes through
    (runtimes only with `include_runtimes`). Raises InputErrors for what kubectl apply could not take:
    an object without apiVersion, kind or name, or two objects with the same identity; with `files`
    (--output-dir), also two objects that would go to one file. Every such problem is reported, sorted by
    file, line and column."""
    manifests = Manifests(list(output.jobs))
    uncompiled = sorted((Document(o, d) for o, d in output.uncompiled if _identified(o, d) is None), key=Document.order)
    for document in uncompiled:
        fate = "not output (--trainer-only)" if trainer_only else "passed through unchanged"
        manifests.notices.append(
            Notice(
                "notice",
                None,
                (),
                f"{document.origin.file}: {document.data['apiVersion']} "
                f"{api.described(document.kind, document.namespace, document.name)}: trainc does not compile this Trainer "
                f"kind; {fate}",
            )
        )
    if trainer_only:
        return manifests
    found = [
        (origin, data)
        for origin, data in (*output.others, *output.uncompiled, *(output.runtime_inputs if include_runtimes else ()))
        if not rendered_by_trainc(data)
    ]
    errors = [problem for origin, data in found if (problem := _identified(origin, data)) is not None]
    unidentified = {id(problem.origin) for problem in errors}
    documents = sorted(
        (_placed(origin, data, namespace) for origin, data in found if id(origin) not in unidentified),
        key=Document.order,
    )
    errors += _check_unique(documents, output.jobs, namespace, files)
    if errors:
        from ..formats import position

        raise InputErrors(sorted(errors, key=position.order))
    manifests.first = [d for d in documents if not d.last]
    manifests.last = [d for d in documents if d.last]
    return manifests


def _placed(origin: Origin, data: dict, namespace: str) -> Document:
    """The document, in `namespace` if it is namespaced and sets none (namespaced.py: one namespace for the
    whole output, as `kubectl apply -n` and Argo CD's destination give it)."""
    from ..k8s import namespaced

    if not namespaced.takes_namespace(data):
        return Document(origin, data)
    return Document(origin, namespaced.given(data, namespace), namespace)


_TOOL_FILES = {  # files of other tools often found in an app's folder: what they are, and what to do
    "kustomization": "a kustomization, not a Kubernetes object: render the folder with `kubectl kustomize` and "
    "trainc's TrainJobGenerator (docs/routes/kustomize.md), or keep it out of the paths trainc reads",
    "helm": "a Helm chart's file, not a Kubernetes object: keep the chart out of the paths trainc reads (give trainc "
    "the TrainJobs' folder)",
}
_TOOL_NAMES = {
    "kustomization.yaml": "kustomization",
    "kustomization.yml": "kustomization",
    "values.yaml": "helm",
    "values.yml": "helm",
    "Chart.yaml": "helm",
}


def _identified(origin: Origin, data) -> InputError | None:
    """Why kubectl apply could not take this object (it needs apiVersion, kind and a name), or None; for a file
    of another tool (a kustomization, a Helm chart's values), what it is."""
    error = _apply_problem(origin, data)
    if error is None:
        return None
    tool = _TOOL_NAMES.get(os.path.basename(origin.file or ""))
    if data.get("kind") == "Kustomization" or str(data.get("apiVersion", "")).startswith("kustomize.config.k8s.io/"):
        tool = "kustomization"
    if tool is not None:
        error = InputError(origin, error.path, f"{error.message}; this file is {_TOOL_FILES[tool]}")
    return error


def _apply_problem(origin: Origin, data) -> InputError | None:
    for path in (("apiVersion",), ("kind",)):
        if not isinstance(data.get(path[0]), str) or not data[path[0]]:
            return InputError(origin, path, "required for kubectl apply: a non-empty string")
    kind = data["kind"]
    if len(kind) > 63 or not kind.isascii() or not DNS1035_LABEL.fullmatch(kind.lower()):
        # what the API server requires of every kind it serves (apimachinery's GroupVersionKind validation)
        return InputError(origin, ("kind",), f"Invalid value: {json.dumps(kind)}: {_KIND_MESSAGE}")
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return InputError(origin, ("metadata",), "required for kubectl apply: a mapping with the object's name")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        return InputError(origin, ("metadata", "name"), "required for kubectl apply: a non-empty string")
    if name in (".", "..") or "/" in name or "%" in name:
        return InputError(
            origin,
            ("metadata", "name"),
            f"may not be '.' or '..', nor contain '/' or '%' (as the API server requires): {name!r}",
        )
    namespace = metadata.get("namespace")
    if namespace is not None and api.namespace_problem(namespace) is not None:
        return InputError(origin, ("metadata", "namespace"), api.namespace_problem(namespace))
    return None


def _check_unique(documents: list, jobs: list, namespace: str, files: bool) -> list[InputError]:
    """Two objects with the same group, kind, namespace and name are one object in the cluster: refused, as
    kustomize refuses a repeated resource ID (a version does not make another object)."""
    if not documents:  # nothing passes through: the rendered objects are not read again
        return []
    rendered = {  # a parallel build's workers sent them (its objects are bytes)
        key: trainjob
        for trainjob, objects in jobs
        for key in (getattr(objects, "identities", None) or map(rendered_identity, objects))
    }
    seen: dict = {}
    paths: dict = {}
    errors = []
    for document in documents:
        key = (document.group, document.kind, document.namespace, document.name)
        where = api.described(document.kind, document.namespace, document.name)
        trainjob = rendered.get((*key[:2], document.namespace or namespace, key[3]))
        if key in seen:
            errors.append(InputError(document.origin, ("metadata", "name"), defined_twice(where, seen[key])))
        elif trainjob is not None:
            errors.append(
                InputError(
                    document.origin,
                    ("metadata", "name"),
                    f"{where} is also rendered for TrainJob {trainjob.namespace}/{trainjob.name}",
                )
            )
        elif files and (problem := _file_problem(document)) is not None:
            errors.append(InputError(document.origin, ("metadata", "name"), f"{where}: {problem}"))
        elif files and document.path().lower() in paths:  # lower: a case-insensitive file system too
            from ..formats import position

            errors.append(
                InputError(
                    document.origin,
                    ("metadata", "name"),
                    f"{where} would share the --output-dir file {document.path()} with an object "
                    f"in {position.name_place(paths[document.path().lower()])}",
                )
            )
        seen.setdefault(key, document.origin)
        paths.setdefault(document.path().lower(), document.origin)
    return errors


_KIND_MESSAGE = (
    "may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case "
    "alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric "
    "character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
_FILE_NAME_BYTES = 255  # NAME_MAX of Linux and macOS file systems


def _file_problem(document: Document) -> str | None:
    """Why the object's --output-dir file cannot be made (a name the API server takes for some kinds, e.g.
    RBAC's path-segment names, may still be no file name), or None."""
    name = document.path().rpartition("/")[2]
    if "\0" in name:
        return "its name holds a NUL character, which no --output-dir file name can hold"
    if len(name.encode("utf-8", "surrogatepass")) > _FILE_NAME_BYTES:
        return (
            f"its --output-dir file name {name[:40]!r}... is longer than {_FILE_NAME_BYTES} bytes, which file "
            "systems refuse; shorten the name or print to stdout"
        )
    return None
