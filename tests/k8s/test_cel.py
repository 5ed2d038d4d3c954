"""trainc.k8s.cel: a rule gets only the fields of `self` it reads, and decides as it would on the whole value."""

import pytest

from trainc.k8s import cel

OBJECT = {
    "metadata": {"name": "job-1", "namespace": "team-a", "labels": {"a": "b"}, "foo-bar": "x"},
    "spec": {"x": 1, "y": [1, 2], "z": {"w": "v"}},
}

RULES = [
    ("self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')", {"metadata": {"name": None}}),
    ("size(self.metadata.name) <= 63", {"metadata": {"name": None}}),
    ("self.spec.x == 1 && has(self.spec.z.w)", {"spec": {"x": None, "z": {"w": None}}}),
    ("self.spec.z.w == 'v' && self.spec == self.spec", {"spec": None}),  # a prefix read whole wins
    ("self.spec == self.spec && self.spec.z.w == 'v'", {"spec": None}),
    ("self.metadata.labels.all(k, k == 'a')", {"metadata": {"labels": None}}),  # a method: read whole
    ("self.metadata.foo__dash__bar == 'x'", {"metadata": None}),  # an escaped name: its parent whole
    ("has(self.spec.missing) || self.spec.y.size() == 2", {"spec": {"missing": None, "y": None}}),
    ("self['spec'].x == 1", None),  # not a field chain: all of self
    ("self.?spec.orValue({}).x == 1", None),
    ("[self][0].spec.x == 1", None),
    ("self.spec.x == 2", {"spec": {"x": None}}),  # refused
    ("self.metadata.name == 'other'", {"metadata": {"name": None}}),
]


@pytest.mark.parametrize(("rule", "tree"), RULES)
def test_a_rule_reads_the_fields_its_field_chains_name(rule, tree):
    assert cel._read_tree(rule) == tree


@pytest.mark.parametrize(("rule", "tree"), RULES)
def test_a_rule_decides_on_the_fields_it_reads_as_on_the_whole_value(rule, tree):
    narrowed = cel._narrowed(OBJECT, tree)
    assert cel._evaluated({"rule": rule}, narrowed, None) == cel._evaluated({"rule": rule}, OBJECT, None)
    assert cel.check({"rule": rule}, OBJECT) == cel._evaluated({"rule": rule}, OBJECT, None)
    if tree is not None:
        assert narrowed != OBJECT  # the narrowing took something away: the test compares two different values


def test_the_message_expression_reads_self_too():
    rule = {"rule": "self.spec.x == 2", "messageExpression": "'name ' + self.metadata.name"}
    assert cel.check(rule, OBJECT) == (("spec", "x"), "name job-1")


REFUSING = [
    {"rule": "self.metadata.name.matches('^[a-z]+$')", "message": "lower-case letters only"},
    {"rule": "size(self.metadata.name) <= 5 // the API server's comment syntax", "message": "too long"},
    {"rule": "self.spec.missing == 1"},  # no such key: an error, reported as the API server words it
    {"rule": "self.spec.x"},  # not a bool
    {"rule": "self.spec.x == oldSelf.spec.x"},  # a transition rule: not run on create
]


@pytest.mark.parametrize("chosen", [(0, 1), (0, 2), (1, 3), (0, 1, 2, 3, 4), (4,), (2, 4), (3, 0)])
def test_a_nodes_rules_refuse_together_what_each_refuses_alone(chosen):
    rules = [REFUSING[index] for index in chosen]
    alone = [found for rule in rules if not cel.is_transition(rule) if (found := cel.check(rule, OBJECT)) is not None]
    assert cel.refusals(rules, OBJECT) == alone
    allowed = {**OBJECT, "metadata": {"name": "abc"}, "spec": {"x": True, "missing": 1}}
    assert cel.refusals(rules, allowed) == []  # all allow: decided by the rules evaluated as one


def test_rules_that_all_allow_are_evaluated_once(monkeypatch):
    evaluated = []
    monkeypatch.setattr(cel, "_evaluated", lambda rule, value, old: evaluated.append(rule["rule"]))
    assert cel.refusals(REFUSING[:2], {**OBJECT, "metadata": {"name": "fresh"}}) == []
    assert evaluated == [cel._together((REFUSING[0]["rule"], REFUSING[1]["rule"]))["rule"]]


NAMES = [
    "a",
    "job-1",
    "x" * 63,
    "x" * 64,
    "",
    "1job",
    "-job",
    "job-",
    "Job",
    "jöb",
    "job\n",
    "job_1",
    "a-b-c9",
    "a\u212a",
]


@pytest.mark.parametrize("text", sorted(cel.PASSING))
@pytest.mark.parametrize("name", [*NAMES, 7, None])
def test_a_passing_predicate_passes_only_what_cel_passes(text, name):
    """Each predicate says of a value what CEL says (a str name), and never passes one CEL refuses or fails on (a
    name that is no string, or no name at all); rules it does not pass are evaluated by CEL as before."""
    rule = {"rule": text}
    for value in ({"metadata": {"name": name}}, {"metadata": {}}, {"spec": {}}, {"metadata": name}):
        verdict = cel._evaluated(rule, cel._narrowed(value, cel._read_tree(text)), None)
        if cel.PASSING[text](value):
            assert verdict is None, value
        elif isinstance(name, str) and value == {"metadata": {"name": name}}:
            assert verdict is not None, value  # a string name: the predicate is CEL's verdict, not just sound
        assert cel.refusals([rule], value) == ([] if verdict is None else [verdict])


def test_rules_with_passing_predicates_are_not_evaluated_when_they_pass(monkeypatch):
    evaluated = []
    monkeypatch.setattr(cel, "_evaluated", lambda rule, value, old: evaluated.append(rule["rule"]))
    rules = [{"rule": text} for text in cel.PASSING]
    assert cel.refusals(rules, {"metadata": {"name": "fresh-name"}}) == [] and evaluated == []
