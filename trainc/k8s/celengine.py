"""CEL as the Kubernetes API server evaluates it: Google's CEL runtime (cel-expr-python, the C++ cel-cpp)
with the Kubernetes extension libraries rules use (k8s.io/apiserver/pkg/cel/library: lists, regex,
quantity, url; cel-go's sets; strings and optional types from cel's own extensions, as the API server's
base environment has them).

Imported only when a rule is evaluated. Expressions are compiled once per text and variable set.
Errors carry cel-go's wording (`no such key: x`, `division by zero`), which is what the API server
prints; Kubernetes' Quantity and URL values are maps with one marker key, so `==` compares them.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from cel_expr_python import cel
from cel_expr_python.ext import ext_optional, ext_strings

from . import quantity as _quantity


class CompileError(ValueError):
    """An expression that does not compile; the text is cel's (`ERROR: <input>:1:10: ...`)."""


class EvalError(ValueError):
    """A runtime error (a missing key, a division by zero), worded as cel-go words it."""


_QUANTITY, _URL = "@kubernetes.Quantity", "@kubernetes.URL"
_LIST = cel.Type.List(cel.Type.DYN)
_DYN, _STRING, _BOOL, _INT = cel.Type.DYN, cel.Type.STRING, cel.Type.BOOL, cel.Type.INT


@cache
def _go_regex(pattern: str) -> re.Pattern:
    """An RE2 pattern in Python: `$` is the end of the text (no CEL rule upstream puts one in a class)."""
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


# --- lists (library/lists.go)

def _is_sorted(items: list) -> bool:
    return all(a <= b for a, b in zip(items, items[1:]))


def _sum(items: list):
    return sum(items[1:], items[0]) if items else 0


def _min(items: list):
    if not items:
        raise ValueError("min called on empty list")
    return min(items)


def _max(items: list):
    if not items:
        raise ValueError("max called on empty list")
    return max(items)


def _index_of(items: list, value) -> int:
    return next((index for index, item in enumerate(items) if item == value), -1)


def _last_index_of(items: list, value) -> int:
    return next((index for index in range(len(items) - 1, -1, -1) if items[index] == value), -1)


# --- regex (library/regex.go)

def _find(text: str, pattern: str) -> str:
    found = _go_regex(pattern).search(text)
    return found.group(0) if found else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list:
    found = [match.group(0) for match in _go_regex(pattern).finditer(text)]
    return found if limit < 0 else found[:limit]


# --- quantity (library/quantity.go)

def _to_quantity(text: str) -> dict:
    try:
        return {_QUANTITY: str(_quantity.parse(text))}
    except ValueError as exc:
        raise ValueError(f"quantities must match the regular expression: {exc}") from None


def _is_quantity(text: str) -> bool:
    try:
        _quantity.parse(text)
    except ValueError:
        return False
    return True


def _q(value) -> _quantity.Quantity:
    if not (isinstance(value, dict) and _QUANTITY in value):
        raise TypeError("no such overload")
    return _quantity.parse(value[_QUANTITY])


def _exact(value):
    return _q(value).exact() if isinstance(value, dict) else value


def _from_exact(value) -> dict:
    return {_QUANTITY: str(_quantity.parse(str(value) if value.denominator == 1 else f"{float(value)!r}"))}


def _as_integer(value) -> int:
    exact = _q(value).exact()
    if exact.denominator != 1 or not -(2**63) <= exact <= 2**63 - 1:
        raise ValueError("cannot convert value to integer")
    return int(exact)


def _compare(left, right) -> int:
    a, b = _exact(left), _exact(right)
    return (a > b) - (a < b)


# --- url (library/urls.go)

def _parse_url(text: str):
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if not (parts.scheme and parts.netloc) and not text.startswith("/"):
        raise ValueError(f"URL parse error during conversion from string: parse {text!r}: invalid URI for request")
    return parts


def _to_url(text: str) -> dict:
    _parse_url(text)
    return {_URL: text}


def _is_url(text: str) -> bool:
    try:
        _parse_url(text)
    except ValueError:
        return False
    return True


def _u(value):
    if not (isinstance(value, dict) and _URL in value):
        raise TypeError("no such overload")
    return _parse_url(value[_URL])


def _query(value) -> dict:
    from urllib.parse import parse_qs

    return parse_qs(_u(value).query, keep_blank_values=True)


def _hostname(value) -> str:
    host = _u(value).netloc.rpartition("@")[2]
    if host.startswith("["):
        return host[1:host.index("]")]
    return host.partition(":")[0]


def _port(value) -> str:
    host = _u(value).netloc.rpartition("@")[2]
    tail = host[host.index("]") + 1:] if host.startswith("[") else host
    return tail.partition(":")[2]


def _member(name, receiver, impl, result=_DYN, *arguments):
    return cel.FunctionDecl(name, [cel.Overload(f"k8s_{name}_{len(arguments)}", result, [receiver, *arguments],
                                                is_member=True, impl=impl)])


def _global(name, impl, result, *arguments):
    return cel.FunctionDecl(name, [cel.Overload(f"k8s_{name}", result, list(arguments), impl=impl)])


def _kubernetes():
    """Kubernetes' libraries, added after cel's strings extension so `indexOf` gains list overloads."""
    functions = [
        _member("isSorted", _LIST, _is_sorted, _BOOL),
        _member("sum", _LIST, _sum),
        _member("min", _LIST, _min),
        _member("max", _LIST, _max),
        _member("indexOf", _LIST, _index_of, _INT, _DYN),
        _member("lastIndexOf", _LIST, _last_index_of, _INT, _DYN),
        _member("find", _STRING, _find, _STRING, _STRING),
        cel.FunctionDecl("findAll", [
            cel.Overload("k8s_findAll", _LIST, [_STRING, _STRING], is_member=True, impl=_find_all),
            cel.Overload("k8s_findAll_n", _LIST, [_STRING, _STRING, _INT], is_member=True, impl=_find_all)]),
        _global("quantity", _to_quantity, _DYN, _STRING),
        _global("isQuantity", _is_quantity, _BOOL, _STRING),
        _member("sign", _DYN, lambda q: _compare(q, 0), _INT),
        _member("isInteger", _DYN, lambda q: _q(q).exact().denominator == 1, _BOOL),
        _member("asInteger", _DYN, _as_integer, _INT),
        _member("asApproximateFloat", _DYN, lambda q: float(_q(q).exact()), cel.Type.DOUBLE),
        _member("add", _DYN, lambda q, other: _from_exact(_exact(q) + _exact(other)), _DYN, _DYN),
        _member("sub", _DYN, lambda q, other: _from_exact(_exact(q) - _exact(other)), _DYN, _DYN),
        _member("isLessThan", _DYN, lambda q, other: _compare(q, other) < 0, _BOOL, _DYN),
        _member("isGreaterThan", _DYN, lambda q, other: _compare(q, other) > 0, _BOOL, _DYN),
        _member("compareTo", _DYN, _compare, _INT, _DYN),
        _global("sets.contains", lambda a, b: all(item in a for item in b), _BOOL, _LIST, _LIST),
        _global("sets.equivalent", lambda a, b: all(item in a for item in b) and all(item in b for item in a),
                _BOOL, _LIST, _LIST),
        _global("sets.intersects", lambda a, b: any(item in a for item in b), _BOOL, _LIST, _LIST),
        _global("url", _to_url, _DYN, _STRING),
        _global("isURL", _is_url, _BOOL, _STRING),
        _member("getScheme", _DYN, lambda u: _u(u).scheme, _STRING),
        _member("getHost", _DYN, lambda u: _u(u).netloc.rpartition("@")[2], _STRING),
        _member("getHostname", _DYN, _hostname, _STRING),
        _member("getPort", _DYN, _port, _STRING),
        _member("getEscapedPath", _DYN, lambda u: _u(u).path, _STRING),
        _member("getQuery", _DYN, _query, _DYN),
    ]
    return cel.CelExtension("kubernetes", functions)


@cache
def _env(names: tuple[str, ...]):
    extensions = [ext_strings.ExtStrings(), ext_optional.ExtOptional(), _kubernetes()]
    if "authorizer" in names:  # admission policies' authorizer library (celauthz), only where it is declared
        from . import celauthz

        extensions.append(celauthz.library())
    return cel.NewEnv(variables={name: _DYN for name in names}, extensions=extensions)


@lru_cache(maxsize=4096)
def compile(expression: str, names: tuple[str, ...]):
    """The program of `expression` over the variables `names` (all dynamically typed, as the API server
    types schemaless objects); raises CompileError."""
    try:
        return _env(names).compile(expression)
    except RuntimeError as exc:
        raise CompileError(_strip_status(str(exc))) from None


def bind(data: dict):
    """`data` converted to CEL values once, for several programs to read (converting a large object is
    most of an evaluation's cost)."""
    return _env(()).Activation(data)


def evaluate(program, data):
    """The plain Python value of `program` over `data` (a dict, or what `bind` made of one); raises EvalError."""
    result = program.eval(bind(data) if isinstance(data, dict) else data)
    if result.type() == cel.Type.ERROR:
        raise EvalError(_go_wording(str(result.value())))
    return result.plain_value()


def _strip_status(text: str) -> str:
    """cel-cpp's `CODE: message [CODE]` as the message alone."""
    text = re.sub(r"\s*\[[A-Z_]+\]\s*$", "", text)
    return re.sub(r"^[A-Z_]+: ", "", text, count=1)


_WORDING = (
    (re.compile(r'Key not found in map : "?(.*?)"?$'), r"no such key: \1"),
    (re.compile(r"Index error: index=(-?\d+) size=\d+"), r"index out of bounds: \1"),
    (re.compile(r"divide by zero"), "division by zero"),
    (re.compile(r"No matching overloads found.*|Applying SELECT to non-message type|no such overload"),
     "no such overload"),
)


def _go_wording(text: str) -> str:
    text = _strip_status(text)
    for pattern, replacement in _WORDING:
        if pattern.search(text):
            return pattern.sub(replacement, text) if "\\1" in replacement else replacement
    return text

