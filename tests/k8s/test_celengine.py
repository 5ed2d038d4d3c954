"""The CEL engine (trainc/celengine.py) and the CRDs' `x-kubernetes-validations` evaluated with it
(trainc/cel.py): every shipped rule, transition rules under --previous, the API server's wording of CEL
errors, and the Kubernetes extension libraries (k8s.io/apiserver/pkg/cel/library's tests give the cases)."""

from __future__ import annotations

import copy

import pytest

from trainc.k8s import cel, celast, celengine, openapi
from trainc.trainer import api
from trainc.validation import immutable


def run(expression: str, **data):
    return celengine.evaluate(celengine.compile(expression, tuple(data)), data)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # lists (library/lists_test.go)
        ("[1, 2, 3].isSorted()", True),
        ("['b', 'a'].isSorted()", False),
        ("[1, 2, 3].sum()", 6),
        ("[1.5, 2.0].sum()", 3.5),
        ("[].sum()", 0),
        ("[3, 1, 2].min()", 1),
        ("[3, 1, 2].max()", 3),
        ("[1, 2, 1].indexOf(1)", 0),
        ("[1, 2, 1].lastIndexOf(1)", 2),
        ("[1].indexOf(5)", -1),
        ("'abcb'.indexOf('b')", 1),  # cel's strings extension keeps its own overload
        # regex (library/regex_test.go)
        ("'abc 123'.find('[0-9]+')", "123"),
        ("'abc'.find('[0-9]+')", ""),
        ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]),
        ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
        ("'name\\n'.matches('^[a-z]+$')", False),  # RE2: `$` is the end of the text
        # quantity (library/quantity_test.go)
        ("quantity('50M').isGreaterThan(quantity('50Mi'))", False),
        ("quantity('1Gi').isGreaterThan(quantity('1G'))", True),
        ("quantity('50m').isInteger()", False),
        ("quantity('50').asInteger()", 50),
        ("quantity('5k').asApproximateFloat()", 5000.0),
        ("quantity('-1').sign()", -1),
        ("quantity('50k').add(quantity('20k')) == quantity('70k')", True),
        ("quantity('50k').sub(20000) == quantity('30k')", True),
        ("quantity('200M').compareTo(quantity('0.2G'))", 0),
        ("isQuantity('1x')", False),
        ("isQuantity('20Gi')", True),
        # url (library/urls_test.go)
        ("url('https://user:pass@example.com:80/path?query=val#fragment').getHost()", "example.com:80"),
        ("url('https://[::1]:80/path').getHostname()", "::1"),
        ("url('https://example.com:8080/').getPort()", "8080"),
        ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
        ("url('https://example.com').getScheme()", "https"),
        ("url('https://example.com/path?k=a&k=b&x=1').getQuery()", {"k": ["a", "b"], "x": ["1"]}),
        ("isURL('https://example.com')", True),
        ("isURL('not a url')", False),
        # sets (cel-go's ext.Sets, in the API server's base environment)
        ("sets.contains([1, 2, 3], [3, 1])", True),
        ("sets.contains([1], [2])", False),
        ("sets.equivalent([1, 2, 1], [2, 1])", True),
        ("sets.intersects(['a'], ['b', 'a'])", True),
        # strings and format (cel's strings extension, as the API server enables it)
        ("'TacoCat'.lowerAscii()", "tacocat"),
        ("'a,b'.split(',')", ["a", "b"]),
        ("['a', 'b'].join('-')", "a-b"),
        ("'%s has %d GPUs'.format(['node', 8])", "node has 8 GPUs"),
        ("'  x '.trim()", "x"),
        # has() and the macros
        ("has(self.a) && !has(self.b)", True),
        ("self.l.all(x, x > 0) && self.l.exists_one(x, x == 2)", True),
        ("self.l.map(x, x * 2).filter(x, x > 2)", [4, 6]),
    ],
)
def test_kubernetes_libraries(expression, expected):
    assert run(expression, self={"a": 1, "l": [1, 2, 3]}) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("self.missing == 1", "no such key: missing"),
        ("self.l[7] == 1", "index out of bounds: 7"),
        ("1 / (size(self.l) - 3) == 1", "division by zero"),
        ("[].min() == 1", "min called on empty list"),
        ("quantity('1.5').asInteger() == 1", "cannot convert value to integer"),
    ],
)
def test_runtime_errors_use_cel_go_wording(expression, message):
    with pytest.raises(celengine.EvalError, match=f"^{message}$"):
        run(expression, self={"l": [1, 2, 3]})


def test_compile_errors_name_the_place():
    with pytest.raises(celengine.CompileError, match=r"^ERROR: <input>:1:6: Syntax error"):
        celengine.compile("self.", ("self",))
    with pytest.raises(celengine.CompileError, match="undeclared reference to 'object"):
        celengine.compile("object.spec == 1", ("self",))


def _shipped_rules(node, place=()):
    if isinstance(node, dict):
        for rule in node.get("x-kubernetes-validations", ()):
            yield place, rule
        for key, value in node.items():
            yield from _shipped_rules(value, (*place, key))
    elif isinstance(node, list):
        for value in node:
            yield from _shipped_rules(value, place)


# Every rule the shipped CRD schemas hold, with a value it allows and one it refuses (a transition rule:
# (new, old) pairs). A rule added to the schemas and not listed here fails the completeness test below.
ALLOWED_REFUSED = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": (
        {"metadata": {"name": "a-1"}},
        {"metadata": {"name": "1a"}},
    ),
    "size(self.metadata.name) <= 63": ({"metadata": {"name": "a" * 63}}, {"metadata": {"name": "a" * 64}}),
    "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')": ("hf://x", "x"),
    "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']": (
        "kueue.x-k8s.io/multikueue",
        "me",
    ),
    "self >= 1": (1, 0),
    "has(self.lastUpdatedTime)": ({"lastUpdatedTime": "t"}, {}),
    "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1": (
        {"torch": {}},
        {"torch": {}, "mpi": {}},
    ),
    "!self.exists(c, c == 'node')": (["a"], ["a", "node"]),
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
    "self.replicatedJobs.exists(x, has(x.dependsOn)))": (
        {"startupPolicy": {"startupPolicyOrder": "AnyOrder"}, "replicatedJobs": [{"dependsOn": []}]},
        {"startupPolicy": {"startupPolicyOrder": "InOrder"}, "replicatedJobs": [{"dependsOn": []}]},
    ),
    "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)": (
        {"templates": [{"metadata": {"namespace": ""}}]},
        {"templates": [{"metadata": {"namespace": "x"}}]},
    ),
    "self == oldSelf": ((5, 5), (5, 6)),
}


def test_every_shipped_rule_is_evaluated_by_the_engine():
    import pathlib

    from trainc.shipped import data_dir

    seen = set()
    for path in pathlib.Path(data_dir("schemas")).glob("*.json"):
        for _, rule in _shipped_rules(openapi.load(path.stem)):
            seen.add(rule["rule"])
            allowed, refused = ALLOWED_REFUSED[rule["rule"]]
            if cel.is_transition(rule):
                assert cel.check(rule, *allowed) is None
                assert cel.check(rule, *refused)[1] == rule["message"]
            else:
                assert cel.check(rule, allowed) is None
                assert cel.check(rule, refused)[1] == rule["message"]
    assert seen == set(ALLOWED_REFUSED)


def _trainjob(**spec):
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "j"},
        "spec": {"runtimeRef": {"name": "r"}, **spec},
    }


def _with_rule(rule: dict) -> dict:
    crd = copy.deepcopy(api.document_schema("trainjob.v1alpha1"))
    crd["properties"]["spec"]["properties"]["trainer"]["x-kubernetes-validations"] = [rule]
    return crd


def test_a_rule_upstream_adds_is_checked_not_refused():
    rule = {"rule": "!has(self.numNodes) || self.numNodes <= 64", "message": "at most 64 nodes"}
    _, found = openapi.validate(_trainjob(trainer={"numNodes": 65}), _with_rule(rule))
    assert found == [openapi.Violation(("spec", "trainer"), "at most 64 nodes")]
    _, found = openapi.validate(_trainjob(trainer={"numNodes": 64}), _with_rule(rule))
    assert found == []


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"rule": "self.numNodes <= 64"}, "failed rule: self.numNodes <= 64"),
        (
            {"rule": "self.numNodes <= 64", "messageExpression": "'numNodes is ' + string(self.numNodes)"},
            "numNodes is 65",
        ),
        ({"rule": "self.image.startsWith('x')", "message": "image"}, "no such key: image evaluating rule: image"),
        ({"rule": "self.image.startsWith('x')"}, "no such key: image evaluating rule: self.image.startsWith('x')"),
        ({"rule": "self.numNodes <="}, "rule compile error: ERROR: <input>:1:17: Syntax error"),
        (
            {"rule": "self.numNodes.size() == 1"},
            "'no such overload': call arguments did not match a supported operator, "
            "function or macro signature for rule: self.numNodes.size() == 1",
        ),
    ],
)
def test_failed_rules_and_cel_errors_as_the_api_server_words_them(rule, message):
    _, found = openapi.validate(_trainjob(trainer={"numNodes": 65}), _with_rule(rule))
    assert len(found) == 1 and found[0][0] == ("spec", "trainer") and found[0][1].startswith(message)


def test_field_path_places_the_failure():
    rule = {"rule": "self.numNodes <= 64", "message": "too many", "fieldPath": ".numNodes"}
    _, found = openapi.validate(_trainjob(trainer={"numNodes": 65}), _with_rule(rule))
    assert found == [openapi.Violation(("spec", "trainer", "numNodes"), "too many")]


def test_transition_rules_only_with_the_old_value():
    rule = {"rule": "self.numNodes >= oldSelf.numNodes", "message": "numNodes may only grow"}
    crd = _with_rule(rule)
    _, found = openapi.validate(_trainjob(trainer={"numNodes": 1}), crd)
    assert found == []  # a create: transition rules are not evaluated
    new, old = _trainjob(trainer={"numNodes": 1}), _trainjob(trainer={"numNodes": 2})
    errors = immutable.check(None, new, old, crd)
    assert [(e.path, e.message) for e in errors] == [(("spec", "trainer"), "numNodes may only grow")]
    assert immutable.check(None, old, new, crd) == []


def test_a_message_expression_reads_fields_the_rule_does_not():
    rule = {"rule": "self.numNodes <= 64", "messageExpression": "'image ' + self.image + ' on too many nodes'"}
    _, found = openapi.validate(_trainjob(trainer={"numNodes": 65, "image": "img"}), _with_rule(rule))
    assert [message for _, message, _ in found] == ["image img on too many nodes"]


STANDARD = [
    "size(self.name) <= 63 && self.name.matches('^[a-z]+$')",
    "self.items.exists(i, i > 2) && !self.items.all(i, i > 2)",
    "self.items.filter(i, i % 2 == 0).map(i, i * 10) == [20]",
    "has(self.spec) ? self.spec.x : 'none'",
    "self.name.startsWith('ab') && self.name.contains('c') && int(self.count) + 1 == 4",
    "self.name in ['abc', 'd'] && string(self.count) == '3' && double(self.count) / 2.0 == 1.5",
]
LIBRARY = [
    ("self.name.indexOf('c')", 2),  # cel's strings extension
    ("self.items.indexOf(3)", 2),  # Kubernetes' list library
    ("quantity('1Gi').isGreaterThan(quantity('1M'))", True),
    ("sets.contains(self.items, [1, 2])", True),
    ("self.?missing.orValue('x')", "x"),  # the optional syntax
]
DATA = {"self": {"name": "abc", "items": [1, 2, 3], "count": 3}}


@pytest.mark.parametrize("expression", STANDARD)
def test_a_standard_program_means_what_it_means_in_the_whole_environment(expression):
    """The standard library compiles most rules without cel-cpp's extensions and Kubernetes' libraries loaded;
    the program gives what the API server's whole environment gives."""
    program = celengine.compile(expression, ("self",))
    whole = celengine._env(("self",)).compile(expression)
    assert celengine.evaluate(program, DATA) == celengine.evaluate(whole, DATA)
    standard, api_server = (celast.checked(each.serialize()) for each in (program, whole))
    assert standard.overloads  # an overload for every call, the same in both: the same checked program
    assert (standard.expr, standard.overloads, standard.types) == (
        api_server.expr,
        api_server.overloads,
        api_server.types,
    )


@pytest.mark.parametrize(("expression", "expected"), LIBRARY)
def test_a_library_function_compiles_in_the_whole_environment(expression, expected):
    assert celengine.evaluate(celengine.compile(expression, ("self",)), DATA) == expected


def test_a_standard_rule_loads_no_extension():
    import subprocess
    import sys

    program = (
        "import sys\nfrom trainc.k8s import celengine\n"
        "print(celengine.evaluate(celengine.compile('size(self) < 4', ('self',)), {'self': 'abc'}))\n"
        "print(sorted(name for name in sys.modules if name.startswith('cel_expr_python.ext')))\n"
        "print(celengine.evaluate(celengine.compile(\"self.indexOf('c')\", ('self',)), {'self': 'abc'}))\n"
        "print(sorted(name for name in sys.modules if name.startswith('cel_expr_python.ext')))\n"
    )
    lines = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout.split(
        "\n"
    )
    assert lines[:4] == [
        "True",
        "[]",
        "2",
        "['cel_expr_python.ext', 'cel_expr_python.ext.ext_optional', 'cel_expr_python.ext.ext_strings']",
    ]
