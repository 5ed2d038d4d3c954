"""The price table of the project config (`prices:`): what an hour of each resource costs, per ResourceFlavor,
and `default` for what no flavor places.

    prices:
      currency: USD
      flavors:
        a100: {nvidia.com/gpu: 2.50, cpu: 0.03, memory: 0.004}
      default: {cpu: 0.03, memory: 0.004}

A price is per hour and per unit of the resource as it is written: a CPU, a GiB of `memory`,
`ephemeral-storage` and `hugepages-*`, one of anything else (a GPU, a pod). It is read as the decimal its
text writes (`decimal.Decimal` of the YAML scalar or, in pyproject.toml, of the TOML float), never through a
float. The table is untrusted input: a price is plain digits with an optional fraction (no sign, exponent or
string), at most MAX_PRICE with MAX_FRACTION decimals, and the table holds at most MAX_ENTRIES prices; anything
else is an error at its `file:line:col` and field path.

The prices are the platform's: the outermost config that writes `prices` sets them, and a config below it
that writes them too is an error (a team cannot price its own jobs under a cost cap).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from decimal import Decimal
from types import MappingProxyType

from ..errors import InputError, Origin, Record

KEY = "prices"
MAX_PRICE = Decimal(1_000_000)  # per unit and hour: more is a typo, or an attempt at overflowing a total
MAX_FRACTION = 9  # decimals of a price (a nano-unit of currency)
MAX_ENTRIES = 10_000  # prices in one table
_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
_CURRENCY = re.compile(r"[A-Z]{3}")  # an ISO 4217 code
_NAME_LENGTH = 253  # a ResourceFlavor's name, a resource's qualified name


class Prices(Record):
    """A price table: {resource: Decimal per unit-hour} per flavor and for `default`; `where` is the table's
    `FILE:LINE:COL`."""

    currency: str
    flavors: Mapping = MappingProxyType({})
    default: Mapping = MappingProxyType({})
    where: str = ""

    def price(self, flavor: str | None, resource: str) -> Decimal | None:
        """The flavor's price of `resource`, else the default's, else None (priced nowhere)."""
        found = self.flavors.get(flavor, {}).get(resource) if flavor is not None else None
        return found if found is not None else self.default.get(resource)


def unit(resource: str) -> int:
    """How many of Kueue's integers of `resource` a price is for: a CPU is 1000 millicores, a GiB of memory,
    ephemeral storage or huge pages 2**30 bytes, anything else one (a GPU, a pod)."""
    if resource == "cpu":
        return 1000
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        return 2**30
    return 1


def unit_name(resource: str) -> str:
    return {1000: "CPU", 2**30: "GiB"}.get(unit(resource), resource)


def load(paths) -> tuple[Prices | None, list[InputError]]:
    """The price table of the project configs `paths` (outermost first; a path alone is one config), None
    without one; the errors of a table that cannot be read, or of a second table below the first."""
    if paths is None:
        return None, []
    found, errors = None, []
    for path in [paths] if isinstance(paths, str) else paths:
        try:
            table = _load(path)
        except InputError as error:
            errors.append(error)
            continue
        if table is None:
            continue
        if found is not None:
            file, line, column = table.where.rsplit(":", 2)
            errors.append(
                InputError(
                    Origin(file),
                    (KEY,),
                    f"prices are set by the platform's config at {found.where}; a config below it cannot change them",
                    mark=(int(line), int(column)),
                )
            )
            continue
        found = table
    return (None if errors else found), errors


class _Node:
    """A value of the config with its place: a mapping ([(key, _Node)]), a number (Decimal), or anything else
    as read, for the message."""

    def __init__(self, kind: str, value, mark: tuple[int, int], text: str = ""):
        self.kind, self.value, self.mark, self.text = kind, value, mark, text
        self.key = mark  # where the table's key is written (the table's `where`)


def _load(path: str) -> Prices | None:
    from . import projectconfig as config

    origin = Origin(os.path.relpath(path))
    if os.path.basename(path) == config.FILE:
        node = _yaml_table(path)
    else:
        node = _toml_table(path, origin)
    if node is None:
        return None
    return _table(origin, node)


def _yaml_table(path: str) -> _Node | None:
    from . import blockyaml, source

    text = source.read(path)
    with blockyaml.remembering():  # read once: placing the table's values does not read it again
        documents = blockyaml.documents(text)
        if documents is None:
            return _composed_table(text)
        root = documents[0] if documents else None
        if not isinstance(root, dict) or KEY not in root:
            return None
        try:
            node = _from_lines(text, text.split("\n"), (KEY,), root[KEY], 0)
            node.key = _place(text, (KEY,), key=True)
        except _Unplaced:  # a place blockyaml leaves to libyaml (an empty value)
            return _composed_table(text)
    return node


class _Unplaced(Exception):
    """A value `blockyaml.locate` leaves to libyaml's nodes: the table is read from them."""


_TOKEN = re.compile(r"[^\s,\]}#]+")  # a number's or a boolean's text, in a block or a flow collection


def _place(text: str, path: tuple, key: bool = False) -> tuple[int, int]:
    from . import blockyaml

    found = blockyaml.locate(text, 0, path, key=key, exact=True)
    if found is None or found is blockyaml.UNSURE:
        raise _Unplaced
    return found[0] + 1, found[1] + 1


def _from_lines(text: str, lines: list, path: tuple, value, depth: int) -> _Node:
    """`_from_yaml` on text `blockyaml` reads: the same nodes, from its values and their places; a number's or
    boolean's text as written (the scalar's text from its place)."""
    mark = _place(text, path)
    if isinstance(value, dict):
        if depth > 3:
            return _Node("other", "a nested mapping", mark)
        return _Node(
            "mapping",
            [
                (key, _from_lines(text, lines, (*path, key), item, depth + 1), _place(text, (*path, key), key=True))
                for key, item in value.items()
            ],
            mark,
        )
    if isinstance(value, list):
        return _Node("other", "a list", mark)
    if isinstance(value, str):  # quoted, or plain that go-yaml reads as a string
        return _Node("string", value, mark)
    written = _TOKEN.match(lines[mark[0] - 1], mark[1] - 1)
    if written is None:
        raise _Unplaced
    return _plain(written[0], mark)


def _plain(written: str, mark: tuple[int, int]) -> _Node:
    """A plain scalar that is no string: a price when its text is one (as written, exactly), else what it is."""
    from . import goyaml

    if _NUMBER.fullmatch(written):
        return _Node("number", Decimal(written), mark, written)
    tag, _ = goyaml.resolve(written)
    return _Node("number" if tag in (goyaml.INT, goyaml.FLOAT) else "other", None, mark, written)


def _composed_table(text: str) -> _Node | None:
    """The table from libyaml's composed nodes, for text `blockyaml` does not read or place."""
    import yaml

    from . import yamltext

    try:
        documents = yamltext.composed(text)
    except yaml.YAMLError:  # the config's reader says why (projectconfig.load runs first)
        return None
    root = documents[0] if documents else None
    if not isinstance(root, yaml.MappingNode):
        return None
    for key, value in root.value:
        if yamltext.key_of(key) == KEY:
            node = _from_yaml(value, 0)
            node.key = (key.start_mark.line + 1, key.start_mark.column + 1)
            return node
    return None


def _from_yaml(node, depth: int) -> _Node:
    import yaml

    from . import goyaml, yamltext

    mark = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        if depth > 3:
            return _Node("other", "a nested mapping", mark)
        return _Node(
            "mapping",
            [
                (
                    yamltext.key_of(key),
                    _from_yaml(value, depth + 1),
                    (key.start_mark.line + 1, key.start_mark.column + 1),
                )
                for key, value in node.value
            ],
            mark,
        )
    if isinstance(node, yaml.ScalarNode):
        if node.tag == goyaml.STR or node.style:  # quoted or a block scalar: text, whatever it spells
            return _Node("string", node.value, mark)
        return _plain(node.value, mark)
    return _Node("other", "a list", mark)


def _toml_table(path: str, origin: Origin) -> _Node | None:
    import tomllib

    from . import projectconfig as config

    try:
        with open(path, "rb") as handle:
            data = tomllib.loads(handle.read().decode("utf-8"), parse_float=Decimal)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):  # the config's reader says why
        return None
    raw = (data.get("tool") or {}).get("trainc") if isinstance(data.get("tool"), dict) else None
    if not isinstance(raw, dict) or KEY not in raw:
        return None
    mark = config._toml_locator(path)((KEY,))  # tomllib keeps no positions: the key's line, or the table's

    def node(value, depth: int) -> _Node:
        if isinstance(value, dict):
            if depth > 3:
                return _Node("other", "a nested table", mark)
            return _Node("mapping", [(key, node(item, depth + 1), mark) for key, item in value.items()], mark)
        if isinstance(value, bool):
            return _Node("other", None, mark, str(value).lower())
        if isinstance(value, (int, Decimal)):
            text = str(value)
            return (
                _Node("number", Decimal(value), mark, text)
                if _NUMBER.fullmatch(text)
                else _Node("number", None, mark, text)
            )
        if isinstance(value, str):
            return _Node("string", value, mark)
        return _Node("other", "a list" if isinstance(value, list) else type(value).__name__, mark)

    return node(raw[KEY], 0)


def _table(origin: Origin, node: _Node) -> Prices:
    def bad(path, at: _Node | tuple, message: str, key: bool = False) -> InputError:
        mark = at if isinstance(at, tuple) else at.mark
        return InputError(origin, (KEY, *path), message, key=key, mark=mark)

    if node.kind != "mapping":
        raise bad((), node, "must be a mapping with currency, flavors and default")
    fields = {}
    for key, value, mark in node.value:
        if key not in ("currency", "flavors", "default"):
            raise bad((key,), mark, "unknown field (known: currency, flavors, default)", key=True)
        fields[key] = value
    currency = fields.get("currency")
    if currency is None:
        raise bad((), node, "must name its currency (currency: USD)")
    if currency.kind != "string" or not _CURRENCY.fullmatch(currency.value):
        raise bad(("currency",), currency, "must be an ISO 4217 code of three capital letters (USD, EUR)")
    count = [0]
    flavors = {}
    if "flavors" in fields:
        found = fields["flavors"]
        if found.kind != "mapping":
            raise bad(("flavors",), found, "must map ResourceFlavor names to {resource: price}")
        for name, table, mark in found.value:
            if not isinstance(name, str) or not name or len(name) > _NAME_LENGTH:
                raise bad(("flavors", str(name)), mark, "must be a ResourceFlavor's name", key=True)
            flavors[name] = _resources(("flavors", name), table, bad, count)
    default = _resources(("default",), fields["default"], bad, count) if "default" in fields else {}
    line, column = node.key
    return Prices(currency.value, flavors, default, f"{origin.file}:{line}:{column}")


def _resources(path: tuple, node: _Node, bad, count: list) -> dict:
    if node.kind != "mapping":
        raise bad(path, node, "must map resources to prices per hour ({nvidia.com/gpu: 2.50, cpu: 0.03})")
    out = {}
    for resource, value, mark in node.value:
        if not isinstance(resource, str) or not resource or len(resource) > _NAME_LENGTH:
            raise bad((*path, str(resource)), mark, "must be a resource name (cpu, memory, nvidia.com/gpu)", key=True)
        count[0] += 1
        if count[0] > MAX_ENTRIES:
            raise bad((*path, resource), value, f"the table holds more than {MAX_ENTRIES} prices")
        out[resource] = _price((*path, resource), value, bad)
    return out


def _price(path: tuple, node: _Node, bad) -> Decimal:
    if len(node.text) > 40:  # a message quotes no 5,000 digits
        node.text = node.text[:40] + "…"
    if node.kind == "number" and node.value is not None:
        price = node.value
        if price > MAX_PRICE:
            raise bad(path, node, f"{node.text} is more than {MAX_PRICE} per unit and hour")
        if -price.as_tuple().exponent > MAX_FRACTION:
            raise bad(path, node, f"{node.text} has more than {MAX_FRACTION} decimals")
        return price
    if node.kind == "number":
        if node.text.startswith("-"):
            raise bad(path, node, f"{node.text}: a price cannot be negative")
        raise bad(path, node, f"{node.text}: write a price as plain digits with an optional fraction (2.50)")
    if node.kind == "string":
        raise bad(path, node, "must be a number (2.50), not a string")
    shown = node.text or node.value
    raise bad(path, node, f"must be a number (2.50), not {shown}")
