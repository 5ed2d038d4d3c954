"""Benchmark `trainc build` end to end on generated, realistic TrainJobs, as the goals of issue 24 set them.

Generates TrainJobs (fixed seed, so every run compiles the same inputs) spread over namespace/group
subdirectories of a temporary directory, mixing the bundled torch-distributed, torch-simple and
torch-distributed-single-worker runtimes with two user runtimes shipped among the inputs. Then runs
each command as a subprocess, interleaved with what it is compared to, --repeat times, and reports
the best and median wall time and CPU time (user + system of the command and its children) of each,
and these figures against their goals (GOALS), with the commit they ran on:

- one TrainJob: `trainc build` against `kubectl kustomize` on the JobSet it renders (goal <= 1.5);
- --jobs TrainJobs (1000): `trainc build` against the floor, `bench/floor.py`, a bare Python process
  that loads the inputs and dumps trainc's output objects with libyaml (goal <= 0.5), and against
  `kubectl kustomize` re-emitting the JobSets (goal <= 0.15);
- --large TrainJobs (10000) against --jobs: time and peak RSS (goal <= 10 for 10x the TrainJobs), and the
  peak RSS of the build to stdout and with --output-dir (goal <= 120 MB), from getrusage(RUSAGE_CHILDREN);
- --huge TrainJobs (e.g. 100000; default none): time, peak RSS and time per TrainJob against --large;
- start-up: `trainc --help`, the `python -X importtime` total of a one-TrainJob build's imports, and the
  floor under any one-TrainJob build: trainc's Python starting and importing only cel-cpp (its CEL; a plain
  build command line is read without click);
- the same with every check a platform repository turns on (checks.py), and the checks' budget: their CPU a
  TrainJob, what the floor goal leaves them, and the floor under them, cel-cpp alone evaluating their programs
  (`bench/celfloor.py`).

Python runs with bytecode caching on (in a folder of the temporary directory), as an installed trainc
has its .pyc files, whatever PYTHONDONTWRITEBYTECODE says. Writes only inside the temporary directory.
Usage: python bench/bench.py [--jobs N] [--large N] [--huge N] [--repeat R]
"""

from __future__ import annotations

import argparse
import marshal
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))
import checks  # noqa: E402  (checks.py beside this file: every check of a platform repository)

SEED = 2170
GOALS = {"one": 1.5, "floor": 0.5, "kustomize": 0.15, "growth": 10, "rss": 120}  # issue 24
NAMESPACES = [f"team-{n:02d}" for n in range(10)]
TEAM_RUNTIME_NAMESPACES = NAMESPACES[:2]  # namespaces holding the user TrainingRuntime
GROUPS = 5  # subdirectories per namespace

TEAM_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: team-torch
  namespace: {namespace}
spec:
  mlPolicy:
    numNodes: 2
    torch:
      envInjection:
        targets:
          - jobName: node
            containerNames: [preflight]
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  initContainers:
                    - name: preflight
                      image: busybox:1.36
                      command: [sh, -c, "nslookup $PET_MASTER_ADDR"]
                  containers:
                    - name: node
                      image: registry.{namespace}.example/torch:2.5
                      env:
                        - name: NCCL_DEBUG
                          value: WARN
                      resources:
                        requests:
                          cpu: "4"
                          memory: 16Gi
                      volumeMounts:
                        - name: scratch
                          mountPath: /scratch
                  volumes:
                    - name: scratch
                      emptyDir: {{}}
"""

PLAIN_RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: bench-plain-launcher
spec:
  mlPolicy:
    numNodes: 2
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: python:3.12-slim
                      command: [python, -m, launcher]
                      env:
                        - name: WORLD_SIZE_FROM
                          value: jobset
"""

ENV_POOL = [
    ("LEARNING_RATE", ["1e-4", "3e-4", "5e-5"]),
    ("BATCH_SIZE", ["16", "32", "64", "128"]),
    ("EPOCHS", ["1", "3", "10"]),
    ("WANDB_PROJECT", ["vision", "nlp", "speech"]),
    ("NCCL_DEBUG", ["INFO", "WARN"]),
    ("OMP_NUM_THREADS", ["1", "4", "8"]),
    ("HF_HOME", ["/cache/hf"]),
]
IMAGES = [
    "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime",
    "ghcr.io/example/trainer:1.4",
    "ghcr.io/example/trainer:1.5",
]
CPUS = ["500m", "1", "2", "2.5", "4", "8", "16"]
MEMORY = ["2Gi", "8Gi", "16Gi", "64Gi"]


def _env_yaml(rng: random.Random) -> list[str]:
    lines = []
    for name, values in rng.sample(ENV_POOL, rng.randint(0, 5)):
        lines += [f"      - name: {name}", f'        value: "{rng.choice(values)}"']
    if rng.random() < 0.2:
        lines += [
            "      - name: HF_TOKEN",
            "        valueFrom:",
            "          secretKeyRef: {name: hf-credentials, key: token}",
        ]
    return ["    env:", *lines] if lines else []


def _resources_yaml(rng: random.Random) -> list[str]:
    lines = [
        "    resourcesPerNode:",
        "      requests:",
        f'        cpu: "{rng.choice(CPUS)}"',
        f"        memory: {rng.choice(MEMORY)}",
    ]
    if rng.random() < 0.4:
        lines += ["      limits:", f"        nvidia.com/gpu: {rng.choice([1, 2, 4, 8])}"]
    return lines


def trainjob(rng: random.Random, index: int, labels=None) -> tuple[str, str, str]:
    """(namespace, name, YAML) of the index-th TrainJob; `labels(index)` gives its metadata's label lines."""
    namespace = rng.choice(NAMESPACES)
    draw = rng.random()
    trainer = []
    if draw < 0.60:
        runtime, kind, prefix = "torch-distributed", "ClusterTrainingRuntime", "ddp"
        trainer += [
            f"    numNodes: {rng.choice([1, 1, 1, 2, 2, 4, 8, 16])}",
            f"    image: {rng.choice(IMAGES)}",
            "    command: [torchrun, train.py]",
            f'    args: [--epochs, "{rng.randint(1, 20)}"]',
        ]
        if rng.random() < 0.15:
            trainer.append(f"    numProcPerNode: {rng.choice([1, 2, 4])}")
        trainer += _resources_yaml(rng) + _env_yaml(rng)
    elif draw < 0.75:
        runtime, kind, prefix = "torch-simple", "ClusterTrainingRuntime", "simple"
        trainer += [f'    args: [--lr, "{rng.choice(["0.1", "0.01"])}"]'] + _env_yaml(rng)
    elif draw < 0.85:
        runtime, kind, prefix = "torch-distributed-single-worker", "ClusterTrainingRuntime", "single"
        trainer += _resources_yaml(rng) + _env_yaml(rng)
    elif draw < 0.93:
        runtime, kind, prefix = "bench-plain-launcher", "ClusterTrainingRuntime", "plain"
        trainer += [f"    numNodes: {rng.choice([1, 2, 3])}"] + _env_yaml(rng)
    else:
        namespace = rng.choice(TEAM_RUNTIME_NAMESPACES)
        runtime, kind, prefix = "team-torch", "TrainingRuntime", "team"
        trainer += [f"    numNodes: {rng.choice([2, 4])}"] + _env_yaml(rng)
    name = f"{prefix}-{index:05d}"
    lines = [
        "apiVersion: trainer.kubeflow.org/v1alpha1",
        "kind: TrainJob",
        "metadata:",
        f"  name: {name}",
        f"  namespace: {namespace}",
        *(labels(index) if labels else []),
        "spec:",
        *(["  suspend: true"] if rng.random() < 0.1 else []),
        "  runtimeRef:",
        f"    kind: {kind}",
        f"    name: {runtime}",
        "  trainer:" if trainer else "  trainer: {}",
        *trainer,
    ]
    return namespace, name, "\n".join(lines) + "\n"


def generate(root: Path, jobs: int, seed: int, labels=None) -> int:
    """Write the inputs under root (each TrainJob's labels by `labels`, as `trainjob` takes it); returns the
    number of files written."""
    rng = random.Random(seed)
    (root / "runtimes").mkdir(parents=True)
    (root / "runtimes" / "plain.yaml").write_text(PLAIN_RUNTIME)
    for namespace in TEAM_RUNTIME_NAMESPACES:
        (root / "runtimes" / f"team-torch-{namespace}.yaml").write_text(TEAM_RUNTIME.format(namespace=namespace))
    files = 1 + len(TEAM_RUNTIME_NAMESPACES)
    for index in range(jobs):
        namespace, name, text = trainjob(rng, index, labels)
        folder = root / "jobs" / namespace / f"group-{index % GROUPS}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.yaml").write_text(text)
        files += 1
    return files


def run(command: list[str], env: dict, **kwargs) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, CPU s of it and its children, result); exits when the command fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env, **kwargs)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, result


class Times:
    """The wall and CPU times of a command's runs: the best counts, the median shows the spread."""

    def __init__(self):
        self.walls, self.cpus = [], []

    def __getitem__(self, index: int) -> float:  # 0: best wall, 1: best CPU
        return min((self.walls, self.cpus)[index])

    def median(self, index: int) -> float:
        return statistics.median((self.walls, self.cpus)[index])


def interleaved(commands: dict[str, list[str]], repeat: int, env: dict) -> dict[str, Times]:
    """The times of each command, run in turn `repeat` times so that load on the machine hits them alike."""
    times = {name: Times() for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            wall, cpu, _ = run(command, env)
            times[name].walls.append(wall)
            times[name].cpus.append(cpu)
    return times


def peak_rss_mb(command: list[str], env: dict) -> float:
    """Peak resident memory of `command` and every process it started, in MB (a fresh process measures it,
    since RUSAGE_CHILDREN keeps the largest child it ever had)."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    result = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-4000:]}")
    return int(result.stdout) / 1024  # KB on Linux


def split_for_kustomize(stream: str, folder: Path) -> int:
    """One file per emitted object plus a kustomization.yaml listing them; returns the object count."""
    folder.mkdir()
    documents = [doc for doc in stream.split("---\n") if doc.strip()]
    names = []
    for number, document in enumerate(documents):
        names.append(f"obj-{number:05d}.yaml")
        (folder / names[-1]).write_text(document)
    (folder / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        + "".join(f"- {name}\n" for name in names)
    )
    return len(documents)


def import_times(env: dict, one: Path) -> tuple[float, list[tuple[str, float]]] | None:
    """Total import time of `python -m trainc build ONE` and its slowest top-level imports (ms).

    Runs this Python, so it needs trainc importable here (None when it is not).
    """
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "trainc", "build", str(one)], capture_output=True, text=True, env=env
    )
    if result.returncode != 0:
        return None
    top = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        _, cumulative, package = line[len("import time:") :].split("|")
        if not package.startswith("  "):  # nesting is shown as indentation; top level has one space
            top.append((package.strip(), int(cumulative) / 1000))
    return sum(ms for _, ms in top), sorted(top, key=lambda item: -item[1])[:5]


def cel_floor(trainc: list[str], repository: Path, objects: Path, repeat: int, env: dict) -> tuple[float, int, int]:
    """(best CPU seconds, evaluations, objects) of `celfloor.py`: cel-cpp alone evaluating the checked repository's
    programs on the checked build's output objects, in trainc's Python."""
    script = str(Path(__file__).with_name("celfloor.py"))
    command = [interpreter(trainc), script, str(repository), str(objects), str(repeat)]
    seconds, evaluations, count = subprocess.run(
        command, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(seconds), int(evaluations), int(count)


def budget(main_build: dict, cel: tuple[float, int, int], jobs: int) -> str:
    """The checks' CPU a TrainJob, what the floor goal leaves them (its wall time on the cores the plain build
    keeps busy, less the plain build's CPU) and cel-cpp's own share: why the goal is or is not in reach."""
    plain_wall, plain_cpu = main_build["trainc"][0], main_build["trainc"][1]
    cores = plain_cpu / plain_wall
    left = GOALS["floor"] * main_build["floor"][0] * cores - plain_cpu
    spent = main_build["checked"][1] - plain_cpu
    seconds, evaluations, objects = cel
    leaves = (
        f"the floor goal leaves them {left / jobs * 1e6:.0f} us"
        if left > 0
        else "the plain build alone misses the floor goal"
    )
    return (
        f"{'  the checks, CPU a TrainJob':<44} {spent / jobs * 1e6:8.0f} us  ({leaves} on the {cores:.2f} "
        "cores the plain build keeps busy;\n"
        f"{'':<44} {'':8}     cel-cpp alone takes {seconds / jobs * 1e6:.0f} us: {evaluations} evaluations of "
        f"{objects} objects, bench/celfloor.py)"
    )


def trainc_command(given: str | None) -> list[str]:
    if given:
        return [given]
    beside = Path(sys.executable).with_name("trainc")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("trainc")
    return [found] if found else [sys.executable, "-m", "trainc"]


def interpreter(trainc: list[str]) -> str:
    """The Python that runs `trainc`: its script's `#!` line, else this one."""
    try:
        with open(trainc[0], "rb") as script:
            first = script.readline()
    except OSError:
        return sys.executable
    return first[2:].decode().split()[0] if first.startswith(b"#!") else sys.executable


def row(label: str, times: Times, jobs: int | None = None) -> str:
    wall = times[0]
    extra = f"{wall * 1000 / jobs:8.3f} ms/job {jobs / wall:9.0f} jobs/s" if jobs else ""
    return f"{label:<44} {wall:8.3f} {times.median(0):8.3f} s {times[1]:8.3f} {times.median(1):8.3f} s   {extra}"


def against(label: str, mine: Times, theirs: Times, goal: float) -> str:
    """`ratio` of the best wall times of two commands, with that of their best CPU times beside."""
    return ratio(label, mine[0] / theirs[0], goal, cpu=mine[1] / theirs[1])


def ratio(label: str, value: float, goal: float, unit: str = "x", cpu: float | None = None) -> str:
    beside = f"   CPU {cpu:.2f} {unit}" if cpu is not None else ""
    return (
        f"{label:<44} {value:8.2f} {unit:<3} (goal <= {goal:g} {unit}: {'met' if value <= goal else 'NOT met'}){beside}"
    )


def commit() -> str:
    """The commit of the checkout this benchmark is in, `+changes` when its trainc/ differs from it."""
    here = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--", "trainc"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return head + (" +changes" if changed else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000, help="TrainJobs of the main build (default 1000)")
    parser.add_argument("--large", type=int, default=10000, help="TrainJobs of the large build (default 10000)")
    parser.add_argument(
        "--huge", type=int, default=0, help="TrainJobs of a build measured once (e.g. 100000; default none)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best counts (default 5)")
    parser.add_argument(
        "--workloads",
        type=int,
        default=2,
        help="Workloads per namespace in the checked repository's cluster state, half of those past two pending "
        "(default 2: 20 in all; a large cluster holds thousands)",
    )
    parser.add_argument(
        "--configmaps",
        type=int,
        default=0,
        help="ConfigMaps passed through in the checked repository's inputs, admitted beside the TrainJobs (default 0)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"generator seed (default {SEED})")
    parser.add_argument("--trainc", help="trainc executable (default: the one beside this Python, else PATH)")
    parser.add_argument("--keep", action="store_true", help="keep the generated directory and print its path")
    options = parser.parse_args()
    if not shutil.which("kubectl"):
        sys.exit("kubectl is not on PATH: the one-TrainJob ratio compares with kubectl kustomize")

    trainc = trainc_command(options.trainc)
    work = Path(tempfile.mkdtemp(prefix="trainc-bench-"))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    try:
        one, inputs, large, huge = work / "one", work / "inputs", work / "large", work / "huge"
        generate(one, 1, options.seed)
        files = generate(inputs, options.jobs, options.seed)
        generate(large, options.large, options.seed)
        if options.huge:
            generate(huge, options.huge, options.seed)
        checked = {}  # the same TrainJobs in a repository that turns every check on (checks.py)
        for label, jobs in (("one", 1), ("main", options.jobs), ("large", options.large)):
            checked[label] = work / f"checked-{label}"
            generate(checked[label] / "inputs", jobs, options.seed, checks.label)
            checks.write(checked[label], NAMESPACES, options.workloads, options.configmaps)
        run([*trainc, "--help"], env)  # writes the bytecode caches
        _, _, single = run([*trainc, "build", str(one)], env)
        split_for_kustomize(single.stdout, work / "kustomize-one")
        _, _, built = run([*trainc, "build", str(inputs)], env)
        objects = split_for_kustomize(built.stdout, work / "kustomize")
        if objects != options.jobs:
            sys.exit(f"expected {options.jobs} objects from trainc, got {objects}")
        (work / "objects.marshal").write_bytes(
            marshal.dumps(list(yaml.load_all(built.stdout, Loader=yaml.CSafeLoader)))
        )
        floor = [sys.executable, str(Path(__file__).with_name("floor.py")), str(inputs), str(work / "objects.marshal")]

        def every_check(label: str) -> list[str]:
            return [*trainc, "--root", str(checked[label]), "build", str(checked[label] / "inputs")]

        small = interleaved(
            {
                "trainc": [*trainc, "build", str(one)],
                "checked": every_check("one"),
                "kustomize": ["kubectl", "kustomize", str(work / "kustomize-one")],
                "help": [*trainc, "--help"],
                "start": [interpreter(trainc), "-c", "import cel_expr_python.cel"],
            },
            options.repeat,
            env,
        )
        main_build = interleaved(
            {
                "trainc": [*trainc, "build", str(inputs)],
                "floor": floor,
                "one core": [*trainc, "build", "--jobs", "1", str(inputs)],
                "kustomize": ["kubectl", "kustomize", str(work / "kustomize")],
                "checked": every_check("main"),
            },
            options.repeat,
            env,
        )
        large_build = interleaved(
            {"trainc": [*trainc, "build", str(large)], "small": [*trainc, "build", str(inputs)]},
            max(1, options.repeat // 2),
            env,
        )
        rss_small = peak_rss_mb([*trainc, "build", str(inputs)], env)
        rss_stdout = peak_rss_mb([*trainc, "build", str(large)], env)
        rss_dir = peak_rss_mb([*trainc, "build", str(large), "--output-dir", str(work / "rendered")], env)
        rss_checked = peak_rss_mb(every_check("large"), env)
        if options.huge:
            huge_build = interleaved({"trainc": [*trainc, "build", str(huge)]}, 1, env)["trainc"]
            rss_huge = peak_rss_mb([*trainc, "build", str(huge)], env)
        imports = import_times(env, one)
        _, _, checked_main = run(every_check("main"), env)
        (work / "checked.marshal").write_bytes(
            marshal.dumps(list(yaml.load_all(checked_main.stdout, Loader=yaml.CSafeLoader)))
        )
        cel = cel_floor(trainc, checked["main"], work / "checked.marshal", options.repeat, env)

        print(
            f"trainc benchmark on commit {commit()}: {options.jobs} TrainJobs in {files} files under "
            f"{len(NAMESPACES)} namespaces x {GROUPS} groups (seed {options.seed}), large build {options.large}, "
            f"{len(NAMESPACES) * options.workloads} Workloads in the checked cluster state"
            f"{f', {options.configmaps} ConfigMaps beside its TrainJobs' if options.configmaps else ''}"
            f"{f', huge build {options.huge}' if options.huge else ''}; best and median of {options.repeat}, "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; bytecode cached"
        )
        print(f"{'step':<44} {'wall best  median':>19} {'CPU best  median':>19}")
        print(row("trainc build, 1 TrainJob", small["trainc"]))
        print(row("  with every check (checks.py)", small["checked"]))
        print(row("kubectl kustomize, its JobSet", small["kustomize"]))
        print(row("trainc --help (start-up)", small["help"]))
        print(row("Python importing cel-cpp only", small["start"]))
        print(row(f"trainc build, {options.jobs} TrainJobs", main_build["trainc"], options.jobs))
        print(row("  with every check (checks.py)", main_build["checked"], options.jobs))
        print(row(f"trainc build --jobs 1, {options.jobs} TrainJobs", main_build["one core"], options.jobs))
        print(row(f"floor (libyaml load + dump), {options.jobs}", main_build["floor"], options.jobs))
        print(row(f"kubectl kustomize, {objects} JobSets", main_build["kustomize"], options.jobs))
        print(row(f"trainc build, {options.large} TrainJobs", large_build["trainc"], options.large))
        if options.huge:
            print(row(f"trainc build, {options.huge} TrainJobs (once)", huge_build, options.huge))
        if imports is not None:
            total, slowest = imports
            print(
                f"{'  imports of 1 TrainJob (-X importtime)':<44} {total / 1000:8.3f} s   slowest: "
                + ", ".join(f"{name} {ms:.0f} ms" for name, ms in slowest)
            )
        print("figures (wall, best of each; CPU beside) against the goals of issue 24:")
        print(against("1 TrainJob / kubectl kustomize", small["trainc"], small["kustomize"], GOALS["one"]))
        start = small["start"][0] / small["kustomize"][0]
        print(f"{'  its floor: Python, cel-cpp':<44} {start:8.2f} x   (no trainc code run at all)")
        print(against(f"{options.jobs} TrainJobs / floor", main_build["trainc"], main_build["floor"], GOALS["floor"]))
        print(
            against(
                f"{options.jobs} TrainJobs / kubectl kustomize",
                main_build["trainc"],
                main_build["kustomize"],
                GOALS["kustomize"],
            )
        )
        scale = options.large / options.jobs / 10
        print(
            against(
                f"{options.large} / {options.jobs} TrainJobs, time",
                large_build["trainc"],
                large_build["small"],
                GOALS["growth"] * scale,
            )
        )
        print(
            ratio(
                f"{options.large} / {options.jobs} TrainJobs, peak RSS", rss_stdout / rss_small, GOALS["growth"] * scale
            )
        )
        print(ratio(f"peak RSS, {options.large} TrainJobs to stdout", rss_stdout, GOALS["rss"], "MB"))
        print(ratio(f"peak RSS, {options.large} TrainJobs --output-dir", rss_dir, GOALS["rss"], "MB"))
        print("the same with every check a platform repository turns on (policies, Kueue, placement, cost):")
        print(against("1 TrainJob / kubectl kustomize", small["checked"], small["kustomize"], GOALS["one"]))
        print(against(f"{options.jobs} TrainJobs / floor", main_build["checked"], main_build["floor"], GOALS["floor"]))
        print(
            against(
                f"{options.jobs} TrainJobs / kubectl kustomize",
                main_build["checked"],
                main_build["kustomize"],
                GOALS["kustomize"],
            )
        )
        print(ratio(f"peak RSS, {options.large} TrainJobs to stdout", rss_checked, GOALS["rss"], "MB"))
        print(budget(main_build, cel, options.jobs))
        if options.huge:
            per_large, per_huge = large_build["trainc"][0] / options.large, huge_build[0] / options.huge
            print(
                f"{f'{options.huge} TrainJobs':<44} {huge_build[0]:8.1f} s, peak RSS {rss_huge:.1f} MB, "
                f"{per_huge / per_large:.2f}x the time per TrainJob of {options.large}"
            )
        print(f"output: {len(built.stdout) / 1e6:.1f} MB of YAML, {objects} objects")
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
