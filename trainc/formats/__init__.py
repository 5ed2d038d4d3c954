"""formats: reading and writing YAML and JSON as kubectl does.

Importing the package installs the position lookup errors use (`errors.locator`); it imports
`position` (and YAML) only when a position is first wanted, so `trainc --help` stays light.
"""

from .. import errors as _errors


def _locate(origin, path, *, key: bool = False) -> tuple[int, int]:
    from .position import locate

    return locate(origin, path, key=key)


_errors.locator = _locate
