"""The price table of the project config (trainc/formats/prices.py): decimals read from the text, never a float;
every bad price an error at its file:line:col and field path; bounded; the platform's table only."""

from __future__ import annotations

from decimal import Decimal

import pytest

from helpers import run, write
from trainc.formats import prices

TABLE = """\
prices:
  currency: USD
  flavors:
    a100: {nvidia.com/gpu: 2.50, cpu: 0.03, memory: 0.004}
    h100:
      nvidia.com/gpu: 4
  default: {cpu: 0.1, memory: 0.000000001}
"""


@pytest.fixture(autouse=True, params=["lines", "libyaml"])
def reader(request, monkeypatch):
    """Every case both ways a YAML table is read: off its lines (blockyaml), and from libyaml's nodes (what text
    of another shape gets): the same table, the same errors at the same places."""
    if request.param == "libyaml":

        def unplaced(*args):
            raise prices._Unplaced

        monkeypatch.setattr(prices, "_from_lines", unplaced)
    return request.param


def load(tmp_path, text: str, name: str = ".trainc.yaml"):
    write(tmp_path, name, text)
    return prices.load(str(tmp_path / name))


def rendered(errors) -> list[str]:
    return [error.render().split(": ", 1)[1] if error.render().startswith("/") else error.render() for error in errors]


def test_prices_are_the_decimals_the_text_writes(tmp_path, monkeypatch, reader):
    monkeypatch.chdir(tmp_path)
    composed = []
    real = prices._composed_table
    monkeypatch.setattr(prices, "_composed_table", lambda text: composed.append(text) or real(text))
    table, errors = load(tmp_path, TABLE)
    assert errors == [] and len(composed) == (reader == "libyaml")  # the common shape needs no libyaml
    assert table.currency == "USD" and table.where == ".trainc.yaml:1:1"
    assert table.flavors == {
        "a100": {"nvidia.com/gpu": Decimal("2.50"), "cpu": Decimal("0.03"), "memory": Decimal("0.004")},
        "h100": {"nvidia.com/gpu": Decimal(4)},
    }
    assert str(table.default["cpu"]) == "0.1" and str(table.default["memory"]) == "1E-9"  # no float on the way
    assert table.price("h100", "cpu") == Decimal("0.1")  # the flavor prices no CPU: the default does
    assert table.price(None, "nvidia.com/gpu") is None  # priced nowhere
    assert prices.unit("cpu") == 1000 and prices.unit("memory") == prices.unit("hugepages-2Mi") == 2**30
    assert prices.unit("nvidia.com/gpu") == 1


def test_pyproject_prices_are_decimals_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = '[tool.trainc.prices]\ncurrency = "EUR"\ndefault = {cpu = 0.1, "nvidia.com/gpu" = 3}\n'
    table, errors = load(tmp_path, text, "pyproject.toml")
    assert errors == [] and table.currency == "EUR"
    assert table.default == {"cpu": Decimal("0.1"), "nvidia.com/gpu": Decimal(3)}
    _, errors = load(tmp_path, '[tool.trainc]\nprices = {currency = "EUR", default = {cpu = -1}}\n', "pyproject.toml")
    assert rendered(errors) == ["pyproject.toml:2:1: prices.default.cpu: -1: a price cannot be negative"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-2.5", "-2.5: a price cannot be negative"),
        ('"2.50"', "must be a number (2.50), not a string"),
        ("true", "must be a number (2.50), not true"),
        ("1e3", "1e3: write a price as plain digits with an optional fraction (2.50)"),
        (".inf", ".inf: write a price as plain digits with an optional fraction (2.50)"),
        ("[1]", "must be a number (2.50), not a list"),
        ("1000000.01", "1000000.01 is more than 1000000 per unit and hour"),
        ("0.0000000001", "0.0000000001 has more than 9 decimals"),
        ("9" * 35, "9" * 35 + " is more than 1000000 per unit and hour"),
        ("9" * 50, "9" * 40 + "… is more than 1000000 per unit and hour"),  # a message quotes no 5,000 digits
    ],
)
def test_a_bad_price_is_an_error_at_its_place(tmp_path, monkeypatch, value, message):
    monkeypatch.chdir(tmp_path)
    table, errors = load(tmp_path, f"prices:\n  currency: USD\n  flavors:\n    a100:\n      nvidia.com/gpu: {value}\n")
    assert table is None
    assert rendered(errors) == [f".trainc.yaml:5:23: prices.flavors.a100[nvidia.com/gpu]: {message}"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("prices: [1]\n", ".trainc.yaml:1:9: prices: must be a mapping with currency, flavors and default"),
        ("prices:\n  default: {cpu: 1}\n", ".trainc.yaml:2:3: prices: must name its currency (currency: USD)"),
        (
            "prices:\n  currency: dollars\n",
            ".trainc.yaml:2:13: prices.currency: must be an ISO 4217 code of three capital letters (USD, EUR)",
        ),
        (
            "prices:\n  currency: USD\n  flavours: {}\n",
            ".trainc.yaml:3:3: prices.flavours: unknown field (known: currency, flavors, default)",
        ),
        (
            "prices:\n  currency: USD\n  flavors: [a100]\n",
            ".trainc.yaml:3:12: prices.flavors: must map ResourceFlavor names to {resource: price}",
        ),
        (
            "prices:\n  currency: USD\n  default: 3\n",
            ".trainc.yaml:3:12: prices.default: must map resources to prices per hour ({nvidia.com/gpu: 2.50, cpu: 0.03})",
        ),
    ],
)
def test_a_table_of_the_wrong_shape_is_an_error_at_its_place(tmp_path, monkeypatch, text, error):
    monkeypatch.chdir(tmp_path)
    assert rendered(load(tmp_path, text)[1]) == [error]


def test_the_table_is_bounded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(prices, "MAX_ENTRIES", 3)
    entries = "".join(f"    r{index}: 1\n" for index in range(4))
    _, errors = load(tmp_path, f"prices:\n  currency: USD\n  default:\n{entries}")
    assert rendered(errors) == [".trainc.yaml:7:9: prices.default.r3: the table holds more than 3 prices"]


def test_only_the_platform_sets_prices(tmp_path):
    """A team's config below the platform's cannot price its own jobs (under a cost cap)."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".trainc.yaml", "prices:\n  currency: USD\n  default: {cpu: 1}\n")
    write(tmp_path / "team", ".trainc.yaml", "prices:\n  currency: USD\n  default: {cpu: 0}\n")
    write(
        tmp_path / "team",
        "job.yaml",
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        "  name: demo\nspec:\n  runtimeRef: {name: torch-distributed}\n",
    )
    result = run("build", "job.yaml", cwd=tmp_path / "team")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        ".trainc.yaml:1:1: prices: prices are set by the platform's config at "
        "../.trainc.yaml:1:1; a config below it cannot change them\n"
    )


def test_a_bad_table_fails_every_route_that_compiles(tmp_path):
    write(tmp_path, ".trainc.yaml", "prices:\n  currency: USD\n  default: {cpu: -1}\n")
    write(
        tmp_path,
        "job.yaml",
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
        "  name: demo\nspec:\n  runtimeRef: {name: torch-distributed}\n",
    )
    for command in ("build", "validate", "summary"):
        result = run(command, "job.yaml", cwd=tmp_path)
        assert (
            result.returncode == 1
            and ".trainc.yaml:3:18: prices.default.cpu: -1: a price cannot be negative" in result.stderr
        ), command


def test_trainc_config_names_the_table_and_its_currency(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".trainc.yaml", "namespace: team-a\nprices:\n  currency: EUR\n  default: {cpu: 1}\n")
    result = run("config", cwd=tmp_path)
    assert result.returncode == 0 and ".trainc.yaml:2:1\tprices=EUR\n" in result.stdout
