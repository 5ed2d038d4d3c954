"""The API server's update rule for Secrets and ConfigMaps (ValidateSecretUpdate, ValidateConfigMapUpdate): once
`immutable: true` is stored, neither the data nor the flag may change; only deleting and re-creating the
object does."""

from __future__ import annotations

from ..errors import Path

KINDS = ("Secret", "ConfigMap")
DATA = ("data", "binaryData", "stringData", "immutable")  # the fields an immutable one keeps


def refused_change(old: dict, changed: list[Path]) -> tuple[Path, str] | None:
    """(the first changed field the API server refuses, why) when `old` is a stored immutable Secret or ConfigMap
    and a change among `changed` (field paths) touches its data, else None."""
    if old.get("kind") not in KINDS or old.get("immutable") is not True:
        return None
    path = next((path for path in changed if path and path[0] in DATA), None)
    if path is None:
        return None
    name = (old.get("metadata") or {}).get("name")
    return path, f"{old['kind']} {name!r} is immutable: its data cannot change"
