"""`trainc build` read without click (trainc/cli/plain.py): what it reads, click reads the same, parameter by
parameter and source by source; what click refuses or reads otherwise, it leaves to click."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import click
import pytest
from conftest import ROOT

from trainc.cli import cli, plain
from trainc.formats.limits import MAX_INPUT_BYTES

# a command line of only what plain reads: each must be read, and as click reads it
PLAIN = [
    (["build", "jobs"], {}),
    (["build", "jobs", "runtimes", "--runtimes", "runtimes", "-n", "team-a", "-o", "json"], {}),
    (["--root", ".", "build", "-nteam", "--output=yaml", "jobs", "--jobs", "2", "--trainer-only"], {}),
    (["--root=.", "build", "--runtimes=runtimes", "--runtimes", "jobs", "jobs", "--policies", "file.yaml"], {}),
    (["build", "jobs", "--ssh-keys", "sealed-secrets", "--sealed-secrets-cert", "file.yaml", "-j3", "--check"], {}),
    (["build", "jobs", "-n", "a", "-n", "b", "--as", "me", "--as-group", "g1", "--as-group", "g2"], {}),
    (["build", "jobs", "--max-input-bytes", "1000", "--previous", "HEAD~1", "--cluster-state", "file.yaml"], {}),
    (["build", "jobs", "--output-dir", "missing", "--include-runtimes", "--allow-empty", "--runtime-snapshot"], {}),
    (["build", "jobs", "--trainer-version", "v2.3", "--plugin", "x", "--ssh-key-seed", "file.yaml"], {}),
    (["build", "jobs"], {"TRAINC_NAMESPACE": "team-b", "TRAINC_RUNTIMES": "runtimes:jobs", "TRAINC_JOBS": "1"}),
    (["build", "jobs"], {"TRAINC_ROOT": ".", "TRAINC_PLUGINS": " a  b ", "TRAINC_AS": "me", "TRAINC_AS_GROUPS": "x"}),
    (["build", "jobs", "-n", "given"], {"TRAINC_NAMESPACE": "ignored", "TRAINC_MAX_INPUT_BYTES": "77"}),
    (["build", "jobs"], {"TRAINC_SSH_KEYS": "external-secrets", "TRAINC_SSH_KEY_SEED_FILE": "file.yaml"}),
    (["build", "jobs"], {"TRAINC_NAMESPACE": "", "TRAINC_TRAINER_VERSION": "v2.4", "TRAINC_SSH_KEY_SCOPE": "p"}),
]
# left to click: help, version, completion, stdin, `--`, a flag's variable, values click refuses or a dash
CLICKS = [
    (["build", "--help"], {}),
    (["-h"], {}),
    (["--version"], {}),
    (["build"], {}),
    (["build", "-"], {}),
    (["build", "jobs", "--", "-n"], {}),
    (["build", "jobs", "-o", "xml"], {}),
    (["build", "jobs", "-j", "0"], {}),
    (["build", "jobs", "--trainer-version", "v9"], {}),
    (["build", "jobs", "--output-dir", "file.yaml"], {}),
    (["build", "jobs", "--sealed-secrets-cert", "jobs"], {}),
    (["build", "jobs", "--cluster-state", "-"], {}),
    (["build", "jobs", "--trainer-only=yes"], {}),
    (["build", "jobs", "--namespace"], {}),
    (["build", "jobs", "-n", "-x"], {}),
    (["build", "jobs", "--nmespace", "a"], {}),
    (["validate", "jobs"], {}),
    (["--root", ".", "--root"], {}),
    (["build", "jobs"], {"TRAINC_REQUIRE_SSH_KEY_SEED": "1"}),
    (["build", "jobs"], {"TRAINC_JOBS": "many"}),
    (["build", "jobs"], {"_TRAINC_COMPLETE": "bash_complete"}),
    (["build", "jobs", "-n", "\udcff"], {}),
]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A folder with a file, two folders and no `missing`, as the current directory; no TRAINC_ variable set."""
    (tmp_path / "jobs").mkdir()
    (tmp_path / "runtimes").mkdir()
    (tmp_path / "file.yaml").write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("TRAINC_", "_TRAINC_")):
            monkeypatch.delenv(name)
    return tmp_path


def _click_reading(argv: list[str], environ: dict, monkeypatch):
    """What click reads of `argv` under `environ` for `trainc build` (as plain.Reading's fields); None if click
    refuses it or runs another command."""
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    try:
        try:
            top = cli.make_context("trainc", list(argv))
            rest = [*(getattr(top, "_protected_args", None) or top.protected_args), *top.args]
            name, command, rest = cli.resolve_command(top, rest)
            if name != "build":
                return None
            ctx = command.make_context(name, rest, parent=top)
        except (click.exceptions.Exit, click.ClickException):
            return None
        root = top.params["root"]
        sources = {name: ctx.get_parameter_source(name).name for name in ctx.params}
        root_given = root is not None and top.get_parameter_source("root").name == "COMMANDLINE"
        return (sources, root, root_given), ctx.params, ctx.meta.get("trainc.max_input_bytes", MAX_INPUT_BYTES)
    finally:
        for name in environ:
            monkeypatch.delenv(name)


def _plain_reading(argv: list[str], environ: dict):
    reading = plain.read(argv, environ)
    if reading is None:
        return None
    return tuple(reading.invocation), reading.params, reading.input_limit


@pytest.mark.parametrize(("argv", "environ"), PLAIN)
def test_a_plain_command_line_is_read_as_click_reads_it(tree, monkeypatch, argv, environ):
    read = _plain_reading(argv, environ)
    assert read is not None
    assert read == _click_reading(argv, environ, monkeypatch)


@pytest.mark.parametrize(("argv", "environ"), CLICKS)
def test_anything_else_is_left_to_click(tree, argv, environ):
    assert plain.read(argv, environ) is None


def test_random_command_lines_are_read_as_click_reads_them_or_left_to_it(tree, monkeypatch):
    """Options in every spelling with good and bad values, stray words and variables; whatever plain reads, click
    reads the same, and plain reads nothing click refuses."""
    values = ["jobs", "runtimes", "file.yaml", "missing", "-", "", "yaml", "json", "3", "0", "-2", "v2.3", "seed"]
    values += ["sealed-secrets", "a=b", "x,y", "-n", "--check"]
    strays = ["jobs", "runtimes", "-", "-h", "--", "--help", "-x", "--jobs=", "-nteam"]
    variables = [option.envvar for option in plain.OPTIONS if option.envvar] + ["TRAINC_ROOT"]
    pick = random.Random(2170)
    read = 0
    for _ in range(2000):
        argv = [pick.choice(["--root", "--root=.", "--root=jobs"]) for _ in range(pick.random() < 0.2)]
        argv += ["build" if pick.random() < 0.97 else "validate", "jobs"]
        for _ in range(pick.randrange(6)):
            option = pick.choice(plain.OPTIONS)
            flag = pick.choice(option.flags)
            value = pick.choice(values) if pick.random() < 0.3 else pick.choice(values[:4] + ["yaml", "2", "v2.4"])
            if option.kind == "flag":
                argv.append(flag + ("=" + value if pick.random() < 0.1 else ""))
            elif len(flag) == 2 and pick.random() < 0.5:
                argv.append(flag + value)
            else:
                argv += [f"{flag}={value}"] if pick.random() < 0.5 else [flag, value]
            if pick.random() < 0.1:
                argv.insert(pick.randrange(2, len(argv) + 1), pick.choice(strays))
        environ = {name: pick.choice(values) for name in pick.sample(variables, pick.randrange(3))}
        mine = _plain_reading(argv, environ)
        if mine is not None:
            read += 1
            assert mine == _click_reading(argv, environ, monkeypatch), (argv, environ)
    assert read > 400  # plain reads a good share of them: the comparison is not vacuous


def test_the_options_are_builds_as_click_declares_them():
    """Every parameter of `trainc build` (and the group's --root) with its spellings, variable, default, type and
    checks, so that a flag added or changed in cli/ without plain fails here."""
    command = cli.get_command(None, "build")
    declared = {param.name: param for param in command.params}
    assert set(declared) == {"paths"} | {option.name for option in plain.OPTIONS}
    assert declared["paths"].nargs == -1 and declared["paths"].required
    for option in (*plain.OPTIONS, plain.ROOT):
        param = declared.get(option.name) or next(p for p in cli.params if p.name == option.name)
        kind = type(param.type).__name__
        assert (param.opts + param.secondary_opts, param.envvar, param.multiple) == (
            list(option.flags),
            option.envvar,
            option.multiple,
        ), option.name
        assert param.is_flag == (option.kind == "flag"), option.name
        default = None if param.default is getattr(click.core, "UNSET", None) else param.default  # click 8.3+
        if option.kind == "flag":  # False, or none (click 8.5) which a flag not given also reads as False
            assert default in (None, False), option.name
        else:
            assert default == option.default, option.name
        checked = getattr(param.callback, "__name__", None)
        if option.kind == "path":
            assert kind == "Path" and not (param.type.exists or param.type.resolve_path), option.name
            assert (param.type.file_okay, param.type.dir_okay, param.type.readable) == option.allowed, option.name
        elif option.kind == "choice":
            assert kind == "Choice" and tuple(param.type.choices) == tuple(option.allowed), option.name
        elif option.kind == "int":
            assert kind == "IntRange" and (param.type.min, param.type.max) == (option.allowed, None), option.name
            assert not (param.type.min_open or param.type.clamp), option.name
        elif option.kind == "flag":
            assert kind == "BoolParamType", option.name
        else:
            assert kind == "StringParamType", option.name
            assert (option.allowed is not None) == (checked == "_output_format"), option.name
        assert checked in (None, "_output_format", "_utf8", "_keep_input_limit"), option.name
        assert param.expose_value == (option.name != "max_input_bytes"), option.name


# the console script, its exit status and what it printed
SCRIPT = "from trainc.cli import main; main()"


def _script(*argv: str, cwd=ROOT, **environ):
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv], capture_output=True, text=True, cwd=cwd, env={**os.environ, **environ}
    )


def test_a_usage_error_of_the_flow_is_said_by_click():
    """A plain command line whose flow finds a usage error: click reads it again and says it under build's
    usage line, exit 2, word for word as when click reads it first (`--` before the path)."""
    case = str(ROOT / "golden" / "plainml-torch-simple" / "trainjob.yaml")
    for flags, said in (
        (["--check"], "Error: --check compares with a rendered tree: give it with --output-dir"),
        (["--as-group", "g"], "Error: --as-group (TRAINC_AS_GROUPS, as-groups) needs --as"),
        (["--plugin", "no-such-plugin"], "Error: Invalid value for --plugin: "),
    ):
        assert plain.read(["build", case, *flags], {}) is not None
        quick, clicked = _script("build", case, *flags), _script("build", *flags, "--", case)
        assert quick.returncode == 2 and "Usage: trainc build [OPTIONS] PATHS..." in quick.stderr
        assert said in quick.stderr and quick.stdout == ""
        assert (quick.returncode, quick.stderr) == (clicked.returncode, clicked.stderr)


def test_the_console_script_builds_as_click_does(tmp_path):
    """The same output, errors and exit status whichever reads the command line (click, through `--` before the
    paths, which plain leaves to it)."""
    case = ROOT / "golden" / "mpi-env-order"
    inputs = [str(case / "trainjob.yaml"), str(case / "runtime.yaml")]
    env = {"TRAINC_NAMESPACE": "team-a", "TRAINC_SSH_KEY_SEED_FILE": str(ROOT / "tests" / "golden-ssh-seed")}
    quick = _script("build", *inputs, "-o", "json", **env)
    clicked = _script("build", "-o", "json", "--", *inputs, **env)
    assert quick.returncode == 0 and "JobSet" in quick.stdout
    assert (quick.returncode, quick.stdout, quick.stderr) == (clicked.returncode, clicked.stdout, clicked.stderr)
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: Bad}\n")
    refused, clicked = _script("build", str(bad)), _script("build", "--", str(bad))
    assert refused.returncode == 1 and "bad.yaml:1:1: spec: required field is missing" in refused.stderr
    assert (refused.returncode, refused.stdout, refused.stderr) == (clicked.returncode, clicked.stdout, clicked.stderr)


def test_a_plain_build_imports_no_click():
    probe = (
        "import sys, trainc.cli as script\nscript._exit_now = lambda code: None\ntry:\n    script.main()\n"
        "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    case = ROOT / "golden" / "plainml-torch-simple"
    built = subprocess.run(
        [sys.executable, "-c", probe, "build", str(case / "trainjob.yaml")], capture_output=True, text=True, cwd=ROOT
    )
    assert built.stdout == (case / "expected.out.yaml").read_text()
    loaded = set(built.stderr.split())
    assert "trainc.cli.plain" in loaded and not {"click", "trainc.cli.group", "trainc.cli.build"} & loaded


@pytest.mark.parametrize(
    "argv, verb",
    [
        (["run", "job.yaml"], "run"),
        (["--root", ".", "run", "job.yaml"], "run"),
        (["--root=.", "build", "."], "build"),
        (["--root", "run"], None),  # a directory named run, and no command
        (["-h", "run"], None),  # click answers the group's help
        ([], None),
    ],
)
def test_the_verb_is_read_past_the_group_s_options_as_click_reads_it(argv, verb):
    assert plain.verb(argv) == verb
