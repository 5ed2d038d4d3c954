"""What a TrainJob costs (trainc/validation/cost.py) on tests/cost-case: two GPU flavors (h100 tainted), a job on
each and one Kueue does not manage; exact rationals, cents half up, the bound the cluster enforces; and the
cost cap as a house rule and as a ValidatingAdmissionPolicy (`cost`)."""

from __future__ import annotations

import shutil
from decimal import Decimal
from fractions import Fraction

import pytest
from conftest import ROOT

from helpers import run
from trainc import engine
from trainc.formats.prices import Prices
from trainc.validation import cost
from trainc.validation.requests import Usage

CASE = tuple(str(ROOT / "tests" / "cost-case" / name) for name in ("queues.yaml", "runtime.yaml", "trainjobs.yaml"))
CONFIG = str(ROOT / "tests" / "cost-case" / ".trainc.yaml")


def costs(**options) -> dict:
    result = engine.run(engine.Inputs(CASE), engine.Options(config=(CONFIG,), **options))
    assert result.errors == []
    return result.costs


def test_each_pod_set_is_priced_on_the_flavor_kueue_places_it_on():
    found = costs()
    # llm: 2 nodes on a100: 16 GPUs × 2.50 + 64 CPUs × 0.03 + 512 GiB × 0.004 = 43.968 an hour
    assert found[("team-a", "llm")] == cost.Cost(Fraction("43.968"), 2 * 7200)  # 2 h, restarted once at most
    # finetune on h100: its GPUs at h100's 4.00; h100 prices no CPU or memory, so the default does
    assert found[("team-a", "finetune")] == cost.Cost(Fraction("16.992"), None)
    # no Kueue, no flavor: the default's prices
    assert found[("team-b", "notebook-check")] == cost.Cost(Fraction("0.092"), 14400)
    assert found[("team-a", "llm")].bounded == Fraction("175.872")


def test_a_resource_priced_nowhere_is_named_and_costs_nothing():
    table = Prices("EUR", {"a100": {"nvidia.com/gpu": Decimal("2.5")}})
    found = costs(prices=table)
    assert found[("team-a", "llm")] == cost.Cost(Fraction(40), 14400, ("cpu", "memory"))
    assert found[("team-a", "finetune")].unpriced == ("cpu", "memory", "nvidia.com/gpu")


def test_rates_summed_in_integers_are_the_exact_rationals():
    # a price per GiB charged by the byte, a price per CPU by the millicore, an API user's float: the integers
    # summed over one common scale give the rationals pricing each would
    table = Prices("EUR", {"a100": {"memory": Decimal("0.0037"), "cpu": 0.1}}, {"nvidia.com/gpu": Decimal("2.125")})
    scale = cost.common_scale(table)
    usage = [
        Usage("workers", 2, {"memory": 3 * 2**30 + 7, "cpu": 1500, "pods": 2}, {"memory": "a100", "cpu": "a100"}),
        Usage("launcher", 1, {"nvidia.com/gpu": 3}, {}),
    ]
    expected = Fraction("0.0037") * (3 * 2**30 + 7) / 2**30 + Fraction(0.1) * 1500 / 1000 + Fraction("2.125") * 3
    assert cost.rate(usage, table, {}, scale) == (expected, ("pods",))


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (Fraction("0.005"), "0.01"),
        (Fraction("0.015"), "0.02"),
        (Fraction("2.675"), "2.68"),
        (Fraction("0.0049"), "0.00"),
        (Fraction(1, 3), "0.33"),
        (Fraction(2, 3), "0.67"),
        (Fraction("-0.005"), "-0.01"),
        (Fraction("-0.004"), "0.00"),
        (Fraction(10**40) + Fraction(1, 200), "10000000000000000000000000000000000000000.01"),  # exact at any size
    ],
)
def test_money_is_rounded_to_cents_half_up_exactly(amount, shown):
    assert cost.cents(amount) == shown


def test_signed_changes_and_unbounded_totals():
    assert cost.signed_money(Fraction("38.976"), "USD") == "+38.98 USD"
    assert cost.signed_money(Fraction("-0.5"), "USD") == "-0.50 USD"
    assert cost.signed_money(Fraction("0.001"), "USD") == "±0.00 USD"
    assert cost.money(None, "USD") == "unbounded"
    total = cost.Total().add(cost.Cost(Fraction(1), 3600)).add(cost.Cost(Fraction(2), None))
    assert (total.jobs, total.hourly, total.bounded) == (2, Fraction(3), None)
    assert cost.change(Fraction(1), None, "USD") == "unbounded"
    assert cost.change(None, Fraction(1), "USD") == "now bounded"


CAP = """\
policies:
  - name: cost-cap
    match: {kinds: [JobSet]}
    rule: "has(cost.bounded) && cost.bounded <= 500.0"
    message: a TrainJob must be bounded and cost at most 500 USD
"""


def _project(tmp_path, rules: str = CAP):
    folder = tmp_path / "project"
    shutil.copytree(ROOT / "tests" / "cost-case", folder, ignore=shutil.ignore_patterns("base"))
    (folder / ".git").mkdir()
    with open(folder / ".trainc.yaml", "a") as config:
        config.write(rules)
    return folder


def test_a_cost_cap_is_one_house_rule(tmp_path):
    folder = _project(tmp_path)
    result = run("validate", "queues.yaml", "runtime.yaml", "trainjobs.yaml", cwd=folder)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        "trainjobs.yaml:18:1: JobSet team-a/finetune: house rule 'cost-cap' "
        "denied: a TrainJob must be bounded and cost at most 500 USD"
    )
    denials = [line for line in result.stderr.splitlines() if not line.startswith("notice: ")]  # costs are notices
    assert not any("llm" in line or "notebook-check" in line for line in denials)  # 175.87 and 0.37: under the cap
    (folder / ".trainc.yaml").write_text((folder / ".trainc.yaml").read_text().replace("500.0", "150.0"))
    result = run("validate", "queues.yaml", "runtime.yaml", "trainjobs.yaml", cwd=folder)
    assert "trainjobs.yaml:2:1: JobSet team-a/llm: house rule 'cost-cap' denied" in result.stderr


POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: hourly-cap
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [jobset.x-k8s.io]
      apiVersions: ["*"]
      operations: [CREATE, UPDATE]
      resources: [jobsets]
  validations:
  - expression: "variables.cost.hourly < 20.0"
    messageExpression: "'costs ' + string(variables.cost.hourly) + ' ' + variables.cost.currency + ' an hour'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: hourly-cap
spec:
  policyName: hourly-cap
  validationActions: [Deny]
"""


def test_a_policy_reads_the_cost_as_a_variable(tmp_path):
    folder = _project(tmp_path, "")
    (folder / "policies.yaml").write_text(POLICY)
    result = run("validate", "queues.yaml", "runtime.yaml", "trainjobs.yaml", "--policies", "policies.yaml", cwd=folder)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        "trainjobs.yaml:2:1: JobSet team-a/llm: ValidatingAdmissionPolicy 'hourly-cap' with binding 'hourly-cap' "
        "denied request: costs 43.968 USD an hour"
    )
    assert not any(
        "finetune" in line for line in result.stderr.splitlines() if not line.startswith("notice: ")
    )  # 16.99 an hour: a notice says so, no denial


def test_every_route_that_reports_says_what_each_job_costs():
    """validate and build (so the Argo CD plugin) give each TrainJob's cost as a notice at the TrainJob, explain
    as a line of its own; summary shows it in its tables only, not again on stderr."""
    folder = ROOT / "tests" / "cost-case"
    names = ("queues.yaml", "runtime.yaml", "trainjobs.yaml")
    llm = (
        "notice: trainjobs.yaml:5:3: team-a/llm: 43.97 USD an hour, at most 175.87 USD (4h: the deadline the "
        "cluster enforces, restarts included)"
    )
    finetune = (
        "notice: trainjobs.yaml:21:3: team-a/finetune: 16.99 USD an hour, unbounded (no activeDeadlineSeconds "
        "stops every Job of its JobSet, or its failure policy restarts it without end)"
    )
    for verb in ("validate", "build"):
        result = run(verb, *names, cwd=folder)
        assert result.returncode == 0, result.stderr
        assert llm in result.stderr.splitlines() and finetune in result.stderr.splitlines()
    explained = run("explain", *names, cwd=folder)
    assert (
        "Cost team-a/llm: 43.97 USD an hour, at most 175.87 USD (4h: the deadline the cluster enforces, "
        "restarts included)"
    ) in explained.stdout.splitlines()
    summary = run("summary", *names, cwd=folder)
    assert summary.returncode == 0 and "USD an hour" not in summary.stderr
