"""Fuzz trainc's command line in-process: seeded mutations of the golden inputs, the bundled runtimes
and rendered JobSets, through every command that reads input: `build`, `build --previous`, `diff` (a
directory base), `explain`, `fn`, `run --dry-run` (with an `--env-file`), `status` (with a
`SOURCE_DATE_EPOCH`), `gc` (live JobSets on stdin), a project config (`.trainc.yaml`, `pyproject.toml`)
under `build`, `validate` and `explain`, a Kueue cluster state (`--cluster-state`) under `validate`, `summary`
and `explain`, and the Python API (`from_objects`).

Each input gets one of three kinds of mutation: structure-aware (a field deleted, replaced, retyped or
tagged, then written back as YAML or JSON), textual (YAML syntax spliced in at a random place: tags,
anchors, escapes, tabs, indicators) or byte-level (bytes flipped, cut, repeated or inserted). An
outcome is a finding when:

- traceback: an exception other than a clean exit escaped the command;
- hang: the command ran past the time limit (signal.alarm);
- unreadable output: exit 0 with output libyaml cannot read back;
- partial output: a failing command wrote to stdout (for `fn`: anything but an empty ResourceList);
- silent failure: exit 1 with nothing on stderr (exit 2 for `diff`, whose exit 1 means changes), or an exit
  status other than 0, 1 or 2;
- unpositioned error: exit 1 with a stderr line that is not `file:line:column: field.path: message`.

    python fuzz/fuzz.py --seed 1 --count 100000        # or --seconds 3600
    python fuzz/fuzz.py --seed 7 --seconds 600 --findings /tmp/findings

Findings are written under --findings (inputs, arguments, stderr and traceback), one folder each.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import yaml
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trainc.cli import cli

SEED = (ROOT / "tests" / "golden-ssh-seed").read_bytes()
COMMANDS = (
    "build",
    "build-previous",
    "diff",
    "explain",
    "fn",
    "run-dry-run",
    "status",
    "gc",
    "config",
    "cluster-state",
    "from_objects",
)  # the last: the Python API
PLACEMENT = ROOT / "golden" / "kueue-placement"  # its queues and jobs, against a mutated --cluster-state
CONFIGS = {  # project configs to mutate, as a repository holds them (a price table too: untrusted input)
    ".trainc.yaml": "namespace: default\nruntimes: [runtimes]\nssh-key-seed: seed\nprices:\n  currency: USD\n"
    "  flavors: {a100: {nvidia.com/gpu: 2.50, cpu: 0.03}}\n  default: {cpu: 0.03, memory: 0.004}\n",
    "pyproject.toml": '[project]\nname = "app"\n\n[tool.trainc]\nnamespace = "default"\nruntimes = ["runtimes"]\n'
    '\n[tool.trainc.prices]\ncurrency = "USD"\ndefault = {cpu = 0.03, "nvidia.com/gpu" = 2.5}\n',
}
TOML_SNIPPETS = [
    "tool = 5\n",
    'tool = "trainc"\n',
    "[tool]\ntrainc = 1\n",
    "[tool.trainc.runtimes]\n",
    "namespace = 7\n",
    'runtimes = "/"\n',
    "runtimes = [[]]\n",
    '"\\ud800"',
    "[[tool.trainc]]\n",
    "\x00",
    "\xff",
    "prices = 1\n",
    "[tool.trainc.prices.default]\ncpu = -1e400\n",
    "[tool.trainc.prices.flavors.x]\n",
]
ENV_FILE = "A=1\nexport B='two words'\n# comment\nC=\"$(A)\"\n"
EPOCHS = [
    "0",
    "1700000000",
    "253402300799",
    "253402300800",
    "99999999999999999999",
    "9" * 5000,
    "-1",
    "1e9",
    "",
    "\u0661",
    " 1",
]

POOL = [
    "",
    "x",
    "node",
    "💥",
    "a\nb",
    "\x1b[31m",
    0,
    -1,
    2**31,
    2**63,
    2**70,
    1.5,
    1e308,
    True,
    None,
    [],
    {},
    [None],
    [1, "a"],
    {"name": None},
    {"a": {"b": []}},
    "1e999999999",
    "9" * 300,
    "Node",
    "-",
    "auto",
    "trainer",
    "010",
    "y",
    "12:30",
    "\ud83d",
    "\U0010ffff",
    "\u2028",
    "\x85",
    "a" * 70,
    "100m",
    "1Gi",
    "-1",
    "0x10",
    "$patch",
]
# YAML syntax spliced into text: tags, anchors, indicators and escapes on which readers disagree
SNIPPETS = [
    "# todo !\n",
    "! ",
    "!!int ",
    "!!bool ",
    "!!float ",
    "!!null ",
    "!!str ",
    "!!map ",
    "!!seq ",
    "!!binary ",
    "!custom ",
    "&a ",
    "*a",
    "<<: *a\n",
    "<<: ",
    '"\\U00110000"',
    '"\\uD83D"',
    '"\\ud83d\\ude00"',
    "\t",
    "|#",
    "|-\n",
    ">\n",
    "[n?]",
    "? ",
    "?",
    "---\n",
    "...\n",
    "%YAML 1.1\n",
    "%TAG ! tag:x,2000:\n",
    "\ufeff",
    "\x85",
    "\u2028",
    "\r",
    "{",
    "}",
    "[",
    "]",
    "'",
    '"',
    ":",
    ": ",
    "- ",
    ",",
    "#",
    "@",
    "`",
    "%",
    "\\",
    "9" * 40,
    "1e999",
    "-.inf",
    ".nan",
    "0o17",
    "0b101",
    "~",
    "null",
    "[[[[",
    "{a: ",
    "&x [*x]",
]


POSITIONED = re.compile(
    r"[^\n]+?:\d+:\d+: [^\n]+|(Error|warning|notice): [^\n]+|invalid: \d+ errors?"
)  # file:line:column: field.path: message, or about the whole run, or validate's count


class Hang(BaseException):
    """The time limit passed (a BaseException, so no `except Exception` in trainc swallows it)."""


@dataclass
class Report:
    inputs: int = 0
    outcomes: Counter = field(default_factory=Counter)
    findings: list = field(default_factory=list)


def _inputs_of(folder: Path) -> dict[str, str]:
    return {
        path.name: path.read_text()
        for path in sorted(folder.iterdir())
        if path.suffix in (".yaml", ".yml", ".json") and not path.name.startswith("expected")
    }


RUNNABLE = ("torch-cpu.yaml", "torch-ddp.yaml")  # examples whose pods have commands: `run` gets past planning
STUBS = ("torchrun", "python", "mpirun", "bash", "sh", "tune")  # on PATH for `run --dry-run`, which starts nothing


def runnable() -> list[dict[str, str]]:
    return [{name: (ROOT / "examples" / name).read_text()} for name in RUNNABLE]


def corpus() -> tuple[list[dict[str, str]], list[str]]:
    """(input sets for build and fn, JobSet texts for status)."""
    cases, jobsets = [], []
    for folder in sorted((ROOT / "golden").iterdir()):
        if (folder / "expected.out.yaml").exists():
            cases.append(_inputs_of(folder))
            for document in yaml.load_all((folder / "expected.out.yaml").read_text(), Loader=yaml.CSafeLoader):
                if isinstance(document, dict) and document.get("kind") == "JobSet" and len(jobsets) < 40:
                    document["status"] = {
                        "conditions": [{"type": "Completed", "status": "True"}],
                        "replicatedJobsStatus": [
                            {"name": "node", "ready": 1, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}
                        ],
                    }
                    jobsets.append(yaml.dump(document, Dumper=yaml.CSafeDumper))
    for path in sorted((ROOT / "runtimes").glob("*.yaml")):
        runtime = yaml.load(path.read_text(), Loader=yaml.CSafeLoader)
        trainjob = {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": "TrainJob",
            "metadata": {"name": "job"},
            "spec": {
                "runtimeRef": {"name": runtime["metadata"]["name"], "kind": runtime["kind"]},
                "trainer": {"numNodes": 2},
            },
        }
        cases.append({"runtime.yaml": path.read_text(), "trainjob.yaml": yaml.dump(trainjob, Dumper=yaml.CSafeDumper)})
    return cases, jobsets


# ---------------------------------------------------------------------------------------------------------------
# Mutations


def _paths(node, prefix=()):
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield from _paths(value, prefix + (key,))


def _structural(rng: random.Random, text: str) -> str:
    try:
        documents = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    except Exception:  # noqa: BLE001 - text PyYAML cannot load (`!!bool template`, a lone surrogate): mutate it as text
        return _textual(rng, text)
    documents = [d for d in documents if d is not None] or [{}]
    document = rng.choice(documents)
    for _ in range(rng.randint(1, 4)):
        paths = [p for p in _paths(document) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        action = rng.random()
        if action < 0.25 and isinstance(parent, dict):
            del parent[path[-1]]
        elif action < 0.35 and isinstance(parent, dict):
            parent[rng.choice(["unknown", "$patch", "name", "<<", "metadata", "items", "kind"])] = rng.choice(POOL)
        elif action < 0.45 and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[path[-1]]))
        elif action < 0.55:
            parent[path[-1]] = [parent[path[-1]]] if rng.random() < 0.5 else {"x": parent[path[-1]]}
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(POOL))
    if rng.random() < 0.2:
        return "\n".join(
            json.dumps(d, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1])) for d in documents
        )
    try:
        return yaml.dump_all(
            documents,
            Dumper=yaml.CSafeDumper,
            allow_unicode=rng.random() < 0.5,
            default_flow_style=rng.choice([False, None, True]),
        )
    except (yaml.YAMLError, ValueError):
        return text


def _textual(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text) + 1)
        if rng.random() < 0.5:  # at a value, a line start or after an indicator: where YAML syntax matters
            starts = [i + 1 for i, char in enumerate(text) if char in "\n: -[{,"] or [0]
            at = rng.choice(starts)
        text = text[:at] + rng.choice(SNIPPETS) + text[at:]
    return text


def _bytes(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        action, at = rng.random(), rng.randrange(len(data) + 1)
        if action < 0.3 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif action < 0.5:
            del data[at : at + rng.randint(1, 64)]
        elif action < 0.7:
            end = min(len(data), at + rng.randint(1, 64))
            data[at:at] = data[at:end] * rng.randint(1, 8)
        elif action < 0.9:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            del data[at:]
    return bytes(data)


def mutate(rng: random.Random, text: str) -> bytes:
    """One mutation, or a structural one followed by a textual or byte-level one (`{`-led JSON broken, …)."""
    kind = rng.random()
    if kind < 0.45:
        text = _structural(rng, text)
        if rng.random() < 0.3:
            return mutate(rng, text) if rng.random() < 0.5 else _bytes(rng, text.encode("utf-8", "surrogatepass"))
        return text.encode("utf-8", "surrogatepass")
    if kind < 0.8:
        return _textual(rng, text).encode("utf-8", "surrogatepass")
    return _bytes(rng, text.encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------------------------------------------------------
# Running and judging


def _live(jobset: str) -> str:
    """`kubectl get jobsets -A -o json` of one JobSet of the corpus, finished long ago (what `trainc gc` reads)."""
    document = yaml.load(jobset, Loader=yaml.CSafeLoader)
    document["metadata"].setdefault("namespace", "default")
    document["status"]["conditions"][0]["lastTransitionTime"] = "2020-01-01T00:00:00Z"
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [document]}, indent=1)


def _write(folder: Path, files: dict[str, bytes | str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def _config(rng: random.Random, case: dict, work: Path) -> tuple[str, list[str], bytes | None, dict]:
    """A mutated project config in `work` (the command runs there), with the case's inputs under `in/`."""
    name = rng.choice(sorted(CONFIGS))
    text = CONFIGS[name]
    if name == "pyproject.toml" and rng.random() < 0.5:
        at = rng.choice([0, text.index("[tool"), len(text)])
        data = (text[:at] + rng.choice(TOML_SNIPPETS) + text[at:]).encode("utf-8", "surrogatepass")
    else:
        data = mutate(rng, text)
    files = {name: data, **{f"in/{key}": value.encode() for key, value in case.items()}}
    _write(work / "in", {key: value.encode() for key, value in case.items()})
    _write(work / "runtimes", {})
    _write(work, {name: data, "seed": SEED})
    command = rng.choice(["build", "validate", "explain"])
    return "config", [command, "in"], None, files


def _case(rng: random.Random, cases, jobsets, work: Path) -> tuple[str, list[str], bytes | None, dict]:
    """(command, arguments, stdin, the files written) of one fuzzed input, written under `work`."""
    command = rng.choice(COMMANDS)
    if command == "status":
        text = mutate(rng, rng.choice(jobsets))
        if rng.random() < 0.5:
            return command, ["status", *(["-o", "table"] if rng.random() < 0.3 else [])], text, {"<stdin>": text}
        _write(work, {"jobset.yaml": text})
        return command, ["status", str(work / "jobset.yaml")], None, {"jobset.yaml": text}
    if command == "gc":  # mutated live JobSets on stdin, over a case's inputs as they are (never --apply)
        case = rng.choice(cases)
        _write(work / "in", case)
        text = mutate(rng, _live(rng.choice(jobsets)))
        older = rng.choice(["0s", "7d", "1d12h", "999999999d"])
        return (
            command,
            ["gc", "-o", "json", "--live", "-", "--older-than", older, str(work / "in")],
            text,
            {**case, "<stdin>": text},
        )
    if command == "cluster-state":  # what `kubectl get clusterqueues,...,workloads -A -o json` printed, mutated
        text = mutate(rng, (PLACEMENT / "cluster" / "state.json").read_text())
        _write(work, {"state.json": text})
        verb = rng.choice([["validate"], ["summary", "--format", "json"], ["explain"]])
        return (
            command,
            [
                *verb,
                str(PLACEMENT / "queues.yaml"),
                str(PLACEMENT / "trainjobs.yaml"),
                "--cluster-state",
                str(work / "state.json"),
            ],
            None,
            {"state.json": text},
        )
    case = rng.choice(runnable() if command == "run-dry-run" and rng.random() < 0.6 else cases)
    if command == "config":
        return _config(rng, case, work)
    if command == "fn":
        try:
            items = [d for text in case.values() for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d is not None]
        except yaml.YAMLError:  # a golden case of unreadable input: its text goes in as it is
            items = [
                {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "spec": "\n".join(case.values())}
            ]
        resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
        if rng.random() < 0.3:
            resource_list["functionConfig"] = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"namespace": "ns"}}
        text = mutate(rng, yaml.dump(resource_list, Dumper=yaml.CSafeDumper))
        return command, ["fn"], text, {"<stdin>": text}
    target = rng.choice(sorted(case))
    files = {name: (mutate(rng, text) if name == target else text.encode()) for name, text in case.items()}
    if command == "from_objects":  # text as str (lone surrogates kept) or bytes, as a caller may pass them
        return (
            command,
            [],
            None,
            {
                name: data.decode("utf-8", "surrogateescape") if rng.random() < 0.7 else data
                for name, data in files.items()
            },
        )
    _write(work / "in", files)
    verb = {"diff": ["diff"], "explain": ["explain"], "run-dry-run": ["run", "--dry-run"]}.get(command, ["build"])
    args = [*verb, str(work / "in")]
    runtime = next((name for name in sorted(files) if "runtime" in name), None)
    if runtime is not None and rng.random() < 0.2:  # runtimes given apart
        (work / "in" / runtime).rename(work / runtime)
        args += ["--runtimes", str(work / runtime)]
    if command == "build-previous":
        _write(work / "prev", case)
        args += ["--previous", str(work / "prev")]
    elif command == "diff":  # against the case as it was, or the other way round
        base, now = (work / "prev", work / "in") if rng.random() < 0.7 else (work / "in", work / "prev")
        _write(work / "prev", case)
        args = [
            "diff",
            "--base",
            str(base),
            str(now),
            *args[2:],
            *(["--format", "markdown"] if rng.random() < 0.3 else []),
            *(["--trainer-only"] if rng.random() < 0.2 else []),
        ]
    elif command == "run-dry-run" and rng.random() < 0.4:
        data = mutate(rng, ENV_FILE)
        _write(work, {"env": data})
        files = {**files, "env": data}
        args += ["--env-file", str(work / "env")]
    if command in ("build", "build-previous") and rng.random() < 0.2:  # one file on stdin
        return command, ["build", "-", *args[2:]], files[target], files
    return command, args, None, files


def _judge(command: str, args: list[str], result) -> str | None:
    """The finding an outcome is, if any."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return "traceback"
    if result.exit_code not in (0, 1, 2):
        return "bad-exit-status"
    if command == "diff":  # exit 1: changes (text on stdout); 2: an error (as kubectl diff)
        if result.exit_code == 2 and not result.stderr.strip():
            return "silent-failure"
        return "partial-output" if result.exit_code == 2 and result.stdout else None
    if result.exit_code == 0:
        if "table" not in args and args[:1] != ["explain"]:  # explain's lines are for people
            try:
                list(yaml.load_all(result.stdout, Loader=yaml.CSafeLoader))
            except yaml.YAMLError:
                return "unreadable-output"
        return None
    if result.exit_code == 1 and not result.stderr.strip():
        return "silent-failure"
    if result.exit_code == 1 and not all(POSITIONED.match(line) for line in result.stderr.splitlines()):
        return "unpositioned-error"
    if command == "fn" and result.exit_code == 1 and result.stdout:  # a ResourceList of results, or nothing
        try:
            (resource_list,) = yaml.load_all(result.stdout, Loader=yaml.CSafeLoader)
        except (yaml.YAMLError, ValueError):
            return "partial-output"
        return None if isinstance(resource_list, dict) and resource_list.get("items") == [] else "partial-output"
    return "partial-output" if result.stdout else None


def _from_objects(documents: list):
    """trainc.from_objects judged as a command: a TraincError is exit 1 with its lines on stderr."""
    import trainc
    from trainc.formats.serialize import dump_all as dump
    from trainc.errors import TraincError

    outcome = SimpleNamespace(exception=None, exc_info=None, exit_code=0, stdout="", stderr="")
    try:
        outcome.stdout = dump(trainc.from_objects(documents, ssh_key_seed=SEED))
    except TraincError as error:
        outcome.exit_code, outcome.stderr = 1, error.render() + "\n"
    except Exception as error:  # noqa: BLE001 - what the fuzzer looks for
        outcome.exception, outcome.exc_info, outcome.exit_code = error, sys.exc_info(), 1
    return outcome


def _alarm(signum, frame):
    raise Hang()


def run(
    seed: int,
    count: int | None = None,
    seconds: float | None = None,
    limit: int = 20,
    findings: Path | None = None,
    progress: bool = False,
) -> Report:
    """Fuzz `count` inputs (or for `seconds`) from `seed`; a finding is saved under `findings`."""
    rng, report = random.Random(seed), Report()
    cases, jobsets = corpus()
    runner = CliRunner()
    env = {"TRAINC_SSH_KEY_SEED_FILE": None, "TRAINC_RUNTIMES": None, "TRAINC_NAMESPACE": None}
    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _alarm)
    memory = Path("/dev/shm")  # files written and removed for every input: in memory where there is one
    root = Path(tempfile.mkdtemp(prefix="trainc-fuzz-", dir=memory if memory.is_dir() else None))
    seed_file = root / "seed"
    seed_file.write_bytes(SEED)
    for stub in STUBS:
        (root / "bin").mkdir(exist_ok=True)
        (root / "bin" / stub).write_text("#!/bin/sh\nexit 1\n")
        (root / "bin" / stub).chmod(0o755)
    path = f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        while (count is None or report.inputs < count) and (seconds is None or time.monotonic() - started < seconds):
            work = root / "work"
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            command, args, stdin, files = _case(rng, cases, jobsets, work)
            if (
                command not in ("status", "gc", "from_objects", "explain", "run-dry-run", "config", "cluster-state")
                and rng.random() < 0.5
            ):
                args += ["--ssh-key-seed", str(seed_file)]
            epoch = (
                rng.choice(EPOCHS)
                if command in ("status", "gc") and rng.random() < 0.3
                else "1800000000"
                if command == "gc"
                else "0"
            )
            signal.alarm(limit)
            here = os.getcwd()
            try:
                if command == "from_objects":
                    result = _from_objects(list(files.values()))
                else:
                    if command == "config":  # trainc finds the project config in the current directory
                        os.chdir(work)
                    result = runner.invoke(
                        cli,
                        args,
                        input=stdin,
                        env={**env, "SOURCE_DATE_EPOCH": epoch, "PATH": path},
                        catch_exceptions=True,
                    )
                kind = _judge(command, args, result)
                detail = result.stderr
                if kind == "traceback":
                    detail += "".join(traceback.format_exception(*result.exc_info))
            except Hang:
                kind, detail = "hang", f"over {limit} s"
            finally:
                signal.alarm(0)
                os.chdir(here)
            report.inputs += 1
            report.outcomes[(command, kind or f"exit {result.exit_code}")] += 1
            if kind is not None:
                report.findings.append((kind, args, detail))
                if findings is not None:
                    _save(findings, kind, args, stdin, files, detail, root)
            if progress and report.inputs % 1000 == 0:
                print(
                    f"{report.inputs} inputs, {len(report.findings)} findings, {time.monotonic() - started:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        signal.signal(signal.SIGALRM, previous)
        shutil.rmtree(root, ignore_errors=True)
    return report


def _save(findings: Path, kind: str, args, stdin, files, detail: str, root: Path) -> None:
    digest = hashlib.sha256(repr((args, sorted(files.items()))).encode(errors="surrogatepass")).hexdigest()[:12]
    folder = findings / f"{kind}-{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name.strip("<>")).parent.mkdir(parents=True, exist_ok=True)
        (folder / name.strip("<>")).write_bytes(data if isinstance(data, bytes) else data.encode())
    (folder / "args.json").write_text(json.dumps([str(a).replace(str(root), "WORK") for a in args]))
    (folder / "detail.txt").write_text(detail, errors="replace")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, help="inputs to run (default: until --seconds pass)")
    parser.add_argument("--seconds", type=float, help="time to run for")
    parser.add_argument("--limit", type=int, default=20, help="seconds one input may take before it is a hang")
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"), help="where findings are saved")
    options = parser.parse_args()
    if options.count is None and options.seconds is None:
        parser.error("give --count or --seconds")
    report = run(options.seed, options.count, options.seconds, options.limit, options.findings, progress=True)
    outcomes = {f"{command}: {kind}": number for (command, kind), number in sorted(report.outcomes.items())}
    print(
        json.dumps(
            {"seed": options.seed, "inputs": report.inputs, "findings": len(report.findings), "outcomes": outcomes},
            indent=1,
        )
    )
    sys.exit(1 if report.findings else 0)


if __name__ == "__main__":
    main()
