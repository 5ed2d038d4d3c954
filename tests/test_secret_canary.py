"""No Secret value, nor anything computed from one without a per-run secret, in any output of `diff`, `explain`,
`build -o json` (but the Secret manifests themselves), `validate` (text and `-o json`), `run --dry-run`, or any
error or notice: canary values planted in `data`, `stringData`, annotations (last-applied-configuration), fields a
Secret does not have, invalid Secrets (not base64, wrong types), and the MPI keys trainc derives."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from conftest import GOLDEN_SEED, ROOT
from helpers import run

from helpers import build

SEED = str(ROOT / "tests" / "golden-ssh-seed")
JOBS = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: torch
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 1
    command: [python, -c, "pass", "$(TOKEN)"]
    env:
      - name: TOKEN
        valueFrom:
          secretKeyRef:
            name: canary
            key: token
      - name: URL
        value: https://u:$(TOKEN)@example.com
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mpi
spec:
  runtimeRef:
    name: deepspeed-distributed
"""
SECRET = """\
---
apiVersion: v1
kind: Secret
metadata:
  name: canary
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{{"data":{{"token":"{token_b64}"}},"stringData":{{"plain":"{plain}"}}}}'
    copy: {note}
data:
  token: {token_b64}
stringData:
  plain: {plain}
extra: {extra}
"""
INVALID = """\
---
apiVersion: v1
kind: Secret
metadata:
  name: not-base64
data:
  k: "{bad}!!"
  l: [{listed}]
stringData:
  m: {{{keyed}: 1}}
---
apiVersion: v1
kind: Secret
metadata:
  name: wrong-types
data: {scalar}
stringData: [{item}]
"""
FIELDS = ("token", "plain", "note", "extra", "bad", "listed", "keyed", "scalar", "item")


def canaries(version: str) -> dict[str, str]:
    return {field: f"CaNaRy{version}{field}Q7" for field in FIELDS}


def write(folder: Path, version: str) -> list[str]:
    values = canaries(version)
    (folder / "jobs.yaml").write_text(JOBS)
    (folder / "secret.yaml").write_text(SECRET.format(token_b64=_b64(values["token"]), **values))
    (folder / "invalid.yaml").write_text(INVALID.format(**values))
    return ["jobs.yaml", "secret.yaml", "invalid.yaml"]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def forbidden(*versions: str) -> set[str]:
    """Each canary, its base64, the unsalted SHA-256 prefixes of both, and the MPI keys (PEM and base64)."""
    found = set()
    for version in versions:
        for value in canaries(version).values():
            for text in (value, _b64(value)):
                found |= {text, hashlib.sha256(text.encode()).hexdigest()[:8]}
    return found


def mpi_key_material(folder: Path) -> set[str]:
    secrets = [
        obj
        for obj in build([str(folder / "jobs.yaml")], ssh_key_seed=GOLDEN_SEED).documents()
        if obj["kind"] == "Secret"
    ]
    assert secrets
    found = set()
    for secret in secrets:
        for value in secret["data"].values():
            found.add(value)
            found |= {line for line in base64.b64decode(value).decode().splitlines() if len(line) > 20}
    return found


def assert_clean(results, forbidden_texts: set[str]) -> None:
    for result in results:
        for stream in (result.stdout, result.stderr):
            leaked = sorted(text for text in forbidden_texts if text in stream)
            assert not leaked, (result.args, leaked, stream[:2000])


@pytest.fixture
def inputs(tmp_path):
    return tmp_path, write(tmp_path, "A")


def test_validate_explain_build_json_and_dry_run_show_no_secret_value(inputs):
    folder, files = inputs
    texts = forbidden("A") | mpi_key_material(folder)
    results = [
        run("validate", *files, cwd=folder),
        run("validate", "-o", "json", *files, cwd=folder),
        run("explain", *files, cwd=folder),
        run("run", "--dry-run", "--job", "torch", "jobs.yaml", "secret.yaml", cwd=folder),
        run("run", "--dry-run", "--job", "torch", *files, cwd=folder),  # refused: the invalid Secrets
    ]
    assert [result.returncode for result in results] == [0, 0, 0, 0, 1], [r.stderr for r in results]
    assert "(hidden)" in results[3].stdout
    assert "Secret 'not-base64': unreadable data (data[k]: must be base64 text)" in results[4].stderr
    assert_clean(results, texts)
    built = run("build", "-o", "json", "--ssh-key-seed", SEED, *files, cwd=folder)
    assert built.returncode == 0, built.stderr
    listed = json.loads(built.stdout)["items"]
    assert {item["metadata"]["name"] for item in listed if item["kind"] == "Secret"} == {
        "canary",
        "not-base64",
        "wrong-types",
        "mpi-mpi-ssh-auth",
    }
    rest = json.dumps([item for item in listed if item["kind"] != "Secret"])
    assert not [text for text in texts if text in rest + built.stderr]
    assert any(text in built.stdout for text in mpi_key_material(folder))  # the Secrets themselves are the point


def test_diff_shows_no_secret_value_of_either_side(inputs):
    folder, files = inputs
    git = ["git", "-C", str(folder), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "A"], check=True)
    write(folder, "B")
    results = [
        run("diff", *args, *files, cwd=folder)
        for args in (
            (),
            ("--format", "markdown"),
            ("--format", "json"),
            ("--ssh-key-seed", SEED),
            ("--color", "always"),
        )
    ]
    assert [result.returncode for result in results] == [1, 1, 1, 1, 1], [r.stderr for r in results]
    assert_clean(results, forbidden("A", "B") | mpi_key_material(folder))
    text = results[0].stdout
    for changed in (
        "data.token",
        "stringData.plain",
        "extra",
        "data.k",
        "data.l",
        "stringData.m",
        "data",
        "stringData",
        "metadata.annotations.copy",
        "metadata.annotations[kubectl.kubernetes.io/last-applied-configuration]",
    ):
        assert f'@@ {changed} @@\n- "(hidden)"\n+ "(hidden, changed)"\n' in text, changed


def test_odd_secret_shapes_render_without_their_values():
    """Seeded random Secrets (maps with odd keys, lists, scalars of every type, in every field; `immutable` a
    string): every diff of two, and every Secret added, renders in both formats with no value in it."""
    import random

    from trainc.commands import diff

    chance = random.Random(15)
    canary = "CaNaRyShape"

    def value(depth=0):
        roll = chance.random()
        if depth > 3 or roll < 0.3:
            return chance.choice([None, 1, 2.5, True, "x", canary, "", "a\nb", "\ud800"])
        if roll < 0.6:
            return {chance.choice(["a", "b", 1, "c.d", None]): value(depth + 1) for _ in range(chance.randint(0, 3))}
        return [value(depth + 1) for _ in range(chance.randint(0, 3))]

    rendered = 0
    for _ in range(500):
        old = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "s", "annotations": value()},
            "data": value(),
            "stringData": value(),
            "extra": value(),
            "type": "Opaque",
            "immutable": chance.choice([True, False, value()]),
        }
        new = {**old, "data": value(), "metadata": {"name": "s", "annotations": value()}, "immutable": value()}
        for found in [
            *diff._object_diff(("Secret", "", "s"), old, new, []),
            *diff._object_diff(("Secret", "", "s"), None, new, []),
        ]:
            assert canary not in diff.text([found]) + diff.markdown([found]) + diff.json_text([found])
            rendered += 1
    assert rendered > 500
