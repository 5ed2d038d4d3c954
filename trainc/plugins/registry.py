"""`trainc.plugins.registry.Plugin`: the record by the name the first plugin docs gave it (`trainc.plugins`)."""

from __future__ import annotations

from . import Plugin

__all__ = ["Plugin"]
