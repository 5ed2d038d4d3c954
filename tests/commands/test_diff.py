"""`trainc diff`: objects keyed by kind/namespace/name, fields by path with list items by name, Secret values
hidden, what applying does, kubectl diff's exit status; on temporary git repositories and on this repository's
own history."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import GOLDEN_SEED, ROOT, need
from helpers import golden_inputs, run

from helpers import build
from trainc.commands import diff

TORCH = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: demo
  namespace: team-a
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    env:
      - name: LR
        value: "0.1"
"""
MPI = """\
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
spec:
  runtimeRef:
    name: deepspeed-distributed
"""
RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: custom
spec:
  template:
    spec:
      failurePolicy:
        maxRestarts: {max_restarts}
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
                      image: python:3.12
"""
SEED_FLAGS = ("--ssh-key-seed", str(ROOT / "tests" / "golden-ssh-seed"))
REFUSED_BY_JOBSET = (
    "the JobSet webhook refuses this update of JobSet 'demo': spec.replicatedJobs: field is immutable "
    "(spec.replicatedJobs[0].template.spec.{} changed; only pod labels, annotations, nodeSelector, "
    "tolerations and schedulingGates may change, and only while the TrainJob is suspended before or "
    "after the update)"
)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "job.yaml").write_text(TORCH)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "version A")
    return tmp_path


def test_no_change_exits_0(repo):
    result = run("diff", "job.yaml", cwd=repo)
    assert (result.returncode, result.stdout) == (0, "no changes\n"), result.stderr


def test_changed_fields_by_path_with_list_items_by_name(repo):
    (repo / "job.yaml").write_text(
        TORCH.replace('"0.1"', '"0.2"\n      - name: EPOCHS\n        value: "3"').replace("numNodes: 2", "numNodes: 4")
    )
    result = run("diff", "job.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    docs = (ROOT / "docs" / "commands" / "diff.md").read_text()
    assert f"```text\n$ trainc diff job.yaml\n{result.stdout}```\n" in docs  # the docs' example
    node = "spec.replicatedJobs[node].template.spec"
    env = f"{node}.template.spec.containers[node].env"
    assert (
        result.stdout
        == f"""\
JobSet team-a/demo changed: {diff.REFUSED}
! job.yaml:7:3: {REFUSED_BY_JOBSET.format("parallelism")}
@@ {node}.parallelism @@
- 2
+ 4
@@ {node}.completions @@
- 2
+ 4
@@ {env}[LR].value @@
- "0.1"
+ "0.2"
@@ {env}[EPOCHS] @@
+ name: EPOCHS
+ value: "3"
@@ {env}[PET_NNODES].value @@
- "2"
+ "4"

0 added, 1 changed, 0 removed (1 refused by the cluster)
"""
    )


def test_suspended_pod_template_change_applies_in_place(repo):
    """The JobSet webhook lets a suspended JobSet's pod nodeSelector change (Kueue's fields); with no queue-name
    label Kueue never admits (unsuspends) it, so git's suspend is the live state."""
    suspended = TORCH.replace("  trainer:", "  suspend: true\n  trainer:")
    (repo / "job.yaml").write_text(suspended)
    git(repo, "commit", "-qam", "suspended")
    (repo / "job.yaml").write_text(
        suspended
        + """\
  runtimePatches:
    - manager: example.com/placer
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector:
                          pool: a
"""
    )
    result = run("diff", "job.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[:3] == [
        f"JobSet team-a/demo changed: {diff.UPDATED}",
        "@@ spec.replicatedJobs[node].template.spec.template.spec.nodeSelector @@",
        "+ pool: a",
    ]


def test_markdown_for_a_pull_request(repo):
    (repo / "job.yaml").write_text(TORCH.replace('"0.1"', '"0.2"'))
    result = run("diff", "--format", "markdown", "job.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert (
        result.stdout
        == f"""\
**trainc diff**: 0 added, 1 changed, 0 removed (1 refused by the cluster)

| Object | Change | Applying it |
| --- | --- | --- |
| `JobSet team-a/demo` | changed | {diff.REFUSED} |

#### `JobSet team-a/demo` changed

> job.yaml:7:3: {REFUSED_BY_JOBSET.format("template.spec.containers[0].env[0].value")}

```diff
@@ spec.replicatedJobs[node].template.spec.template.spec.containers[node].env[LR].value @@
- "0.1"
+ "0.2"
```
"""
    )


def test_colour_only_when_asked_or_on_a_terminal(repo):
    (repo / "job.yaml").write_text(TORCH.replace('"0.1"', '"0.2"'))
    plain = run("diff", "job.yaml", cwd=repo).stdout
    coloured = run("diff", "--color", "always", "job.yaml", cwd=repo).stdout
    assert "\x1b[" not in plain
    assert '\x1b[32m+ "0.2"\x1b[0m' in coloured
    assert re.sub("\x1b\\[[0-9;]*m", "", coloured) == plain


def test_secrets_hidden_renamed_mpi_job(repo):
    """A renamed MPI TrainJob: its Secret is removed and a new one added, its values shown as nothing."""
    (repo / "job.yaml").write_text(TORCH + MPI.format(name="mpi"))
    git(repo, "commit", "-qam", "mpi")
    (repo / "job.yaml").write_text(TORCH + MPI.format(name="mpi2"))
    outputs = [run("diff", *SEED_FLAGS, *args, "job.yaml", cwd=repo) for args in ((), ("--format", "markdown"))]
    for result in outputs:
        assert result.returncode == 1, result.stderr
        assert '+   ssh-privatekey: "(hidden)"\n' in result.stdout
    assert_no_key_material(outputs, [str(repo / "job.yaml")])
    assert "Secret team-a/mpi-mpi-ssh-auth removed: " + diff.REMOVED in outputs[0].stdout
    assert "Secret team-a/mpi2-mpi-ssh-auth added: " + diff.CREATED in outputs[0].stdout


def test_without_a_seed_mpi_keys_compare_unchanged_and_only_then_it_says_so(repo):
    NOTICE = "notice: no --ssh-key-seed: MPI SSH keys are compared as unchanged"
    torch_only = run("diff", "job.yaml", cwd=repo)
    assert torch_only.returncode == 0 and NOTICE not in torch_only.stderr, torch_only.stderr
    (repo / "job.yaml").write_text(TORCH + MPI.format(name="mpi"))
    git(repo, "commit", "-qam", "mpi")
    unchanged = run("diff", "job.yaml", cwd=repo)
    assert (unchanged.returncode, unchanged.stdout) == (0, "no changes\n") and NOTICE in unchanged.stderr


def test_directory_base(repo, tmp_path_factory):
    old = tmp_path_factory.mktemp("old")
    (old / "job.yaml").write_text(TORCH.replace("numNodes: 2", "numNodes: 3"))
    result = run("diff", "--base", str(old), "job.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert "@@ spec.replicatedJobs[node].template.spec.parallelism @@\n- 3\n+ 2\n" in result.stdout


def test_runtime_update_the_cluster_refuses(repo):
    """A user runtime's immutable field (a CRD transition rule) changed under a TrainJob: the runtime is listed."""
    runtime = RUNTIME.format(max_restarts=3)
    (repo / "runtime.yaml").write_text(runtime)
    (repo / "job.yaml").write_text(TORCH.replace("torch-distributed", "custom").replace("    numNodes: 2\n", ""))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "custom runtime")
    (repo / "runtime.yaml").write_text(RUNTIME.format(max_restarts=4))
    result = run("diff", "job.yaml", "--runtimes", "runtime.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert (
        result.stdout
        == f"""\
ClusterTrainingRuntime custom changed: {diff.RUNTIME_REFUSED}
! runtime.yaml:9:9: spec.template.spec.failurePolicy: Value is immutable

JobSet team-a/demo changed: {diff.UPDATED}
@@ spec.failurePolicy.maxRestarts @@
- 3
+ 4

0 added, 2 changed, 0 removed (1 refused by the cluster)
"""
    )


def test_passed_through_documents_compared_as_build_prints_them(repo):
    """A ConfigMap and a Secret beside the TrainJob pass through `trainc build`, so diff compares them too."""
    others = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings  # read through envFrom\n"
        '  namespace: team-a\ndata:\n  lr: "0.1"\n---\napiVersion: v1\nkind: Secret\nmetadata:\n'
        "  name: token\n  namespace: team-a\nimmutable: true\nstringData:\n  token: {token}\n"
    )
    (repo / "job.yaml").write_text(TORCH + others.format(token="hunter2"))
    git(repo, "commit", "-qam", "settings")
    (repo / "job.yaml").write_text(TORCH + others.format(token="swordfish").replace('lr: "0.1"', 'lr: "0.2"'))
    result = run("diff", "job.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert (
        result.stdout
        == f"""\
ConfigMap team-a/settings changed: {diff.UPDATED}
@@ data.lr @@
- "0.1"
+ "0.2"

Secret team-a/token changed: {diff.PASSED_REFUSED.format(kind="Secret")}
! job.yaml:30:10: stringData.token: Secret 'token' is immutable: its data cannot change
@@ stringData.token @@
- "(hidden)"
+ "(hidden, changed)"

0 added, 2 changed, 0 removed (1 refused by the cluster)
"""
    )
    assert "hunter2" not in result.stdout + result.stderr and "swordfish" not in result.stdout + result.stderr
    trainer_only = run("diff", "--trainer-only", "job.yaml", cwd=repo)
    assert (trainer_only.returncode, trainer_only.stdout) == (0, "no changes\n"), trainer_only.stderr


def test_uncompiled_trainer_kind_passes_through_both_sides(repo, tmp_path_factory):
    """An OptimizationJob (a Trainer kind trainc does not compile) is passed through at the base too, not refused."""
    text = TORCH + "---\napiVersion: trainer.kubeflow.org/v1alpha1\nkind: OptimizationJob\nmetadata:\n  name: opt\n"
    old = tmp_path_factory.mktemp("old")
    (old / "job.yaml").write_text(text)
    (repo / "job.yaml").write_text(text)
    result = run("diff", "--base", str(old), "job.yaml", cwd=repo)
    assert (result.returncode, result.stdout) == (0, "no changes\n"), result.stderr


def test_immutable_config_data_refused():
    old = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "a"},
        "immutable": True,
        "data": {"k": "1"},
    }
    (found,) = diff._object_diff(("ConfigMap", "a", "c"), old, {**old, "data": {"k": "2"}}, [])
    assert (found.effect, found.reasons) == (diff.REFUSED, ["ConfigMap 'c' is immutable: its data cannot change"])


def test_errors_exit_2_as_kubectl_diff(repo):
    (repo / "job.yaml").write_text(TORCH.replace("numNodes: 2", "numNodes: two"))
    invalid = run("diff", "job.yaml", cwd=repo)
    assert (invalid.returncode, invalid.stdout) == (2, "")
    assert invalid.stderr.splitlines()[-1].startswith("job.yaml:10:15: spec.trainer.numNodes: ")
    unknown = run("diff", "--base", "no-such-rev", "job.yaml", cwd=repo)
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert "--base" in unknown.stderr and "'no-such-rev' is neither a directory nor a git revision" in unknown.stderr
    stdin = run("diff", "-", cwd=repo, stdin=TORCH)
    assert (stdin.returncode, stdin.stdout) == (2, "")
    assert "stdin (-) cannot be compared" in stdin.stderr


# This repository's own history: golden/audit-mpi-ancestor-replicas-endpoints was added in eaef8ba and has not
# changed since; golden/audit-jobset-passthrough-defaults/runtime.yaml gained a volumeMount in 3fe5b1d, whose
# JobSet webhook rules refuse the version before it.
MPI_CASE, MPI_ADDED = "audit-mpi-ancestor-replicas-endpoints", "eaef8ba"
PASSTHROUGH_CASE, PASSTHROUGH_CHANGED = "audit-jobset-passthrough-defaults", "3fe5b1d"


def case_inputs(case: str) -> list[str]:
    """A golden case's inputs (its directory also holds the expected output, which `build` would pass through)."""
    return [os.path.relpath(path, ROOT) for path in golden_inputs(case)]


def _history(*revisions: str) -> None:
    found = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", *(f"{rev}^{{commit}}" for rev in revisions)], capture_output=True
    )
    need(found.returncode == 0, f"this checkout lacks the history of {revisions} (a shallow clone)")


def test_history_case_added_shows_every_object_added_and_no_key_material():
    _history(f"{MPI_ADDED}^")
    outputs = [
        run("diff", "--base", f"{MPI_ADDED}^", *SEED_FLAGS, *args, *case_inputs(MPI_CASE), cwd=ROOT)
        for args in ((), ("--color", "always"), ("--format", "markdown"))
    ]
    for result in outputs:
        assert result.returncode == 1, result.stderr
    headers = [line for line in outputs[0].stdout.splitlines() if line and line[0] not in "+-@! "]
    assert headers == [
        f"ConfigMap default/replicas-mpi-hostfile added: {diff.CREATED}",
        f"JobSet default/replicas added: {diff.CREATED}",
        f"Secret default/replicas-mpi-ssh-auth added: {diff.CREATED}",
        "3 added, 0 changed, 0 removed",
    ]
    assert_no_key_material(
        outputs, golden_inputs(MPI_CASE)
    )  # not the expected output beside them, which passes through


def test_history_unchanged_case_exits_0():
    _history(PASSTHROUGH_CHANGED)
    result = run("diff", "--base", PASSTHROUGH_CHANGED, *case_inputs(PASSTHROUGH_CASE), cwd=ROOT)
    assert (result.returncode, result.stdout) == (0, "no changes\n"), result.stderr


def test_history_base_the_cluster_would_have_refused_shows_the_fix():
    """Before 3fe5b1d the case's runtime has a volume claim template no container mounts: the JobSet webhook
    (today's rules) refuses it, so that base does not compile. The PR fixing it is still diffed: the JobSet is
    shown against an unreadable base, and a notice names the base's error at the revision's file."""
    _history(f"{PASSTHROUGH_CHANGED}^")
    result = run("diff", "--base", f"{PASSTHROUGH_CHANGED}^", *case_inputs(PASSTHROUGH_CASE), cwd=ROOT)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[:3] == [
        f"JobSet default/passthrough changed: {diff.UNREADABLE}",
        "- (unreadable at the base)",
        "+ apiVersion: jobset.x-k8s.io/v1alpha2",
    ]
    assert result.stdout.endswith("\n0 added, 1 changed, 0 removed\n")
    assert result.stderr.splitlines()[:2] == [
        f"notice: --base {PASSTHROUGH_CHANGED}^: 1 TrainJob not compiled there, their objects shown against nothing "
        "(unreadable at the base):",
        f"notice:   {PASSTHROUGH_CHANGED}^:golden/{PASSTHROUGH_CASE}/runtime.yaml:39:23: "
        "spec.template.spec.volumeClaimPolicies[0].templates[0].metadata.name: the JobSet webhook refuses volume "
        "claim template 'scratch': replicatedJob containers don't have a matching volumeMount: scratch from "
        "VolumeClaimPolicies",
    ]


def test_broken_base_trainjob_unreadable_the_others_compared(repo):
    """One TrainJob of the base fails the TrainJob webhook (a reserved env); the other still compares."""
    other = TORCH.replace("name: demo", "name: other")
    (repo / "job.yaml").write_text(TORCH.replace("name: LR", "name: PET_NNODES") + "---\n" + other)
    git(repo, "commit", "-qam", "broken")
    (repo / "job.yaml").write_text(TORCH + "---\n" + other.replace('"0.1"', '"0.3"'))
    result = run("diff", "--format", "markdown", "job.yaml", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert f"| `JobSet team-a/demo` | changed | {diff.UNREADABLE} |" in result.stdout
    assert f"| `JobSet team-a/other` | changed | {diff.REFUSED} |" in result.stdout  # compared: trainer is immutable
    assert "```diff\n- (unreadable at the base)\n+ apiVersion: jobset.x-k8s.io/v1alpha2\n" in result.stdout
    assert "notice:   HEAD:job.yaml:12:15: spec.trainer.env: must not have reserved envs" in result.stderr


def assert_no_key_material(results, inputs) -> None:
    """No PEM armour, no Secret value (base64 or decoded) in stdout or stderr."""
    values = [
        value
        for obj in build(inputs, ssh_key_seed=GOLDEN_SEED).documents()
        if obj["kind"] == "Secret"
        for value in obj["data"].values()
    ]
    assert values
    for result in results:
        for stream in (result.stdout, result.stderr):
            assert "-----BEGIN" not in stream and "LS0tLS1CRUdJTi" not in stream
            for value in values:
                assert value not in stream and base64.b64decode(value).decode() not in stream


LEAKY_SECRET = """\
---
apiVersion: v1
kind: Secret
metadata:
  name: exported
  namespace: team-a
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{{"apiVersion":"v1","data":{{"pw":"{b64}"}},"kind":"Secret"}}'
    note: {value}
data: {data}
stringData: {value}
extra:
  copy: {value}
type: Opaque
"""


def _leaky(value: str, data: str) -> str:
    b64 = base64.b64encode(value.encode()).decode()
    return TORCH + LEAKY_SECRET.format(b64=b64, value=value, data=data.format(b64=b64))


@pytest.mark.parametrize("data", ["{{pw: {b64}}}", "{b64}", "[{b64}]"])
def test_nothing_derived_from_a_secret_value_in_any_format(repo, data):
    """An exported Secret: its last-applied-configuration, a data that is a string or a list, a stringData that
    is not a mapping, an unknown field: nothing of the value, nor its unsalted hash, in text or markdown."""
    (repo / "job.yaml").write_text(_leaky("password", data))
    git(repo, "commit", "-qam", "exported")
    (repo / "job.yaml").write_text(_leaky("swordfish", data))
    outputs = [run("diff", *args, "job.yaml", cwd=repo) for args in ((), ("--format", "markdown"))]
    for value in ("password", "swordfish"):
        b64 = base64.b64encode(value.encode()).decode()
        forms = {value, b64, *(hashlib.sha256(text.encode()).hexdigest()[:8] for text in (value, b64))}
        for result in outputs:
            assert result.returncode == 1, result.stderr
            assert not [form for form in forms if form in result.stdout + result.stderr]
    assert "Secret team-a/exported changed: " + diff.UPDATED in outputs[0].stdout
    assert (
        '@@ metadata.annotations[kubectl.kubernetes.io/last-applied-configuration] @@\n- "(hidden)"\n'
        '+ "(hidden, changed)"\n'
    ) in outputs[0].stdout
    assert "@@ extra.copy @@" in outputs[0].stdout and "type: Opaque" not in outputs[0].stdout
    assert run("diff", "job.yaml", cwd=repo).stdout == outputs[0].stdout  # the per-run key leaves no trace


def test_secret_value_unchanged_compares_equal_and_names_its_keys(repo):
    (repo / "job.yaml").write_text(_leaky("password", "{{a: {b64}, b: {b64}}}"))
    git(repo, "commit", "-qam", "exported")
    (repo / "job.yaml").write_text(_leaky("password", "{{a: {b64}, c: {b64}}}"))
    result = run("diff", "job.yaml", cwd=repo)
    assert (
        result.stdout
        == f"""\
Secret team-a/exported changed: {diff.UPDATED}
@@ data.c @@
+ "(hidden)"
@@ data.b @@
- "(hidden)"

0 added, 1 changed, 0 removed
"""
    )


def test_immutable_configmap_refused_in_its_own_terms_at_its_position(repo):
    config = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: team-a\n"
        'immutable: true\ndata:\n  lr: "{lr}"\n'
    )
    (repo / "job.yaml").write_text(TORCH + config.format(lr="0.1"))
    git(repo, "commit", "-qam", "settings")
    (repo / "job.yaml").write_text(TORCH + config.format(lr="0.2"))
    result = run("diff", "job.yaml", cwd=repo)
    assert result.stdout.splitlines()[:2] == [
        "ConfigMap team-a/settings changed: the cluster will refuse this update: delete and re-create the ConfigMap,"
        " or give it a new name",
        "! job.yaml:22:7: data.lr: ConfigMap 'settings' is immutable: its data cannot change",
    ]
    assert "TrainJob" not in result.stdout


NODE_SELECTOR_PATCH = """\
  runtimePatches:
    - manager: example.com/placer
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      spec:
                        nodeSelector:
                          pool: a
"""


def _queued(queue: str | None, suspend: bool = True) -> str:
    labels = f"  labels:\n    kueue.x-k8s.io/queue-name: {queue}\n" if queue else ""
    text = TORCH.replace("  namespace: team-a\n", "  namespace: team-a\n" + labels)
    return text.replace("  trainer:", "  suspend: true\n  trainer:") if suspend else text


def test_kueue_job_pod_template_change_only_until_admitted(repo):
    """Under Kueue a JobSet created suspended runs unsuspended once admitted (Argo CD ignores /spec/suspend): the
    JobSet webhook then refuses the nodeSelector change it lets through while suspended."""
    (repo / "job.yaml").write_text(_queued("team-a-queue"))
    git(repo, "commit", "-qam", "queued")
    (repo / "job.yaml").write_text(_queued("team-a-queue") + NODE_SELECTOR_PATCH)
    for args in ((), ("--format", "markdown")):
        result = run("diff", *args, "job.yaml", cwd=repo)
        assert result.returncode == 1, result.stderr
        reason = (
            "job.yaml:9:3: once Kueue admits JobSet 'demo' it runs unsuspended, whatever git says, and the "
            "JobSet webhook refuses this update: spec.replicatedJobs: field is immutable (spec.replicatedJobs[0]"
            ".template.spec.template.spec.nodeSelector changed; pod labels, annotations, nodeSelector, "
            "tolerations and schedulingGates only while suspended)"
        )
        assert f"! {reason}" in result.stdout.splitlines() or f"> {reason}" in result.stdout.splitlines()
        assert diff.UNTIL_ADMITTED in result.stdout and diff.UPDATED + "\n" not in result.stdout
    assert result.stdout.startswith("**trainc diff**: 0 added, 1 changed, 0 removed (1 refused once Kueue admits it)")
    validate = run("validate", "--previous", "HEAD", "job.yaml", cwd=repo)  # allowed while it waits
    assert validate.returncode == 0, validate.stdout


def test_kueue_queue_name_change_only_until_admitted(repo):
    (repo / "job.yaml").write_text(_queued("team-a-queue"))
    git(repo, "commit", "-qam", "queued")
    (repo / "job.yaml").write_text(_queued("team-a-urgent"))
    result = run("diff", "job.yaml", cwd=repo)
    assert result.stdout.splitlines()[:2] == [
        f"JobSet team-a/demo changed: {diff.UNTIL_ADMITTED}",
        "! job.yaml:7:32: metadata.labels[kueue.x-k8s.io/queue-name]: once Kueue admits JobSet 'demo' it runs "
        "unsuspended, and Kueue's webhook refuses this update: must not update queue name when job is unsuspended",
    ]


def test_queue_name_added_to_a_running_job_refused(repo):
    """A JobSet Kueue does not manage runs as git says: not suspended, Kueue's webhook refuses a new queue."""
    assert _queued(None, suspend=False) == TORCH  # the repository's version
    (repo / "job.yaml").write_text(_queued("team-a-queue", suspend=False))
    result = run("diff", "job.yaml", cwd=repo)
    assert result.stdout.splitlines()[:2] == [
        f"JobSet team-a/demo changed: {diff.REFUSED}",
        "! job.yaml:7:32: metadata.labels[kueue.x-k8s.io/queue-name]: Kueue's webhook refuses this update of JobSet "
        "'demo': must not update queue name when job is unsuspended (the JobSet runs: it is not suspended)",
    ]
    validate = run("validate", "--previous", "HEAD", "job.yaml", cwd=repo)
    assert validate.returncode == 1 and "must not update queue name" in validate.stdout + validate.stderr
    (repo / "job.yaml").write_text(_queued(None))  # suspended in git and no Kueue to admit it: it stays suspended
    git(repo, "commit", "-qam", "suspended")
    (repo / "job.yaml").write_text(_queued("team-a-queue"))
    assert run("diff", "job.yaml", cwd=repo).stdout.splitlines()[0] == f"JobSet team-a/demo changed: {diff.UPDATED}"


def test_a_list_added_or_removed_whole_shows_its_items(repo):
    """args removed, tolerations added: every item is printed, never `- []` / `+ []` (issue 20, finding 6)."""
    git(repo, "rm", "-q", "job.yaml")
    (repo / "job.yaml").write_text(TORCH + "    args: [--epochs, '3']\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "with args")
    (repo / "job.yaml").write_text(
        TORCH.replace(
            "spec:\n  runtimeRef",
            "spec:\n  runtimePatches:\n"
            "  - manager: example.com/team\n    trainingRuntimeSpec:\n"
            "      template:\n        spec:\n          replicatedJobs:\n"
            "          - name: node\n            template:\n              spec:\n"
            "                template:\n                  spec:\n"
            "                    tolerations: [{key: gpu, operator: Exists}]\n"
            "  runtimeRef",
        )
    )
    result = run("diff", "job.yaml", "--color", "never", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert "[]" not in result.stdout, result.stdout
    assert (
        '@@ spec.replicatedJobs[node].template.spec.template.spec.containers[node].args @@\n- - "--epochs"\n'
        '- - "3"\n' in result.stdout
    )
    assert (
        "@@ spec.replicatedJobs[node].template.spec.template.spec.tolerations @@\n+ - key: gpu\n"
        "+   operator: Exists\n" in result.stdout
    )


def test_markdown_fits_a_github_comment_folding_removals_and_counting_what_is_left_out(repo):
    """Removing 20 MPI jobs (issue 20: 15 gave a 79 KB comment): the comment stays under GitHub's 65,536
    characters, every object in the table, removed bodies folded, the blocks that do not fit counted."""
    (repo / "mpi.yaml").write_text("".join(MPI.format(name=f"job-{index:02}") for index in range(20)))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "twenty MPI jobs")
    (repo / "mpi.yaml").unlink()
    result = run("diff", ".", *SEED_FLAGS, "--format", "markdown", cwd=repo)
    plain = run("diff", ".", *SEED_FLAGS, "--color", "never", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert len(plain.stdout) > diff.MARKDOWN_LIMIT  # what the comment would have been, whole
    assert len(result.stdout) <= diff.MARKDOWN_LIMIT
    assert result.stdout.count("| removed |") == 60  # JobSet, Secret and hostfile ConfigMap of each
    assert "<details><summary>" in result.stdout
    shown = result.stdout.count("#### ")
    assert 0 < shown < 60
    assert result.stdout.rstrip("\n").endswith(
        f"_{60 - shown} of 60 objects' diffs left out to fit a GitHub comment; `trainc diff` shows them all._"
    )


def test_an_image_bump_is_refused_for_the_jobset_webhooks_reason(repo):
    """trainc applies the JobSet, never the TrainJob: the reason is the JobSet webhook's (issue 20)."""
    (repo / "job.yaml").write_text(TORCH.replace("    numNodes: 2\n", "    numNodes: 2\n    image: train:1\n"))
    git(repo, "commit", "-qam", "an image")
    (repo / "job.yaml").write_text(TORCH.replace("    numNodes: 2\n", "    numNodes: 2\n    image: train:2\n"))
    result = run("diff", "job.yaml", "--color", "never", cwd=repo)
    assert result.returncode == 1, result.stderr
    assert (
        result.stdout.splitlines()[1]
        == f"! job.yaml:7:3: {REFUSED_BY_JOBSET.format('template.spec.containers[0].image')}"
    )
    assert "spec.trainer: field is immutable" not in result.stdout


APP = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
spec:
  runtimeRef:
    name: {runtime}
"""


@pytest.fixture
def platform(repo):
    """A repository whose platform/runtimes holds the runtime `custom`, used by apps/a and apps/c; apps/b (and
    the fixture's job.yaml) use a bundled runtime. The base revision is HEAD~1 once a test commits its edit."""
    (repo / "platform" / "runtimes").mkdir(parents=True)
    (repo / "platform" / "runtimes" / "custom.yaml").write_text(RUNTIME.format(max_restarts=1))
    for name, runtime in (("a", "custom"), ("b", "torch-distributed"), ("c", "custom")):
        (repo / "apps" / name).mkdir(parents=True)
        (repo / "apps" / name / "job.yaml").write_text(APP.format(name=name, runtime=runtime))
    (repo / ".trainc.yaml").write_text("runtimes: [platform/runtimes]\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "the platform's runtime and three apps")
    return repo


def edit_runtime(repo: Path, **changes) -> None:
    text = RUNTIME.format(max_restarts=changes.get("max_restarts", 1))
    (repo / "platform" / "runtimes" / "custom.yaml").write_text(
        text.replace("python:3.12", changes.get("image", "python:3.12"))
    )
    git(repo, "commit", "-qam", "the runtime changed")


def test_diff_of_runtimes_alone_lists_the_jobsets_the_change_reaches(platform):
    """`trainc diff --base REV platform/runtimes` (issue 20): the JobSets of the repository's TrainJobs that use a
    changed runtime, compiled at both revisions, each with its diff and the JobSet webhook's verdict; a JobSet
    the change does not reach (apps/b, job.yaml) is not listed."""
    edit_runtime(platform, image="python:3.13")
    result = run("diff", "--base", "HEAD~1", "platform/runtimes", cwd=platform)
    assert result.returncode == 1, result.stderr
    docs = (ROOT / "docs" / "commands" / "diff.md").read_text()
    assert f"```text\n$ trainc diff --base HEAD~1 platform/runtimes\n{result.stdout}```\n" in docs  # its example
    refused = REFUSED_BY_JOBSET.replace("'demo'", "'{}'").format("{}", "template.spec.containers[0].image")
    assert result.stdout.splitlines() == [
        "ClusterTrainingRuntime custom changed since HEAD~1; it reaches the JobSets of 2 TrainJobs of the "
        "repository: team-a/a, team-a/c",
        "",
        *(
            line
            for name in "ac"
            for line in (
                f"JobSet team-a/{name} changed: the cluster will refuse this update: delete and re-create, or rename "
                "the TrainJob",
                f"! apps/{name}/job.yaml:7:3: {refused.format(name)}",
                "@@ spec.replicatedJobs[node].template.spec.template.spec.containers[node].image @@",
                "- python:3.12",
                "+ python:3.13",
                "",
            )
        ),
        "0 added, 2 changed, 0 removed (2 refused by the cluster)",
    ]


def test_a_runtime_change_the_jobset_webhook_takes_is_an_update_in_place(platform):
    """The JobSet webhook takes a new failurePolicy in place; the runtime's own update is refused by its CRD."""
    edit_runtime(platform, max_restarts=3)
    result = run("diff", "--base", "HEAD~1", "platform/runtimes", "--color", "never", cwd=platform)
    assert result.returncode == 1, result.stderr
    assert result.stdout.split("\n\n")[1:] == [
        f"ClusterTrainingRuntime custom changed: {diff.RUNTIME_REFUSED}\n"
        "! platform/runtimes/custom.yaml:9:9: spec.template.spec.failurePolicy: Value is immutable",
        *(
            f"JobSet team-a/{name} changed: applying updates it in place\n@@ spec.failurePolicy.maxRestarts @@\n- 1\n+ 3"
            for name in "ac"
        ),
        "0 added, 3 changed, 0 removed (1 refused by the cluster)\n",
    ]


def test_runtimes_alone_in_markdown_and_json(platform):
    edit_runtime(platform, image="python:3.13")
    markdown = run("diff", "--base", "HEAD~1", "platform/runtimes", "--format", "markdown", cwd=platform)
    assert markdown.returncode == 1, markdown.stderr
    assert markdown.stdout.startswith(
        "**trainc diff** (ClusterTrainingRuntime custom changed since HEAD~1; it reaches the JobSets of 2 TrainJobs "
        "of the repository: team-a/a, team-a/c): 0 added, 2 changed, 0 removed (2 refused by the cluster)\n"
    )
    assert "| `JobSet team-a/a` | changed | the cluster will refuse this update" in markdown.stdout
    assert "#### `JobSet team-a/c` changed" in markdown.stdout and "team-a/b" not in markdown.stdout
    found = json.loads(run("diff", "--base", "HEAD~1", "platform/runtimes", "--format", "json", cwd=platform).stdout)
    assert [(obj["kind"], obj["name"], obj["change"]) for obj in found["objects"]] == [
        ("JobSet", "a", "changed"),
        ("JobSet", "c", "changed"),
    ]
    assert found["objects"][0]["effect"] == diff.REFUSED
    assert found["objects"][0]["reasons"][0].startswith("apps/a/job.yaml:7:3: the JobSet webhook refuses")
    assert found["objects"][0]["hunks"] == [
        {
            "path": "spec.replicatedJobs[node].template.spec.template.spec.containers[node].image",
            "old": "python:3.12",
            "new": "python:3.13",
        }
    ]
    assert found["reach"] == {
        "runtimes": ["ClusterTrainingRuntime custom"],
        "trainjobs": [
            {
                "namespace": "team-a",
                "name": name,
                "file": f"apps/{name}/job.yaml",
                "runtime": "ClusterTrainingRuntime custom",
            }
            for name in "ac"
        ],
    }
    assert found["summary"] == "0 added, 2 changed, 0 removed (2 refused by the cluster)"


def test_the_heading_names_five_trainjobs_and_counts_the_rest(platform):
    for index in range(5):
        (platform / "apps" / "a" / f"more-{index}.yaml").write_text(APP.format(name=f"m{index}", runtime="custom"))
    git(platform, "add", ".")
    git(platform, "commit", "-qm", "more apps")
    edit_runtime(platform, max_restarts=2)
    result = run("diff", "--base", "HEAD~1", "platform/runtimes", "--format", "markdown", cwd=platform)
    assert result.stdout.startswith(
        "**trainc diff** (ClusterTrainingRuntime custom changed since HEAD~1; it reaches "
        "the JobSets of 7 TrainJobs of the repository: team-a/a, team-a/c, team-a/m0, "
        "team-a/m1, team-a/m2, … 2 more): 0 added, 8 changed, 0 removed (1 refused by "
        "the cluster)\n"
    )  # the runtime, and the JobSets of 7 TrainJobs


def test_a_trainjob_under_another_config_is_named_not_compared(platform):
    """One run has one set of settings: an app's own .trainc.yaml may set another namespace or runtimes."""
    (platform / "apps" / "c" / ".trainc.yaml").write_text("namespace: team-c\n")
    git(platform, "add", ".")
    git(platform, "commit", "-qm", "app c's own config")
    edit_runtime(platform, max_restarts=2)
    result = run("diff", "--base", "HEAD~1", "platform/runtimes", "--color", "never", cwd=platform)
    assert "JobSet team-a/a changed" in result.stdout and "JobSet team-a/c" not in result.stdout
    assert (
        "notice: apps/c/job.yaml:1:1: TrainJob c uses ClusterTrainingRuntime custom but is governed by "
        "apps/c/.trainc.yaml, not by the runtimes' settings: compare it with `trainc diff --base HEAD~1 apps/c`"
    ) in result.stderr


def test_runtimes_alone_against_a_directory_base(platform, tmp_path):
    """A directory base holds the previous runtimes only: the TrainJobs as they are now, with those runtimes."""
    old = tmp_path / "old-runtimes"
    old.mkdir()
    (old / "custom.yaml").write_text(RUNTIME.format(max_restarts=1))
    (platform / "platform" / "runtimes" / "custom.yaml").write_text(
        RUNTIME.format(max_restarts=1).replace("python:3.12", "python:3.13")
    )
    result = run("diff", "--base", str(old), "platform/runtimes", cwd=platform)
    assert result.returncode == 1, result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("JobSet")] == [
        f"JobSet team-a/{name} changed: {diff.REFUSED}" for name in "ac"
    ]
    assert "+ python:3.13" in result.stdout and "added" not in result.stdout.replace("0 added", "")


def test_a_file_the_search_cannot_read_is_named(platform):
    (platform / "apps" / "b" / "broken.yaml").write_text("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: [\n")
    edit_runtime(platform, max_restarts=2)
    result = run("diff", "--base", "HEAD~1", "platform/runtimes", cwd=platform)
    assert "JobSet team-a/a changed" in result.stdout, result.stderr
    assert (
        "notice: apps/b/broken.yaml:3:1: not searched for TrainJobs the runtime change reaches: invalid YAML"
        in result.stderr
    )


def test_runtimes_unchanged_reach_nothing(platform):
    result = run("diff", "platform/runtimes", cwd=platform)
    assert (result.returncode, result.stdout) == (0, "no changes\n"), result.stderr
    (platform / "apps" / "a" / "job.yaml").write_text(APP.format(name="a", runtime="custom") + "  suspend: true\n")
    assert run("diff", "platform/runtimes", cwd=platform).stdout == "no changes\n"  # a TrainJob's edit: not here
