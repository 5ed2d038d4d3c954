"""trainc: compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

The Python API mirrors `trainc build`; imports are deferred so `import trainc` stays cheap.
"""

from __future__ import annotations

__all__ = ["objects", "render"]


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
