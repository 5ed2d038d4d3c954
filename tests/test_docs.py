"""The docs site (docs/, mkdocs.yml) and the README: every example is run or checked, every command, flag and
config key has its entry, every section of the old README has a home, and `mkdocs build --strict` passes.

How a fenced block of a page is tested, by its language and the HTML comment on the line before it:
- `console`: each `$ trainc ...` line is run from the repository's root; stdout then stderr must be the lines
  that follow, exactly.
- `sh`: needs a marker. `<!-- runnable -->` runs it with bash in a repository holding the example TrainJobs;
  `<!-- external: WHY -->` (commands of other tools, a cluster) is not run.
- `yaml`: an include (`--8<-- "examples/..."`, which mkdocs resolves or fails) of a tested file; else every
  document must parse, a `# .trainc.yaml` block is used as the project config of a `trainc validate`, and a
  block of manifests is checked by `trainc validate`.
- `python`: run in that repository. `toml`, `json`: parsed, their keys checked against trainc's.
- `<!-- tested-by: tests/FILE.py::TEST -->`: the test named compares the block with trainc's output; it must
  exist. Any block starting with `$ ` must be run or carry a marker.
Every `trainc ...` command line, in a block or an inline code span, must name a command and flags that exist.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, need
from helpers import run

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
MARKDOWN = [ROOT / "README.md", *PAGES]
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^( *)```(\w*)[^\n]*\n(.*?)^\1```$", re.DOTALL | re.MULTILINE)
MARKER = re.compile(r"<!-- (runnable|external|tested-by)(?::\s*(.*?))? -->")
SITE_MAP = [
    "index.md",
    "getting-started.md",
    *(f"routes/{name}.md" for name in ("ci", "rendered-tree", "argocd", "kpt", "kustomize", "pre-commit", "flux")),
    *(
        f"guides/{name}.md"
        for name in ("mpi", "kueue", "policies", "upgrading", "cost-capacity", "plugins", "python-api")
    ),
    *(f"reference/{name}.md" for name in ("config", "differences", "security", "limits")),
]


def _reference():
    spec = importlib.util.spec_from_file_location("trainc_docs_reference", ROOT / "tools" / "docs" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _reference()


class Block:
    def __init__(self, path: Path, text: str, match: re.Match):
        self.path, self.language = path, match.group(2)
        self.body = "".join(line.removeprefix(match.group(1)) + "\n" for line in match.group(3).splitlines())
        self.line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rpartition("\n")[2].strip()
        found = MARKER.fullmatch(before)
        self.marker, self.reason = (found.group(1), found.group(2) or "") if found else (None, "")

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(*languages: str) -> list[Block]:
    found = []
    for path in MARKDOWN:
        text = path.read_text()
        found += [Block(path, text, match) for match in FENCE.finditer(text)]
    return [block for block in found if not languages or block.language in languages]


def ids(items) -> list[str]:
    return [item.id for item in items]


@pytest.fixture
def repo(tmp_path):
    """A repository as the docs' examples assume one: TrainJobs in jobs/, runtimes in platform/runtimes/."""
    (tmp_path / "jobs").mkdir()
    shutil.copy(ROOT / "examples" / "torch-ddp.yaml", tmp_path / "jobs" / "demo.yaml")
    (tmp_path / "platform" / "runtimes").mkdir(parents=True)
    shutil.copy(ROOT / "runtimes" / "torch-distributed.yaml", tmp_path / "platform" / "runtimes")
    (tmp_path / "platform" / "policies").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """bash with this environment's trainc first on PATH."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


# The README --------------------------------------------------------------------------------------------------


def test_the_readme_is_short_and_starts_with_the_two_setup_commands():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 150
    first = blocks()[0]
    assert first.path.name == "README.md"
    assert first.body == (
        "pip install . && trainc build examples/torch-ddp.yaml\npip install '.[test]' && python -m pytest\n"
    )


def test_ci_runs_exactly_the_readmes_test_command():
    commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and line[0] != "#"]
    assert commands[-1].replace("pip install -q ", "pip install ") == blocks()[0].body.splitlines()[1]  # quieter


def test_the_readmes_links_reach_docs_pages():
    links = re.findall(r"\]\(([^)#]+)", (ROOT / "README.md").read_text())
    assert {link for link in links if not (ROOT / link).is_file()} == set()
    assert {str(page.relative_to(ROOT)) for page in PAGES} <= set(links) | {"docs/index.md"}


# Site map and coverage ---------------------------------------------------------------------------------------


def old_readme_headings() -> list[list[str]]:
    lines = (ROOT / "tests" / "docs-readme-headings.txt").read_text().splitlines()
    return [line.split("\t") for line in lines if not line.startswith("# ") or "\t" in line]


def test_the_old_readme_had_these_headings():
    assert len(old_readme_headings()) == 36


@pytest.mark.parametrize("entry", old_readme_headings(), ids=[entry[0] for entry in old_readme_headings()])
def test_every_section_of_the_old_readme_has_a_home(entry):
    heading, page, *renamed = entry
    words = (renamed or [heading.lstrip("#").strip()])[0]
    text = (ROOT / page).read_text()
    assert re.search(rf"^#{{1,6}} {re.escape(words)}$", text, re.MULTILINE), f"{page} has no heading {words!r}"


def nav_pages() -> list[str]:
    return re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)


def test_the_nav_lists_every_page_once_and_the_site_map():
    nav = nav_pages()
    assert sorted(nav) == sorted(str(page.relative_to(DOCS)) for page in PAGES)
    assert len(nav) == len(set(nav))
    assert set(SITE_MAP) <= set(nav)


@pytest.mark.parametrize("verb", reference.verbs())
def test_every_command_has_a_page_with_its_generated_reference(verb):
    page = DOCS / "commands" / f"{verb}.md"
    assert page.is_file(), f"trainc {verb} has no page: add docs/commands/{verb}.md to docs and mkdocs.yml's nav"
    assert f"::: trainc-command {verb}\n" in page.read_text()
    assert f"commands/{verb}.md" in nav_pages()


def test_the_generated_reference_lists_every_flag_and_variable():
    import click

    for verb in reference.verbs():
        text = reference.command(verb)
        for name, command in reference._commands(verb):
            assert f"trainc {name} " in text or f"trainc {name}\n" in text
            for param in command.params:
                for option in param.opts if isinstance(param, click.Option) else [param.human_readable_name]:
                    assert f"`{option}`" in text, (name, option)
                if isinstance(param, click.Option) and isinstance(param.envvar, str):
                    assert f"`{param.envvar}`" in text, (name, param.envvar)


def test_the_global_options_are_listed():
    text = reference.command("")
    assert "trainc [OPTIONS] COMMAND [ARGS]..." in text
    for option in reference.flags(reference.cli()):
        assert f"`{option}`" in text, option
    assert "::: trainc-global\n" in (DOCS / "reference" / "config.md").read_text()


def test_the_config_reference_lists_every_key():
    from trainc.formats import projectconfig
    from trainc.settings import SETTINGS

    text = reference.settings()
    for key in [
        *projectconfig.KEYS,
        projectconfig.HOUSE_RULES,
        projectconfig.PRICES,
        *(key for key, _, _ in SETTINGS.values()),
    ]:
        assert f"| `{key}` |" in text, key
    assert "::: trainc-settings\n" in (DOCS / "reference" / "config.md").read_text()


def test_a_reference_block_naming_no_command_fails_the_build():
    with pytest.raises(ValueError, match="no such command"):
        reference.expand("::: trainc-command no-such-verb\n")


def test_mkdocs_builds_strictly(tmp_path):
    need(
        importlib.util.find_spec("mkdocs") is not None and importlib.util.find_spec("material") is not None,
        "mkdocs-material is not installed (pip install '.[test]')",
    )
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    built = (tmp_path / "site" / "commands" / "build" / "index.html").read_text()
    assert "<code>--output-dir</code>" in built and "::: trainc" not in built
    assert "TRAINC_SSH_KEY_SEED_FILE" in (tmp_path / "site" / "reference" / "config" / "index.html").read_text()


# Examples ----------------------------------------------------------------------------------------------------


def console_examples() -> list[tuple[str, str, str]]:
    found = []
    for block in blocks("console"):
        if block.marker is not None:
            continue
        for chunk in re.split(r"^\$ ", block.body, flags=re.MULTILINE)[1:]:
            command, _, output = chunk.partition("\n")
            found.append((block.id, command, output))
    return found


def test_the_docs_have_console_examples():
    assert len(console_examples()) >= 8


@pytest.mark.parametrize(
    "where, command, output", console_examples(), ids=[f"{where} {command}" for where, command, _ in console_examples()]
)
def test_console_example(where, command, output):
    program, *args = shlex.split(command)
    assert program == "trainc", where
    result = run(*args, cwd=ROOT)
    assert result.stdout + result.stderr == output


def test_blocks_showing_a_command_are_run_or_marked():
    unmarked = [
        block.id
        for block in blocks()
        if block.body.startswith("$ ") and block.language != "console" and block.marker is None
    ]
    assert unmarked == []


@pytest.mark.parametrize("block", blocks("sh", "shell", "bash"), ids=ids(blocks("sh", "shell", "bash")))
def test_shell_block(block, repo):
    if block.path.name == "README.md" or block.path.name == "getting-started.md" and "pip install" in block.body:
        return  # the set-up commands: .ci/run runs them (test_ci_runs_exactly_the_readmes_test_command)
    assert block.marker in ("runnable", "external", "tested-by"), f"{block.id}: mark it <!-- runnable --> or why not"
    if block.marker == "runnable":
        result = shell(block.body, repo)
        assert result.returncode == 0, f"{block.id}\n{result.stdout}{result.stderr}"
    elif block.marker == "external":
        assert block.reason, f"{block.id}: say why it is not run"


def marked_tested() -> list[Block]:
    return [block for block in blocks() if block.marker == "tested-by"]


@pytest.mark.parametrize("block", marked_tested(), ids=ids(marked_tested()))
def test_tested_by_names_a_test_that_reads_the_docs(block):
    file, _, name = block.reason.partition("::")
    source = (ROOT / file).read_text()
    assert re.search(rf"^def {re.escape(name)}\(", source, re.MULTILINE), f"{block.id}: no test {block.reason}"


@pytest.mark.parametrize("block", blocks("yaml"), ids=ids(blocks("yaml")))
def test_yaml_block(block, repo):
    if block.body.startswith("--8<-- "):
        included = block.body.split('"')[1]
        assert included.split("/")[0] in ("examples", "golden") and (ROOT / included).is_file(), block.id
        return
    documents = [doc for doc in yaml.safe_load_all(block.body) if doc is not None]
    assert documents, block.id
    if block.marker == "tested-by":
        return
    if block.body.startswith("# .trainc.yaml\n"):  # the config is read, and its house rules run
        (repo / ".trainc.yaml").write_text(block.body)
        assert run("config", cwd=repo).returncode == 0
        result = run("validate", "jobs/", cwd=repo)
        problems = [line for line in result.stderr.splitlines()[:-1] if not line.startswith("notice: ")]
        assert all(re.search(r": house rule '[\w-]+' denied: ", line) for line in problems), result.stderr
        return
    elif all(
        isinstance(doc, dict) and {"apiVersion", "kind"} <= set(doc) and "name" in doc.get("metadata", {})
        for doc in documents
    ):
        (repo / "snippet.yaml").write_text(block.body)
        result = run("validate", "snippet.yaml", cwd=repo)
    else:
        return  # not manifests (a kustomization, a pre-commit config, a fragment): parsing is all there is
    assert result.returncode == 0, f"{block.id}\n{result.stderr}"


@pytest.mark.parametrize("block", blocks("python"), ids=ids(blocks("python")))
def test_python_block(block, repo):
    (repo / "snippet.py").write_text(block.body)  # a file: trainc.authoring reads a function's source
    result = subprocess.run(
        [sys.executable, "snippet.py"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, f"{block.id}\n{result.stderr}"


@pytest.mark.parametrize("block", blocks("toml"), ids=ids(blocks("toml")))
def test_toml_block(block):
    from trainc.compiler.plugins import entrypoints
    from trainc.formats import projectconfig

    data = tomllib.loads(block.body)
    if "trainc" in data.get("tool", {}):
        assert set(data["tool"]["trainc"]) <= {*projectconfig.KEYS, projectconfig.HOUSE_RULES, projectconfig.PRICES}, (
            block.id
        )
    if "entry-points" in data.get("project", {}):
        assert list(data["project"]["entry-points"]) == [entrypoints.GROUP], block.id


@pytest.mark.parametrize("block", blocks("json"), ids=ids(blocks("json")))
def test_json_block(block):
    data = json.loads(block.body)
    for schema in data.get("yaml.schemas", {}):
        assert (ROOT / schema).is_file(), schema


# Command lines and names -------------------------------------------------------------------------------------


def command_lines() -> list[tuple[str, str]]:
    """(where, text) of every command line naming trainc: in code blocks (a line and the `[...]` lines that
    continue a usage synopsis) and in inline code spans."""
    found = []
    for path in MARKDOWN:
        text = path.read_text()
        where = str(path.relative_to(ROOT))
        for match in FENCE.finditer(text):
            if match.group(2) in ("yaml", "python", "json", "toml", "mermaid", "markdown"):
                continue
            body = re.sub(r"\n +(?=\[)", " ", match.group(3))
            found += [
                (where, line) for line in body.splitlines() if re.search(r'(^\s*(\$ )?|[|&;(]\s*|")trainc ', line)
            ]
        prose = FENCE.sub("", text)
        found += [(where, span) for span in re.findall(r"`([^`\n]+)`", prose) if re.match(r"trainc [a-z-]", span)]
    return found


def _check(tokens: list[str]) -> list[str]:
    """The problems of one trainc command line's tokens (those after `trainc`)."""
    import click

    group = reference.cli()
    tokens = [token.strip("[]().,") for token in tokens]
    while tokens and tokens[0] in ("--root",):
        tokens = tokens[2:]
    if not tokens or not re.fullmatch(r"[a-z]+", tokens[0]):
        return []
    commands = reference.subcommands(group)
    if tokens[0] not in commands:
        return [f"no command {tokens[0]!r}"]
    command, rest = commands[tokens[0]], tokens[1:]
    subs = reference.subcommands(command) if isinstance(command, click.Group) else {}
    if rest and rest[0] in subs:
        command, rest = subs[rest[0]], rest[1:]
    known = {"-h", "--help", *reference.flags(command)}
    known |= {flag for sub in subs.values() for flag in reference.flags(sub)}
    problems = []
    for token in rest:
        if token in ("|", "&&", ";", ">", "<", "2>&1") or token.startswith(("#", "$(")):
            break
        if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", token) and token.partition("=")[0] not in known:
            problems.append(f"trainc {tokens[0]}: no flag {token.partition('=')[0]}")
    return problems


def test_every_trainc_command_line_names_real_commands_and_flags():
    problems = []
    checked = 0
    for where, line in command_lines():
        try:
            tokens = shlex.split(line.removeprefix("$ "), comments=False)
        except ValueError:
            tokens = line.removeprefix("$ ").split()
        for start in [index for index, token in enumerate(tokens) if token == "trainc"]:
            checked += 1
            problems += [f"{where}: {line.strip()}: {problem}" for problem in _check(tokens[start + 1 :])]
    assert checked > 100
    assert problems == []


def test_the_flag_check_catches_a_stale_flag():
    assert _check(["build", "jobs/", "--ouput-dir", "x"]) == ["trainc build: no flag --ouput-dir"]
    assert _check(["prune"]) == ["no command 'prune'"]
    assert _check(["runtimes", "show", "torch", "--kind", "TrainingRuntime"]) == []


def test_dotted_trainc_names_resolve():
    """A module or object named in the docs (`trainc.plugins.Plugin`) exists: the plugin recipe once named an
    entry-point group and a module that were gone."""
    names = set()
    for path in MARKDOWN:
        names |= set(re.findall(r"`(trainc(?:\.[A-Za-z_]\w*)+)`", path.read_text()))
    names = {name for name in names if name.split(".")[1] not in ("kubeflow", "io", "yaml")}
    assert "trainc.plugins.Plugin" in names
    for name in sorted(names):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attribute in parts[cut:]:
                assert hasattr(found, attribute), name
                found = getattr(found, attribute)
            break


def test_messages_point_to_pages_that_exist():
    """Error messages, --help texts and the Argo CD plugin's hints name docs pages (docs/guides/mpi.md#keys-and-gitops);
    each exists, with its anchor."""
    pointers = set()
    for path in [*(ROOT / "trainc").rglob("*.py"), ROOT / "examples" / "argocd" / "plugin.yaml"]:
        pointers |= set(re.findall(r"docs/[\w/-]+\.md(?:#[\w-]+)?", path.read_text()))
    assert len(pointers) >= 5
    for pointer in sorted(pointers):
        page, _, anchor = pointer.partition("#")
        text = (ROOT / page).read_text()
        headings = {
            re.sub(r"[^\w\- ]", "", line.lstrip("#").strip()).lower().replace(" ", "-")
            for line in text.splitlines()
            if line.startswith("#")
        }
        assert not anchor or anchor in headings, pointer
