"""The tree as ARCHITECTURE.md describes it: few top-level modules, data folders without code, no generator in
the wheel (the generators live in tools/, run from a checkout)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile

from conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DATA_DIRS = PROJECT["tool"]["setuptools"]["package-dir"]  # trainc._schemas -> schemas, ...
GENERATORS = ("generate.py", "gotypes.py", "upstream-generate.py", "sdk-generate.py", "reference.py")


def test_trainc_has_at_most_a_dozen_top_level_modules():
    modules = sorted(path.name for path in (ROOT / "trainc").glob("*.py"))
    assert len(modules) <= 12, modules


def test_cli_only_declares_the_verbs_whose_flows_live_in_commands():
    """Each command of trainc/cli/ imports its flow and hands it the parameters: nothing of the flow stays there."""
    verbs = [
        node
        for path in sorted((ROOT / "trainc" / "cli").glob("*.py"))
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.FunctionDef)
        and any(".command(" in ast.unparse(decorator) for decorator in node.decorator_list)
    ]
    assert len(verbs) >= 14
    for verb in verbs:
        body = [node for node in verb.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))]
        assert len(body) <= 3 and all(isinstance(node, (ast.ImportFrom, ast.Expr)) for node in body), verb.name


def test_data_folders_hold_no_python():
    for folder in (*DATA_DIRS.values(), "golden"):
        assert not sorted((ROOT / folder).rglob("*.py")), folder
    assert sorted(path.name for path in (ROOT / "tools").rglob("*.py")) == sorted(GENERATORS)


def test_the_wheel_ships_no_generator_and_no_code_beside_the_data(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", PROJECT["project"]["readme"], "trainc", *DATA_DIRS.values(), "tools", "golden"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "wheel"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "wheel").glob("trainc-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "trainc/cli/build.py" in names and "trainc/_schemas/trainjob.v1alpha1.json" in names  # the check sees files
    assert [name for name in names if name.rpartition("/")[2] in GENERATORS] == []
    assert [
        name
        for name in names
        if name.startswith(tuple(f"{package.replace('.', '/')}/" for package in DATA_DIRS)) and name.endswith(".py")
    ] == []


def test_every_package_of_trainc_is_in_the_wheel():
    """pyproject.toml lists the packages by name: a new folder of trainc/ left out of the list imports in a
    checkout and fails once installed (trainc.review did)."""
    listed = set(PROJECT["tool"]["setuptools"]["packages"])
    found = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "trainc").rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert found <= listed, sorted(found - listed)
