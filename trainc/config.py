"""Project defaults from `.trainc.yaml` or `[tool.trainc]` in `pyproject.toml`.

So that CI, pre-commit, the Argo CD plugin and a developer's shell render alike,
trainc looks in the current directory, then each parent up to the git root (the
first directory holding `.git`); outside a git repository, in the current
directory only. The first directory with either file wins; in it `.trainc.yaml`
is read before a `pyproject.toml` (one without a `[tool.trainc]` table does not
count). Paths in it are relative to the file. Flags and environment variables
override it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import InputError, Origin

FILE = ".trainc.yaml"
PYPROJECT = "pyproject.toml"
# key -> (the parameter name it defaults, whether it holds paths, whether it is a list)
KEYS = {
    "runtimes": ("runtime_paths", True, True),
    "namespace": ("namespace", False, False),
    "ssh-key-seed": ("ssh_key_seed", True, False),
    "output-dir": ("output_dir", True, False),
    "plugins": ("plugins", False, True),
    "ssh-keys": ("ssh_keys", False, False),
    "sealed-secrets-cert": ("sealed_secrets_cert", True, False),
    "policy-paths": ("policy_paths", True, True),
}
HOUSE_RULES = "policies"  # a list of house rules, read with their positions by trainc.policy.house


@dataclass(frozen=True)
class Config:
    path: str | None  # the file read, None when there is none
    values: dict  # parameter name -> value, paths resolved

    def defaults_for(self, params) -> dict:
        """The defaults a command with these parameter names takes (click's default_map)."""
        names = {param.name for param in params}
        return {name: value for name, value in self.values.items() if name in names}


def default_map(name: str, command) -> dict | None:
    """click's default_map for running command `name` (a group's subcommands included); the config is
    read only for a command that takes one of its settings, so a broken one never stops `trainc version`."""
    subcommands = getattr(command, "commands", {})
    names = {param for param, _, _ in KEYS.values()}
    if not any(param.name in names for each in (command, *subcommands.values()) for param in each.params):
        return None
    found = load()
    defaults = {sub_name: found.defaults_for(sub.params) for sub_name, sub in subcommands.items()}
    return {name: {**defaults, **found.defaults_for(command.params)}}


def find(start: str | None = None) -> str | None:
    """The config file that applies in `start` (default: the current directory)."""
    folder = os.path.abspath(start or os.getcwd())
    root = _git_root(folder)
    while True:
        candidate = os.path.join(folder, FILE)
        if os.path.isfile(candidate):
            return candidate
        candidate = os.path.join(folder, PYPROJECT)
        if os.path.isfile(candidate) and _has_table(candidate):
            return candidate
        if root is None or folder == root or os.path.dirname(folder) == folder:
            return None
        folder = os.path.dirname(folder)


def _git_root(folder: str) -> str | None:
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _has_table(path: str) -> bool:
    return "tool" in (table := _toml(path)) and "trainc" in table["tool"]


def _toml(path: str) -> dict:
    import tomllib

    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(Origin(os.path.relpath(path)), (), f"invalid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(Origin(os.path.relpath(path)), (), f"cannot read: {exc.strerror}") from None


def load(start: str | None = None) -> Config:
    """The project config in effect; raises InputError on unknown keys or wrong types."""
    path = find(start)
    if path is None:
        return Config(None, {})
    if os.path.basename(path) == FILE:
        raw, origin, where = _yaml(path)
    else:
        raw, origin, where = _toml(path)["tool"]["trainc"], Origin(os.path.relpath(path)), _toml_locator(path)
    if not isinstance(raw, dict):
        raise InputError(origin, (), "must be a mapping of trainc settings", mark=where(()))
    base = os.path.dirname(path)
    values = {}
    for key, value in raw.items():
        if key == HOUSE_RULES:
            continue
        if key not in KEYS:
            known = ", ".join([*KEYS, HOUSE_RULES])
            raise InputError(origin, (key,), f"unknown key (known: {known})", key=True, mark=where((key,)))
        name, is_path, is_list = KEYS[key]
        items = value if is_list else [value]
        if (is_list and not isinstance(value, list)) or not all(isinstance(item, str) and item for item in items):
            what = "a list of non-empty strings" if is_list else "a non-empty string"
            raise InputError(origin, (key,), f"must be {what}", mark=where((key,)))
        if is_path:
            items = [os.path.relpath(os.path.join(base, item)) for item in items]
        values[name] = items if is_list else items[0]
    return Config(path, values)


def _yaml(path: str):
    from . import source

    text = source.read(path)
    documents = list(source.load_text(text, os.path.relpath(path)))
    if len(documents) > 1:
        raise InputError(documents[1][0], (), "holds more than one document")
    origin, raw = documents[0] if documents else (Origin(os.path.relpath(path), text=text), {})
    return raw, origin, lambda field: None


def _toml_locator(path: str):
    """(line, column) of a key of the [tool.trainc] table, for errors (tomllib keeps no positions)."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    header = next((n for n, line in enumerate(lines) if line.strip().replace(" ", "") == "[tool.trainc]"), 0)

    def where(field):
        if field:
            for number in range(header + 1, len(lines)):
                stripped = lines[number].lstrip()
                if stripped.startswith("["):
                    break
                if stripped.split("=", 1)[0].strip().strip("\"'") == field[0]:
                    return (number + 1, len(lines[number]) - len(stripped) + 1)
        return (header + 1, 1)

    return where
