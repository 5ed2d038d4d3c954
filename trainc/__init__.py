"""trainc: compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

The Python API mirrors `trainc build`; imports are deferred so `import trainc` stays cheap.
"""

from __future__ import annotations

__all__ = ["from_objects", "objects", "render"]


def objects(paths, runtimes=(), *, namespace: str = "default", ssh_key_seed: bytes | None = None,
            runtime_snapshot: bool = False, trainer_version: str | None = None) -> list[dict]:
    """The rendered objects for every TrainJob under `paths` (files, directories or "-"), as `trainc build`;
    `trainer_version` is the Kubeflow Trainer release to render for ("v2.3", "v2.4"; default the newest)."""
    from .build import build as _build
    from .trainer import releases

    with releases.using(releases.named(trainer_version) if trainer_version else releases.DEFAULT):
        output = _build(paths, runtimes, namespace=namespace, ssh_key_seed=ssh_key_seed,
                        runtime_snapshot=runtime_snapshot)
    return output.documents()


def render(paths, runtimes=(), **options) -> str:
    """The same objects as one deterministic YAML stream (options as for `objects`)."""
    from .formats.serialize import dump_all

    return dump_all(objects(paths, runtimes, **options))


def from_objects(documents, *, namespace: str = "default", ssh_key_seed: bytes | None = None) -> list[dict]:
    """Render in-memory TrainJobs and runtimes: dicts (e.g. what the Kubeflow SDK would POST), the SDK's
    and the `kubernetes` client's model objects, or YAML/JSON text (str or UTF-8 bytes).

    Bundled runtimes are used as by `trainc build`; errors name `<object N>` with the line and column of
    the object written out as YAML.
    """
    from .build import build_objects
    from .errors import InputErrors, Origin, caught
    from .formats import source

    found, errors = [], []
    for index, document in enumerate(documents):
        name = f"<object {index}>"
        loaded, problems = caught(lambda: list(source.load_text(_as_text(document, Origin(name)), name)))
        errors.extend(problems)
        for origin, data in loaded or ():
            found.extend(source.items(origin, data))
    if errors:
        raise InputErrors(errors)
    return build_objects(found, namespace=namespace, ssh_key_seed=ssh_key_seed).documents()


def _as_text(document, origin) -> str:
    from .errors import InputError
    from .formats.clientdata import json_data
    from .formats.limits import room_for_depth
    from .formats.serialize import dump_all

    if isinstance(document, str):
        if not document.isascii():
            try:
                document.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: no reader (nor kubectl) takes such text
                raise InputError(origin, (), "not UTF-8 text (a lone surrogate)") from None
        return document
    if isinstance(document, bytes):
        try:
            return document.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(origin, (), "not UTF-8 text") from None
    with room_for_depth(frames_per_level=2):  # a level is a frame or two in each recursive walk
        return dump_all([json_data(document, origin)])
