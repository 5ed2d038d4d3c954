"""Project defaults from `.trainc.yaml` or `[tool.trainc]` in `pyproject.toml`, layered by folder.

Which configuration governs a file depends on where the file is, never on the directory a tool runs in, so
CI at the root, pre-commit and the Argo CD plugin in the app's folder render alike (as .editorconfig and
ruff's hierarchical configs). The config of a folder is its `.trainc.yaml`, else its `pyproject.toml` with a
`[tool.trainc]` table. The files that govern a run's inputs are the configs of every folder from the root
(the git root; `--root`; outside git, the current directory, or the inputs' folder when they are not under
it) down to the inputs' common folder, layered outermost first:

- a list (`runtimes`, `policy-paths`, `plugins`, the house rules `policies`) adds its items after those of
  the configs above: a team's config cannot drop the platform's runtimes, policies or house rules;
- any other key (`namespace`, `ssh-keys`, `sealed-secrets-cert`, `ssh-key-seed`, `output-dir`) replaces the
  value above it;
- but `prices` (`trainc.formats.prices`), the platform's, is set by the outermost config that writes it.

Paths in a config are relative to its file. Inputs governed by different configs (an app's own config below
the inputs' common folder) are refused, since one run has one set of settings (`nested`). `trainc.settings`
puts the result below flags and environment variables, and keeps where each value is written (`where`), for
messages in the config's own terms.
"""

from __future__ import annotations

import os

from ..errors import InputError, Origin, Record

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
    "kueue-paths": ("kueue_paths", True, True),
    "cluster-state": ("cluster_state", True, False),
    "trainer-version": ("trainer_version", False, False),
    "as": ("as_user", False, False),
    "as-groups": ("as_groups", False, True),
}
HOUSE_RULES = "policies"  # a list of house rules, read with their positions by trainc.policy.house
PRICES = "prices"  # the price table, read with its positions and decimals by trainc.formats.prices


class Config(Record):
    path: str | None  # the nearest file read, None when there is none
    values: dict  # parameter name -> value, paths resolved
    where: dict  # parameter name -> ["FILE:LINE:COL", ...], one per value (item)
    paths: tuple = ()  # every file layered, outermost first
    house_rules: bool = False  # whether one of them writes house rules (`policies`), read later by policy.house


def in_folder(folder: str) -> str | None:
    """The config of one folder: its `.trainc.yaml`, else its `pyproject.toml` with a [tool.trainc] table."""
    candidate = os.path.join(folder, FILE)
    if os.path.isfile(candidate):
        return candidate
    candidate = os.path.join(folder, PYPROJECT)
    if os.path.isfile(candidate) and _has_table(candidate):
        return candidate
    return None


def chain(folder: str, root: str | None = None) -> list[str]:
    """The configs governing files in `folder`: those of each folder from `root` (default: the git root; none:
    `folder` alone) down to `folder`, outermost first. A folder outside `root` has only its own."""
    folder = os.path.abspath(folder)
    root = _git_root(folder) if root is None else os.path.abspath(root)
    folders = [folder]
    while root is not None and folders[-1] != root and os.path.dirname(folders[-1]) != folders[-1]:
        folders.append(os.path.dirname(folders[-1]))
    if root is not None and folders[-1] != root:  # not under root: its own folder only
        folders = [folder]
    return [path for path in map(in_folder, reversed(folders)) if path is not None]


def nested(paths, folder: str) -> str | None:
    """A config below `folder` (the inputs' common folder) that governs some of the inputs `paths`, if any: its
    inputs would then render under settings other than the run's, so the run must be split."""
    folder = os.path.abspath(folder)
    for path in paths:
        if path == "-":
            continue
        start = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path))
        here = start
        while here != folder and here.startswith(folder.rstrip(os.sep) + os.sep):
            found = in_folder(here)
            if found is not None:
                return found
            here = os.path.dirname(here)
        if os.path.isdir(path):
            for top, directories, _ in os.walk(start):
                directories[:] = sorted(name for name in directories if not name.startswith("."))  # as inputs reads
                if top != start:
                    found = in_folder(top)
                    if found is not None:
                        return found
    return None


def _git_root(folder: str) -> str | None:
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _has_table(path: str) -> bool:
    tool = _toml(path).get("tool", {})
    if not isinstance(tool, dict):  # `tool = 5`: no [tool.*] table can follow, for any tool
        raise InputError(
            Origin(os.path.relpath(path)),
            ("tool",),
            "must be a table (as [tool.trainc])",
            mark=_toml_locator(path)(("tool",), top=True),
        )
    return "trainc" in tool


def _toml(path: str) -> dict:
    import tomllib

    data = b""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(Origin(os.path.relpath(path)), (), f"invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # tomllib reads UTF-8 only, and says so without a position
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            Origin(os.path.relpath(path)), (), "invalid TOML: not UTF-8 text", mark=(line, column)
        ) from None
    except OSError as exc:
        raise InputError(Origin(os.path.relpath(path)), (), f"cannot read: {exc.strerror}") from None


def load(start: str | None = None, root: str | None = None, limit: int | None = None) -> Config:
    """The project config governing files in `start` (default: the current directory): every config of
    `chain`, layered, a YAML one read within `limit` bytes (the run's bound); raises InputError on unknown keys
    or wrong types."""
    paths = chain(start or os.getcwd(), root)
    values, where, rules = {}, {}, False
    for path in paths:
        one = _load(path, limit)
        rules = rules or one.house_rules
        for name, value in one.values.items():
            if KEYS[_key_of(name)][2]:  # a list: the platform's items stay, the team's follow
                values[name] = [*values.get(name, []), *value]
                where[name] = [*where.get(name, []), *one.where[name]]
            else:
                values[name], where[name] = value, one.where[name]
    return Config(paths[-1] if paths else None, values, where, tuple(paths), rules)


def _key_of(name: str) -> str:
    return next(key for key, (parameter, _, _) in KEYS.items() if parameter == name)


def _load(path: str, limit: int | None = None) -> Config:
    """One config file's values; raises InputError on unknown keys or wrong types."""
    if os.path.basename(path) == FILE:
        raw, origin, where = _yaml(path, limit)
    else:
        raw, origin, where = _toml(path)["tool"]["trainc"], Origin(os.path.relpath(path)), _toml_locator(path)
    if not isinstance(raw, dict):
        field = () if os.path.basename(path) == FILE else ("tool", "trainc")
        raise InputError(
            origin,
            field,
            "must be a mapping of trainc settings",
            mark=where(field[1:], top=True) if field else where(()),
        )
    from . import position

    base = os.path.dirname(path)
    values, positions = {}, {}
    for key, value in raw.items():
        if key in (HOUSE_RULES, PRICES):
            continue
        if key not in KEYS:
            known = ", ".join([*KEYS, HOUSE_RULES, PRICES])
            raise InputError(origin, (key,), f"unknown key (known: {known})", key=True, mark=where((key,)))
        name, is_path, is_list = KEYS[key]
        items = value if is_list else [value]
        if (is_list and not isinstance(value, list)) or not all(isinstance(item, str) and item for item in items):
            what = "a list of non-empty strings" if is_list else "a non-empty string"
            raise InputError(origin, (key,), f"must be {what}", mark=where((key,)))
        if is_path:
            items = [os.path.relpath(os.path.join(base, item)) for item in items]
        values[name] = items if is_list else items[0]
        marks = [
            where((key, index) if is_list else (key,)) or position.locate(origin, (key, index) if is_list else (key,))
            for index in range(len(items))
        ]
        positions[name] = ["{}:{}:{}".format(origin.file, *mark) for mark in marks]
    return Config(path, values, positions, house_rules=HOUSE_RULES in raw)


def _yaml(path: str, limit: int | None = None):
    from . import source

    text = source.read(path, source.Budget(limit))
    documents = list(source.load_text(text, os.path.relpath(path)))
    if len(documents) > 1:
        raise InputError(documents[1][0], (), "holds more than one document")
    origin, raw = documents[0] if documents else (Origin(os.path.relpath(path), text=text), {})
    return raw, origin, lambda field: None


def _toml_locator(path: str):
    """(line, column) of a key of the [tool.trainc] table (or, with `top`, of the file's top level), for
    errors (tomllib keeps no positions)."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    header = next((n for n, line in enumerate(lines) if line.strip().replace(" ", "") == "[tool.trainc]"), 0)

    def where(field, top=False):
        if field:
            for number in range(0 if top else header + 1, len(lines)):
                stripped = lines[number].lstrip()
                if stripped.startswith("[") and not top:
                    break
                if stripped.split("=", 1)[0].strip().strip("\"'") == field[0]:
                    return (number + 1, len(lines[number]) - len(stripped) + 1)
        return (header + 1, 1)

    return where
