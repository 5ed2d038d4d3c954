"""The Trainer API as typed, defaulted models: TrainJob and (Cluster)TrainingRuntime.

Documents are first checked and defaulted against the CRD schemas
(`k8s/openapi.py`), which are the single source of truth for what is valid; the
models are the typed view the passes read. Embedded Kubernetes types
(EnvVar, ResourceRequirements, the JobSet spec) stay plain data, because the
passes rewrite them as trees.

`trainer.kubeflow.org/v1alpha1` is what upstream serves and the Kubeflow SDK
writes; `v2alpha1` is the KEP's spelling and means the same, plus what only the
KEP has (MPI `SSHAuthMountPath`, Intel MPI and MPICH).

The models' annotations are evaluated when the classes are made (no `from __future__ import annotations`),
so `_plan` reads them as they are instead of evaluating each string with `typing.get_type_hints`.
"""

import re
import types
from functools import cache

from ..errors import InputError, InputErrors, Origin
from ..k8s import openapi as schema
from ..k8s import podpaths

GROUP = "trainer.kubeflow.org"
VERSIONS = ("v1alpha1", "v2alpha1")
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")


def identity(kind: str, namespace: str | None, name: str) -> tuple:
    """(kind, namespace, name) naming one Trainer object in the cluster: a ClusterTrainingRuntime is
    cluster-scoped (no namespace), a TrainJob and a TrainingRuntime are namespaced."""
    return (kind, None if kind == "ClusterTrainingRuntime" else namespace, name)


def described(kind: str, namespace: str | None, name: str) -> str:
    """`Kind namespace/name`, or `Kind name` without a namespace: how every message names an object."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


DEFAULT_MANAGER = "trainer.kubeflow.org/trainjob-controller"
KUEUE_MULTIKUEUE = "kueue.x-k8s.io/multikueue"


class _Model:
    """A typed view of data the CRD schema has already checked and defaulted: building one only renames
    (JSON's camelCase keys to snake_case fields) and copies containers. A validating model library would
    check everything a second time and cost more to import than a whole compile; dataclasses cost a few
    milliseconds of start-up for the code they generate per class. Models are immutable (`replace` makes
    a changed copy); a default `{}`, `[]` or model is fresh for each instance."""

    _fields = ()  # (name, default) per field, in order; _REQUIRED when there is none

    def __init_subclass__(cls):
        annotations = cls.__dict__.get("__annotations__", {})
        cls._fields = tuple((name, cls.__dict__.get(name, _REQUIRED)) for name in annotations)

    def __init__(self, **values):
        for name, default in self._fields:
            if name in values:
                value = values.pop(name)
            elif default is _REQUIRED:
                raise TypeError(f"{type(self).__name__} needs {name}")
            else:
                value = type(default)() if isinstance(default, (dict, list, _Model)) else default
            object.__setattr__(self, name, value)
        if values:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(values))}")

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable: use replace()")

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name, _ in self._fields)

    def __eq__(self, other):
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name, _ in self._fields)})"

    def replace(self, **changes):
        """A copy with `changes` made."""
        return type(self)(**{name: getattr(self, name) for name, _ in self._fields} | changes)

    @classmethod
    def from_data(cls, data: dict):
        """The model of JSON data: unknown keys ignored, absent ones defaulted, maps and lists copied
        (one level, and each mapping of a list of mappings) so the model shares no container with `data`."""
        values = {}
        for name, key, convert in _plan(cls):
            if key in data:
                values[name] = convert(data[key])
            elif name in data:
                values[name] = convert(data[name])
        return cls(**values)


_REQUIRED = object()


@cache
def _plan(cls) -> tuple:
    """(field, JSON key, converter) for each field of a model class, worked out once per class."""
    hints = cls.__annotations__  # objects, not strings: this module does without `from __future__ import annotations`
    return tuple((name, _camel(name), _converter(hints[name])) for name, _ in cls._fields)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def _converter(hint):
    """How a field's JSON value becomes its value, from its annotation: `X | None`, a model, `dict[...]`,
    `list[...]` or a plain type (read without the `typing` module, which costs every run 2 ms to import)."""
    if isinstance(hint, types.UnionType):
        [inner] = [arg for arg in hint.__args__ if arg is not type(None)]
        convert = _converter(inner)
        return lambda value: None if value is None else convert(value)
    if isinstance(hint, type) and issubclass(hint, _Model):
        return hint.from_data
    origin = hint.__origin__ if isinstance(hint, types.GenericAlias) else None
    if origin is dict:
        return dict
    if origin is list:
        item = _converter(hint.__args__[0])
        return lambda items: [item(each) for each in items]
    return lambda value: value  # str, int, bool, object


class ObjectMeta(_Model):
    name: str
    namespace: str | None = None
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    uid: str = ""


class RuntimeRef(_Model):
    name: str
    api_group: str = GROUP
    kind: str = "ClusterTrainingRuntime"


class Trainer(_Model):
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[dict[str, object]] | None = None
    num_nodes: int | None = None
    resources_per_node: dict[str, object] | None = None
    num_proc_per_node: int | None = None


class InitializerSource(_Model):
    storage_uri: str | None = None
    env: list[dict[str, object]] | None = None
    secret_ref: dict[str, object] | None = None


class Initializer(_Model):
    dataset: InitializerSource | None = None
    model: InitializerSource | None = None


class TrainJobSpec(_Model):
    runtime_ref: RuntimeRef
    initializer: Initializer | None = None
    trainer: Trainer | None = None
    runtime_patches: list[dict[str, object]] = []
    suspend: bool = False
    managed_by: str = DEFAULT_MANAGER
    active_deadline_seconds: int | None = None


class TrainJob(_Model):
    api_version: str
    kind: str  # "TrainJob"
    metadata: ObjectMeta
    spec: TrainJobSpec
    origin: Origin | None = None
    document: dict[str, object] = {}  # as defaulted, for update checks

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or "default"

    @property
    def name(self) -> str:
        return self.metadata.name


class EnvInjectionTarget(_Model):
    job_name: str
    container_names: list[str]


class EnvInjection(_Model):
    targets: list[EnvInjectionTarget] = []


class TorchPolicy(_Model):
    env_injection: EnvInjection | None = None


class MPIPolicy(_Model):
    num_proc_per_node: int = 1
    mpi_implementation: str = "OpenMPI"
    ssh_auth_mount_path: str = "/root/.ssh"
    run_launcher_as_node: bool = False


class FluxPolicy(_Model):
    num_proc_per_node: int = 1


class MLPolicy(_Model):
    num_nodes: int | None = None
    torch: TorchPolicy | None = None
    mpi: MPIPolicy | None = None
    jax: dict[str, object] | None = None
    xgboost: dict[str, object] | None = None
    flux: FluxPolicy | None = None


class Coscheduling(_Model):
    schedule_timeout_seconds: int = 60


class Volcano(_Model):
    network_topology: dict[str, object] | None = None


class PodGroupPolicy(_Model):
    coscheduling: Coscheduling | None = None
    volcano: Volcano | None = None


class TemplateMeta(_Model):
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}


class JobSetTemplate(_Model):
    metadata: TemplateMeta = TemplateMeta()
    spec: dict[str, object] = {}


class RuntimeSpec(_Model):
    ml_policy: MLPolicy | None = None
    pod_group_policy: PodGroupPolicy | None = None
    template: JobSetTemplate


class Runtime(_Model):
    api_version: str
    kind: str  # RUNTIME_KINDS
    metadata: ObjectMeta
    spec: RuntimeSpec
    origin: Origin | None = None
    document: dict[str, object] = {}  # as defaulted: snapshot, update checks

    @property
    def name(self) -> str:
        return self.metadata.name


# ObjectMeta as the API server accepts it on input (read-only fields included,
# so `kubectl get -o yaml` output can be compiled as is).
_OBJECT_META = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "maxLength": 253},
        "generateName": {"type": "string"},
        "namespace": {"type": "string", "maxLength": 63, "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
        "creationTimestamp": {"type": "string"},
        "deletionTimestamp": {"type": "string"},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "selfLink": {"type": "string"},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "ownerReferences": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
        "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    },
}
_LABEL_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
DNS_SUBDOMAIN_MESSAGE = (  # apimachinery's, word for word
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    f"and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '{DNS_SUBDOMAIN}')"
)
_DNS_SUBDOMAIN = re.compile(DNS_SUBDOMAIN)


_ANNOTATIONS_BYTES = 256 * 1024  # apimachinery's TotalAnnotationSizeLimitB
_RUNTIME_JOBS = ("spec", "template", "spec", "replicatedJobs", "*", "template")
_PATCH = ("spec", "runtimePatches", "*", "trainingRuntimeSpec", "template")
_VOLUME_CLAIM = ("spec", "template", "spec", "volumes", "*", "ephemeral", "volumeClaimTemplate")
# Every ObjectMeta an input holds that ends up on an object a cluster validates: the document's
# own, the JobSet's (runtime template, patches) and those of its Jobs, Pods and volume claims.
_OBJECT_METAS = tuple(
    path + ("metadata",)
    for path in (
        (),
        ("spec", "template"),
        _RUNTIME_JOBS,
        _RUNTIME_JOBS + ("spec", "template"),
        _RUNTIME_JOBS + _VOLUME_CLAIM,
        _PATCH,
        _PATCH + _RUNTIME_JOBS[2:],
        _PATCH + _RUNTIME_JOBS[2:] + ("spec", "template"),
        _PATCH + _RUNTIME_JOBS[2:] + _VOLUME_CLAIM,
    )
)

_POD_SPECS = (_RUNTIME_JOBS + ("spec", "template", "spec"), _PATCH + _RUNTIME_JOBS[2:] + ("spec", "template", "spec"))


def _qualified_name(key: str) -> bool:
    """apimachinery's IsQualifiedName: `[prefix/]name`, the prefix a DNS subdomain."""
    prefix, slash, name = key.rpartition("/")
    return (
        0 < len(name) <= 63
        and bool(_LABEL_NAME.fullmatch(name))
        and (not slash or (0 < len(prefix) <= 253 and bool(_DNS_SUBDOMAIN.fullmatch(prefix))))
    )


def _found(data, pattern: tuple, path: tuple = ()):
    """(path, value) for every value at `pattern` in `data`, "*" matching each list item."""
    if not pattern:
        yield path, data
    elif pattern[0] == "*":
        for index, item in enumerate(data if isinstance(data, list) else ()):
            yield from _found(item, pattern[1:], path + (index,))
    elif isinstance(data, dict) and pattern[0] in data:
        yield from _found(data[pattern[0]], pattern[1:], path + (pattern[0],))


def _meta_violations(data: dict) -> list[schema.Violation]:
    """Label and annotation keys and values as apimachinery's ValidateObjectMeta checks them."""
    out = []
    for pattern in _OBJECT_METAS:
        for path, metadata in _found(data, pattern):
            labels = metadata.get("labels") if isinstance(metadata, dict) else None
            for key, value in (labels if isinstance(labels, dict) else {}).items():
                if not _qualified_name(key):
                    out.append(schema.Violation(path + ("labels", key), "invalid label key", key=True))
                if isinstance(value, str) and value and not (len(value) <= 63 and _LABEL_NAME.fullmatch(value)):
                    out.append(schema.Violation(path + ("labels", key), f"invalid label value {value!r}"))
            annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
            if not isinstance(annotations, dict):
                continue
            # apimachinery's ValidateAnnotations checks the key lower-cased (labels are case-sensitive)
            out += [
                schema.Violation(path + ("annotations", key), "invalid annotation key", key=True)
                for key in annotations
                if not _qualified_name(key.lower())
            ]
            size = sum(
                len(key.encode()) + len(value.encode()) for key, value in annotations.items() if isinstance(value, str)
            )
            if size > _ANNOTATIONS_BYTES:
                message = f"may not be larger than {_ANNOTATIONS_BYTES} bytes"
                out.append(schema.Violation(path + ("annotations",), message))
    return out


@cache
def document_schema(name: str) -> dict:
    """The CRD schema with ObjectMeta spelled out and required (the CRD leaves it to the API server).

    `spec`, a runtime's `spec.template`, and its Job and Pod templates' `spec` are
    required here although the CRD leaves them optional: upstream's Go types read
    an absent one as empty, which compiles to a JobSet the API server refuses (a
    Job needs a pod template, a Pod containers), so trainc says what is missing.
    """
    crd = dict(schema.load(name))  # copied along the paths changed: the cached CRD schema stays as loaded
    crd["required"] = [*crd.get("required", ()), "metadata", "spec"]
    _own(crd, "properties")["metadata"] = _OBJECT_META
    spec = _own(crd, "properties", "spec")
    if "template" in spec["properties"]:
        spec["required"] = [*spec.get("required", ()), "template"]
        path = ("properties", "template", "properties", "spec", "properties", "replicatedJobs", "items")
        job_template = _own(spec, *path, "properties", "template")
        job_template["required"] = [*job_template.get("required", ()), "spec"]
        pod_template = _own(job_template, "properties", "spec", "properties", "template")
        pod_template["required"] = [*pod_template.get("required", ()), "spec"]
    return crd


def _own(node: dict, *keys: str) -> dict:
    """The mapping at `keys` below `node` (a copy already), each level on the way replaced by a shallow copy."""
    for key in keys:
        copy = dict(node[key])
        node[key] = copy
        node = copy
    return node


def _violations_for(data: dict, version: str, kind: str) -> list[schema.Violation]:
    name = "trainjob" if kind == "TrainJob" else "trainingruntime"
    _, found = schema.validate(data, document_schema(f"{name}.{version}"))
    found += _meta_violations(data)
    found += [
        violation
        for pattern in _POD_SPECS
        for path, spec in _found(data, pattern)
        for violation in podpaths.violations(spec, path)
    ]
    # A custom resource's name must be a DNS subdomain (a TrainJob's CEL rule already asks for more).
    object_name = data["metadata"].get("name") if not found and kind != "TrainJob" else None
    if object_name is not None and not _DNS_SUBDOMAIN.fullmatch(object_name):
        found.append(schema.Violation(("metadata", "name"), DNS_SUBDOMAIN_MESSAGE))
    return found


def _kep_spelling(data: dict) -> None:
    """v2alpha1 (the KEP) spells the MPI mount path `SSHAuthMountPath`."""
    mpi = data
    for field in ("spec", "mlPolicy", "mpi"):  # any of them may be absent or of a wrong type
        mpi = mpi.get(field) if isinstance(mpi, dict) else None
    if isinstance(mpi, dict) and "SSHAuthMountPath" in mpi and "sshAuthMountPath" not in mpi:
        mpi["sshAuthMountPath"] = mpi.pop("SSHAuthMountPath")


def _not_ours(api_version, kind) -> str | None:
    """Why a document that looks meant for Trainer is not read as one; None for other documents
    (other API groups are not trainc's business). kubectl would refuse these too."""
    expected = f"expected {GROUP}/v1alpha1 (or the KEP's /v2alpha1)"
    if api_version is None:
        return f"required field is missing: {expected}" if kind in ("TrainJob",) + RUNTIME_KINDS else None
    if not isinstance(api_version, str):
        return f"must be a string: {expected}" if kind in ("TrainJob",) + RUNTIME_KINDS else None
    group, slash, _ = api_version.partition("/")
    if group.lower() != GROUP:
        return None
    if not slash:
        return f"{api_version!r} has no version: {expected}"
    return f"API groups are lower case: {expected}"


def uncompiled(data) -> bool:
    """Whether `data` is a Trainer object of a kind trainc does not compile (OptimizationJob, kinds upstream
    adds later): `trainc build` passes it through as it came, with a notice, rather than refusing it."""
    if not isinstance(data, dict):
        return False
    api_version, kind = data.get("apiVersion"), data.get("kind")
    return (
        isinstance(api_version, str)
        and api_version.startswith(GROUP + "/")
        and api_version != GROUP + "/"
        and isinstance(kind, str)
        and kind not in ("", "TrainJob", "List") + RUNTIME_KINDS
    )


def namespace_problem(namespace) -> str | None:
    """Why `namespace` is no namespace the API server takes; None when it is one."""
    _, problems = schema.validate(namespace, _OBJECT_META["properties"]["namespace"])
    return problems[0][1] if problems else None


def parse(origin: Origin, data, namespace: str = "default") -> TrainJob | Runtime | None:
    """A typed TrainJob or runtime, None for documents of other API groups.

    `namespace` is given to namespaced objects that have none (like kubectl -n).
    """
    if not isinstance(data, dict):
        raise InputError(origin, (), "a Kubernetes object must be a mapping")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not api_version.startswith(GROUP + "/"):
        problem = _not_ours(api_version, kind)
        if problem is not None:
            raise InputError(origin, ("apiVersion",), problem)
        return None
    version = api_version.partition("/")[2]
    if version not in VERSIONS:
        raise InputError(
            origin, ("apiVersion",), f"unsupported version {version!r}: trainc reads {GROUP}/v1alpha1 and /v2alpha1"
        )
    if kind not in ("TrainJob",) + RUNTIME_KINDS:
        found = (
            f"unsupported kind {kind!r}"
            if isinstance(kind, str)
            else "must be a string"
            if kind is not None
            else ("required field is missing")
        )
        raise InputError(origin, ("kind",), f"{found}: expected TrainJob, TrainingRuntime or ClusterTrainingRuntime")
    if version == "v2alpha1" and kind != "TrainJob":
        _kep_spelling(data)
    if kind == "TrainJob":
        data.pop("status", None)  # the status subresource: the API server drops it from what users write
    violations = _violations_for(data, version, kind)
    if violations:
        raise InputErrors([InputError(origin, path, message, key=key) for path, message, key in violations])
    if kind != "ClusterTrainingRuntime" and "namespace" not in data["metadata"]:
        problem = namespace_problem(namespace)
        if problem is not None:
            message = f"none set, and the default namespace (-n) is invalid: {problem}"
            raise InputError(origin, ("metadata", "namespace"), message)
        data["metadata"]["namespace"] = namespace
    model = TrainJob if kind == "TrainJob" else Runtime
    return model.from_data({**data, "origin": origin, "document": data})
