"""trainc: compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

The Python API mirrors `trainc build`; imports are deferred so `import trainc` stays cheap.
"""

from __future__ import annotations

__all__ = ["objects", "render"]


def objects(paths, runtimes=(), *, namespace: str = "default", ssh_key_seed: bytes | None = None) -> list[dict]:
    """The rendered objects for every TrainJob under `paths` (files, directories or "-")."""
    from .build import build as _build

    return _build(paths, runtimes, namespace=namespace, ssh_key_seed=ssh_key_seed).documents()


def render(paths, runtimes=(), *, namespace: str = "default", ssh_key_seed: bytes | None = None) -> str:
    """The same objects as one deterministic YAML stream."""
    from .emit import dump

    return dump(objects(paths, runtimes, namespace=namespace, ssh_key_seed=ssh_key_seed))
