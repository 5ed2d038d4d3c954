"""`trainc runtimes`: the listing's exact text, shadowing, `show`, and its errors."""

from __future__ import annotations

import yaml
from helpers import RUNTIME, run, write

BUNDLED = """\
KIND                    NAMESPACE  NAME                             POLICY         SOURCE   USED
ClusterTrainingRuntime  -          deepspeed                        MPI (OpenMPI)  bundled  yes
ClusterTrainingRuntime  -          deepspeed-distributed            MPI (OpenMPI)  bundled  yes
ClusterTrainingRuntime  -          flux-distributed                 Flux           bundled  yes
ClusterTrainingRuntime  -          jax-distributed                  JAX            bundled  yes
ClusterTrainingRuntime  -          mlx-distributed                  MPI (OpenMPI)  bundled  yes
ClusterTrainingRuntime  -          torch-distributed                Torch          bundled  yes
ClusterTrainingRuntime  -          torch-distributed-single-worker  PlainML        bundled  yes
ClusterTrainingRuntime  -          torch-distributed-with-cache     Torch          bundled  yes
ClusterTrainingRuntime  -          torch-simple                     PlainML        bundled  yes
ClusterTrainingRuntime  -          torch-tune-gemma-7b              PlainML        bundled  yes
ClusterTrainingRuntime  -          torch-tune-llama-7b              PlainML        bundled  yes
ClusterTrainingRuntime  -          torchtune-llama3.2-1b            Torch          bundled  yes
ClusterTrainingRuntime  -          torchtune-llama3.2-3b            Torch          bundled  yes
ClusterTrainingRuntime  -          torchtune-qwen2.5-1.5b           Torch          bundled  yes
ClusterTrainingRuntime  -          xgboost-distributed              XGBoost        bundled  yes
"""


def ok(result) -> str:
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout


def test_bundled_listing(tmp_path):
    assert ok(run("runtimes", cwd=tmp_path)) == BUNDLED
    assert ok(run("runtimes", "list", cwd=tmp_path)) == BUNDLED


def test_a_user_runtime_shadows_the_bundled_one_of_its_kind_and_name(tmp_path):
    text = (
        RUNTIME.format(name="torch-distributed", policy="torch: {}")
        + "---\n"
        + RUNTIME.format(name="torch-distributed", policy="mpi: {}").replace(
            "ClusterTrainingRuntime", "TrainingRuntime"
        )
    )
    write(tmp_path, "platform/runtimes.yaml", text)
    write(tmp_path, "jobs/job.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    listing = ok(run("runtimes", "list", "jobs", "--runtimes", "platform", "-n", "team-a", cwd=tmp_path))
    assert [line for line in listing.splitlines() if " torch-distributed " in line] == [
        "ClusterTrainingRuntime  -          torch-distributed                Torch          "
        "platform/runtimes.yaml:1   yes",
        "ClusterTrainingRuntime  -          torch-distributed                Torch          "
        "bundled                    no: shadowed by platform/runtimes.yaml:1",
        "TrainingRuntime         team-a     torch-distributed                MPI (OpenMPI)  "
        "platform/runtimes.yaml:13  yes",
    ]
    shown = yaml.safe_load(
        ok(run("runtimes", "show", "team-a/torch-distributed", "--runtimes", "platform", "-n", "team-a", cwd=tmp_path))
    )
    assert shown["kind"] == "TrainingRuntime" and shown["spec"]["mlPolicy"]["mpi"]["numProcPerNode"] == 1  # defaulted
    ambiguous = run("runtimes", "show", "torch-distributed", "--runtimes", "platform", cwd=tmp_path)
    assert (ambiguous.returncode, ambiguous.stdout) == (1, "")
    assert ambiguous.stderr == (
        '"torch-distributed" names 2 runtimes: ClusterTrainingRuntime torch-distributed (platform/runtimes.yaml:1), '
        "TrainingRuntime default/torch-distributed (platform/runtimes.yaml:13); choose one with --kind or "
        "NAMESPACE/NAME\n"
    )
    shown = yaml.safe_load(
        ok(
            run(
                "runtimes",
                "show",
                "torch-distributed",
                "--kind",
                "ClusterTrainingRuntime",
                "--runtimes",
                "platform",
                cwd=tmp_path,
            )
        )
    )
    assert shown["spec"]["mlPolicy"] == {"torch": {}}


def test_show_prints_the_bundled_runtime_as_defaulted(tmp_path):
    shown = yaml.safe_load(ok(run("runtimes", "show", "torch-distributed", cwd=tmp_path)))
    assert shown["metadata"]["name"] == "torch-distributed"
    assert shown["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] == 1  # the CRD default: not in the file


def test_show_names_the_closest_runtimes(tmp_path):
    result = run("runtimes", "show", "torch-distribute", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        'runtime "torch-distribute" not found; `trainc runtimes list` lists them; did you mean "torch-distributed"?\n'
    )


def test_bad_runtime_input_is_an_error(tmp_path):
    write(tmp_path, "r.yaml", RUNTIME.format(name="mine", policy="numNode: 1"))
    result = run("runtimes", "list", "r.yaml", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == 'r.yaml:6:14: spec.mlPolicy.numNode: unknown field (did you mean "numNodes"?)\n'
