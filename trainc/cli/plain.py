"""`trainc build` without click: a plain command line read here, and what build does with its parameters, which
click's reading (`cli/build.py`) runs too.

Importing click takes about 30 ms on the benchmark machine, where Python starts in 15: a third of a one-TrainJob
build, paid on every render by Argo CD and CI. So the console script first reads a command line here, and only
one that is plain: build's own options, as `--name value`, `--name=value` or `-xVALUE`, each once or (where
click takes it so) repeated; `--root` before `build`; a variable of a single value, or a list, for an option
that is not a flag. That is read exactly as click reads it: the same parameters, from the same sources
(tests/cli/test_plain.py compares them case by case). Anything else is click's to read and to report: help, a
version, `--`, stdin (`-`), shell completion, a value that starts with `-`, one click would refuse, and a usage
error a flow raises before it prints anything (`commands.Usage`); `run` then returns False.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque

from ..compiler.sshkeys import MODES
from ..errors import Record
from ..formats.limits import MAX_INPUT_BYTES
from ..settings import COMMANDLINE, DEFAULT, ENVIRONMENT, Invocation
from ..trainer import releases
from . import call


class Option(Record):
    """One of build's options as click declares it (`cli/build.py`, `cli/shared.py`)."""

    name: str  # the parameter
    flags: tuple  # every spelling
    kind: str = "text"  # text, path, choice, int (at least `allowed`) or flag
    envvar: str | None = None
    default: object = None
    multiple: bool = False
    allowed: object = None  # path: (file_okay, dir_okay, readable); choice and text: the values; int: the minimum


_ANY_PATH = (True, True, True)
ROOT = Option("root", ("--root",), envvar="TRAINC_ROOT")
OPTIONS = (
    Option("runtime_paths", ("--runtimes",), "path", "TRAINC_RUNTIMES", multiple=True, allowed=_ANY_PATH),
    Option("namespace", ("-n", "--namespace"), envvar="TRAINC_NAMESPACE", default="default"),
    Option("max_input_bytes", ("--max-input-bytes",), "int", "TRAINC_MAX_INPUT_BYTES", MAX_INPUT_BYTES, allowed=0),
    Option("plugins", ("--plugin",), envvar="TRAINC_PLUGINS", multiple=True),
    Option(
        "trainer_version",
        ("--trainer-version",),
        "choice",
        "TRAINC_TRAINER_VERSION",
        releases.DEFAULT.name,
        allowed=releases.NAMES,
    ),
    Option("output_format", ("-o", "--output"), default="yaml", allowed=("yaml", "json")),
    Option("output_dir", ("--output-dir",), "path", allowed=(False, True, True)),
    Option("ssh_key_seed", ("--ssh-key-seed",), "path", "TRAINC_SSH_KEY_SEED_FILE", allowed=_ANY_PATH),
    Option("ssh_keys", ("--ssh-keys",), "choice", "TRAINC_SSH_KEYS", MODES[0], allowed=MODES),
    Option(
        "sealed_secrets_cert",
        ("--sealed-secrets-cert",),
        "path",
        "TRAINC_SEALED_SECRETS_CERT",
        allowed=(True, False, True),
    ),
    Option("ssh_key_scope", ("--ssh-key-scope",), envvar="TRAINC_SSH_KEY_SCOPE"),
    Option("require_ssh_key_seed", ("--require-ssh-key-seed",), "flag", "TRAINC_REQUIRE_SSH_KEY_SEED"),
    Option("trainer_only", ("--trainer-only",), "flag"),
    Option("include_runtimes", ("--include-runtimes",), "flag"),
    Option("allow_empty", ("--allow-empty",), "flag"),
    Option("runtime_snapshot", ("--runtime-snapshot",), "flag"),
    Option("previous", ("--previous",)),
    Option("cluster_state", ("--cluster-state",), "path", allowed=_ANY_PATH),
    Option("policy_paths", ("--policies",), "path", multiple=True, allowed=_ANY_PATH),
    Option("kueue_paths", ("--kueue",), "path", multiple=True, allowed=_ANY_PATH),
    Option("as_user", ("--as",), envvar="TRAINC_AS"),
    Option("as_groups", ("--as-group",), envvar="TRAINC_AS_GROUPS", multiple=True),
    Option("workers", ("-j", "--jobs"), "int", "TRAINC_JOBS", allowed=1),
    Option("check", ("--check",), "flag"),
)
_SPELLED = {flag: option for option in OPTIONS for flag in option.flags}
COMPLETION = "_TRAINC_COMPLETE"  # click's shell completion runs instead of the command when this is set


class Reading(Record):
    invocation: Invocation
    params: dict  # build's parameters, as click passes them
    input_limit: int  # --max-input-bytes, which is no parameter


class _Unplain(Exception):
    """The command line is click's to read."""


def run(argv: list[str], process: dict) -> bool:
    """`trainc build` run from `argv` if it is plain (then True), else nothing done (False)."""
    reading = read(argv, os.environ)
    if reading is None:
        return False
    from ..commands import Usage, echo

    try:
        call.settle(call.Call(reading.invocation, process, reading.input_limit), build, reading.params)
    except Usage:
        return False  # click reads the command line again, and says it under build's usage line
    except (EOFError, KeyboardInterrupt):  # as click's standalone mode
        echo("")
        echo("Aborted!")
        sys.exit(1)
    return True


def read(argv: list[str], environ) -> Reading | None:
    """What click would read from `argv` and `environ` for `trainc build`; None unless it is plain."""
    if environ.get(COMPLETION):
        return None
    try:
        return _read(deque(argv), environ)  # words taken from the front: O(1) each, for a long list of paths
    except _Unplain:
        return None


def verb(argv: list[str]) -> str | None:
    """The command `argv` names, read past the group's options as click reads them; None when there is none, or
    another group option comes first (click answers it: help, version)."""
    args = deque(argv)
    try:
        _group_options(args)
    except _Unplain:
        return None
    return args[0] if args else None


def _group_options(args: deque) -> str | None:
    """--root's value, if given, with the group's options taken off the front of `args` (click's group reads none
    after the command); raises _Unplain on another group option."""
    root = None
    while args and _is_option(args[0]):
        spelled, equals, value = args.popleft().partition("=")
        if spelled != "--root":
            raise _Unplain
        root = value if equals else _value(args)
    return root


def _read(args: deque, environ) -> Reading:
    for word in args:
        _utf8(word)
    root = _group_options(args)
    root_source = DEFAULT if root is None else COMMANDLINE
    if root is None and environ.get(ROOT.envvar):
        root, root_source = _utf8(environ[ROOT.envvar]), ENVIRONMENT
    if not args or args.popleft() != "build":
        raise _Unplain
    given, paths = _parsed(args)
    if not paths or "-" in paths:
        raise _Unplain
    params = {"paths": tuple(paths)}
    sources = {"paths": COMMANDLINE}
    for option in OPTIONS:
        params[option.name], sources[option.name] = _resolved(option, given.get(option.name), environ)
    limit = params.pop("max_input_bytes")
    del sources["max_input_bytes"]
    return Reading(Invocation(sources, root, root_source == COMMANDLINE), params, limit)


def _parsed(args: deque) -> tuple[dict, list[str]]:
    """Each option's values as given, in order, and the positional arguments (click takes options anywhere)."""
    given: dict[str, list] = {}
    paths = []
    while args:
        word = args.popleft()
        if word == "--":
            raise _Unplain
        if not _is_option(word):
            paths.append(word)
            continue
        if word.startswith("--"):
            spelled, equals, value = word.partition("=")
            option = _SPELLED.get(spelled)
            if option is None or (option.kind == "flag" and equals):
                raise _Unplain
            if option.kind == "flag":
                value = True
            elif not equals:
                value = _value(args)
        else:  # -xVALUE or -x VALUE: build's short options all take a value
            option = _SPELLED.get(word[:2])
            if option is None or option.kind == "flag":
                raise _Unplain
            value = word[2:] or _value(args)
        given.setdefault(option.name, []).append(value)
    return given, paths


def _resolved(option: Option, given: list | None, environ) -> tuple[object, str]:
    """The option's value and where it came from: the command line (the last, unless repeatable), else its
    variable (a list split as click splits it), else its default."""
    if given is not None:
        items, source = (given if option.multiple else given[-1:]), COMMANDLINE
    elif option.envvar and environ.get(option.envvar):
        if option.kind == "flag":  # a flag's variable is read as a boolean, in click's words: click's to read
            raise _Unplain
        value = _utf8(environ[option.envvar])
        if option.multiple:
            items = value.split(os.pathsep) if option.kind == "path" else value.split()
        else:
            items = [value]
        source = ENVIRONMENT
    else:
        return (() if option.multiple else False if option.kind == "flag" else option.default), DEFAULT
    values = tuple(_converted(option, item) for item in items)
    return (values if option.multiple else values[0]), source


def _converted(option: Option, value):
    """`value` as click's type for the option gives it, if click takes it."""
    if option.kind == "flag":
        return True
    if option.kind == "int":
        try:
            number = int(value)
        except ValueError:
            raise _Unplain from None
        if number < option.allowed:
            raise _Unplain
        return number
    if option.kind == "path":
        _path(value, *option.allowed)
    elif option.allowed is not None and value not in option.allowed:
        raise _Unplain
    return value


def _path(value: str, file_okay: bool, dir_okay: bool, readable: bool) -> None:
    """click.Path's checks of a path that exists."""
    if value == "-":
        raise _Unplain
    try:
        mode = os.stat(value).st_mode
    except OSError:
        return
    if (
        (not file_okay and stat.S_ISREG(mode))
        or (not dir_okay and stat.S_ISDIR(mode))
        or (readable and not os.access(value, os.R_OK))
    ):
        raise _Unplain


def _is_option(word: str) -> bool:
    return word[:1] == "-" and len(word) > 1


def _value(args: deque) -> str:
    """The next word as an option's value."""
    if not args or _is_option(args[0]) or args[0] == "-":
        raise _Unplain
    return args.popleft()


def _utf8(value: str) -> str:
    try:
        value.encode()
    except UnicodeEncodeError:
        raise _Unplain from None
    return value


def build(
    paths,
    runtime_paths,
    namespace,
    output_format,
    output_dir,
    ssh_key_seed,
    require_ssh_key_seed,
    trainer_only,
    include_runtimes,
    allow_empty,
    runtime_snapshot,
    previous,
    policy_paths,
    workers,
    check,
):
    """`trainc build` with its settled parameters (`call.settle`), however its command line was read."""
    from ..commands import build as flow

    call.quick_exit()
    flow.main(
        paths,
        call.options(
            ssh_key_seed=call.seed(ssh_key_seed, require_ssh_key_seed),
            trainer_only=trainer_only,
            include_runtimes=include_runtimes,
            runtime_snapshot=runtime_snapshot,
            previous=previous,
            workers=workers,
        ),
        output_format,
        allow_empty,
        check,
    )
