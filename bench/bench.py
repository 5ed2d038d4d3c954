"""Benchmark `trainc build` end to end on a generated, realistic set of TrainJobs.

Generates N TrainJobs (fixed seed, so every run compiles the same inputs) spread
over namespace/group subdirectories of a temporary directory, mixing the bundled
torch-distributed, torch-simple and torch-distributed-single-worker runtimes
with two user runtimes shipped among the inputs. Then times, each as a
subprocess and best of --repeat runs:

- `trainc build DIR` (stdout captured), reported as jobs/s and ms/job, and the
  same on a single TrainJob, which shows the fixed cost of a run;
- `kubectl kustomize` re-emitting the JobSets (trainc's output split one object
  per file plus a kustomization.yaml), skipped when kubectl is absent;
- start-up: `trainc --help`, plus `python -X importtime` totals of its imports.

Writes only inside a temporary directory. Usage: python bench/bench.py [--jobs N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = 2170
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
        lines += [f"      - name: {name}", f"        value: \"{rng.choice(values)}\""]
    if rng.random() < 0.2:
        lines += [
            "      - name: HF_TOKEN",
            "        valueFrom:",
            "          secretKeyRef: {name: hf-credentials, key: token}",
        ]
    return ["    env:", *lines] if lines else []


def _resources_yaml(rng: random.Random) -> list[str]:
    lines = ["    resourcesPerNode:", "      requests:", f"        cpu: \"{rng.choice(CPUS)}\"",
             f"        memory: {rng.choice(MEMORY)}"]
    if rng.random() < 0.4:
        lines += ["      limits:", f"        nvidia.com/gpu: {rng.choice([1, 2, 4, 8])}"]
    return lines


def trainjob(rng: random.Random, index: int) -> tuple[str, str, str]:
    """(namespace, name, YAML) of the index-th TrainJob."""
    namespace = rng.choice(NAMESPACES)
    draw = rng.random()
    trainer = []
    if draw < 0.60:
        runtime, kind, prefix = "torch-distributed", "ClusterTrainingRuntime", "ddp"
        trainer += [f"    numNodes: {rng.choice([1, 1, 1, 2, 2, 4, 8, 16])}", f"    image: {rng.choice(IMAGES)}",
                    "    command: [torchrun, train.py]", f"    args: [--epochs, \"{rng.randint(1, 20)}\"]"]
        if rng.random() < 0.15:
            trainer.append(f"    numProcPerNode: {rng.choice([1, 2, 4])}")
        trainer += _resources_yaml(rng) + _env_yaml(rng)
    elif draw < 0.75:
        runtime, kind, prefix = "torch-simple", "ClusterTrainingRuntime", "simple"
        trainer += [f"    args: [--lr, \"{rng.choice(['0.1', '0.01'])}\"]"] + _env_yaml(rng)
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
        "spec:",
        *(["  suspend: true"] if rng.random() < 0.1 else []),
        "  runtimeRef:",
        f"    kind: {kind}",
        f"    name: {runtime}",
        "  trainer:" if trainer else "  trainer: {}",
        *trainer,
    ]
    return namespace, name, "\n".join(lines) + "\n"


def generate(root: Path, jobs: int, seed: int) -> int:
    """Write the inputs under root; returns the number of files written."""
    rng = random.Random(seed)
    (root / "runtimes").mkdir(parents=True)
    (root / "runtimes" / "plain.yaml").write_text(PLAIN_RUNTIME)
    for namespace in TEAM_RUNTIME_NAMESPACES:
        (root / "runtimes" / f"team-torch-{namespace}.yaml").write_text(TEAM_RUNTIME.format(namespace=namespace))
    files = 1 + len(TEAM_RUNTIME_NAMESPACES)
    for index in range(jobs):
        namespace, name, text = trainjob(rng, index)
        folder = root / "jobs" / namespace / f"group-{index % GROUPS}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.yaml").write_text(text)
        files += 1
    return files


def timed(command: list[str], repeat: int, **kwargs) -> tuple[list[float], subprocess.CompletedProcess]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, **kwargs)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return times, result


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


def import_times() -> tuple[float, list[tuple[str, float]]] | None:
    """Total import time of `python -m trainc --help` and its slowest top-level imports (ms).

    Runs this Python, so it needs trainc importable here (None when it is not).
    """
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "trainc", "--help"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return None
    top = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        _, cumulative, package = line[len("import time:"):].split("|")
        if not package.startswith("  "):  # nesting is shown as indentation; top level has one space
            top.append((package.strip(), int(cumulative) / 1000))
    return sum(ms for _, ms in top), sorted(top, key=lambda item: -item[1])[:5]


def trainc_command(given: str | None) -> list[str]:
    if given:
        return [given]
    beside = Path(sys.executable).with_name("trainc")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("trainc")
    return [found] if found else [sys.executable, "-m", "trainc"]


def row(label: str, times: list[float], jobs: int | None = None) -> str:
    best, median = min(times), statistics.median(times)
    extra = f"{best * 1000 / jobs:8.3f} ms/job {jobs / best:9.0f} jobs/s" if jobs else ""
    return f"{label:<38} {best:8.3f} s {median:8.3f} s   {extra}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1000, help="TrainJobs to generate (default 1000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement; the best counts (default 5)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"generator seed (default {SEED})")
    parser.add_argument("--trainc", help="trainc executable (default: the one beside this Python, else PATH)")
    parser.add_argument("--keep", action="store_true", help="keep the generated directory and print its path")
    options = parser.parse_args()

    trainc = trainc_command(options.trainc)
    work = Path(tempfile.mkdtemp(prefix="trainc-bench-"))
    try:
        inputs = work / "inputs"
        files = generate(inputs, options.jobs, options.seed)
        build_times, built = timed([*trainc, "build", str(inputs)], options.repeat)
        objects = split_for_kustomize(built.stdout, work / "kustomize")
        if objects != options.jobs:
            sys.exit(f"expected {options.jobs} objects from trainc, got {objects}")
        generate(work / "one", 1, options.seed)
        one_times, _ = timed([*trainc, "build", str(work / "one")], options.repeat)
        help_times, _ = timed([*trainc, "--help"], options.repeat)
        imports = import_times()

        print(f"trainc benchmark: {options.jobs} TrainJobs in {files} files under {len(NAMESPACES)} namespaces x "
              f"{GROUPS} groups (seed {options.seed}), best of {options.repeat}, {os.cpu_count()} CPUs")
        print(f"{'step':<38} {'best':>10} {'median':>10}")
        print(row("trainc build DIR", build_times, options.jobs))
        if shutil.which("kubectl"):
            kustomize_times, rendered = timed(["kubectl", "kustomize", str(work / "kustomize")], options.repeat)
            if rendered.stdout.count("kind: JobSet") != options.jobs:
                sys.exit("kubectl kustomize did not re-emit every JobSet")
            print(row(f"kubectl kustomize ({objects} JobSets)", kustomize_times, options.jobs))
        else:
            print("kubectl kustomize: skipped (kubectl not on PATH)")
        print(row("trainc build, 1 TrainJob (fixed cost)", one_times))
        print(row("trainc --help (start-up)", help_times))
        if imports is None:
            print(f"  imports (-X importtime): skipped (trainc is not importable by {sys.executable})")
        else:
            total, slowest = imports
            print(f"{'  imports (-X importtime)':<38} {total / 1000:8.3f} s   slowest: "
                  + ", ".join(f"{name} {ms:.0f} ms" for name, ms in slowest))
        print(f"output: {len(built.stdout) / 1e6:.1f} MB of YAML, {objects} objects")
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
