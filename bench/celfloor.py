"""The floor under the admission checks of bench.py's checked repository: cel-cpp alone evaluating its programs
(the ValidatingAdmissionPolicies' match conditions and validations, the house rules) on the objects a checked
build outputs, as many evaluations as `trainc build` makes of them, with none of trainc's matching, binding,
budgets or reporting: one conversion of each object's data into CEL values, then each program that takes it.

The programs are compiled with trainc's CEL environment (the Kubernetes library functions they call, `quantity`
among them); only the conversions and evaluations are timed. Every evaluation is checked first, untimed, to
allow (the benchmark's programs allow every object), so an error value, quicker to return, cannot pass for one.
Usage: python bench/celfloor.py REPOSITORY OBJECTS [REPEAT] (OBJECTS: the checked build's output objects,
marshalled by bench.py). Prints the best CPU seconds of REPEAT (default 5), the evaluations and the objects.
"""

from __future__ import annotations

import marshal
import sys
import time
from pathlib import Path

import yaml

from trainc.k8s import celengine
from trainc.policy.vap import NAMES


def _documents(path: Path) -> list[dict]:
    return [each for each in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader) if each]


def _group(obj: dict) -> str:
    return obj["apiVersion"].rpartition("/")[0]


def programs(repository: Path):
    """[(apiGroups, the namespaces' matchLabels or None, [program, ...])] of each policy, and the house rules'
    programs (bench/checks.py's: every policy's constraints are resourceRules and at most a namespace selector)."""
    found = []
    for policy in _documents(repository / "platform/policies/policies.yaml"):
        if policy["kind"] != "ValidatingAdmissionPolicy":
            continue
        spec = policy["spec"]
        constraints = spec.get("matchConstraints") or {}
        groups = {group for rule in constraints.get("resourceRules", ()) for group in rule["apiGroups"]}
        labels = (constraints.get("namespaceSelector") or {}).get("matchLabels")
        texts = [each["expression"] for each in (*spec.get("matchConditions", ()), *spec.get("validations", ()))]
        found.append((groups, labels, [celengine.compile(text, NAMES) for text in texts]))
    config = yaml.load((repository / ".trainc.yaml").read_text(), Loader=yaml.CSafeLoader)
    rules = [celengine.compile(rule["rule"], ("object", "cost")) for rule in config["policies"]]
    return found, rules


def work(repository: Path, objects: list[dict]) -> list[tuple[dict, list]]:
    """[(the data of an object, the programs that take it)], as an admission binds it: the object, its request,
    its Namespace, the params of its namespace's binding, trainc's `cost` variable."""
    policies, rules = programs(repository)
    given = _documents(repository / "platform/policies/params.yaml")
    labels = {
        each["metadata"]["name"]: each["metadata"].get("labels") or {} for each in given if each["kind"] == "Namespace"
    }
    params = {each["metadata"]["namespace"]: each for each in given if each["kind"] == "ConfigMap"}
    found = []
    for obj in objects:
        namespace, group = obj["metadata"].get("namespace", "default"), _group(obj)
        taking = [
            program
            for groups, selector, compiled in policies
            if ("*" in groups or group in groups)
            and (selector is None or all(labels.get(namespace, {}).get(k) == v for k, v in selector.items()))
            for program in compiled
        ]
        if group == "jobset.x-k8s.io":
            taking += rules
        data = {
            "object": obj,
            "oldObject": None,
            "params": params.get(namespace),
            "request": {"operation": "CREATE", "namespace": namespace, "name": obj["metadata"]["name"]},
            "namespaceObject": {"metadata": {"name": namespace, "labels": labels.get(namespace, {})}},
            "variables": {},
            "cost": {"hourly": 1.5},
        }
        found.append((data, taking))
    return found


def main() -> None:
    repository, objects = Path(sys.argv[1]), marshal.loads(Path(sys.argv[2]).read_bytes())
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    pairs = work(repository, objects)
    for data, taking in pairs:  # untimed: each evaluation allows
        bound = celengine.bind(data)
        for program in taking:
            if program.eval(bound).plain_value() is not True:
                sys.exit(f"a program did not allow {data['object']['kind']} {data['object']['metadata']['name']}")
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for data, taking in pairs:
            bound = celengine.bind(data)
            for program in taking:
                program.eval(bound)
        best = min(best, time.process_time() - start)
    print(best, sum(len(taking) for _, taking in pairs), len(pairs))


if __name__ == "__main__":
    main()
