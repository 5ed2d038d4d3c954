"""`trainc version`: what a bug report needs to reproduce a render."""

from __future__ import annotations

import platform
from importlib import metadata

UPSTREAM = "kubeflow/trainer 8c0f505"  # the revision whose behaviour trainc follows (spec: UPSTREAM-BEHAVIOR.md)
UPSTREAM_PINS = "k8s.io/api v0.36.3, sigs.k8s.io/jobset v0.12.0"  # its go.mod, for schemas/gotypes.json


def _pyyaml() -> str:
    import yaml

    if not yaml.__with_libyaml__:
        return f"PyYAML {yaml.__version__} (pure Python, no libyaml)"
    from yaml import _yaml

    return f"PyYAML {yaml.__version__} (libyaml {_yaml.get_version_string()})"


def text(release: str | None = None, origin: str | None = None) -> str:
    """The versions, then a line per installed plugin (the `trainc.plugins` entry points); `release`:
    the one in effect, set at `origin` (without it, `origin` says why it is not known)."""
    from ..compiler.plugins import entrypoints
    from ..trainer import releases
    from ..trainer.api import GROUP, VERSIONS

    return "".join(
        line + "\n"
        for line in (
            f"trainc {metadata.version('trainc')}",
            f"Python {platform.python_version()}",
            _pyyaml(),
            f"upstream {UPSTREAM} ({UPSTREAM_PINS})",
            f"CRD schemas {', '.join(f'{GROUP}/{version}' for version in VERSIONS)}",
            f"Kubeflow Trainer releases {', '.join(releases.NAMES)}; rendering for {release or 'an unknown release'} "
            f"({origin or 'default'})",
            *entrypoints.describe(),
        )
    )


def main(invocation, trainer_version: str) -> None:
    """`trainc version`: the versions on stdout, with the release in effect as the settings resolve it."""
    from .. import settings
    from ..errors import TraincError
    from . import write_out

    try:  # a bug report needs the versions even when the project config is broken: said on the line instead
        resolved = settings.resolve(invocation, {"trainer_version": trainer_version})
    except TraincError as error:
        write_out(text(None, error.render()))
        return
    write_out(text(resolved.value("trainer_version"), resolved.origin("trainer-version")))
