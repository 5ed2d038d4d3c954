"""A build on several processes writes exactly what a one-process build writes: output, notices,
errors and their order, stdout or --output-dir. TRAINC_PARALLEL_MIN_FILES=2 makes small input sets
parallel."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from conftest import GOLDEN, GOLDEN_SEED, ROOT
from helpers import bounded, checked_repository, ends

from trainc import engine, parallel
from trainc.output.manifests import dump
from trainc.errors import TraincError

SEED_FILE = str(ROOT / "tests" / "golden-ssh-seed")


def golden_inputs(root):
    """Golden cases made of one TrainJob file on bundled runtimes, each in a namespace of its own so that
    they build together: every kind of output and notice there is, spread over many files."""
    count = 0
    for case in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        files = [p for p in case.iterdir() if p.suffix in (".yaml", ".json") and p.name != "expected.out.yaml"]
        if [p.name for p in files] != ["trainjob.yaml"]:
            continue
        text = files[0].read_text()
        if re.search(r"^  namespace:", text, re.M) or "kind: TrainJob" not in text:
            continue
        namespace = case.name.replace(".", "-")
        (root / f"{case.name}.yaml").write_text(
            re.sub(r"^metadata:\n", f"metadata:\n  namespace: {namespace}\n", text, flags=re.M)
        )
        count += 1
    # passed through in input order: a ConfigMap among the first files, a runtime and a List among the last
    (root / "0-settings.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}  # kept\n"
    )
    (root / "zz-more.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: svc}}\n---\n"
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: unused}\n"
        "spec: {template: {spec: {replicatedJobs: [{name: node, template: {spec: {template: {spec: "
        "{containers: [{name: node, image: x}]}}}}}]}}}\n"
    )
    return count


def run(paths, workers, monkeypatch, **options):
    """(what the run outputs on `workers` processes, or its error), and whether it forked."""
    forked = []
    real = parallel._build
    monkeypatch.setattr(parallel, "_build", lambda *args, **kwargs: forked.append(True) or real(*args, **kwargs))
    monkeypatch.setenv("TRAINC_PARALLEL_MIN_FILES", "2")
    try:
        settings = engine.Options(
            runtime_paths=tuple(options.pop("runtimes", ())), workers=workers, ssh_key_seed=GOLDEN_SEED, **options
        )
        output = engine.run(engine.Inputs(tuple(paths)), settings).checked()
    except TraincError as error:
        return ("error", error.render()), bool(forked)
    jobs = [
        (trainjob.namespace, trainjob.name, trainjob.origin.file, dump(objects)) for trainjob, objects in output.jobs
    ]
    notices = [notice.render() for notice in output.notices]  # as printed: a worker sends them already placed
    return (
        jobs,
        notices,
        output.trainjobs,
        output.runtimes,
        output.files,
        output.inputs,
        output.others,
        output.uncompiled,
        output.runtime_inputs,
    ), bool(forked)


@pytest.fixture
def inputs(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    assert golden_inputs(root) > 40
    return root


def test_parallel_output_is_the_serial_output(inputs, monkeypatch):
    serial, forked = run([str(inputs)], 1, monkeypatch)
    assert not forked and serial[0] != "error" and len(serial[0]) > 40 and serial[1] and serial[6] and serial[8]
    assert any(".yaml:" in notice for notice in serial[1])  # notices placed at a line, found by the workers
    for workers in (2, 3):
        assert run([str(inputs)], workers, monkeypatch) == (serial, True)


def test_parallel_errors_are_the_serial_errors_in_order(inputs, monkeypatch):
    files = sorted(inputs.glob("[a-z]*.yaml"))[:-1]  # the golden TrainJobs
    # a TrainJob defined twice, in the first and the last slice
    shutil.copy(files[-1], inputs / "0-again.yaml")
    # a runtime that does not exist, early and late
    for path in (files[1], files[-3]):
        path.write_text(path.read_text().replace("runtimeRef:\n    name: ", "runtimeRef:\n    name: missing-"))
    compiled, _ = run([str(inputs)], 1, monkeypatch)
    assert compiled[0] == "error" and "defined twice" in compiled[1] and compiled[1].count("missing-") >= 2
    assert run([str(inputs)], 2, monkeypatch) == (compiled, True)
    # errors found while reading stop the build before compiling: YAML and schema errors in several files
    files[2].write_text(files[2].read_text() + "\n  bad: [\n")
    files[-2].write_text(
        files[-2]
        .read_text()
        .replace("apiVersion: trainer.kubeflow.org/v1alpha1", "apiVersion: trainer.kubeflow.org/v9")
    )
    runtime = inputs.parent / "runtime.yaml"  # read by the parent
    runtime.write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
        "metadata: {name: x}\nspec: {bogus: 1}\n"
    )
    read, _ = run([str(inputs)], 1, monkeypatch, runtimes=[str(runtime)])
    assert read[0] == "error" and "invalid YAML" in read[1] and "v9" in read[1] and "runtime.yaml:4:7" in read[1]
    assert run([str(inputs)], 2, monkeypatch, runtimes=[str(runtime)]) == (read, True)


def _cli(args, workers, **env):
    env = {**os.environ, "TRAINC_JOBS": str(workers), "TRAINC_PARALLEL_MIN_FILES": "2", **env}
    return subprocess.run([sys.executable, "-m", "trainc", "build", *args], capture_output=True, text=True, env=env)


def test_cli_parallel_stdout_and_output_dir(inputs, tmp_path):
    serial, two = (
        _cli([str(inputs), "--ssh-key-seed", SEED_FILE], 1),
        _cli([str(inputs), "--ssh-key-seed", SEED_FILE], 2),
    )
    assert serial.returncode == 0 and serial.stdout.count("kind: JobSet") > 40
    assert (two.returncode, two.stdout, two.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    trees = []
    for workers in (1, 2):
        folder = tmp_path / f"out-{workers}"
        result = _cli([str(inputs), "--ssh-key-seed", SEED_FILE, "--output-dir", str(folder)], workers)
        assert result.returncode == 0 and result.stdout == ""
        trees.append({str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()})
    assert trees[0] == trees[1] and len(trees[0]) > 40


def test_cli_parallel_errors_write_nothing(inputs, tmp_path):
    files = sorted(inputs.glob("[a-z]*.yaml"))[:-1]
    files[3].write_text(files[3].read_text().replace("runtimeRef:\n    name: ", "runtimeRef:\n    name: missing-"))
    shutil.copy(files[-1], inputs / "0-again.yaml")
    results = []
    for workers in (1, 2):
        folder = tmp_path / f"out-{workers}"
        results.append(_cli([str(inputs), "--ssh-key-seed", SEED_FILE, "--output-dir", str(folder)], workers))
        assert not folder.exists()
    assert results[0].returncode == 1 and "defined twice" in results[0].stderr and "missing-" in results[0].stderr
    assert (results[1].returncode, results[1].stdout, results[1].stderr) == (1, "", results[0].stderr)


def test_a_build_with_nothing_to_check_after_it_seeks_no_places(tmp_path, monkeypatch):
    """No check after the build speaks of TrainJobs (no queue, policy, price or config, nothing passed through):
    the workers find no ANCHORS, a cost they would pay on every TrainJob of a plain build."""
    checked_repository(tmp_path, "1000.0", "100")
    (tmp_path / "jobs" / "0-queue.yaml").unlink()
    monkeypatch.setenv("TRAINC_PARALLEL_MIN_FILES", "2")
    marks = []
    for config in ((), (str(tmp_path / ".trainc.yaml"),)):
        options = engine.Options(workers=2, config=config or None, root=str(tmp_path))
        result = engine.run(engine.Inputs((str(tmp_path / "jobs"),)), options).checked()
        marks.append([getattr(trainjob, "marks", None) for trainjob, _ in result.jobs])
    assert len(marks[0]) == 12 and set(marks[0]) == {()}
    assert all(len(found) == len(parallel.ANCHORS) for found in marks[1])


@pytest.mark.parametrize("cap, quota", [("1000.0", "100"), ("8.0", "20")], ids=["notices", "denials"])
def test_the_places_later_stages_point_at_are_found_by_the_workers(tmp_path, monkeypatch, cap, quota):
    """The cost's notices, Kueue's refusals and the house rules' denials point at each TrainJob's metadata, queue
    label or top, which the worker that compiled it placed (`parallel.ANCHORS`): the parent reads no input file
    again to print them, and prints them where a one-process build does."""
    checked_repository(tmp_path, cap, quota)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRAINC_PARALLEL_MIN_FILES", "2")
    reread = []
    real = engine.reread
    monkeypatch.setattr(engine, "reread", lambda file: reread.append(file) or real(file))
    said = []
    for workers in (1, 2):
        options = engine.Options(workers=workers, config=(str(tmp_path / ".trainc.yaml"),), root=str(tmp_path))
        result = engine.run(engine.Inputs(("jobs", "queues.yaml")), options)
        said.append([each.render() for each in [*result.errors, *result.notices]])
    assert reread == [] and said[0] == said[1]
    if cap == "8.0":
        assert sum(":7:39: metadata.labels[kueue.x-k8s.io/queue-name]: Kueue" in line for line in said[1]) == 2
        assert sum(":3:1: JobSet" in line and "denied" in line for line in said[1]) == 4  # below a comment
    else:
        assert sum(":6:3:" in line and "USD an hour" in line for line in said[1]) == 6


@pytest.mark.parametrize(
    "command, cap, status, said",
    [
        (["validate"], "8.0", 1, "house rule 'cost-cap' denied"),
        (["summary", "--format", "json"], "8.0", 1, "house rule 'cost-cap' denied"),
        (["diff", "--base", "base"], "8.0", 2, "house rule 'cost-cap' denied"),
        (["diff", "--base", "base"], "1000.0", 1, ":9:3: the JobSet webhook refuses this update of JobSet 'job-05'"),
        (["validate", "--previous", "base"], "1000.0", 1, "job-05.yaml:11:5: spec.trainer: field is immutable"),
    ],
    ids=["validate", "summary", "diff-denied", "diff", "validate-previous"],
)
def test_the_review_routes_run_on_every_core_as_build_does(tmp_path, monkeypatch, command, cap, status, said):
    """validate, summary and diff compile and check on as many processes as build (-j, TRAINC_JOBS; by default the
    available cores), with previous versions too (each worker holds them, read before it forks): what they print,
    denials and an update's refusals among it, where they point, is what one process prints."""
    from click.testing import CliRunner

    from trainc.cli import cli

    checked_repository(tmp_path, cap, "20" if cap == "8.0" else "100")  # a cap that denies, quota that refuses
    shutil.copytree(tmp_path / "jobs", tmp_path / "base")
    changed = tmp_path / "jobs" / "job-05.yaml"
    changed.write_text(changed.read_text().replace("'6'", "'7'"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRAINC_PARALLEL_MIN_FILES", "2")
    forked = []
    real = parallel._build
    monkeypatch.setattr(parallel, "_build", lambda *args, **kwargs: forked.append(1) or real(*args, **kwargs))
    printed = []
    for jobs in ("1", "2", None):
        forked.clear()
        arguments = [*command[:1], "jobs", "queues.yaml", *command[1:], *(["-j", jobs] if jobs else [])]
        result = CliRunner().invoke(cli, ["--root", str(tmp_path), *arguments])
        printed.append((result.exit_code, result.stdout, result.stderr))
        assert bool(forked) == (jobs != "1"), (jobs, forked)
    assert printed[0] == printed[1] == printed[2] and printed[0][0] == status
    assert said in printed[0][1] + printed[0][2]


@pytest.mark.parametrize("cap, quota", [("1000.0", "100"), ("8.0", "20")], ids=["notices", "denials"])
def test_one_process_places_every_message_of_a_file_reading_it_once(tmp_path, monkeypatch, cap, quota):
    """A one-process run places what its stages said file by file (the placed stage), in the texts it read: no text
    is read a second time to know it can be placed, however far apart its messages are printed (Kueue's, then the
    cost's, then the house rules'), and each message points where it did when placed as it was printed."""
    from trainc.formats import blockyaml

    checked_repository(tmp_path, cap, quota)
    monkeypatch.chdir(tmp_path)
    read = []
    real = blockyaml.documents
    monkeypatch.setattr(blockyaml, "documents", lambda text: read.append(text) or real(text))
    options = engine.Options(workers=1, config=(str(tmp_path / ".trainc.yaml"),), root=str(tmp_path))
    result = engine.run(engine.Inputs(("jobs", "queues.yaml")), options)
    said = [*result.errors, *result.notices]
    assert len(said) >= 12 and all(each.mark is not None for each in said if each.origin is not None)
    trainjobs = [text for text in read if "kind: TrainJob" in text]
    assert len(trainjobs) == 12 == len(set(trainjobs)), "a TrainJob's text read again to place its messages"
    placed = [each.render() for each in said]
    for error in result.errors:
        error.mark = None
    assert [each.render() for each in [*result.errors, *(n._replace(mark=None) for n in result.notices)]] == placed


@pytest.mark.parametrize("cap, quota", [("1000.0", "100"), ("8.0", "20")], ids=["notices", "denials"])
def test_cli_parallel_says_what_the_later_stages_say_where_one_process_says_it(tmp_path, cap, quota):
    """Kueue's, the cost's and the house rules' words on TrainJobs that a parallel build compiled point at the lines
    a one-process build points at (those TrainJobs' origins keep only their file), in the same order."""
    checked_repository(tmp_path, cap, quota)
    serial, two = (_cli([str(tmp_path / "jobs")], workers, TRAINC_ROOT=str(tmp_path)) for workers in (1, 2))
    assert (two.returncode, two.stdout, two.stderr) == (serial.returncode, serial.stdout, serial.stderr)
    said = serial.stderr.splitlines()
    if cap == "8.0":
        assert serial.returncode == 1 and sum("house rule 'cost-cap' denied" in line for line in said) >= 3
        assert sum("Kueue can never admit" in line for line in said) >= 2
    else:
        assert serial.returncode == 0 and sum("USD an hour" in line for line in said) == 12
    commented = [line for line in said if "job-01.yaml" in line or "job-03.yaml" in line]
    assert commented and not any(".yaml:1:1:" in line for line in commented), commented  # below the comment


def test_a_parallel_build_past_the_memory_bound_says_so_from_any_process(inputs):
    # wherever the address space runs out, in the parent or in a worker (mapping cel-cpp, reading, compiling), the
    # run ends with the bound's error alone: no worker's traceback, nothing written
    said = set()
    for mebibytes in range(16, 100, 6):
        done = _cli([str(inputs), "--ssh-key-seed", SEED_FILE], 2, TRAINC_RUN_MEMORY=f"{mebibytes}Mi")
        assert "Traceback" not in done.stderr and done.returncode in (0, 1), (mebibytes, done.stderr)
        if done.returncode:  # what was said before it ran out (the seed's warning, say) stands before the error
            *before, last = done.stderr.splitlines()
            assert done.stdout == "" and last.startswith("Error: the run ran out of the memory bound"), done.stderr
            assert all(line.startswith(("warning: ", "notice: ")) for line in before), done.stderr
        said.add(done.returncode)
    assert said == {0, 1}  # the range reaches from too little to enough


def test_a_build_stopped_at_its_bound_leaves_no_worker_running(inputs, tmp_path):
    # the parent ends (its time bound) while a worker compiles: the worker ends with it, saying nothing
    mark = tmp_path / "worker"
    body = f"""\
from trainc import engine, parallel
real, parent = parallel._compile, os.getpid()
def compiling(*args):
    if os.getpid() != parent:
        open({str(mark)!r}, "w").write(str(os.getpid()))
        time.sleep(30)
    return real(*args)
parallel._compile = compiling
engine.run(engine.Inputs(({str(inputs)!r},)), engine.Options(workers=2))
print("ended")
"""
    started = time.monotonic()
    done = bounded(body, TRAINC_RUN_TIMEOUT="2", TRAINC_PARALLEL_MIN_FILES="2")
    assert time.monotonic() - started < 20  # not the worker's 30 s: its end closed the run's output
    assert (done.returncode, done.stdout) == (1, "") and done.stderr.startswith(
        "Error: the run ran past the time bound (TRAINC_RUN_TIMEOUT=2 seconds)"
    ), done.stderr
    assert "Traceback" not in done.stderr
    assert ends(int(mark.read_text()))
