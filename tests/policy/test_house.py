"""House rules alone (policy/house.py): read from the project config, matched by kind, namespace and labels,
refusing with their message or the CEL error."""

from __future__ import annotations

from helpers import run
from trainc.errors import Origin
from trainc.policy import house

CONFIG = """\
policies:
  - name: gpu-cap
    match: {kinds: [jobset.x-k8s.io/JobSet], namespaces: [team-a], labels: {tier: batch}}
    rule: "object.spec.replicas <= 2"
    message: at most 2 replicas
  - name: any-configmap
    match: {kinds: [ConfigMap]}
    rule: "object.data.size() > 0"
"""


def _rules(tmp_path, text: str = CONFIG):
    (tmp_path / ".trainc.yaml").write_text(text)
    return house.load(str(tmp_path / ".trainc.yaml"))


def _refusals(rules, obj: dict, namespace: str = "team-a") -> list[str]:
    errors: list = []
    house.check(rules, obj, namespace, "JobSet team-a/demo", Origin("a.yaml"), (), errors)
    return [error.message for error in errors]


def _jobset(replicas: int, tier: str = "batch", api_version: str = "jobset.x-k8s.io/v1alpha2") -> dict:
    return {
        "apiVersion": api_version,
        "kind": "JobSet",
        "metadata": {"name": "demo", "labels": {"tier": tier}},
        "spec": {"replicas": replicas},
    }


def test_a_matching_object_that_breaks_the_rule_is_refused_with_its_message(tmp_path):
    rules, errors = _rules(tmp_path)
    assert errors == [] and [rule.name for rule in rules] == ["gpu-cap", "any-configmap"]
    assert _refusals(rules, _jobset(3)) == ["JobSet team-a/demo: house rule 'gpu-cap' denied: at most 2 replicas"]
    assert _refusals(rules, _jobset(2)) == []


def test_kind_group_namespace_and_labels_narrow_the_match(tmp_path):
    rules, _ = _rules(tmp_path)
    assert _refusals(rules, _jobset(3), namespace="team-b") == []
    assert _refusals(rules, _jobset(3, tier="online")) == []
    assert _refusals(rules, _jobset(3, api_version="example.com/v1")) == []  # another group's JobSet
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}}
    assert _refusals(rules, config_map, namespace="") == [
        "JobSet team-a/demo: house rule 'any-configmap' denied: failed rule: object.data.size() > 0"
    ]


def test_a_rule_that_fails_at_run_time_refuses_with_the_error(tmp_path):
    rules, _ = _rules(tmp_path)
    [message] = _refusals(rules, {**_jobset(1), "spec": {}})
    assert message.startswith(
        "JobSet team-a/demo: house rule 'gpu-cap' denied: expression 'object.spec.replicas <= 2' resulted in error: "
    )


def test_a_long_rule_that_fails_is_shown_cut(tmp_path):
    """A repository's expression may be megabytes: the message shows its first 256 characters, as any value."""
    expression = "object.spec.replicas <= 2 && [" + ", ".join(map(str, range(5000))) + "].size() > 0"
    rules, _ = _rules(
        tmp_path, f"policies:\n  - name: long\n    match: {{kinds: [JobSet]}}\n    rule: '{expression}'\n"
    )
    [message] = _refusals(rules, {**_jobset(1), "spec": {}})
    assert (
        message
        == f"JobSet team-a/demo: house rule 'long' denied: expression '{expression[:256]}…' resulted in error: "
        + message.rpartition("resulted in error: ")[2]
    )
    assert len(message) < 400


def test_bad_rules_are_errors_at_their_place(tmp_path):
    rules, errors = _rules(
        tmp_path,
        "policies:\n  - name: x\n    match: {kinds: []}\n    rule: 'true'\n"
        "  - {name: pod-rule, match: {kinds: [Pod]}, rule: '1 +'}\n",
    )
    assert rules == []
    assert [(error.path, error.message) for error in errors] == [
        (("policies", 0, "match", "kinds"), "must be a non-empty list of Kind or group/Kind"),
        (("policies", 1, "rule"), errors[1].message),
    ]
    assert errors[1].message.startswith("compilation failed: ")


def test_no_config_no_rules():
    assert house.load(None) == ([], [])


def test_objects_kubectl_would_not_send_are_reported_not_admitted(tmp_path):
    """An object without a string apiVersion or kind, or without a metadata mapping, never reaches the admission
    chain: with a house rule configured, build reports each at its place (it crashed the run before)."""
    (tmp_path / ".trainc.yaml").write_text(CONFIG)
    (tmp_path / "a.yaml").write_text(
        "apiVersion: {a: 1}\nkind: ConfigMap\nmetadata: {name: x}\n---\n"
        "apiVersion: v1\nkind: [ConfigMap]\nmetadata: {name: y}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: [1]\n"
    )
    result = run("build", "a.yaml", cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.splitlines() == [
        "a.yaml:1:13: apiVersion: required for kubectl apply: a non-empty string",
        "a.yaml:6:7: kind: required for kubectl apply: a non-empty string",
        "a.yaml:11:11: metadata: required for kubectl apply: a mapping with the object's name",
    ]
