"""The estimated cost of the validation rules of a CRD among the inputs, refused as the API server refuses the
CRD when it is written (apiextensions validation.go: StaticEstimatedCostLimit per rule, scaled by how often
the rule's value occurs; StaticEstimatedCRDCostLimit for the schema), through `trainc build`. The estimates
are checked against the expected costs of apiextensions' own TestCostEstimation
(pkg/apiserver/schema/cel/compilation_test.go), and the real CRDs of Trainer, JobSet and Kueue, which the API
server takes, pass."""

from __future__ import annotations

import pytest
import yaml
from conftest import ORACLE, ROOT, need
from helpers import run, write

from trainc.k8s import celcost, celengine, celschema
from trainc.policy import crdrules

HINT = (
    "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
    "strings are declared)"
)


def crd(properties: str, rules: str = "", version_name: str = "v1") -> str:
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
    - name: {version_name}
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
{properties}
{rules}"""


UNIQUE = "              x-kubernetes-validations:\n                - rule: self.names.all(x, self.names.exists_one(y, x == y))\n"


def test_a_rule_over_budget_refuses_the_crd_with_the_api_servers_errors(tmp_path):
    write(tmp_path, "crd.yaml", crd("                names: {type: array, items: {type: string}}", UNIQUE))
    result = run("build", "crd.yaml", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "crd.yaml:22:25: spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule: "
        f"Forbidden: estimated rule cost exceeds budget by factor of more than 100x {HINT}",
        "crd.yaml:22:25: spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule: "
        "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
        "crd.yaml:15:11: spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule "
        f"cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x {HINT}",
    ]
    assert f"  {result.stderr.splitlines()[0]}\n" in (ROOT / "docs" / "guides" / "policies.md").read_text()


def test_maxitems_and_maxlength_bring_the_rule_within_budget(tmp_path):
    bounded = "                names: {type: array, maxItems: 10, items: {type: string, maxLength: 63}}"
    write(tmp_path, "crd.yaml", crd(bounded, UNIQUE))
    result = run("build", "crd.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "kind: CustomResourceDefinition" in result.stdout


def test_a_cheap_rule_under_an_unbounded_list_is_charged_once_per_item(tmp_path):
    # the rule costs 10 per item, but an unbounded list of objects holds up to 3 MiB / 3 of them
    items = (
        "                items:\n                  type: array\n                  items:\n"
        "                    type: object\n                    properties:\n"
        "                      size: {type: integer}\n                    x-kubernetes-validations:\n"
        "                      - rule: self.size > 1 && self.size < 100 && self.size != 7 && self.size != 8\n"
    )
    write(tmp_path, "crd.yaml", crd(items))
    result = run("build", "crd.yaml", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "properties.spec.properties.items.items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost "
        "exceeds budget by factor of 1.048576x"
    ) in result.stderr, result.stderr
    bounded = items.replace("type: array\n", "type: array\n                  maxItems: 100\n")
    write(tmp_path, "crd.yaml", crd(bounded))
    assert run("build", "crd.yaml", cwd=tmp_path).returncode == 0


def test_an_update_keeping_a_versions_schema_is_held_to_the_total_only(tmp_path):
    # per rule, a cost between the two limits: refused when written, kept when the version's schema is unchanged
    text = crd(
        "                names: {type: array, maxItems: 3000, items: {type: string, maxLength: 8}}",
        "              x-kubernetes-validations:\n"
        "                - rule: self.names.all(x, self.names.exists(y, x == y))\n",
    )
    write(tmp_path, "crd.yaml", text)
    created = run("build", "crd.yaml", cwd=tmp_path)
    assert "Forbidden: estimated rule cost exceeds budget by factor of" in created.stderr
    assert "total for entire OpenAPIv3 schema" not in created.stderr
    write(tmp_path, "old/crd.yaml", text)
    updated = run("build", "--previous", "old", "crd.yaml", cwd=tmp_path)
    assert updated.returncode == 0, updated.stderr
    write(tmp_path, "old/crd.yaml", text.replace("maxLength: 8", "maxLength: 9"))
    assert "estimated rule cost exceeds" in run("build", "--previous", "old", "crd.yaml", cwd=tmp_path).stderr


def test_a_rule_trainc_cannot_compile_is_left_to_the_api_server(tmp_path):
    write(
        tmp_path,
        "crd.yaml",
        crd(
            "                addr: {type: string}",
            "              x-kubernetes-validations:\n                - rule: isIP(self.addr)\n",
        ),
    )
    assert run("build", "crd.yaml", cwd=tmp_path).returncode == 0


def test_the_crds_the_api_server_takes_pass():
    crds = ORACLE.parent / "crds"
    need(crds.is_dir(), f"the oracle's CRDs {crds} are not beside this checkout")
    documents = [
        doc
        for path in sorted(crds.glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if crdrules.is_crd_with_rules(doc)
    ]
    assert len(documents) >= 10  # Trainer's, JobSet's, Kueue's: 151 rules
    assert [error.render() for doc in documents for error in crdrules.check(None, doc)] == []


def _array(items: dict, most=None) -> dict:
    return {"type": "array", "items": items, **({"maxItems": most} if most is not None else {})}


def _map(values: dict, most=None) -> dict:
    return {"type": "object", "additionalProperties": values, **({"maxProperties": most} if most is not None else {})}


def _string(most=None, **more) -> dict:
    return {"type": "string", **({"maxLength": most} if most is not None else {}), **more}


NUMBER, STRING, DATE_TIME = {"type": "number"}, {"type": "string"}, {"type": "string", "format": "date-time"}
INT_OR_STRING = {"x-kubernetes-int-or-string": True}
# (schema with the size limit n, or unbounded for None; rule; its cost unbounded; n; its cost bounded), from
# apiextensions' TestCostEstimation
COSTS = [
    (lambda n: _array(NUMBER, n), "self.all(x, true)", 4718591, 10, 32),
    (lambda n: _array(STRING, n), "self.all(x, true)", 3145727, 20, 62),
    (
        lambda n: _array(
            {"type": "object", "properties": {"required": STRING, "optional": STRING}, "required": ["required"]}, n
        ),
        "self.all(x, true)",
        555128,
        50,
        152,
    ),
    (lambda n: _map(NUMBER, n), "self.all(x, true)", 1348169, 10, 32),
    (lambda n: _map(STRING, n), "self.all(x, true)", 1179647, 3, 11),
    (lambda n: _string(n), "self.contains('test')", 314574, 10, 5),
    (lambda n: _string(n), 'size(self + "hello") > size("hello")', 314578, 4, 7),
    (lambda n: _array(STRING, n), "self[1] == self[1]", 314577, 8, 314577),
    (lambda n: _array(NUMBER, n), "self.all(x, self.all(y, true))", 7421701914624, 10, 352),
    (lambda n: _string(n), 'self.matches("x")', 314574, 50, 22),
    (lambda n: _string(n), 'self == "x"', 2, 0, 1),
    (lambda n: _array(NUMBER, n), "self.all(x, x == 0.0)", 6291454, 3 * 1024 * 2048, 25165826),
    (lambda n: _array(INT_OR_STRING, n), "self[0] == 5", 3, 10, 3),
    (lambda n: _array(DATE_TIME, n), "self.all(x, true)", 428963, 25, 77),
    (lambda n: _string(n), "self.find('[0-9]+') == ''", 629147, 10, 11),
    (lambda n: _array(_string(n), n), "self.join(' ') == 'aa bb'", 329853068905, 10, 43),
    (lambda n: _array(_string(n), n), "self.isSorted() == true", 329854432052, 10, 52),
    (
        lambda n: {"type": "object", "properties": {"str": _string(n), "before": _string(2), "after": _string(4)}},
        "self.str.replace(self.before, self.after) == 'does not matter'",
        629154,
        4,
        12,
    ),
    (
        lambda n: {"type": "object", "properties": {"str": _string(n), "separator": _string(n)}},
        "self.str.split(self.separator) == []",
        629160,
        10,
        22,
    ),
    (lambda n: _string(n), "self.lowerAscii() == 'lower!'", 314575, 10, 6),
    (lambda n: _map({"type": "integer"}, n), "oldSelf.size() == self.size()", 5, 10, 5),
    (lambda n: _map(DATE_TIME, n), 'self["a"] == self["b"]', 8, 7, 8),
    (lambda n: _string(n, enum=["A", "B", "C", "LongValue"]), "self.contains('A')", 2, 1000, 401),
    (lambda n: {**INT_OR_STRING, **({"maxLength": n} if n is not None else {})}, "isQuantity(self)", 314574, 20, 9),
]


@pytest.mark.parametrize("schema, rule, unbounded, limit, bounded", COSTS, ids=[case[1] for case in COSTS])
def test_estimates_are_the_api_servers(schema, rule, unbounded, limit, bounded):
    def cost(given):
        return celcost.rule_cost(celengine.checked_ast(rule, ("self", "oldSelf")), celschema.decl(given))

    assert (cost(schema(None)), cost(schema(limit))) == (unbounded, bounded)
