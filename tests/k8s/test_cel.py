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
    assert cel._read_tree(rule + "\n") == tree


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
