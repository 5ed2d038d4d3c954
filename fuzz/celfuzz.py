"""Fuzz trainc's CEL library (issue 22): every function trainc implements (Kubernetes' lists, regex,
quantity, URL and sets libraries), called with every CEL type and edge values (null, bytes, timestamps,
durations, optionals, uint, huge quantities, catastrophic regular expressions, lists and maps of them), as
receiver, argument, inside lists and maps and through `dyn()`.

Two ways in, each outcome classified:

- in-process: `celengine.compile` then `celengine.evaluate`, in batches run by a forked worker under an
  address-space limit; a finding is any exception other than CompileError/EvalError, a worker killed by a
  signal (the expression it was on), or an expression that runs past --stall seconds;
- through the command line: `trainc build` of a TrainJob with the expression as a ValidatingAdmissionPolicy
  (or a house rule), in a forked child with a time limit and a memory limit (the operator's run bound); a
  finding is an exit status other than 0/1, a traceback, or an error line without `file:line:col:`.

    python fuzz/celfuzz.py --seed 1 --expressions 1000000 --commands 100000
    python fuzz/celfuzz.py --seed 7 --seconds 3600 --findings /tmp/cel-findings

Prints the counts (expressions, outcomes, command runs, findings) as JSON at the end.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import select
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BIG = "quantity('1e2147483647')"
VALUES = [  # CEL literal text of every type, with edge values
    "null",
    "true",
    "false",
    "0",
    "-1",
    "9223372036854775807",
    "-9223372036854775808",
    "0u",
    "18446744073709551615u",
    "1.5",
    "-0.0",
    "1e308",
    "double('nan')",
    "double('inf')",
    "''",
    "'a'",
    "'ü'",
    "'" + "a" * 64 + "!'",
    "b''",
    "b'\\xff'",
    "timestamp('2020-01-01T00:00:00Z')",
    "timestamp('9999-12-31T23:59:59Z')",
    "duration('1s')",
    "duration('-1ns')",
    "optional.none()",
    "optional.of(1)",
    "optional.of('x')",
    "dyn(optional.none())",
    "[]",
    "[1, 2]",
    "[2, 1]",
    "[1u, 2u]",
    "[1.5, 2.5]",
    "['a', 'b']",
    "[null]",
    "[true, false]",
    "[b'a', b'b']",
    "[9223372036854775807, 1]",
    "[18446744073709551615u, 1u]",
    "[optional.none()]",
    "[1, optional.of(2)]",
    "[[1]]",
    "[{'a': 1}]",
    "[timestamp('2020-01-01T00:00:00Z')]",
    "[duration('1s'), duration('2s')]",
    "[dyn(optional.none())]",
    "{}",
    "{'a': 1}",
    "{'a': optional.none()}",
    "{'@kubernetes.Quantity': '1'}",
    "{'@kubernetes.Quantity': optional.none()}",
    "{'@kubernetes.Quantity': 1}",
    "{'@kubernetes.URL': 'https://x'}",
    "{'@kubernetes.URL': optional.none()}",
    "quantity('1')",
    "quantity('-1.5')",
    BIG,
    "quantity('1e-2147483647')",
    "quantity('1Ei')",
    "quantity('9223372036854775807')",
    "url('https://a.example:8080/p?q=1&q=2')",
    "url('/x')",
    "url('https://[::1]:80')",
    "type(1)",
    "object",
    "object.metadata",
    "object.?metadata",
    "object.spec",
    "[object.?metadata]",
    "object.metadata.name",
]
STRINGS = [  # string arguments: regular expressions, quantities, URLs
    "''",
    "'a'",
    "'(a+)+$'",
    "'('",
    "'['",
    "'\\\\'",
    "'.*'",
    "'a{1001}'",
    "'(?i)A'",
    "'\\\\p{L}+'",
    "'$'",
    "'^'",
    "'(x+x+)+y'",
    "'1'",
    "'1e2147483647'",
    "'1e-2147483647'",
    "'1Ei'",
    "'-'",
    "'1.'",
    "'abc'",
    "'" + "9" * 100 + "Ki'",
    "'0." + "1" * 1200 + "'",
    "'https://a.example/p?q=1'",
    "'/x'",
    "'https://[::1'",
    "'http://a:b@c:d/e'",
    "'" + "a" * 3000 + "!'",
    "'\\u0000'",
]
MEMBERS = [
    ("isSorted", 0),
    ("sum", 0),
    ("min", 0),
    ("max", 0),
    ("indexOf", 1),
    ("lastIndexOf", 1),
    ("find", 1),
    ("findAll", 1),
    ("findAll", 2),
    ("sign", 0),
    ("isInteger", 0),
    ("asInteger", 0),
    ("asApproximateFloat", 0),
    ("add", 1),
    ("sub", 1),
    ("isLessThan", 1),
    ("isGreaterThan", 1),
    ("compareTo", 1),
    ("getScheme", 0),
    ("getHost", 0),
    ("getHostname", 0),
    ("getPort", 0),
    ("getEscapedPath", 0),
    ("getQuery", 0),
]
GLOBALS = [
    ("quantity", 1),
    ("isQuantity", 1),
    ("url", 1),
    ("isURL", 1),
    ("sets.contains", 2),
    ("sets.equivalent", 2),
    ("sets.intersects", 2),
]
OBJECT = {
    "object": {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "labels": {"a": "b"}},
        "spec": {"list": [1, 2], "text": "a" * 100},
    }
}

RULE_SCHEMA = {
    "type": "object",
    "properties": {  # the schema of `self` when an expression is a CRD rule
        "metadata": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 63}},
            },
        },
        "spec": {
            "type": "object",
            "properties": {
                "list": {"type": "array", "items": {"type": "integer"}},
                "text": {"type": "string", "maxLength": 100},
            },
        },
    },
}


LISTS = [value for value in VALUES if value.startswith("[")]
QUANTITIES = [value for value in VALUES if "quantity(" in value or "Quantity" in value] + ["1", "-1"]
URLS = [value for value in VALUES if "url(" in value or "URL" in value]
TEXTS = [value for value in VALUES + STRINGS if value.startswith("'")]
TYPED = {
    "isSorted": LISTS,
    "sum": LISTS,
    "min": LISTS,
    "max": LISTS,
    "indexOf": LISTS,
    "lastIndexOf": LISTS,
    "find": TEXTS,
    "findAll": TEXTS,
    "getScheme": URLS,
    "getHost": URLS,
    "getHostname": URLS,
    "getPort": URLS,
    "getEscapedPath": URLS,
    "getQuery": URLS,
    "sets.contains": LISTS,
    "sets.equivalent": LISTS,
    "sets.intersects": LISTS,
    "quantity": TEXTS,
    "isQuantity": TEXTS,
    "url": TEXTS,
    "isURL": TEXTS,
}


def _argument(rng: random.Random) -> str:
    return rng.choice(STRINGS) if rng.random() < 0.4 else rng.choice(VALUES)


def _call(rng: random.Random, depth: int = 0) -> str:
    """One library call with random receiver and arguments, sometimes nested in another."""

    def operand(name=None):
        if depth < 2 and rng.random() < 0.2:
            return _call(rng, depth + 1)
        if rng.random() < 0.7:  # mostly of the type the function takes, so that most calls type-check
            return rng.choice(TYPED.get(name, QUANTITIES))
        return _argument(rng)

    if rng.random() < 0.25:
        name, count = rng.choice(GLOBALS)
        text = f"{name}({', '.join(operand(name) for _ in range(count))})"
    else:
        name, count = rng.choice(MEMBERS)
        receiver = operand(name)
        arguments = [operand(name if name not in ("find", "findAll") else "quantity") for _ in range(count)]
        if name == "findAll" and count == 2:
            arguments[1] = rng.choice(["-1", "0", "1", "2", "9223372036854775807", "1u", "'a'"])
        text = f"({receiver}).{name}({', '.join(arguments)})"
    return text


def expression(rng: random.Random) -> str:
    """A call wrapped the ways a rule holds one: alone, compared, in a list, through dyn, in a comprehension."""
    call = _call(rng)
    form = rng.randrange(7)
    if form == 0:
        return call
    if form == 1:
        return f"{call} == {rng.choice(VALUES)}"
    if form == 2:
        return f"[{call}]"
    if form == 3:
        return f"dyn({call})"
    if form == 4:
        return f"[1, 2].all(i, {call} != null)"
    if form == 5:
        return f"{call}.orValue(1)" if rng.random() < 0.5 else f"[{call}].map(x, x)"
    return f"has(object.metadata) ? {call} : {call}"


@dataclass
class Report:
    expressions: int = 0
    commands: int = 0
    outcomes: Counter = field(default_factory=Counter)
    findings: list = field(default_factory=list)


# --- in-process, in forked workers


def _rule_root():
    from trainc.k8s import celschema

    return celschema.decl(RULE_SCHEMA, root=True)


def _worker(seed: int, start: int, count: int, write: int, memory: int) -> None:
    """Evaluate expressions start..start+count of `seed`; report each index before it and the outcome counts
    at the end, on `write`."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from trainc.k8s import celcost, celengine

    root = _rule_root()
    outcomes, findings = Counter(), []
    for index in range(start, start + count):
        text = expression(random.Random(f"{seed}:{index}"))
        os.write(write, f"i {index}\n".encode())
        try:
            celengine.evaluate(celengine.compile(text, ("object",)), OBJECT)
            outcomes["ok"] += 1
        except celengine.CompileError:
            outcomes["compile error"] += 1
        except celengine.EvalError:
            outcomes["eval error"] += 1
        except BaseException as exc:  # noqa: BLE001 (any other exception is the finding)
            findings.append({"expression": text, "index": index, "error": f"{type(exc).__name__}: {exc}"[:500]})
        try:  # the same text as a CRD validation rule on `self`: its estimated cost, as `trainc build` checks it
            celcost.rule_cost(celengine.checked_ast(text.replace("object", "self"), ("self", "oldSelf")), root)
            outcomes["estimated"] += 1
        except celengine.CompileError:
            pass
        except BaseException as exc:  # noqa: BLE001
            findings.append({"rule": text, "index": index, "error": f"{type(exc).__name__}: {exc}"[:500]})
    os.write(write, ("r " + json.dumps({"outcomes": outcomes, "findings": findings}) + "\n").encode())


def in_process(
    seed: int,
    total: int,
    report: Report,
    stall: float = 20,
    batch: int = 2000,
    memory: int = 2 << 30,
    deadline: float | None = None,
    start: int = 0,
) -> None:
    """Expressions `start`..`total` of `seed`, in batches of forked workers."""
    while start < total and (deadline is None or time.monotonic() < deadline):
        count = min(batch, total - start)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                _worker(seed, start, count, write, memory)
            finally:
                os._exit(0)
        os.close(write)
        current, result, buffer = start - 1, None, b""
        while True:
            ready, _, _ = select.select([read], [], [], stall)
            if not ready:  # no progress: a hang
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(read, 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"i "):
                    current = int(line[2:])
                elif line.startswith(b"r "):
                    result = json.loads(line[2:])
        os.close(read)
        _, status = os.waitpid(pid, 0)
        if result is not None:
            report.outcomes.update(result["outcomes"])
            report.findings += result["findings"]
            report.expressions += count
            start += count
            continue
        text = expression(random.Random(f"{seed}:{current}"))
        kind = (
            "hang" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL else f"crash (status {status})"
        )
        report.findings.append({"expression": text, "index": current, "error": kind})
        report.expressions += current - start + 1
        start = current + 1  # go on after the expression that failed


# --- through the command line

POLICY = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: fuzz}}
spec:
  failurePolicy: {failure}
  matchConstraints:
    resourceRules: [{{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: ["*"]}}]
  variables: [{{name: v, expression: {variable}}}]
  validations: [{{expression: {validation}}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: fuzz}}
spec: {{policyName: fuzz, validationActions: [Deny]}}
"""
TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: demo, namespace: team-a}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 1, image: registry.example.com/train:1}
"""


def _command_files(rng: random.Random, folder: Path) -> list[str]:
    first, second = expression(rng), expression(rng)
    (folder / "job.yaml").write_text(TRAINJOB)
    if rng.random() < 0.15:  # a CRD among the inputs, the expressions its rule and messageExpression
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [
                    {
                        "name": "v1",
                        "served": True,
                        "storage": True,
                        "schema": {
                            "openAPIV3Schema": {
                                **RULE_SCHEMA,
                                "x-kubernetes-validations": [
                                    {
                                        "rule": first.replace("object", "self"),
                                        "messageExpression": second.replace("object", "self"),
                                    }
                                ],
                            }
                        },
                    }
                ],
            },
        }
        (folder / "crd.yaml").write_text(json.dumps(crd))
        return ["job.yaml", "crd.yaml"]
    if rng.random() < 0.3:  # a house rule in the project config
        (folder / ".trainc.yaml").write_text(
            "policies:\n  - name: fuzz\n    match: {kinds: [JobSet]}\n    rule: "
            + json.dumps(f"{first} != null")
            + "\n"
        )
        return ["job.yaml"]
    (folder / "policy.yaml").write_text(
        POLICY.format(
            failure=rng.choice(["Fail", "Ignore"]),
            variable=json.dumps(first),
            validation=json.dumps(f"variables.v != {second}"),
        )
    )
    return ["job.yaml", "policy.yaml"]


class ForkServer:
    """Command runs through the CLI, cheaply: this process has trainc loaded and has run one build (the bundled
    runtimes and schemas read, as a long-running sidecar worker has them), then forks a child per run. The
    child enters the console script (`trainc.cli.main`) with the run's argv in a scratch folder, under
    RLIMIT_AS and RLIMIT_CPU; this parent holds the wall-time limit and classifies what the child did. One run
    in `bounded_every` keeps the operator's run bound on (the console script's own supervisor, a second fork)."""

    def __init__(self, folder: Path, timeout: float = 30, memory: int = 1 << 30, bounded_every: int = 10):
        self.folder, self.timeout, self.memory, self.bounded_every = folder, timeout, memory, bounded_every
        folder.mkdir(parents=True, exist_ok=True)
        self._warm()

    def _warm(self) -> None:
        import contextlib
        import io

        import trainc.cli

        self._clear()
        (self.folder / "job.yaml").write_text(TRAINJOB)
        (self.folder / "policy.yaml").write_text(
            POLICY.format(failure="Fail", variable='"1"', validation='"variables.v == 1"')
        )
        here = os.getcwd()
        os.chdir(self.folder)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                status = trainc.cli.cli.main(
                    args=["build", "job.yaml", "policy.yaml"], prog_name="trainc", standalone_mode=False
                )
        except SystemExit as done:
            status = done.code
        finally:
            os.chdir(here)
        assert status in (None, 0), f"the warm-up build failed ({status})"
        gc.freeze()  # a child's collections then leave the parent's objects (and their pages) alone

    def _clear(self) -> None:
        for name in os.listdir(self.folder):
            os.unlink(self.folder / name)

    def run(self, write, bounded: bool) -> tuple[int | str, str]:
        """(exit status, or "hang" or "signal NAME"; stderr) of `trainc <arguments>`, where `write(folder)`
        puts the run's files in the scratch folder and returns its arguments."""
        self._clear()
        arguments = write(self.folder)
        err = self.folder.parent / (self.folder.name + ".err")
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:
            self._child(arguments, err, bounded)
        handle = os.pidfd_open(pid)
        try:
            ready, _, _ = select.select([handle], [], [], self.timeout)
        finally:
            os.close(handle)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        stderr = err.read_text(errors="replace")
        if not ready:
            return "hang", stderr
        if os.WIFSIGNALED(status):
            return f"signal {signal.Signals(os.WTERMSIG(status)).name}", stderr
        return os.WEXITSTATUS(status), stderr

    def _child(self, arguments: list[str], err: Path, bounded: bool) -> None:
        try:
            os.chdir(self.folder)
            for number, path in ((1, os.devnull), (2, err)):
                handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(handle, number)
                os.close(handle)
            if bounded:  # the operator's bound, as the sidecar sets it: the console script supervises the run
                os.environ.update({"TRAINC_RUN_TIMEOUT": str(self.timeout), "TRAINC_RUN_MEMORY": str(self.memory)})
            else:  # this server bounds the run itself
                os.environ.update({"TRAINC_RUN_TIMEOUT": "0", "TRAINC_RUN_MEMORY": "0"})
                resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
                cpu = int(self.timeout) + 1
                resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            sys.argv = ["trainc", *arguments]
            from trainc.cli import main

            main()
            os._exit(0)
        except SystemExit as done:
            os._exit(done.code if isinstance(done.code, int) else 1)
        except BaseException:  # noqa: BLE001 (a traceback is the finding)
            import traceback

            traceback.print_exc()
            os._exit(99)


POSITIONED = ("job.yaml:", "policy.yaml:", ".trainc.yaml:", "crd.yaml:", "Error:", "warning:", "notice:", "  ", "\t")


def command(server: ForkServer, seed: int, index: int, report: Report) -> None:
    """One `trainc build` of a TrainJob with generated expressions as a policy or a house rule; a finding is an
    exit status other than 0/1, a signal, a hang, a traceback, an unpositioned error line, or the run bound
    reached."""
    rng = random.Random(f"{seed}:cli:{index}")
    bounded = server.bounded_every and index % server.bounded_every == 0
    code, stderr = server.run(lambda folder: ["build", *_command_files(rng, folder)], bounded)
    report.commands += 1
    report.outcomes[f"command exit {code}"] += 1
    bad = (
        code not in (0, 1)
        or "Traceback" in stderr
        or (code == 1 and not all(not line or line.startswith(POSITIONED) for line in stderr.splitlines()))
    )
    if bad or "ran past the time bound" in stderr or "memory" in stderr and "bound" in stderr:
        report.findings.append(
            {
                "command": index,
                "seed": seed,
                "bounded": bool(bounded),
                "files": {name: (server.folder / name).read_text() for name in sorted(os.listdir(server.folder))},
                "exit": code,
                "stderr": stderr[-2000:],
            }
        )


def run(
    seed: int, expressions: int, commands: int, seconds: float | None = None, timeout: float = 30, progress=None
) -> Report:
    """`expressions` in-process and `commands` command runs of `seed`, interleaved in rounds (so a run cut
    short by `seconds` has done some of each); `timeout`: the wall time of one command run, and of one
    expression in-process; `progress(report)` after every round."""
    # loaded once, before the forks, as a long-running server has them
    import trainc.build
    import trainc.policy.vap  # noqa: F401

    report = Report()
    deadline = None if seconds is None else time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as scratch:
        server = ForkServer(Path(scratch) / "run", timeout=timeout)
        batch = 2000
        per_round = max(1, -(-commands * batch // max(expressions, 1)))
        done = 0
        while (report.expressions < expressions or done < commands) and (
            deadline is None or time.monotonic() < deadline
        ):
            in_process(
                seed,
                min(report.expressions + batch, expressions),
                report,
                stall=timeout,
                deadline=deadline,
                start=report.expressions,
            )
            for index in range(done, min(done + per_round, commands)):
                if deadline is not None and time.monotonic() > deadline:
                    break
                command(server, seed, index, report)
                done += 1
            if progress:
                progress(report)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--expressions", type=int, default=100000)
    parser.add_argument("--commands", type=int, default=1000)
    parser.add_argument("--seconds", type=float, help="stop after this long, whatever is left")
    parser.add_argument("--timeout", type=float, default=30, help="seconds one command run or expression may take")
    parser.add_argument(
        "--findings", type=Path, help="a folder for findings-SEED.json and counts-SEED.json, written after every round"
    )
    options = parser.parse_args()
    started = time.monotonic()

    def summary(report: Report) -> dict:
        return {
            "seed": options.seed,
            "expressions": report.expressions,
            "commands": report.commands,
            "outcomes": dict(report.outcomes),
            "findings": len(report.findings),
            "seconds": round(time.monotonic() - started),
        }

    def progress(report: Report) -> None:
        if options.findings:
            options.findings.mkdir(parents=True, exist_ok=True)
            for name, data in (
                (f"findings-{options.seed}.json", report.findings),
                (f"counts-{options.seed}.json", summary(report)),
            ):
                (options.findings / (name + ".new")).write_text(json.dumps(data, indent=1))
                os.replace(options.findings / (name + ".new"), options.findings / name)

    report = run(options.seed, options.expressions, options.commands, options.seconds, options.timeout, progress)
    progress(report)
    print(json.dumps(summary(report)))
    sys.exit(1 if report.findings else 0)


if __name__ == "__main__":
    main()
