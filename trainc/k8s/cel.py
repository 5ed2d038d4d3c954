"""The CRDs' `x-kubernetes-validations`, evaluated as the API server evaluates them (apiextensions'
validation/cel): any rule the schemas ship is run by the CEL engine (`celengine.py`), so a rule upstream
adds later is checked without a change here.

A failed rule reports its `messageExpression`'s value, else its `message`, else `failed rule: RULE`; a rule
that does not compile, or fails at run time (a missing key), reports the API server's wording. Transition
rules (those reading `oldSelf`) are evaluated only on updates (`--previous`), where both values exist.
The engine is imported on the first rule evaluated.
"""

from __future__ import annotations

import marshal
import re
from functools import cache

from .names import DNS1035_LABEL

_OLD_SELF = re.compile(r"\boldSelf\b")
_SELF_FIELD = r"\bself((?:\.[A-Za-z_][A-Za-z0-9_]*(?![A-Za-z0-9_(]))*)"  # fields, not methods


def is_transition(rule: dict) -> bool:
    return bool(_OLD_SELF.search(rule["rule"]))


def check(rule: dict, value, old=None) -> tuple[tuple, str] | None:
    """(path below the rule's place, message) when `rule` refuses `value` (`old`: the stored value, for a
    transition rule); None when it allows it."""
    if old is not None:
        return _evaluated(rule, value, old)
    value = _narrowed(value, _read_tree(rule["rule"], rule.get("messageExpression")))  # the message reads self too
    try:
        key = (id(rule), marshal.dumps(value))
    except ValueError:  # not JSON data: nothing to key it by
        return _evaluated(rule, value, old)
    if len(key[1]) > _MAX_KEPT_BYTES:
        return _evaluated(rule, value, old)
    kept = _verdicts.get(key)
    if kept is not None and kept[0] is rule:
        return kept[1]
    verdict = _evaluated(rule, value, old)
    if len(_verdicts) >= _MAX_VERDICTS:
        _verdicts.clear()
    _verdicts[key] = (rule, verdict)
    return verdict


def refusals(rules: list, value) -> list[tuple[tuple, str]]:
    """What a schema node's rules refuse of `value` on create (transition rules are for updates), in rule
    order: (path below the node, message) each. Several rules are first evaluated as one, `(r1) && (r2)`,
    which is true only when every one of them is (an error or a non-bool is not): one conversion of `value`
    and one evaluation for all in the common case; else each is evaluated alone, for its own verdict. Rules
    that all have a `PASSING` predicate pass without CEL when every predicate says so."""
    kept = _on_create.get(id(rules))
    if kept is None or kept[0] is not rules:
        created = [rule for rule in rules if not is_transition(rule)]
        together = _together(tuple(rule["rule"] for rule in created)) if len(created) > 1 else None
        predicates = [PASSING.get(rule["rule"]) for rule in created]
        passing = tuple(predicates) if created and None not in predicates else None
        kept = _on_create[id(rules)] = (rules, created, together, passing)
    _, created, together, passing = kept
    if passing is not None and all(passes(value) for passes in passing):
        return []
    if together is not None and check(together, value) is None:
        return []
    return [found for rule in created if (found := check(rule, value)) is not None]


# id(rules) -> (rules, those evaluated on create, them as one rule, their PASSING predicates): once per schema node
_on_create: dict = {}


def _name(value) -> str | None:
    """`self.metadata.name` of a value, when it is a string."""
    metadata = value.get("metadata") if isinstance(value, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def _dns_label(name: str | None) -> bool:
    # the whole name, as RE2's `^...$` takes it (its `$` is the end of the text, never before a last newline)
    return name is not None and DNS1035_LABEL.fullmatch(name) is not None


# The rules every TrainJob runs (its CRD's, on its name), with a predicate true only of values the rule passes:
# cel-cpp compiles a `matches()` pattern anew at each evaluation, 20 of the 30 us of these rules. A predicate only
# ever says "passes"; a value it does not pass is CEL's to evaluate, for the verdict and its words.
# tests/k8s/test_cel.py holds each to CEL's verdicts.
PASSING = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": lambda value: _dns_label(_name(value)),
    "size(self.metadata.name) <= 63": lambda value: (name := _name(value)) is not None and len(name) <= 63,
}


@cache
def _together(texts: tuple[str, ...]) -> dict:
    """One rule true when all of `texts` are (each on lines of its own: a rule may end in a `//` comment)."""
    return {"rule": " && ".join(f"(\n{text}\n)" for text in texts)}


# A rule's verdict on the same value (as marshal writes it: types and order kept) is the same: most TrainJobs of
# a run give the rules the same small values (their kind, their runtime's fields), each evaluated once
_verdicts: dict = {}  # (id(rule), marshalled value) -> (rule, verdict)
_MAX_VERDICTS, _MAX_KEPT_BYTES = 512, 512


def _evaluated(rule: dict, value, old) -> tuple[tuple, str] | None:
    from . import celengine

    data = {"self": value} if old is None else {"self": value, "oldSelf": old}
    text = rule["rule"]
    try:
        result = celengine.evaluate(celengine.compile(text, tuple(data)), data)
    except celengine.CompileError as exc:
        return (), f"rule compile error: {exc}"
    except celengine.EvalError as exc:
        if str(exc) == "no such overload":
            return (), (
                "'no such overload': call arguments did not match a supported operator, function or macro "
                f"signature for rule: {_rule_text(rule)}"
            )
        return (), f"{exc} evaluating rule: {_rule_text(rule)}"
    if result is True:
        return None
    if result is not False:
        return (), f"rule did not evaluate to a bool: {_rule_text(rule)}"
    return _field(rule), _message(rule, data)


@cache
def _read_tree(text: str, message: str | None = None) -> dict | None:
    """What of `self` a rule reads, when it reads `self` only through chains of fields (`self.metadata.name`),
    as a tree: {"metadata": {"name": None}}, None where it reads the whole value below (None for all of
    `self`). A rule then gets only those fields, the same to it and far cheaper to convert to CEL values
    than the object. A field written escaped (`foo__dash__bar`) is read whole, as is anything the chain
    is not plainly a field chain for (`self[...]`, `self.?x`, a method call, `self` alone). The rule's
    `message` expression reads `self` too. Cached by the rule's own strings, whose hashes Python keeps."""
    tree: dict = {}
    for match in re.finditer(_SELF_FIELD, f"{text}\n{message or ''}"):
        chain = match[1].split(".")[1:]
        if not chain or "__" in chain[0]:
            return None
        node = tree
        for depth, name in enumerate(chain):
            if depth and "__" in name:
                break
            if name in node and node[name] is None:
                break  # read whole already
            last = depth == len(chain) - 1 or "__" in chain[depth + 1]
            node[name] = None if last else node.get(name) or {}
            node = node[name]
    return tree or None


def _narrowed(value, tree: dict | None):
    """`value` with only what `tree` names (`_read_tree`)."""
    if tree is None or not isinstance(value, dict):
        return value
    return {key: _narrowed(value[key], below) for key, below in tree.items() if key in value}


def _rule_text(rule: dict) -> str:
    """The API server's ruleErrorString: the message, else the rule."""
    return (rule.get("message") or "").strip() or text_of(rule)


def text_of(rule: dict) -> str:
    return rule["rule"].strip()


def _message(rule: dict, data: dict) -> str:
    expression = rule.get("messageExpression")
    if expression:
        from . import celengine

        try:
            found = celengine.evaluate(celengine.compile(expression, tuple(data)), data)
        except (celengine.CompileError, celengine.EvalError):
            found = None
        if isinstance(found, str) and found.strip() and "\n" not in found:
            return found
    return rule.get("message") or f"failed rule: {text_of(rule)}"


def _field(rule: dict) -> tuple:
    """Where the failure is reported below the rule's place: its `fieldPath`, else the one field of `self`
    the rule reads, when it reads only one (a rule on a whole object about its name is about the name)."""
    if rule.get("fieldPath"):
        return tuple(part for part in rule["fieldPath"].split(".") if part)
    fields = {match[1] for match in re.finditer(_SELF_FIELD, rule["rule"])}
    if len(fields) == 1 and (only := fields.pop()).count(".") > 1:
        return tuple(only.split(".")[1:])
    return ()
