"""The `trainc build` contract: exit codes, exact error lines, nothing on stdout on error, determinism."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT, need
from helpers import run, trainjob, write


def assert_error(result, line: str):
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.strip() == line


def test_builds_the_example():
    result = run("build", "examples/torch-ddp.yaml", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "kind: JobSet" in result.stdout and "ownerReferences" not in result.stdout


def test_yaml_syntax_error(tmp_path):
    name = write(tmp_path, "jobs/a.yaml", trainjob() + "  bad: [unclosed\n")
    assert_error(
        run("build", name, cwd=tmp_path),
        (
            "jobs/a.yaml:12:1: invalid YAML: did not find expected ',' or ']' "
            "(while parsing a flow sequence at line 11, column 8)"
        ),
    )


def test_duplicate_key(tmp_path):
    name = write(tmp_path, "a.yaml", trainjob(extra="  trainer:\n    numNodes: 2\n    numNodes: 3\n"))
    assert_error(run("build", name, cwd=tmp_path), 'a.yaml:11:5: invalid YAML: duplicate key "numNodes"')


def test_unknown_field(tmp_path):
    name = write(tmp_path, "a.yaml", trainjob(extra="  trainer:\n    numNodez: 2\n"))
    assert_error(
        run("build", name, cwd=tmp_path), 'a.yaml:10:5: spec.trainer.numNodez: unknown field (did you mean "numNodes"?)'
    )


def test_wrong_type(tmp_path):
    name = write(tmp_path, "a.yaml", trainjob(extra="  trainer:\n    numNodes: two\n"))
    assert_error(
        run("build", name, cwd=tmp_path), "a.yaml:10:15: spec.trainer.numNodes: must be an integer, not string"
    )


def test_cel_rule(tmp_path):
    name = write(tmp_path, "a.yaml", trainjob(extra="  trainer:\n    numProcPerNode: 0\n"))
    assert_error(
        run("build", name, cwd=tmp_path),
        "a.yaml:10:21: spec.trainer.numProcPerNode: numProcPerNode must be greater than or equal to 1",
    )


def test_missing_runtime(tmp_path):
    name = write(tmp_path, "a.yaml", trainjob(runtime="nope"))
    assert_error(
        run("build", name, cwd=tmp_path),
        'a.yaml:8:11: spec.runtimeRef.name: ClusterTrainingRuntime "nope" not found; '
        "looked in the inputs, --runtimes and the bundled runtimes",
    )


def test_training_runtime_in_another_namespace(tmp_path):
    runtime = (ROOT / "runtimes/torch-distributed.yaml").read_text()
    runtime = runtime.replace("kind: ClusterTrainingRuntime", "kind: TrainingRuntime").replace(
        "  name: torch-distributed\n", "  name: mine\n  namespace: team-b\n"
    )
    write(tmp_path, "runtimes/mine.yaml", runtime)
    name = write(tmp_path, "a.yaml", trainjob(runtime="mine\n    kind: TrainingRuntime"))
    assert_error(
        run("build", name, "--runtimes", "runtimes", cwd=tmp_path),
        'a.yaml:8:11: spec.runtimeRef.name: TrainingRuntime "mine" not found in namespace "team-a" '
        "(it exists in namespace 'team-b'; a TrainingRuntime must be in the TrainJob's namespace, or use a "
        "ClusterTrainingRuntime); looked in the inputs, --runtimes and the bundled runtimes",
    )


def test_errors_from_several_files_all_reported(tmp_path):
    write(tmp_path, "in/a.yaml", trainjob(name="a", extra="  trainer:\n    numNodez: 2\n"))
    write(tmp_path, "in/b.yaml", trainjob(name="b", extra="  suspend: maybe\n"))
    result = run("build", "in", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        'in/a.yaml:10:5: spec.trainer.numNodez: unknown field (did you mean "numNodes"?)',
        "in/b.yaml:9:12: spec.suspend: must be a boolean, not string",
    ]


def test_usage_error_exits_2():
    assert run("build").returncode == 2
    assert run("frobnicate").returncode == 2


def test_unreadable_path(tmp_path):
    result = run("build", "missing.yaml", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("missing.yaml:1:1: cannot read")


def test_stdin(tmp_path):
    result = run("build", "-", stdin=trainjob())
    assert result.returncode == 0, result.stderr
    assert "name: demo" in result.stdout


def test_output_is_identical_across_runs_and_file_order(tmp_path):
    for index, name in enumerate(["zeta", "alpha", "mid"]):
        write(tmp_path, f"in/{index}-{name}.yaml", trainjob(name=name, namespace=f"ns-{2 - index}"))
    write(tmp_path, "in/sub/extra.yaml", trainjob(name="beta") + "---\n" + trainjob(name="aaa", namespace="ns-2"))
    first = run("build", "in", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = run("build", "in", cwd=tmp_path)
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "in").rglob("*.yaml"))
    reversed_order = run("build", *reversed(files), cwd=tmp_path)
    assert first.stdout == again.stdout == reversed_order.stdout
    names = [line.split(": ")[1] for line in first.stdout.splitlines() if line.startswith("  name: ")]
    assert names == ["mid", "alpha", "aaa", "zeta", "beta"]  # namespace, then name


def test_a_trainjob_defined_twice_is_reported_the_same_in_any_file_order(tmp_path):
    write(tmp_path, "a.yaml", trainjob())
    write(tmp_path, "b.yaml", trainjob())
    forward, backward = run("build", "a.yaml", "b.yaml", cwd=tmp_path), run("build", "b.yaml", "a.yaml", cwd=tmp_path)
    assert (
        forward.stderr == backward.stderr == "b.yaml:4:9: metadata.name: TrainJob team-a/demo is defined twice "
        "(first in a.yaml:4:9)\n"
    )


def test_build_takes_previous_versions_as_validate_does(tmp_path):
    """An edited TrainingRuntime is not re-checked by upstream's webhook (its ValidateUpdate admits anything),
    so `build --previous` compiles what `validate --previous` accepts."""
    runtime = (
        (ROOT / "runtimes" / "torch-distributed.yaml")
        .read_text()
        .replace("kind: ClusterTrainingRuntime", "kind: TrainingRuntime")
        .replace("name: torch-distributed", "name: mine")
    )
    edited = runtime.replace("          template:\n", "          replicas: 2\n          template:\n", 1)
    write(tmp_path, "old/runtime.yaml", runtime)
    write(tmp_path, "runtime.yaml", edited)
    write(tmp_path, "job.yaml", trainjob(namespace="default", runtime="mine", extra="    kind: TrainingRuntime\n"))
    assert run("build", "runtime.yaml", "job.yaml", cwd=tmp_path).returncode == 1  # as if created: refused
    assert run("validate", "--previous", "old", "runtime.yaml", "job.yaml", cwd=tmp_path).returncode == 0
    built = run("build", "--previous", "old", "runtime.yaml", "job.yaml", cwd=tmp_path)
    assert built.returncode == 0 and "kind: JobSet" in built.stdout
    assert run("build", "--previous", "nowhere", "job.yaml", cwd=tmp_path).returncode == 2


def test_output_dir_writes_one_file_per_trainjob(tmp_path):
    write(tmp_path, "a.yaml", trainjob(name="one") + "---\n" + trainjob(name="two", namespace="ns-b"))
    result = run("build", "a.yaml", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*")) == [
        ".trainc-manifest",
        "ns-b",
        "ns-b/two.yaml",
        "team-a",
        "team-a/one.yaml",
    ]


def test_no_partial_output_dir_on_error(tmp_path):
    write(tmp_path, "a.yaml", trainjob(name="good") + "---\n" + trainjob(name="bad", runtime="nope"))
    result = run("build", "a.yaml", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 1 and not (tmp_path / "out").exists()


def test_output_dir_is_written_whole_or_not_at_all(tmp_path):
    """A file that cannot be written (here a folder in the way) leaves no other file, staged file or folder."""
    write(tmp_path, "jobs.yaml", trainjob(name="a", namespace="aaa") + "---\n" + trainjob(name="b", namespace="bbb"))
    (tmp_path / "out" / "bbb" / "b.yaml").mkdir(parents=True)
    result = run("build", "jobs.yaml", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 1 and "Is a directory" in result.stderr
    assert sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "out").rglob("*")) == ["out/bbb", "out/bbb/b.yaml"]


def test_output_dir_never_writes_through_a_planted_staging_symlink(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    (tmp_path / "outside.txt").write_text("precious\n")
    (tmp_path / "out" / "team-a").mkdir(parents=True)
    (tmp_path / "out" / "team-a" / "demo.yaml.tmp").symlink_to("../../outside.txt")
    assert run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path).returncode == 0
    assert (tmp_path / "outside.txt").read_text() == "precious\n"
    assert "kind: JobSet" in (tmp_path / "out" / "team-a" / "demo.yaml").read_text()


def test_unwritable_stdout_is_an_error_not_a_traceback(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    need(os.path.exists("/dev/full"), "no /dev/full on this system")
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "trainc", "build", "job.yaml"],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    assert (result.returncode, result.stderr) == (1, "Error: cannot write the output: No space left on device\n")
    closed = subprocess.run(
        f"'{sys.executable}' -m trainc build job.yaml >&-",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert (closed.returncode, closed.stderr) == (1, "Error: cannot write the output: stdout is closed\n")


def test_output_is_accepted_by_kubectl_kustomize(tmp_path):
    need(shutil.which("kubectl") is not None, "kubectl (with kustomize) is not installed")
    result = run("build", str(ROOT / "examples/torch-ddp.yaml"), "--output-dir", str(tmp_path))
    (tmp_path / "kustomization.yaml").write_text("resources:\n- team-a/demo.yaml\n")
    assert subprocess.run(["kubectl", "kustomize", str(tmp_path)], capture_output=True).returncode == 0, result.stderr


def test_python_api_matches_the_cli():
    import trainc
    import trainc.build  # noqa: F401  (importing the submodule must not shadow the API)

    cli = run("build", "examples/torch-ddp.yaml", cwd=ROOT).stdout
    assert trainc.render([str(ROOT / "examples/torch-ddp.yaml")]) == cli
    assert [o["kind"] for o in trainc.objects([str(ROOT / "examples/torch-ddp.yaml")])] == ["JobSet"]
    # one path alone, as text or a Path (runtimes too), is one path: not the characters of its text
    assert (
        trainc.render(str(ROOT / "examples/torch-ddp.yaml")) == trainc.render(ROOT / "examples/torch-ddp.yaml") == cli
    )
    runtime = ROOT / "runtimes" / "torch-distributed.yaml"
    assert trainc.render([ROOT / "examples/torch-ddp.yaml"], runtimes=runtime) == cli


def test_python_api_takes_the_project_config_as_the_cli_does(tmp_path, monkeypatch):
    """The config's seed file and Trainer release: an MPI TrainJob's keys are the CLI's, and a bad
    release is refused where the config writes it."""
    import trainc
    from trainc.errors import TraincError

    (tmp_path / "seed").write_bytes(bytes(range(64)))
    (tmp_path / "seed").chmod(0o600)
    config = "namespace: team-b\nssh-key-seed: seed\ntrainer-version: v2.3\n"
    write(tmp_path, ".trainc.yaml", config)
    write(tmp_path, "job.yaml", trainjob(runtime="deepspeed-distributed"))
    cli = run("build", "job.yaml", cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.returncode == 0 and "ssh-privatekey" in cli.stdout, cli.stderr
    assert trainc.render(["job.yaml"]) == cli.stdout
    write(tmp_path, ".trainc.yaml", config.replace("v2.3", "v9"))
    with pytest.raises(TraincError, match=r"^\.trainc\.yaml:3:18: trainer-version: 'v9' is not"):
        trainc.render(["job.yaml"])


def test_active_deadline_is_enforced_by_every_job(tmp_path):
    name = write(tmp_path, "a.yaml", trainjob(extra="  activeDeadlineSeconds: 600\n"))
    result = run("build", name, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")  # no notice: the cluster enforces it now
    assert result.stdout.count("        activeDeadlineSeconds: 600\n") == 1  # the runtime's one Job (node)


def test_list_documents_are_expanded_with_exact_error_positions(tmp_path):
    items = "".join("- " + trainjob(name=n).replace("\n", "\n  ").rstrip() + "\n" for n in ("one", "two"))
    name = write(tmp_path, "list.yaml", "apiVersion: v1\nkind: List\nitems:\n" + items)
    result = run("build", name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("  name: ")] == [
        "  name: one",
        "  name: two",
    ]
    bad = write(
        tmp_path, "bad.yaml", "apiVersion: v1\nkind: List\nitems:\n" + items.replace("numNodes: 2", "numNodes: x", 2)
    )
    result = run("build", bad, cwd=tmp_path)
    assert result.stderr.splitlines() == [
        "bad.yaml:13:17: spec.trainer.numNodes: must be an integer, not string",
        "bad.yaml:23:17: spec.trainer.numNodes: must be an integer, not string",
    ]


def test_runtime_snapshot_is_opt_in(tmp_path):
    plain = run("build", "examples/torch-ddp.yaml", cwd=ROOT)
    with_snapshot = run("build", "--runtime-snapshot", "examples/torch-ddp.yaml", cwd=ROOT)
    assert with_snapshot.returncode == 0, with_snapshot.stderr
    docs = list(yaml.safe_load_all(with_snapshot.stdout))
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("ConfigMap", "demo-runtime-snapshot"),
        ("JobSet", "demo"),
    ]
    runtime = yaml.safe_load(docs[0]["data"]["runtime"])
    assert (runtime["kind"], runtime["metadata"]["name"]) == ("ClusterTrainingRuntime", "torch-distributed")
    assert runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] == 1  # as defaulted
    assert with_snapshot.stdout.endswith(plain.stdout.removeprefix("---\n"))


def test_runtime_snapshot_past_the_config_map_limit_is_an_error(tmp_path):
    env = "".join(f"                        - {{name: VARIABLE_{i:06d}, value: {'x' * 40}}}\n" for i in range(20000))
    runtime = (
        (ROOT / "runtimes" / "torch-distributed.yaml")
        .read_text()
        .replace("name: torch-distributed", "name: huge")
        .replace("runtime\n", "runtime\n                      env:\n" + env, 1)
    )
    write(tmp_path, "runtime.yaml", runtime)
    write(tmp_path, "job.yaml", trainjob(runtime="huge"))
    assert run("build", "runtime.yaml", "job.yaml", cwd=tmp_path).returncode == 0
    assert_error(
        run("build", "--runtime-snapshot", "runtime.yaml", "job.yaml", cwd=tmp_path),
        "runtime.yaml:3:1: ClusterTrainingRuntime 'huge' is too large for the --runtime-snapshot ConfigMap "
        "(1048576 bytes of data at most)",
    )


def test_python_api_renders_in_memory_objects():
    import trainc
    from trainc.errors import InputErrors

    job = yaml.safe_load(trainjob())
    (jobset,) = trainc.from_objects([job])
    assert (jobset["kind"], jobset["metadata"]["name"], jobset["metadata"]["namespace"]) == ("JobSet", "demo", "team-a")
    assert jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 2
    assert trainc.from_objects([trainjob()]) == [jobset]  # YAML text reads the same
    job["spec"]["trainer"]["numNodes"] = "two"
    try:
        trainc.from_objects([job])
    except InputErrors as error:  # positions refer to the object written out as YAML (after its `---`)
        assert error.render() == "<object 0>:11:15: spec.trainer.numNodes: must be an integer, not string"
    else:
        raise AssertionError("an invalid TrainJob compiled")


# runs `trainc ARGS...` and prints on stderr the modules the process imported
PROBE = (
    "import sys\nfrom trainc.cli import cli\ntry:\n    cli.main(sys.argv[1:], prog_name='trainc')\n"
    "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
)


def test_start_up_imports_only_what_the_command_needs():
    """One TrainJob builds without the modules of other commands, of MPI and Flux, of parallel builds, of Kueue or
    of policies; --help without the compiler."""
    unneeded = {"pydantic", "jinja2", "cryptography", "multiprocessing", "subprocess", "hashlib", "tempfile"}
    clicks = subprocess.run(
        [sys.executable, "-c", "import sys, click; print(' '.join(sys.modules))"], capture_output=True, text=True
    )  # some click releases import tempfile themselves
    unneeded -= {name.partition(".")[0] for name in clicks.stdout.split()}
    assert {"pydantic", "jinja2", "cryptography", "hashlib"} <= unneeded
    built = subprocess.run(
        [sys.executable, "-c", PROBE, "build", str(ROOT / "examples" / "torch-ddp.yaml")],
        capture_output=True,
        text=True,
    )
    loaded = {name.partition(".")[0] for name in built.stderr.split()}
    assert "kind: JobSet" in built.stdout and "trainc" in loaded and loaded & unneeded == set()
    # nor, with no Kueue object, policy or project config, the Kueue model and the policy engines; nor, for YAML
    # of the common shape (formats.blockyaml), libyaml; nor what only a parallel build, a divisor, a regular
    # expression function or a price table needs
    later = {"trainc.validation.kueue", "trainc.policy.house", "trainc.policy.vap", "trainc.formats.prices"}
    later |= {"yaml", "trainc.formats.yamltext", "pickle", "fractions", "decimal", "re2"}
    # nor a dataclass (each compiles its methods at start), the JSON reader, the position finder (errors only),
    # an update's checks, or the plugins the TrainJob's runtime does not ask for
    later |= {"dataclasses", "trainc.formats.jsontext", "trainc.formats.position", "trainc.validation.immutable"}
    later |= {"trainc.validation.jobset_update", "trainc.compiler.plugins.mpi", "trainc.compiler.plugins.flux"}
    assert later & set(built.stderr.split()) == set()
    helped = subprocess.run([sys.executable, "-c", PROBE, "--help"], capture_output=True, text=True)
    assert "build" in helped.stdout and {"yaml", "trainc.build"} & set(helped.stderr.split()) == set()


def test_a_platform_repository_of_the_common_shape_builds_without_libyaml_or_subprocess(tmp_path):
    """Issue 24: with every check on (a price table, a house rule and a ValidatingAdmissionPolicy whose rules are
    folded block scalars, Kueue's queues, the cluster's state) and a TrainJob whose script is a literal block
    scalar, a build reads all its YAML off the lines (no PyYAML) and asks git without the subprocess module."""
    case = ROOT / "golden" / "kueue-placement"
    rule = (
        "rule: >-\n      object.spec.replicatedJobs.size() > 0 &&\n        (!has(cost.hourly) || cost.hourly < 1000.0)"
    )
    (tmp_path / ".trainc.yaml").write_text(
        "prices:\n  currency: USD\n  default: {cpu: 0.03, memory: 0.004}\n"
        f"kueue-paths: [queues.yaml]\ncluster-state: state.json\npolicy-paths: [policy.yaml]\npolicies:\n"
        f"  - name: cap\n    match: {{kinds: [jobset.x-k8s.io/JobSet]}}\n    {rule}\n    message: too dear\n"
    )
    shutil.copy(case / "queues.yaml", tmp_path / "queues.yaml")
    shutil.copy(case / "cluster" / "state.json", tmp_path / "state.json")
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: nodes}\n"
        "spec:\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: [jobset.x-k8s.io], apiVersions: ['*'], "
        "operations: [CREATE], resources: [jobsets]}\n  validations:\n  - expression: >-\n      "
        "object.spec.replicatedJobs.all(j,\n        j.replicas <= 64)\n---\napiVersion: "
        "admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: nodes}\n"
        "spec: {policyName: nodes, validationActions: [Deny]}\n"
    )
    job = (case / "trainjobs.yaml").read_text().split("---\n")[0]
    job = job.replace(
        "  trainer:\n",
        "  trainer:\n    command: [bash, -c]\n    args:\n    - |\n      set -e\n"
        "      torchrun train.py \\\n        --epochs 3\n",
        1,
    )
    (tmp_path / "job.yaml").write_text(job)
    built = subprocess.run(
        [sys.executable, "-c", PROBE, "--root", str(tmp_path), "build", "job.yaml"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    loaded = set(built.stderr.split())
    assert "kind: JobSet" in built.stdout and "--epochs 3" in built.stdout, built.stderr
    assert "Kueue: " in built.stderr and "USD an hour" in built.stderr  # its standing and its cost
    assert {"trainc.policy.vap", "trainc.policy.house", "trainc.formats.prices", "trainc.validation.kueue"} <= loaded
    assert {"yaml", "trainc.formats.yamltext", "subprocess"} & loaded == set()


def test_build_declares_no_other_command():
    """Issue 24: `trainc build` imports the group, the shared options and build's declaration, never another
    command's (whose click options, built at import, were 6-7 ms of a one-TrainJob build); --help and shell
    completion import every one, to list them."""
    from trainc.cli.group import VERBS

    case = ROOT / "golden" / "plainml-torch-simple"
    built = subprocess.run(
        [sys.executable, "-c", PROBE, "build", str(case / "trainjob.yaml")], capture_output=True, text=True, cwd=ROOT
    )
    assert built.stdout == (case / "expected.out.yaml").read_text()
    declared = {name for name in built.stderr.split() if name.startswith("trainc.cli")}
    reading = {"trainc.cli", "trainc.cli.group", "trainc.cli.shared", "trainc.cli.call", "trainc.cli.plain"}
    assert declared == reading | {"trainc.cli.build"}
    every = reading | {f"trainc.cli.{verb}" for verb in VERBS}
    helped = subprocess.run([sys.executable, "-c", PROBE, "--help"], capture_output=True, text=True, cwd=ROOT)
    assert {name for name in helped.stderr.split() if name.startswith("trainc.cli")} == every
    listed = helped.stdout.partition("Commands:\n")[2].split("\n")
    assert [line.split()[0] for line in listed if line.strip()] == sorted(VERBS)
    completed = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "_TRAINC_COMPLETE": "bash_complete", "COMP_WORDS": "trainc runtimes ", "COMP_CWORD": "2"},
    )
    assert completed.stdout.split() == ["plain,list", "plain,show"]


def test_every_command_module_is_a_listed_verb():
    """A module of trainc/cli/ besides the group, the shared options, a command's call and the plain reading of
    build declares the command of its name, and the group lists it: a command cannot be written and then missing
    from --help."""
    import importlib

    import click
    from trainc.cli.group import VERBS

    names = {path.stem for path in (ROOT / "trainc" / "cli").glob("*.py")} - {
        "__init__",
        "group",
        "shared",
        "call",
        "plain",
    }
    assert names == set(VERBS)
    for verb in VERBS:
        command = getattr(importlib.import_module(f"trainc.cli.{verb}"), verb)
        assert isinstance(command, click.Command) and command.name == verb
