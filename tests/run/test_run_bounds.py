"""`trainc run` is bounded and confined: a cap on local pods, every pod that cannot start a clean exit 1 (never a
hang), and nothing written outside the run's directory; item paths the API server refuses are refused in
admission by every command (issue 15, Found 3 and 4)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from trainc.run.execute import Runner
from trainc.run.plan import Container, Job, Plan, Pod

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: demo
spec:
  runtimeRef:
    name: mine
  trainer:
    numNodes: {nodes}
"""
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: mine
spec:
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
{volumes}                  containers:
                    - name: node
                      image: python:3.12
                      command: [{python}, -c, "import os; print(os.environ.get('X', 'none'))"]
{mounts}"""


def write(tmp_path, nodes=1, volumes="", mounts="", extra="") -> str:
    path = tmp_path / "job.yaml"
    runtime = RUNTIME.format(
        volumes=textwrap.indent(volumes, " " * 18), mounts=textwrap.indent(mounts, " " * 22), python=sys.executable
    )
    path.write_text(TRAINJOB.format(nodes=nodes) + "---\n" + runtime + extra)
    return str(path)


def trainc(*args, cwd=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "trainc", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=timeout
    )


@pytest.mark.parametrize("group", [[], ["--root", "."], ["--root=."]])
def test_trainc_run_is_never_held_by_the_run_bound(tmp_path, group):
    # the run bound (TRAINC_RUN_TIMEOUT, TRAINC_RUN_MEMORY) would hold the user's training and every process it
    # starts: `trainc run` is left unbounded, however the group's options come before it
    path = write(tmp_path)
    env = {**os.environ, "TRAINC_RUN_TIMEOUT": "0.001"}
    done = subprocess.run(
        [sys.executable, "-m", "trainc", *group, "run", "--dry-run", path],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and "ran past the time bound" not in done.stderr, done.stderr
    # `--root run` names a directory: no command is named, and the bound holds
    bounded = subprocess.run(
        [sys.executable, "-m", "trainc", "--root", "run", "--dry-run", path], capture_output=True, text=True, env=env
    )
    assert bounded.returncode == 1 and "ran past the time bound (TRAINC_RUN_TIMEOUT=0.001 seconds)" in bounded.stderr


def test_a_huge_node_count_is_refused_at_once_with_the_cap_named(tmp_path):
    started = time.perf_counter()
    result = trainc("run", "--dry-run", write(tmp_path, nodes=2147483647))
    assert time.perf_counter() - started < 20  # listing 2**31 pods took 10 GB and minutes
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"{tmp_path / 'job.yaml'}:1:1: the JobSet has 2147483647 pods (node 1 × 2147483647): trainc run starts at "
        "most 64 pods here, one process or more each (--max-pods N raises the cap)\n"
    )


def test_max_pods_moves_the_cap(tmp_path):
    path = write(tmp_path, nodes=3)
    assert "at most 2 pods" in trainc("run", "--dry-run", "--max-pods", "2", path).stderr
    result = trainc("run", "--dry-run", "--max-pods", "3", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("pod: demo-node-0-") == 3


def test_an_env_value_holding_a_nul_is_an_error_before_any_pod_starts(tmp_path):
    (tmp_path / "env").write_bytes(b"X=a\0b\n")
    result = trainc("run", write(tmp_path), "--env-file", tmp_path / "env")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.endswith(
        "pod demo-node-0-0, container node: env X: its value holds a NUL character, "
        "which no process environment can hold\n"
    )


def test_a_pod_that_cannot_start_fails_the_run_instead_of_hanging(tmp_path):
    """Whatever stops a pod's thread (here Popen's ValueError, which plan now catches first) is a failed pod."""
    pod = Pod("p-node-0-0", "node", 0, 0, str(tmp_path / "p"))
    pod.containers.append(Container("node", [sys.executable, "-c", "pass"], {"X": "a\0b"}, str(tmp_path), "main"))
    plan = Plan(
        {"metadata": {"name": "p"}, "spec": {"replicatedJobs": [{"name": "node"}]}}, [Job("node", 1, [], [[pod]])], {}
    )
    lines = []
    outcome = Runner(plan, logs=open(os.devnull, "wb"), progress=lines.append).run(timeout=30)
    assert outcome.state == "Failed"
    assert lines[0] == "pod p-node-0-0 could not start: embedded null byte"


def test_a_non_utf8_env_file_is_an_error(tmp_path):
    (tmp_path / "env").write_bytes(b"A=1\nX=\xff\n")
    result = trainc("run", "--dry-run", write(tmp_path), "--env-file", tmp_path / "env")
    assert result.returncode == 2
    assert result.stderr.endswith(f"Error: {tmp_path / 'env'}:2: not UTF-8 text (byte 0xff)\n")


def test_a_zero_resource_divisor_is_the_unset_one(tmp_path):
    """The API server lets divisor "0" through (it equals the unset quantity); the kubelet reads it as 1."""
    path = write(tmp_path)
    text = (
        open(path)
        .read()
        .replace(
            "                      command:",
            textwrap.indent(
                textwrap.dedent("""\
        resources: {limits: {cpu: "3"}}
        env:
          - name: CPUS
            valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: "0"}}
        """),
                " " * 22,
            )
            + "                      command:",
        )
    )
    open(path, "w").write(text)
    result = trainc("run", "--dry-run", path)
    assert result.returncode == 0, result.stderr
    assert 'CPUS: "3"' in result.stdout


ITEMS = """\
- name: cfg
  configMap:
    name: cfg
    items:
      - {key: a, path: ../../outside/x}
      - {key: b, path: /etc/x}
      - {key: c, path: ..data}
- name: down
  downwardAPI:
    items:
      - {path: ../x, fieldRef: {fieldPath: metadata.name}}
- name: proj
  projected:
    sources:
      - secret: {name: s, items: [{key: k, path: a/../../b, mode: 4095}]}
"""


@pytest.mark.parametrize("command", ["validate", "build", "run"])
def test_item_paths_the_api_server_refuses_are_refused_with_positions(tmp_path, command):
    path = write(
        tmp_path,
        volumes="volumes:\n" + textwrap.indent(ITEMS, "  "),
        mounts="volumeMounts:\n  - {name: cfg, mountPath: /cfg, subPath: ../up}\n",
    )
    result = trainc(command, path)
    assert (result.returncode, result.stdout) == (1, "")
    pod = "spec.template.spec.replicatedJobs[0].template.spec.template.spec"
    lines = [line.partition(": ")[2] for line in result.stderr.splitlines() if line.startswith(path)]
    assert lines == [
        f"{pod}.volumes[0].configMap.items[0].path: Invalid value: \"../../outside/x\": must not contain '..'",
        f'{pod}.volumes[0].configMap.items[1].path: Invalid value: "/etc/x": must be a relative path',
        f"{pod}.volumes[0].configMap.items[2].path: Invalid value: \"..data\": must not start with '..'",
        f"{pod}.volumes[1].downwardAPI.items[0].path: Invalid value: \"../x\": must not contain '..'",
        f"{pod}.volumes[2].projected.sources[0].secret.items[0].path: Invalid value: \"a/../../b\": must not contain '..'",
        f"{pod}.volumes[2].projected.sources[0].secret.items[0].mode: Invalid value: 4095: must be a number between 0 "
        "and 0777 (octal), both inclusive",
        f"{pod}.containers[0].volumeMounts[0].subPath: Invalid value: \"../up\": must not contain '..'",
    ]
    assert result.stderr.splitlines()[0].startswith(f"{path}:32:44: ")  # at the first item's path


def test_a_runtime_patch_item_path_is_refused_too(tmp_path):
    path = write(tmp_path)
    text = (
        open(path)
        .read()
        .replace(
            "    numNodes: 1\n",
            "    numNodes: 1\n"
            + textwrap.indent(
                textwrap.dedent("""\
          runtimePatches:
            - manager: example.com/me
              trainingRuntimeSpec:
                template:
                  spec:
                    replicatedJobs:
                      - name: node
                        template:
                          spec:
                            template:
                              spec:
                                volumes:
                                  - name: s
                                    secret: {secretName: s, items: [{key: k, path: /root/.ssh/authorized_keys}]}
        """),
                "  ",
            ),
            1,
        )
    )
    open(path, "w").write(text)
    result = trainc("validate", path)
    assert result.returncode == 1
    assert (
        "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec"
        '.volumes[0].secret.items[0].path: Invalid value: "/root/.ssh/authorized_keys": must be a relative '
        "path"
    ) in result.stderr


def test_a_link_a_kept_run_left_is_not_followed_out_of_the_run(tmp_path):
    """A pod of an earlier --keep run replaced its volume's folder by a link out: the next run refuses to write."""
    outside = tmp_path / "outside"
    outside.mkdir()
    config = textwrap.dedent("""\
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cfg
        data:
          sub: hello
        """)
    path = write(
        tmp_path,
        volumes="volumes:\n  - {name: cfg, configMap: {name: cfg, items: [{key: sub, path: d/f}]}}\n",
        extra=config,
    )
    keep = tmp_path / "keep"
    first = trainc("run", path, "--keep", keep)
    assert first.returncode == 0, first.stderr
    volume = keep / "demo-node-0-0" / "volumes" / "cfg"
    assert (volume / "d" / "f").read_text() == "hello"
    for name in os.listdir(volume / "d"):
        os.unlink(volume / "d" / name)
    os.rmdir(volume / "d")
    os.symlink(outside, volume / "d")
    second = trainc("run", path, "--keep", keep)
    assert second.returncode == 1
    assert "leads outside the pod's directory" in second.stderr
    assert os.listdir(outside) == []


def test_a_log_link_a_kept_run_left_is_not_followed(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    path = write(tmp_path)
    keep = tmp_path / "keep"
    assert trainc("run", path, "--keep", keep).returncode == 0
    log = keep / "demo-node-0-0" / "node.log"
    assert log.read_text() == "none\n"
    log.unlink()
    log.symlink_to(outside)
    result = trainc("run", path, "--keep", keep)
    assert result.returncode == 1
    assert outside.read_text() == "precious\n"


@pytest.mark.parametrize("name", ["{a: 1}", "[a]"])
def test_a_config_map_named_by_a_mapping_or_list_is_refused_as_build_refuses_it(tmp_path, name):
    """`trainc run` is the one run: what `trainc build` refuses (kubectl apply could not take the ConfigMap) it
    refuses with the same error, positioned, never a traceback."""
    extra = f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  X: from-config\n"
    path = write(tmp_path, extra=extra)
    result, built = trainc("run", "--dry-run", path), trainc("build", path)
    assert result.returncode == built.returncode == 1 and result.stdout == ""
    assert "metadata.name: required for kubectl apply" in result.stderr and result.stderr == built.stderr
