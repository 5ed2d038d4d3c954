"""Missing runtimes, judged beside documents that could not be read.

`build` and `validate` report every independent problem at once. A TrainJob
whose runtime is among the documents that failed (or in a file that could not
be read at all) is left alone: "not found" would be wrong. A TrainJob that
fails its schema still gets "not found" when its runtimeRef is readable and
names no runtime, since fixing the schema would not fix that.
"""

from __future__ import annotations

from ..errors import InputError
from . import api
from .catalog import RUNTIMES_WORDS, not_found

_REF = ("spec", "runtimeRef")


def doubtful(inputs, namespace: str):
    """A predicate: may the runtime `ref` names from `job_namespace` be one of the documents that failed?"""
    failed, anything = set(), inputs.unread
    for _, data, _ in inputs.unparsed:
        kind = data.get("kind") if isinstance(data, dict) else None
        if kind == "TrainJob":
            continue
        metadata = data.get("metadata") if isinstance(data, dict) else None
        name = metadata.get("name") if isinstance(metadata, dict) else None
        if kind not in api.RUNTIME_KINDS or not isinstance(name, str):
            anything = True  # it may have been any runtime
            continue
        runtime_namespace = metadata.get("namespace")
        failed.add(api.identity(kind, runtime_namespace if isinstance(runtime_namespace, str) else namespace, name))

    def check(ref, job_namespace: str, runtimes) -> bool:
        if runtimes.find(ref.kind, job_namespace, ref.name) is not None:
            return False
        return anything or api.identity(ref.kind, job_namespace, ref.name) in failed

    return check


def runtimes_of_unparsed(
    unparsed, runtimes, doubtful_ref, namespace: str, runtimes_words: str = RUNTIMES_WORDS
) -> list[InputError]:
    """ "not found" for TrainJobs that failed elsewhere but name, readably, a runtime that does not exist."""
    errors = []
    for origin, data, problems in unparsed:
        if not isinstance(data, dict) or data.get("kind") != "TrainJob":
            continue
        if any(problem.path[:2] == _REF for problem in problems if isinstance(problem, InputError)):
            continue
        ref = ((data.get("spec") or {}) if isinstance(data.get("spec"), dict) else {}).get("runtimeRef")
        if not isinstance(ref, dict) or not isinstance(ref.get("name"), str):
            continue
        ref = api.RuntimeRef.from_data(ref)
        metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        job_namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else namespace
        if ref.api_group != api.GROUP or ref.kind not in api.RUNTIME_KINDS:
            continue  # an unsupported runtimeRef: the resolve pass says so once the TrainJob parses
        if runtimes.find(ref.kind, job_namespace, ref.name) is None and not doubtful_ref(ref, job_namespace, runtimes):
            errors.append(InputError(origin, _REF + ("name",), not_found(runtimes, ref, job_namespace, runtimes_words)))
    return errors
