"""The layer diagram of ARCHITECTURE.md as a test: every import in trainc/ (function-local ones too) points down
the diagram or stays in its layer, and neither packages nor modules import each other in a cycle.

The order is read from ARCHITECTURE.md's diagram itself, so the document and the test cannot drift apart;
`shipped` sits beside `formats`, `bounds` and `shares` beside `validation`, and the Python API (`trainc/__init__.py`,
`authoring`, `plugins`, `__main__`) above `cli`.
A package or top-level module missing from the diagram fails too: a new one must be placed first.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from conftest import ROOT

BESIDE = {"shipped": "formats", "bounds": "validation", "shares": "validation"}  # as ARCHITECTURE.md says
API = ("__init__", "authoring", "__main__", "plugins")  # the Python API (plugin authors' names too), above everything


def layers(architecture: str) -> dict[str, int]:
    """unit (a top-level package or module of trainc) -> its rank in the diagram, bottom 0."""
    diagram = re.search(r"layer imports only the layers before it:\n+```\n(.*?)```", architecture, re.S).group(1)
    ranks = {unit: rank for rank, step in enumerate(diagram.split("->")) for unit in step.strip().split("/")}
    ranks.update({unit: ranks[beside] for unit, beside in BESIDE.items()})
    top = max(ranks.values()) + 1
    return {**ranks, **{unit: top for unit in API}}


def modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module under `package` (a package by its own name)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(package: Path) -> list[tuple[str, str, str]]:
    """(importer, imported module, `file:line`) for every import of the package's own modules, wherever it is
    written (module level, in a function, under TYPE_CHECKING)."""
    found = modules(package)
    edges = []
    for name, path in found.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                # `from pkg import module` imports the module; `from module import name` the module
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in found else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in found:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges.append((name, target, f"{path.relative_to(package.parent)}:{node.lineno}"))
    return edges


def unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def cycles(edges) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iterative)."""
    graph: dict = {}
    for importer, imported in edges:
        graph.setdefault(importer, set()).add(imported)
        graph.setdefault(imported, set())
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(found)


def violations(package: Path, ranks: dict[str, int]) -> list[str]:
    """What breaks the diagram: units it does not place, upward imports, package cycles, module cycles."""
    edges = imports(package)
    out = [f"{unit(name)}: not in ARCHITECTURE.md's diagram" for name in modules(package) if unit(name) not in ranks]
    out = sorted(set(out))
    for importer, imported, where in edges:
        low, high = unit(importer), unit(imported)
        if low in ranks and high in ranks and ranks[low] < ranks[high]:
            out.append(f"{where}: {importer} imports {imported}, a layer above it")
    out += [
        f"package cycle: {' <-> '.join(found)}"
        for found in cycles({(unit(a), unit(b)) for a, b, _ in edges if unit(a) != unit(b)})
    ]
    out += [f"module cycle: {' <-> '.join(found)}" for found in cycles({(a, b) for a, b, _ in edges})]
    return out


RANKS = layers((ROOT / "ARCHITECTURE.md").read_text())


def test_trainc_imports_only_down_the_diagram_and_in_no_cycle():
    assert violations(ROOT / "trainc", RANKS) == []


def test_the_diagram_is_read_from_architecture_md():
    assert RANKS["errors"] == 0 and RANKS["shipped"] == RANKS["formats"] == 1
    assert RANKS["build"] == RANKS["inputs"] == RANKS["settings"] == RANKS["parallel"]
    assert RANKS["commands"] == RANKS["run"] < RANKS["cli"] < RANKS["authoring"]
    order = [
        "errors",
        "formats",
        "k8s",
        "trainer",
        "compiler",
        "validation",
        "build",
        "policy",
        "output",
        "commands",
        "cli",
    ]
    assert sorted(order, key=RANKS.get) == order


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / "trainc"


def test_a_function_local_upward_import_fails(tmp_path):
    package = _tree(
        tmp_path,
        {
            "trainc/__init__.py": "",
            "trainc/errors.py": "",
            "trainc/cli.py": "from .k8s import quantity\n",
            "trainc/k8s/__init__.py": "",
            "trainc/k8s/quantity.py": "from ..errors import x\n\n\ndef parse():\n    from .. import cli\n",
        },
    )
    assert violations(package, RANKS) == [
        "trainc/k8s/quantity.py:5: trainc.k8s.quantity imports trainc.cli, a layer above it",
        "package cycle: cli <-> k8s",
        "module cycle: trainc.cli <-> trainc.k8s.quantity",
    ]


def test_an_upward_import_injected_into_trainc_fails(tmp_path):
    """The real tree with one import added in a function of the k8s layer, reaching the compiler."""
    shutil.copytree(ROOT / "trainc", tmp_path / "trainc", ignore=shutil.ignore_patterns("__pycache__"))
    quantity = tmp_path / "trainc" / "k8s" / "quantity.py"
    lines = quantity.read_text().count("\n")
    quantity.write_text(quantity.read_text() + "\n\ndef _late():\n    from ..compiler.ir import Unit\n")
    upward, *cycles_made = violations(tmp_path / "trainc", RANKS)
    assert upward == (
        f"trainc/k8s/quantity.py:{lines + 4}: trainc.k8s.quantity imports trainc.compiler.ir, a layer above it"
    )
    assert cycles_made[0] == "package cycle: compiler <-> k8s <-> trainer"  # the compiler imports k8s and trainer
    assert cycles_made[1].startswith("module cycle: trainc.compiler.ir <-> ") and len(cycles_made) == 2


def test_cycles_fail_within_a_layer_too(tmp_path):
    package = _tree(
        tmp_path,
        {
            "trainc/__init__.py": "",
            "trainc/build.py": "from . import inputs\n",
            "trainc/inputs.py": "def read():\n    from .build import build\n",
            "trainc/commands/__init__.py": "",
            "trainc/commands/diff.py": "from .summary import delta\n",
            "trainc/commands/summary.py": "from . import diff\n",
            "trainc/policy/__init__.py": "from . import vap\n",
            "trainc/policy/vap.py": "from . import is_policy\n",
        },
    )
    assert violations(package, RANKS) == [
        "package cycle: build <-> inputs",
        "module cycle: trainc.build <-> trainc.inputs",
        "module cycle: trainc.commands.diff <-> trainc.commands.summary",
        "module cycle: trainc.policy <-> trainc.policy.vap",
    ]


def test_a_package_missing_from_the_diagram_fails(tmp_path):
    package = _tree(
        tmp_path,
        {"trainc/__init__.py": "", "trainc/helpers/__init__.py": "from .. import errors\n", "trainc/errors.py": ""},
    )
    assert violations(package, RANKS) == ["helpers: not in ARCHITECTURE.md's diagram"]
