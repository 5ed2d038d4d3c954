"""CEL as the Kubernetes API server evaluates it: Google's CEL runtime (cel-expr-python, the C++ cel-cpp)
with the Kubernetes extension libraries rules use (k8s.io/apiserver/pkg/cel/library: lists, regex,
quantity, url; cel-go's sets; strings and optional types from cel's own extensions, as the API server's
base environment has them).

Imported only when a rule is evaluated. Expressions are compiled once per text and variable set.
Errors carry cel-go's wording (`no such key: x`, `division by zero`), which is what the API server
prints; Kubernetes' Quantity and URL values are maps with one marker key, so `==` compares them.

Bounds (docs/reference/limits.md): every evaluation is charged a cost as cel-go charges it where trainc can
see it (each library call by the sizes it reads, each result by its size) and stops past the API server's
per-call limit; regular expressions are RE2's (linear time); a Python-implemented function sees only the
kinds it declares, and an expression that could hand it an optional value inside a list or map is evaluated
in a child process, since cel-expr-python cannot convert one (it crashes).
"""

from __future__ import annotations

import itertools
import os
import re
from functools import cache, lru_cache

from cel_expr_python import cel

from ..errors import SHOWN
from . import celcache
from . import quantity as _quantity


class CompileError(ValueError):
    """An expression that does not compile; the text is cel's (`ERROR: <input>:1:10: ...`)."""


class EvalError(ValueError):
    """A runtime error (a missing key, a division by zero), worded as cel-go words it."""


PER_CALL_LIMIT = 1_000_000  # k8s.io/apiserver/pkg/apis/cel/config.go PerCallLimit
COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"  # cel-go interpreter's wording
_STRING_TRAVERSAL = 0.1  # cel-go checker/cost.go common.StringTraversalCostFactor
_INT64, _UINT64 = (-(2**63), 2**63 - 1), (0, 2**64 - 1)


class _Meter:
    """The cost charged so far in the current evaluation (cel-go's ActualCost); raises past the limit."""

    spent = 0.0

    @classmethod
    def charge(cls, amount: float) -> None:
        cls.spent += amount
        if cls.spent > PER_CALL_LIMIT:
            raise ValueError(COST_EXCEEDED)


def _size(value, budget: int = PER_CALL_LIMIT * 10) -> float:
    """cel-go's size of a value for cost: characters x 0.1 for text, one per element of a list or map,
    walked no further than `budget` units."""
    if isinstance(value, (str, bytes, bytearray)):
        return len(value) * _STRING_TRAVERSAL
    if not isinstance(value, (list, dict)):
        return 1
    total, stack = 0.0, [value]
    pop, extend = stack.pop, stack.extend
    while stack and total <= budget:
        item = pop()
        kind = type(item)  # the plain types first, by identity: the walk of a large result is most of its charge
        if kind is str:
            total += len(item) * _STRING_TRAVERSAL
        elif kind is dict:
            total += len(item)
            extend(item.values())
        elif kind is list:
            total += len(item)
            extend(item)
        elif isinstance(item, (str, bytes, bytearray)):
            total += len(item) * _STRING_TRAVERSAL
        elif isinstance(item, dict):
            total += len(item)
            extend(item.values())
        elif isinstance(item, list):
            total += len(item)
            extend(item)
        else:
            total += 1
    return total


_QUANTITY, _URL = "@kubernetes.Quantity", "@kubernetes.URL"
_LIST = cel.Type.List(cel.Type.DYN)
_MAP = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
_DYN, _STRING, _BOOL, _INT = cel.Type.DYN, cel.Type.STRING, cel.Type.BOOL, cel.Type.INT


@lru_cache(maxsize=256)
def _go_regex(pattern: str):
    """An RE2 pattern, as Go's regexp (RE2 syntax, linear time) compiles it."""
    import re2  # only for the functions trainc implements (cel-cpp's own `matches` has its RE2 built in)

    options = re2.Options()
    options.max_mem = 8 << 20  # RE2's default program memory; a pattern needing more is a parse error
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        text = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"error parsing regexp: {text}") from None


# --- lists (library/lists.go)


@cache
def _ordered() -> dict:
    """Each type CEL orders, by what it compares with (datetime imported only when a list function runs)."""
    import datetime

    return {
        int: "number",
        float: "number",
        str: str,
        bytes: bytes,
        bytearray: bytes,
        bool: bool,
        datetime.datetime: datetime.datetime,
        datetime.timedelta: datetime.timedelta,
    }


def _comparable(items: list, returned: bool = True) -> list:
    """`items` when CEL orders them against each other (lists.go's comparable element types; ints and doubles
    compare), else no such overload. A timestamp or duration cannot come back from Python (cel-expr-python
    converts them one way only): a clear error when one would be `returned`, not a wrong value."""
    import datetime

    kinds = {_ordered().get(type(item)) for item in items}
    if len(kinds) > 1 or None in kinds:
        raise TypeError("no such overload")
    if returned and kinds & {datetime.datetime, datetime.timedelta}:
        raise ValueError("trainc cannot return a timestamp or duration from a list function (min, max, sum)")
    return items


def _is_sorted(items: list) -> bool:
    _comparable(items, returned=False)
    return all(a <= b for a, b in itertools.pairwise(items))


def _sum(items: list):
    """lists.go sum: int, uint or double elements; an int64 or uint64 overflow is cel-go's error (a uint
    is told from an int only past int64: cel-expr-python hands both over as int)."""
    if not items:
        return 0
    if len({type(item) for item in _comparable(items)}) > 1 or isinstance(items[0], (bool, str, bytes, bytearray)):
        raise TypeError("no such overload")
    total = sum(items[1:], items[0])
    if isinstance(total, int):
        unsigned = any(item > _INT64[1] for item in items)
        low, high = _UINT64 if unsigned else _INT64
        if not low <= total <= high:
            raise ValueError("unsigned integer overflow" if unsigned else "integer overflow")
    return total


def _min(items: list):
    if not items:
        raise ValueError("min called on empty list")
    return min(_comparable(items))


def _max(items: list):
    if not items:
        raise ValueError("max called on empty list")
    return max(_comparable(items))


def _equal(left, right) -> bool:
    """CEL's heterogeneous equality: numbers compare by value (1 == 1.0), a bool equals only a bool."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return left == right


def _index_of(items: list, value) -> int:
    return next((index for index, item in enumerate(items) if _equal(item, value)), -1)


def _last_index_of(items: list, value) -> int:
    return next((index for index in range(len(items) - 1, -1, -1) if _equal(items[index], value)), -1)


def _contains(items: list, value) -> bool:
    return any(_equal(item, value) for item in items)


# --- regex (library/regex.go)


def _find(text: str, pattern: str) -> str:
    _Meter.charge((len(text) + len(pattern)) * _STRING_TRAVERSAL)
    found = _go_regex(pattern).search(text)
    return found.group(0) if found else ""


def _find_all(text: str, pattern: str, limit: int = -1) -> list:
    _Meter.charge((len(text) + len(pattern)) * _STRING_TRAVERSAL)
    if limit == 0:
        return []
    found = []
    for match in _go_regex(pattern).finditer(text):
        found.append(match.group(0))
        if len(found) == limit:
            break
    return found


# --- quantity (library/quantity.go)


def _to_quantity(text: str) -> dict:
    _Meter.charge(len(text) * _STRING_TRAVERSAL)
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
    """The Quantity of a quantity value, or of an int (quantity.go's add/sub/compare take both)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _quantity.Quantity(value)
    if not (isinstance(value, dict) and isinstance(value.get(_QUANTITY), str) and len(value) == 1):
        raise TypeError("no such overload")
    return _quantity.parse(value[_QUANTITY])


def _arithmetic(left, right, sign: int) -> dict:
    try:
        return {_QUANTITY: str(_quantity.bounded_sum(_q(left), _q(right) * sign))}
    except OverflowError as exc:
        raise ValueError(str(exc)) from None


def _as_integer(value) -> int:
    quantity = _q(value)
    if not (quantity.is_integer() and quantity.fits_int64()):
        raise ValueError("cannot convert value to integer")
    return quantity.ceil()


def _compare(left, right) -> int:
    return _quantity.compare(_q(left), _q(right))


# --- url (library/urls.go)


def _parse_url(text: str):
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if not (parts.scheme and parts.netloc) and not text.startswith("/"):
        raise ValueError(f"URL parse error during conversion from string: parse {text!r}: invalid URI for request")
    return parts


def _to_url(text: str) -> dict:
    _Meter.charge(len(text) * _STRING_TRAVERSAL)
    _parse_url(text)
    return {_URL: text}


def _is_url(text: str) -> bool:
    try:
        _parse_url(text)
    except ValueError:
        return False
    return True


def _u(value):
    if not (isinstance(value, dict) and isinstance(value.get(_URL), str) and len(value) == 1):
        raise TypeError("no such overload")
    return _parse_url(value[_URL])


def _query(value) -> dict:
    from urllib.parse import parse_qs

    return parse_qs(_u(value).query, keep_blank_values=True)


def _hostname(value) -> str:
    host = _u(value).netloc.rpartition("@")[2]
    if host.startswith("[") and "]" in host:
        return host[1 : host.index("]")]
    return host.partition(":")[0]


def _port(value) -> str:
    host = _u(value).netloc.rpartition("@")[2]
    tail = host[host.index("]") + 1 :] if host.startswith("[") and "]" in host else host
    return tail.partition(":")[2]


def _guarded(impl):
    """The one boundary where CEL values enter Python: every call is charged (one, plus the sizes of the
    lists and maps it reads), and any Python error leaves as a CEL error with cel-go's wording, never as
    an exception of another kind through cel-cpp."""

    def call(*arguments):
        _Meter.charge(1 + sum(len(a) for a in arguments if isinstance(a, (list, dict))))
        try:
            return impl(*arguments)
        except ValueError:
            raise
        except (TypeError, AttributeError, IndexError, KeyError):
            raise ValueError("no such overload") from None
        except (ArithmeticError, RecursionError) as exc:
            raise ValueError(str(exc) or type(exc).__name__) from None

    return call


def _member(name, receiver, impl, result=_DYN, *arguments):
    return cel.FunctionDecl(
        name,
        [
            cel.Overload(
                f"k8s_{name}_{len(arguments)}", result, [receiver, *arguments], is_member=True, impl=_guarded(impl)
            )
        ],
    )


def _global(name, impl, result, *arguments):
    return cel.FunctionDecl(name, [cel.Overload(f"k8s_{name}", result, list(arguments), impl=_guarded(impl))])


def _kubernetes():
    """Kubernetes' libraries, added after cel's strings extension so `indexOf` gains list overloads. Quantity
    and URL receivers are declared maps (what they are here), so cel-cpp dispatches nothing else to them."""
    _OBJECT = _MAP
    functions = [
        _member("isSorted", _LIST, _is_sorted, _BOOL),
        _member("sum", _LIST, _sum),
        _member("min", _LIST, _min),
        _member("max", _LIST, _max),
        _member("indexOf", _LIST, _index_of, _INT, _DYN),
        _member("lastIndexOf", _LIST, _last_index_of, _INT, _DYN),
        _member("find", _STRING, _find, _STRING, _STRING),
        cel.FunctionDecl(
            "findAll",
            [
                cel.Overload("k8s_findAll", _LIST, [_STRING, _STRING], is_member=True, impl=_guarded(_find_all)),
                cel.Overload(
                    "k8s_findAll_n", _LIST, [_STRING, _STRING, _INT], is_member=True, impl=_guarded(_find_all)
                ),
            ],
        ),
        _global("quantity", _to_quantity, _DYN, _STRING),
        _global("isQuantity", _is_quantity, _BOOL, _STRING),
        _member("sign", _OBJECT, lambda q: _q(q).sign(), _INT),
        _member("isInteger", _OBJECT, lambda q: _q(q).is_integer(), _BOOL),
        _member("asInteger", _OBJECT, _as_integer, _INT),
        _member("asApproximateFloat", _OBJECT, lambda q: _q(q).approximate_float(), cel.Type.DOUBLE),
        _member("add", _OBJECT, lambda q, other: _arithmetic(q, other, 1), _DYN, _DYN),
        _member("sub", _OBJECT, lambda q, other: _arithmetic(q, other, -1), _DYN, _DYN),
        _member("isLessThan", _OBJECT, lambda q, other: _compare(q, other) < 0, _BOOL, _DYN),
        _member("isGreaterThan", _OBJECT, lambda q, other: _compare(q, other) > 0, _BOOL, _DYN),
        _member("compareTo", _OBJECT, _compare, _INT, _DYN),
        _global("sets.contains", lambda a, b: all(_contains(a, item) for item in b), _BOOL, _LIST, _LIST),
        _global(
            "sets.equivalent",
            lambda a, b: all(_contains(a, item) for item in b) and all(_contains(b, item) for item in a),
            _BOOL,
            _LIST,
            _LIST,
        ),
        _global("sets.intersects", lambda a, b: any(_contains(a, item) for item in b), _BOOL, _LIST, _LIST),
        _global("url", _to_url, _DYN, _STRING),
        _global("isURL", _is_url, _BOOL, _STRING),
        _member("getScheme", _OBJECT, lambda u: _u(u).scheme, _STRING),
        _member("getHost", _OBJECT, lambda u: _u(u).netloc.rpartition("@")[2], _STRING),
        _member("getHostname", _OBJECT, _hostname, _STRING),
        _member("getPort", _OBJECT, _port, _STRING),
        _member("getEscapedPath", _OBJECT, lambda u: _u(u).path, _STRING),
        _member("getQuery", _OBJECT, _query, _DYN),
    ]
    return cel.CelExtension("kubernetes", functions)


@cache
def _standard(names: tuple[str, ...]):
    """CEL's standard library alone, made without loading cel-cpp's extensions or declaring Kubernetes'
    libraries: what most rules (a CRD's) use. A program it compiles means the same in `_env`, whose libraries
    only add functions of other names (`indexOf`, `quantity`, `sets.contains`, ...) and the optional syntax."""
    return cel.NewEnv(variables={name: _DYN for name in names})


@cache
def _env(names: tuple[str, ...]):
    from cel_expr_python.ext import ext_optional, ext_strings

    extensions = [ext_strings.ExtStrings(), ext_optional.ExtOptional(), _kubernetes()]
    if "authorizer" in names:  # admission policies' authorizer library (celauthz), only where it is declared
        from . import celauthz

        extensions.append(celauthz.library())
    return cel.NewEnv(variables={name: _DYN for name in names}, extensions=extensions)


@lru_cache(maxsize=4096)
def compile(expression: str, names: tuple[str, ...]):
    """The program of `expression` over the variables `names` (all dynamically typed, as the API server
    types schemaless objects); raises CompileError. A program compiled before is read back from the
    compile cache (`celcache`)."""
    program = celcache.read(expression, names, _ENVS)
    if program is None:
        try:
            kind, program = "standard", _standard(names).compile(expression)
        except RuntimeError:  # a library function or the optional syntax: the API server's whole environment
            try:
                kind, program = "full", _env(names).compile(expression)
            except RuntimeError as exc:
                raise CompileError(_strip_status(str(exc))) from None
        celcache.write(expression, names, kind, program)
    return _Isolated(program) if _OPTIONAL.search(expression) and re.search(_PYTHON_CALL, expression) else program


_ENVS = {"standard": _standard, "full": _env}  # the environments a program is compiled in, by name


def checked_ast(expression: str, names: tuple[str, ...]) -> bytes:
    """cel-cpp's checked AST of `expression` (a serialized cel.expr.CheckedExpr), for `celcost` to estimate;
    raises CompileError."""
    program = compile(expression, names)
    return (program.program if isinstance(program, _Isolated) else program).serialize()


# Optional values exist only where an expression makes them (data and variables hold none); one made and
# handed to a Python-implemented function inside a list or map crashes cel-expr-python's conversion. The
# functions taking only strings and ints (find, findAll, quantity, url, ...) are safe: cel-cpp checks kinds.
_OPTIONAL = re.compile(r"optional|[.\[{,(]\s*\?")
_PYTHON_CALL = (  # compiled on first use, as every pattern of a rare path here
    r"\b(isSorted|sum|min|max|indexOf|lastIndexOf|sign|isInteger|asInteger|"
    r"asApproximateFloat|add|sub|isLessThan|isGreaterThan|compareTo|contains|equivalent|"
    r"intersects|get[A-Z][A-Za-z]*)\s*\("
)


class _Isolated:
    """A program evaluated in a child process: a crash there is the CEL error `no such overload` (what
    cel-go answers for an optional given to these functions), never this process's end."""

    def __init__(self, program):
        self.program = program

    def eval(self, data):
        import pickle  # only for a call that could crash the process

        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: evaluate, send the outcome, leave at once, never back into the caller's code
            try:  # (should sending fail, the parent gone, say, the parent reads nothing: a crash)
                import faulthandler

                faulthandler.disable()  # a crash here is the expected outcome, reported by the parent
                os.close(read)
                try:
                    outcome = (
                        "ok",
                        _plain(self.program.eval(bind(data) if isinstance(data, dict) else data), self.program),
                    )
                except EvalError as exc:
                    outcome = ("error", str(exc))
                except BaseException as exc:  # noqa: BLE001 - whatever it is, the parent reports it as an error
                    outcome = ("error", _runtime_wording(exc))
                with os.fdopen(write, "wb") as stream:
                    stream.write(pickle.dumps((outcome, _Meter.spent)))
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as stream:
            found = stream.read()
        os.waitpid(pid, 0)
        if not found:  # the child crashed
            raise EvalError("no such overload")
        (kind, value), _Meter.spent = pickle.loads(found)
        if kind == "error":
            raise EvalError(value)
        return value


def bind(data: dict):
    """`data` converted to CEL values once, for several programs to read (converting a large object is
    most of an evaluation's cost)."""
    return _standard(()).Activation(data)


def evaluate(program, data):
    """The plain Python value of `program` over `data` (a dict, or what `bind` made of one); raises EvalError.
    The evaluation is charged as the API server charges it (`cost()` after it) and stops past its per-call
    limit."""
    _Meter.spent = 0.0
    if isinstance(program, _Isolated):
        return program.eval(data)
    try:
        result = program.eval(bind(data) if isinstance(data, dict) else data)
    except (RuntimeError, MemoryError) as exc:
        raise EvalError(_runtime_wording(exc)) from None
    return _plain(result, program)


def failure(expression: str, error: EvalError) -> str:
    """The API server's words for an expression that failed (`expression '...' resulted in error: ...`), the
    expression cut to its first SHOWN characters: a repository's may be megabytes long."""
    shown = expression if len(expression) <= SHOWN else expression[:SHOWN] + "…"
    return f"expression '{shown}' resulted in error: {error}"


def cost() -> float:
    """The cost charged to the last evaluation."""
    return _Meter.spent


def _plain(result, program):
    try:
        value = result.plain_value()
        answer = value is True or value is False  # most rules', never an error's (whose plain value is its text)
        if not answer and result.type() == cel.Type.ERROR:
            raise EvalError(_go_wording(str(result.value())))
    except (TypeError, SystemError, RuntimeError):  # an optional or a type: cel-expr-python has no value for it
        raise EvalError(
            f"a value of type {program.return_type().name()} cannot be used here, only plain "
            "values (bool, int, uint, double, string, bytes, null, lists and maps of them)"
        ) from None
    try:
        _Meter.charge(1 if answer else _size(value))
    except ValueError as exc:
        raise EvalError(str(exc)) from None
    return value


def _runtime_wording(exc: BaseException) -> str:
    """What cel-cpp's runtime failures are in cel-go's terms: past the iteration budget or out of memory is
    past the cost limit; a value cel-expr-python cannot carry is no overload."""
    text = str(exc)
    if isinstance(exc, MemoryError) or "Iteration budget exceeded" in text or COST_EXCEEDED in text:
        return COST_EXCEEDED
    if "Non-CEL value type" in text and ("datetime" in text or "timedelta" in text):
        return "trainc cannot return a timestamp or duration from a list function (min, max, sum)"
    if "returned a result with an exception set" in text:  # a value cel-expr-python could not convert
        return "no such overload"
    if "out of range" in text:
        return "integer overflow"
    return _go_wording(text)


def _strip_status(text: str) -> str:
    """cel-cpp's `CODE: message [CODE]` as the message alone."""
    text = re.sub(r"\s*\[[A-Z_]+\]\s*$", "", text)
    return re.sub(r"^[A-Z_]+: ", "", text, count=1)


_WORDING = (
    (r'Key not found in map : "?(.*?)"?$', r"no such key: \1"),
    (r"Index error: index=(-?\d+) size=\d+", r"index out of bounds: \1"),
    (r"divide by zero", "division by zero"),
    (
        r"No matching overloads found.*|Applying SELECT to non-message type|no such overload|"
        r"returned a result with an exception set",
        "no such overload",
    ),
)


def _go_wording(text: str) -> str:
    text = _strip_status(text)
    for pattern, replacement in _WORDING:
        if re.search(pattern, text):
            return re.sub(pattern, replacement, text) if "\\1" in replacement else replacement
    return text
