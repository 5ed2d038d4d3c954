"""trainc.authoring: the function a pod runs, through `trainc run`, is the source given, byte for byte.

`hostile` holds what bash's unquoted heredoc (the SDK's) rewrites or cuts short:
`$HOME`, `${PATH}`, `$(id)`, backticks, backslashes, quotes, lines reading `EOM` and
`TRAINC_EOF` (the default delimiter), trailing blanks, a tab and non-ASCII text.
Run, it copies the file it was started from (`__file__`) to `out` and prints a marker.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from conftest import need
from helpers import environment, has_torch, status_of

import trainc
import trainc.errors
from trainc import authoring


def hostile(out):
    """Bash would rewrite all of this: $HOME ${PATH} $(id) `whoami` \\ \\n ' " — ünïcödé ✓ 日本語"""
    text = """
EOM
TRAINC_EOF
  trailing blanks   
	a tab, then $HOME `id` $$ \\$ \\\\
"""
    import os
    import pathlib

    name = f"{out}-{os.environ.get('RANK', '0')}.py"
    pathlib.Path(name).write_bytes(pathlib.Path(__file__).read_bytes())
    print("marker: $HOME `whoami` $(id) \\ ünï", len(text))


MARKER = "marker: $HOME `whoami` $(id) \\ ünï 70"


def run(tmp_path, trainjob: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "trainjob.yaml"
    path.write_text(authoring.to_yaml(trainjob), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "trainc", "run", str(path)],
        capture_output=True,
        env=environment(),
        cwd=tmp_path,
        timeout=120,
    )


def test_hostile_source_runs_byte_for_byte(tmp_path):
    """A runtime without an ML policy runs `python` on the file: the file is the source plus the call."""
    out = str(tmp_path / "ran")
    trainjob = authoring.custom_trainer(hostile, name="hostile", func_args={"out": out}, runtime="torch-simple")
    result = run(tmp_path, trainjob)
    assert result.returncode == 0, (result.stdout + result.stderr).decode()
    expected = authoring.function_code(hostile, {"out": out})
    assert (tmp_path / "ran-0.py").read_text(encoding="utf-8") == expected
    assert expected.startswith(__import__("inspect").getsource(hostile))
    assert f"hostile-node-0-0 | {MARKER}\n".encode() in result.stdout


def test_torchrun_ranks_run_the_same_bytes(tmp_path):
    """torch-distributed: 2 nodes x 1 process under real torchrun; each rank's file is the source."""
    need(has_torch(), "torch not installed (pip install torch==2.13.0)")
    out = str(tmp_path / "ran")
    trainjob = authoring.custom_trainer(
        hostile, name="hostile", func_args={"out": out}, num_nodes=2, resources_per_node={"CPU": 1}
    )
    assert trainjob["spec"]["trainer"]["command"][:2] == ["bash", "-c"]
    assert trainjob["spec"]["trainer"]["command"][2].endswith('exec torchrun "$TRAINC_CODE_DIR"/hostile.py\n')
    result = run(tmp_path, trainjob)
    assert result.returncode == 0, (result.stdout + result.stderr).decode()
    expected = authoring.function_code(hostile, {"out": out})
    assert [(tmp_path / f"ran-{rank}.py").read_text(encoding="utf-8") for rank in range(2)] == [expected] * 2
    assert result.stdout.count(MARKER.encode()) == 2
    assert status_of(result.stdout.decode())["conditions"][0]["type"] == "Complete"


def train(lr):
    print(lr)


def test_sdk_shape_compiles():
    """Fields as the SDK's CustomTrainer sets them; MPI runs the script under mpirun, pip installs --user."""
    trainjob = authoring.custom_trainer(
        train,
        name="mpi",
        namespace="team-a",
        func_args={"lr": 0.1},
        runtime="deepspeed-distributed",
        num_nodes=2,
        resources_per_node={"GPU": 1, "memory": "8Gi"},
        env={"MODE": "fast"},
        image="my/img:1",
        packages_to_install=["deepspeed>=0.14", "transformers"],
        pip_index_urls=("https://pypi.org/simple", "https://example.com/simple"),
    )
    trainer = trainjob["spec"]["trainer"]
    assert trainjob["metadata"] == {"name": "mpi", "namespace": "team-a"}
    assert trainjob["spec"]["runtimeRef"] == {"kind": "ClusterTrainingRuntime", "name": "deepspeed-distributed"}
    assert trainer["resourcesPerNode"] == {
        "requests": {"memory": "8Gi", "nvidia.com/gpu": 1},
        "limits": {"memory": "8Gi", "nvidia.com/gpu": 1},
    }
    assert trainer["env"] == [{"name": "MODE", "value": "fast"}]
    assert trainer["command"][:5] == ["mpirun", "--hostfile", "/etc/mpi/hostfile", "bash", "-c"]
    script = trainer["command"][5]
    assert (
        "--index-url https://pypi.org/simple --extra-index-url https://example.com/simple --user "
        "'deepspeed>=0.14' transformers\n"
    ) in script
    assert script.endswith("train(**{'lr': 0.1})\nTRAINC_EOF\nexec python \"$TRAINC_CODE_DIR\"/train.py\n")
    assert yaml.safe_load(authoring.to_yaml(trainjob)) == trainjob
    [*_, jobset] = trainc.from_objects([trainjob], ssh_key_seed=b"\0" * 32)
    launcher = jobset["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert launcher["command"] == trainer["command"]


def test_unknown_runtime_is_an_error():
    with pytest.raises(trainc.errors.TraincError, match="ClusterTrainingRuntime 'nope' not found"):
        authoring.custom_trainer(train, name="x", runtime="nope")


def test_wrong_argument_types_are_named_at_once():
    with pytest.raises(trainc.errors.TraincError) as raised:
        authoring.custom_trainer(train, name="x", num_nodes=0, env={"A": 1}, func_args={"model": object()})
    assert raised.value.render().splitlines() == [
        "custom_trainer.func_args.model: input was not a valid JSON value",
        "custom_trainer.num_nodes: Input should be greater than or equal to 1",
        "custom_trainer.env.A: Input should be a valid string",
    ]
