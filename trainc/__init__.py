"""trainc: compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

The Python API mirrors `trainc build`; imports are deferred so `import trainc` stays cheap.
"""

from __future__ import annotations

__all__ = ["from_objects", "objects", "render"]


def objects(paths, runtimes=(), *, namespace: str = "default", ssh_key_seed: bytes | None = None,
            runtime_snapshot: bool = False) -> list[dict]:
    """The rendered objects for every TrainJob under `paths` (files, directories or "-"), as `trainc build`."""
    from .build import build as _build

    output = _build(paths, runtimes, namespace=namespace, ssh_key_seed=ssh_key_seed, runtime_snapshot=runtime_snapshot)
    return output.documents()


def render(paths, runtimes=(), **options) -> str:
    """The same objects as one deterministic YAML stream (options as for `objects`)."""
    from .emit import dump

    return dump(objects(paths, runtimes, **options))


def from_objects(documents, *, namespace: str = "default", ssh_key_seed: bytes | None = None) -> list[dict]:
    """Render in-memory TrainJobs and runtimes: dicts (e.g. what the Kubeflow SDK would POST) or YAML/JSON text.

    Bundled runtimes are used as by `trainc build`; errors name `<object N>` with the line and column of
    the object written out as YAML.
    """
    from . import source
    from .build import build_objects
    from .serialize import dump_all

    found = []
    for index, document in enumerate(documents):
        text = document if isinstance(document, str) else dump_all([document])
        for origin, data in source.load_text(text, f"<object {index}>"):
            found.extend(source.items(origin, data))
    return build_objects(found, namespace=namespace, ssh_key_seed=ssh_key_seed).documents()
