"""The names a plugin distribution types, kept stable whatever moves inside trainc.

A distribution installed beside trainc adds plugins through the `trainc.plugins` entry-point group; each entry
point names a `Plugin` record (docs/guides/plugins.md has the recipe). `Plugin` is the record the built-in
plugins are; `trainer_container` and `add_env` are what an ML-policy plugin's `enforce` needs to set env on
the trainer as the built-in ones do; `InputError` is how a hook reports a problem at a file's position.
`trainc.plugins.registry.Plugin` is the same record, by the name the first docs gave it.
"""

from __future__ import annotations

from ..compiler.ir import trainer_container
from ..compiler.plugins.entrypoints import GROUP
from ..compiler.plugins.registry import Plugin
from ..errors import InputError
from ..k8s.podspec import add_env

__all__ = ["GROUP", "InputError", "Plugin", "add_env", "trainer_container"]
