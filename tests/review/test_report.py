"""What summary and diff add for a reviewer (trainc/review: costs, charts, report): the cost tables and delta and
the Mermaid charts, kept as snapshots of tests/cost-case against tests/cost-case/base
(tests/review/__snapshots__/test_report.ambr; `--snapshot-update` after an intended change), and a 100-job
pull request's Markdown within GitHub's 65,536 characters."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from conftest import ROOT

from helpers import run, write
from trainc.review import charts

CASE = ("tests/cost-case/queues.yaml", "tests/cost-case/runtime.yaml", "tests/cost-case/trainjobs.yaml")
BASE = "tests/cost-case/base"


def trainc(*args) -> str:
    result = run(*args, cwd=ROOT)
    return f"$ trainc {' '.join(args)}\n{result.stdout}{result.stderr}exit {result.returncode}\n"


@pytest.mark.parametrize("output_format", ["text", "markdown", "json"])
def test_summary_with_cost_golden(output_format, snapshot):
    assert trainc("summary", *CASE, "--base", BASE, "--format", output_format) == snapshot


@pytest.mark.parametrize("output_format", ["text", "markdown"])
def test_diff_ends_with_the_cost_delta_golden(output_format, snapshot):
    assert trainc("diff", *CASE, "--base", BASE, "--format", output_format, "--color", "never") == snapshot


def test_json_cost_is_strings_of_cents_and_null_for_unbounded():
    data = json.loads(run("summary", *CASE, "--base", BASE, "--format", "json", cwd=ROOT).stdout)["cost"]
    assert data["currency"] == "USD" and data["prices"] == "tests/cost-case/.trainc.yaml:2:1"
    llm = next(job for job in data["trainJobs"] if job["name"] == "llm")
    assert llm == {
        "namespace": "team-a",
        "name": "llm",
        "hourly": "43.97",
        "seconds": 14400,
        "bounded": "175.87",
        "unpriced": [],
    }
    assert {
        "scope": "total",
        "name": "all",
        "hourlyBase": "22.08",
        "hourly": "61.05",
        "hourlyChange": "+38.98",
        "boundedBase": "88.30",
        "bounded": None,
        "boundedChange": None,
    } in data["delta"]


def test_without_prices_nothing_is_priced_and_the_charts_stay():
    out = run(
        "summary",
        "golden/summary-kueue-queues/queues.yaml",
        "golden/summary-kueue-queues/trainjobs.yaml",
        "--format",
        "markdown",
        cwd=ROOT,
    ).stdout
    assert "**Cost**" not in out and "```mermaid\nxychart-beta\n" in out


def test_a_chart_holds_at_most_its_bound_of_categories_and_no_quote_escapes_a_label():
    after = {f"q{index:03}": index for index in range(50)}
    chart = charts._bounded('GPUs "quoted"\n', "GPUs", after, {"q000": 3})
    assert len(chart.categories) == charts.MAX_CATEGORIES and chart.categories[-1] == "31 others"
    assert chart.bars[-1] == sum(range(19, 50)) and chart.line[0] == 3 and chart.line[-1] == 0
    drawn = charts.mermaid(chart)
    assert '    title "GPUs  quoted  "\n' in drawn and drawn.count("\n") == 8
    assert charts.number(Fraction(1, 3)) == "0.33" and charts.number(Fraction(16)) == "16"
    svg = charts.svg(charts.Chart("<b>&", "GPUs", ("<script>",), (Fraction(1),)))
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "&lt;b&gt;&amp;" in svg


def pull_request(tmp_path, jobs: int = 100):
    """A repository of `jobs` TrainJobs over ten teams' queues, each job bigger than at the base (base/)."""
    (tmp_path / ".git").mkdir()
    write(
        tmp_path,
        ".trainc.yaml",
        "prices:\n  currency: USD\n  flavors:\n"
        "    a100: {nvidia.com/gpu: 2.50, cpu: 0.03}\n  default: {cpu: 0.03, memory: 0.004}\n",
    )
    queues = ["apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: a100\n"]
    for team in range(10):
        queues.append(
            f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: team-{team}\n"
            "spec:\n  namespaceSelector: {}\n  resourceGroups:\n"
            "  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n    - name: a100\n"
            '      resources:\n      - {name: cpu, nominalQuota: "4096"}\n'
            "      - {name: memory, nominalQuota: 64Ti}\n"
            "      - {name: nvidia.com/gpu, nominalQuota: 1024}\n"
        )
        queues.append(
            f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: gpu\n"
            f"  namespace: team-{team}\nspec:\n  clusterQueue: team-{team}\n"
        )

    def trainjobs(nodes: int) -> str:
        return "---\n".join(
            f"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: job-{index:03}\n"
            f"  namespace: team-{index % 10}\n  labels: {{kueue.x-k8s.io/queue-name: gpu}}\nspec:\n"
            f"  runtimeRef: {{name: torch-distributed}}\n  trainer:\n    numNodes: {nodes}\n    resourcesPerNode:\n"
            '      requests: {cpu: "8", memory: 64Gi, nvidia.com/gpu: 1}\n'
            for index in range(jobs)
        )

    write(tmp_path, "queues.yaml", "---\n".join(queues))
    write(tmp_path, "trainjobs.yaml", trainjobs(2))
    write(tmp_path / "base", "queues.yaml", "---\n".join(queues))
    write(tmp_path / "base", "trainjobs.yaml", trainjobs(1))
    return tmp_path


def test_a_100_job_pull_request_comment_fits_github_with_its_charts(tmp_path):
    folder = pull_request(tmp_path)
    for command in ("summary", "diff"):
        out = run(command, "queues.yaml", "trainjobs.yaml", "--base", "base", "--format", "markdown", cwd=folder).stdout
        assert len(out) < 65536, (command, len(out))
        assert len(re.findall(r"```mermaid\nxychart-beta\n", out)) == 4, command  # GPUs, CPU, memory, cost
    diff = run("diff", "queues.yaml", "trainjobs.yaml", "--base", "base", "--format", "markdown", cwd=folder).stdout
    assert "**Cost** since the base" in diff and "| total | all | 299.60 USD | 599.20 USD | +299.60 USD |" in diff
    assert "objects' diffs left out to fit a GitHub comment" in diff  # the diffs gave way, the cost did not


def test_the_guide_shows_a_chart_diff_prints():
    guide = (ROOT / "docs" / "guides" / "cost-capacity.md").read_text()
    chart = re.search(
        r"tested-by: tests/review/test_report.py::test_the_guide_shows_a_chart_diff_prints -->\n"
        r"(```mermaid\n.*?```\n)",
        guide,
        re.S,
    ).group(1)
    out = run("diff", *CASE, "--base", BASE, "--format", "markdown", cwd=ROOT).stdout
    assert chart in out
