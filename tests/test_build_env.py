"""What an Argo CD plugin relies on: the seed read only for MPI jobs, and settings from the environment."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import GOLDEN, GOLDEN_SEED, ROOT
from helpers import trainjob, write

MPI_CASE = GOLDEN / "mpi-env-order"


def mpi_inputs() -> list[str]:
    return [str(p) for p in sorted(MPI_CASE.glob("*.yaml")) if not p.name.endswith(".out.yaml")]


def run(*args, cwd=None, **env):
    clean = {key: value for key, value in os.environ.items() if not key.startswith("TRAINC_")}
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
    )


def test_a_missing_seed_does_not_matter_without_an_mpi_job(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    result = run(
        "build", "job.yaml", "--require-ssh-key-seed", cwd=tmp_path, TRAINC_SSH_KEY_SEED_FILE="/var/run/trainc/seed"
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "kind: JobSet" in result.stdout


def test_a_missing_seed_is_an_error_for_the_mpi_job_naming_its_source():
    from_env = run("build", *mpi_inputs(), TRAINC_SSH_KEY_SEED_FILE="/var/run/trainc/seed")
    assert (from_env.returncode, from_env.stdout) == (1, "")
    trainjob_file = next(p for p in mpi_inputs() if "trainjob" in p)
    assert from_env.stderr == (
        f"{trainjob_file}:4:1: default/env: MPI SSH keys need the seed, and /var/run/trainc/seed (from "
        "TRAINC_SSH_KEY_SEED_FILE) cannot be read: No such file or directory (see docs/guides/mpi.md)\n"
    )
    from_flag = run("build", *mpi_inputs(), "--ssh-key-seed", "/nowhere/seed")
    assert from_flag.returncode == 1
    assert "/nowhere/seed (from --ssh-key-seed) cannot be read: No such file or directory" in from_flag.stderr


def test_a_short_seed_is_an_error_without_echoing_it(tmp_path):
    seed = tmp_path / "seed"
    seed.write_bytes(b"hunter2")
    seed.chmod(0o600)
    result = run("build", *mpi_inputs(), "--ssh-key-seed", str(seed))
    assert result.returncode == 1 and "hunter2" not in result.stderr
    assert result.stderr.endswith(
        f"{seed} (from --ssh-key-seed) cannot be used: seed is 7 bytes; at least 32 are "
        "required (see docs/guides/mpi.md)\n"
    )


def test_require_ssh_key_seed_refuses_a_random_key():
    for args, env in ((("--require-ssh-key-seed",), {}), ((), {"TRAINC_REQUIRE_SSH_KEY_SEED": "1"})):
        result = run("build", *mpi_inputs(), *args, **env)
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr.endswith(
            "default/env: MPI SSH keys need the seed, and none is configured "
            "(--require-ssh-key-seed): pass --ssh-key-seed FILE or set "
            "TRAINC_SSH_KEY_SEED_FILE (see docs/guides/mpi.md)\n"
        )
    random = run("build", *mpi_inputs())
    assert random.returncode == 0 and "is random" in random.stderr


def test_a_seed_others_can_read_is_warned_about(tmp_path):
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(0o644)
    result = run("build", *mpi_inputs(), TRAINC_SSH_KEY_SEED_FILE=str(seed))
    assert result.returncode == 0
    assert result.stdout == (MPI_CASE / "expected.out.yaml").read_text()
    assert result.stderr == (
        f"warning: the SSH key seed {seed} (from TRAINC_SSH_KEY_SEED_FILE) is readable by group "
        "or others (mode 0644); anyone who can read it can derive every MPI job's private key: "
        f"chmod 600 {seed}\n"
    )
    seed.chmod(0o600)
    assert run("build", *mpi_inputs(), "--ssh-key-seed", str(seed)).stderr == ""


def test_namespace_and_runtimes_from_the_environment(tmp_path):
    write(tmp_path, "job.yaml", trainjob().replace("  namespace: team-a\n", ""))
    custom = (GOLDEN / "audit-jobset-passthrough-defaults" / "runtime.yaml").read_text()
    write(tmp_path, "one/runtime.yaml", custom)
    write(tmp_path, "two/other.yaml", custom.replace("name: ", "name: other-", 1))
    runtime_name = next(line.split()[-1] for line in custom.splitlines() if line.startswith("  name:"))
    write(
        tmp_path,
        "uses.yaml",
        trainjob(name="uses", runtime=runtime_name)
        + "---\n"
        + trainjob(name="uses-other", runtime=f"other-{runtime_name}"),
    )
    result = run(
        "build",
        "job.yaml",
        "uses.yaml",
        cwd=tmp_path,
        TRAINC_NAMESPACE="from-env",
        TRAINC_RUNTIMES=os.pathsep.join(["one", "two"]),
    )
    assert result.returncode == 0, result.stderr
    assert "namespace: from-env" in result.stdout
    assert "kind: ClusterTrainingRuntime" not in result.stdout  # --runtimes never pass through
    assert "name: uses-other" in result.stdout
    without = run("build", "uses.yaml", cwd=tmp_path, TRAINC_RUNTIMES="one")
    assert without.returncode == 1 and f"other-{runtime_name}" in without.stderr
    flag = run("build", "job.yaml", "-n", "from-flag", cwd=tmp_path, TRAINC_NAMESPACE="from-env")
    assert "namespace: from-flag" in flag.stdout
