"""--ssh-keys seed|external-secrets|sealed-secrets: what each mode renders, through every route.

The sealing test unseals as the Sealed Secrets controller does (pkg/crypto HybridDecrypt, strict-scope label
`namespace/name`) with the private key of the golden case's certificate, using `cryptography`'s own OAEP,
so trainc's OAEP encoding is checked against an independent one.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import GOLDEN, GOLDEN_SEED, ORACLE, ROOT, need
from helpers import KEYS, MPI_JOB, checkout, cmp_env, generate, rendered, run, unseal

from trainc.commands import diff as differ
from trainc.compiler import mpikeys, sshkeys

CERT = GOLDEN / "mpi-sealed-secrets" / "sealed-secrets-cert.pem"
SEALED = list(yaml.safe_load_all((GOLDEN / "mpi-sealed-secrets" / "expected.out.yaml").read_text()))
TORCH_JOB = (
    "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: t, namespace: team-a}\n"
    "spec: {runtimeRef: {name: torch-distributed}}\n"
)


def project(tmp_path, mode: str, *extra: str) -> list[str]:
    """A checkout with one MPI and one Torch TrainJob, and the flags of `mode`."""
    (tmp_path / "jobs").mkdir(exist_ok=True)
    (tmp_path / "jobs" / "ds.yaml").write_text(MPI_JOB.replace("name: ds", "name: ds\n  namespace: team-a"))
    (tmp_path / "jobs" / "t.yaml").write_text(TORCH_JOB)
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(0o600)
    cert = tmp_path / "sealed-secrets-cert.pem"  # inside the checkout: the kustomize generator confines its paths
    cert.write_bytes(CERT.read_bytes())
    return ["--ssh-keys", mode, "--ssh-key-seed", str(seed), "--sealed-secrets-cert", str(cert), *extra]


def private_key_canaries() -> list[str]:
    """Text that a private key of the test job would show in any output: PEM, base64 and the key's body."""
    pem = KEYS.private_pem.decode()
    body = "".join(pem.splitlines()[1:-1])
    return ["PRIVATE KEY", base64.b64encode(KEYS.private_pem).decode()[:40], body[20:60]]


def test_unsealing_as_the_controller_gives_seed_modes_key_which_openssh_accepts(tmp_path):
    sealed = next(doc for doc in SEALED if doc["kind"] == "SealedSecret")
    data = unseal(sealed)
    assert data == {"ssh-privatekey": KEYS.private_pem, "ssh-publickey": KEYS.public_line}
    assert sealed["spec"]["template"] == {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-name": "ds"}},
        "type": "kubernetes.io/ssh-auth",
        "immutable": True,
    }
    keygen = shutil.which("ssh-keygen")
    need(keygen is not None, "ssh-keygen is not installed (openssh-client)")
    private = tmp_path / "id"
    private.write_bytes(data["ssh-privatekey"])
    private.chmod(0o600)
    derived = subprocess.run([keygen, "-y", "-f", str(private)], capture_output=True, text=True, timeout=20)
    assert derived.returncode == 0, derived.stderr
    assert derived.stdout.split()[:2] == data["ssh-publickey"].decode().split()[:2]


def test_sealing_is_bound_to_the_objects_name_and_namespace():
    """Strict scope: the label is part of the OAEP encryption, so a blob moved to another object does not open."""
    sealed = next(doc for doc in SEALED if doc["kind"] == "SealedSecret")
    moved = {**sealed, "metadata": {**sealed["metadata"], "name": "other"}}
    with pytest.raises(ValueError):
        unseal(moved)


def test_the_new_modes_pass_the_oracle_and_hold_no_private_key(tmp_path):
    need(ORACLE.exists(), f"the CRD oracle {ORACLE} is not beside this checkout")
    for mode in ("external-secrets", "sealed-secrets"):
        flags = project(tmp_path, mode)
        out = run("build", "jobs", *flags, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        (tmp_path / f"{mode}.yaml").write_text(out.stdout)
        checked = subprocess.run(
            [sys.executable, str(ORACLE), "--require-core", str(tmp_path / f"{mode}.yaml")],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        kinds = [doc["kind"] for doc in yaml.safe_load_all(out.stdout)]
        assert "Secret" not in kinds
        assert {"external-secrets": "ExternalSecret", "sealed-secrets": "SealedSecret"}[mode] in kinds


def every_route(tmp_path, mode: str) -> dict[str, str]:
    """What each route outputs for the same job in `mode`: stdout (YAML, JSON), --output-dir, fn, the Argo CD
    plugin, the kustomize generator, and `run --dry-run`."""
    flags = project(tmp_path, mode)
    outputs = {}
    for form in ("yaml", "json"):
        result = run("build", "jobs", "-o", form, *flags, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        outputs[f"build -o {form}"] = result.stdout + result.stderr
    result = run("build", "jobs", "--output-dir", "out", *flags, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    outputs["--output-dir"] = result.stderr + "".join(
        p.read_text() for p in sorted((tmp_path / "out").rglob("*")) if p.is_file()
    )
    items = [yaml.safe_load(MPI_JOB.replace("name: ds", "name: ds\n  namespace: team-a"))]
    items[0]["metadata"]["annotations"] = {"config.kubernetes.io/path": "jobs/ds.yaml"}
    fn = run(
        "fn",
        *flags,
        cwd=tmp_path,
        stdin=json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}),
    )
    assert fn.returncode == 0, fn.stderr
    outputs["fn"] = fn.stdout + fn.stderr
    generator = ROOT / "examples/kustomize/plugin/trainc.kubeflow.org/v1alpha1/trainjobgenerator/TrainJobGenerator"
    kustomized = subprocess.run(
        ["sh", str(generator), "config.yaml", "jobs", *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert kustomized.returncode == 0, kustomized.stderr
    outputs["kustomize generator"] = kustomized.stdout + kustomized.stderr
    app = checkout(tmp_path / "argocd", {"apps/training/ds.yaml": MPI_JOB, "apps/training/cert.pem": CERT.read_text()})
    seed = tmp_path / "seed"
    plugin = generate(
        app,
        cmp_env(
            tmp_path,
            sidecar={"TRAINC_SSH_KEY_SEED_FILE": str(seed)},
            parameters=[{"name": "ssh-keys", "string": mode}, {"name": "sealed-secrets-cert", "string": "cert.pem"}],
        ),
    )
    assert plugin.returncode == 0, plugin.stderr
    outputs["plugin"] = plugin.stdout + plugin.stderr
    dry = run(
        "run",
        *(str(GOLDEN / "mpi-launcher-first" / name) for name in ("trainjob.yaml", "runtime.yaml")),
        "--dry-run",
        "--ssh-keys",
        mode,
        cwd=tmp_path,
    )
    assert dry.returncode == 0, dry.stderr
    outputs["run --dry-run"] = dry.stdout + dry.stderr
    return outputs


@pytest.mark.parametrize("mode", ["external-secrets", "sealed-secrets"])
def test_no_route_outputs_a_private_key_in_the_external_modes(tmp_path, mode):
    outputs = every_route(tmp_path, mode)
    kind = {"external-secrets": "ExternalSecret", "sealed-secrets": "SealedSecret"}[mode]
    for route, text in outputs.items():
        for canary in private_key_canaries():
            assert canary not in text, (route, canary)
        if route != "run --dry-run":
            assert kind in text, route
    assert mpikeys.EXTERNAL_NOTICE.format(mode=mode) in outputs["run --dry-run"]
    assert "in clear" not in "".join(outputs.values())


def test_seed_mode_renders_the_key_and_says_so_once_where_it_is_committed(tmp_path):
    outputs = every_route(tmp_path, "seed")
    assert all(
        private_key_canaries()[1] in outputs[route]
        for route in ("build -o yaml", "--output-dir", "fn", "plugin", "kustomize generator")
    )
    for route, times in (("--output-dir", 1), ("fn", 2)):  # fn: on stderr and among the ResourceList's results
        assert outputs[route].count("holds an MPI SSH private key in clear") == times, route
        assert "--ssh-keys external-secrets or --ssh-keys sealed-secrets" in outputs[route]
    for route in ("build -o yaml", "plugin", "kustomize generator", "run --dry-run"):  # nothing committed there
        assert "in clear" not in outputs[route], route


def test_no_notice_for_a_tree_without_an_mpi_job(tmp_path):
    (tmp_path / "t.yaml").write_text(TORCH_JOB)
    result = run("build", "t.yaml", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0 and "in clear" not in result.stderr


def test_sealed_rendering_is_byte_stable_and_check_stays_clean(tmp_path):
    flags = project(tmp_path, "sealed-secrets")
    first = run("build", "jobs", "--output-dir", "out", *flags, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    files = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert any(b"kind: SealedSecret" in text for text in files.values())
    again = run("build", "jobs", "--output-dir", "out", *flags, cwd=tmp_path)
    assert again.returncode == 0 and {p: p.read_bytes() for p in files} == files
    check = run("build", "jobs", "--output-dir", "out", "--check", *flags, cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    # fn: the package re-rendered from its own output keeps the same rendered item
    items = [yaml.safe_load(MPI_JOB.replace("name: ds", "name: ds\n  namespace: team-a"))]
    items[0]["metadata"]["annotations"] = {"config.kubernetes.io/path": "jobs/ds.yaml"}
    once = run("fn", *flags, cwd=tmp_path, stdin=yaml.safe_dump({"kind": "ResourceList", "items": items}))
    twice = run("fn", *flags, cwd=tmp_path, stdin=once.stdout)
    assert once.returncode == twice.returncode == 0 and twice.stdout == once.stdout


def test_a_new_certificate_reseals_the_same_key_and_a_new_seed_changes_it(tmp_path):
    """The blobs depend on the certificate; the digest annotation only on the key, so `diff` can say which."""
    flags = project(tmp_path, "sealed-secrets")
    other = tmp_path / "other-cert.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(tmp_path / "k.pem"),
            "-out",
            str(other),
            "-days",
            "1",
            "-subj",
            "/CN=other",
        ],
        check=True,
        capture_output=True,
    )

    def sealed(*more):
        out = run("build", "jobs", *flags, *more, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return next(doc for doc in yaml.safe_load_all(out.stdout) if doc["kind"] == "SealedSecret")

    before, resealed = sealed(), sealed("--sealed-secrets-cert", str(other))
    notes = before["metadata"]["annotations"], resealed["metadata"]["annotations"]
    assert notes[0][mpikeys.DIGEST_ANNOTATION] == notes[1][mpikeys.DIGEST_ANNOTATION]
    assert notes[0][mpikeys.CERT_ANNOTATION] != notes[1][mpikeys.CERT_ANNOTATION]
    assert before["spec"]["encryptedData"]["ssh-privatekey"] != resealed["spec"]["encryptedData"]["ssh-privatekey"]
    new_seed = tmp_path / "seed2"
    new_seed.write_bytes(os.urandom(40))
    new_seed.chmod(0o600)
    rotated = sealed("--ssh-key-seed", str(new_seed))
    assert rotated["metadata"]["annotations"][mpikeys.DIGEST_ANNOTATION] != notes[0][mpikeys.DIGEST_ANNOTATION]


def test_diff_shows_no_blob_and_a_reseal_as_an_unchanged_key():
    sealed = next(doc for doc in SEALED if doc["kind"] == "SealedSecret")
    other_blobs = json.loads(json.dumps(sealed))
    other_blobs["spec"]["encryptedData"] = {
        key: base64.b64encode(os.urandom(600)).decode() for key in sealed["spec"]["encryptedData"]
    }
    key = ("SealedSecret", "team-a", "ds-mpi-ssh-auth")
    assert differ._object_diff(key, sealed, other_blobs, []) == []  # same fingerprint and key: no change
    resealed = json.loads(json.dumps(other_blobs))
    resealed["metadata"]["annotations"][mpikeys.CERT_ANNOTATION] = "SHA256:another"
    [found] = differ._object_diff(key, sealed, resealed, [])  # a new certificate, the key unchanged: applies
    assert found.effect == mpikeys.RESEALED and [path for path, _, _ in found.hunks] == [
        ("metadata", "annotations", mpikeys.CERT_ANNOTATION)
    ]
    rotated = json.loads(json.dumps(other_blobs))
    rotated["metadata"]["annotations"][mpikeys.DIGEST_ANNOTATION] = "0" * 32
    [found] = differ._object_diff(key, sealed, rotated, [])
    assert found.effect == differ.REFUSED and found.reasons == [
        "SealedSecret 'ds-mpi-ssh-auth' unseals into an immutable Secret: the controller cannot change its key"
    ]
    text = differ.text([found])
    assert mpikeys.DIGEST_ANNOTATION in text and "(sealed)" not in text
    assert not any(
        blob[:16] in text
        for blob in [*sealed["spec"]["encryptedData"].values(), *rotated["spec"]["encryptedData"].values()]
    )
    added = differ.text(differ._object_diff(key, None, sealed, []))
    assert "(sealed)" in added and sealed["spec"]["encryptedData"]["ssh-publickey"][:16] not in added


def test_trainc_diff_of_an_unchanged_sealed_job_is_quiet(tmp_path):
    flags = project(tmp_path, "sealed-secrets")
    shutil.copytree(tmp_path / "jobs", tmp_path / "base" / "jobs")
    result = run("diff", "--base", str(tmp_path / "base"), "jobs", *flags, cwd=tmp_path)
    assert result.returncode == 0 and "no changes" in result.stdout, result.stdout + result.stderr


def test_diff_against_a_revision_with_another_certificate_shows_every_sealed_secret_resealed(tmp_path):
    """The certificate rotated in git (issue 20, finding 7): the base is sealed with the certificate the base
    revision holds, so `diff --base HEAD` shows the reseal (the key unchanged) instead of "no changes"."""
    flags = project(tmp_path, "sealed-secrets")
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "jobs", "sealed-secrets-cert.pem"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    assert run("diff", "jobs", *flags, cwd=tmp_path).returncode == 0
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(tmp_path / "k.pem"),
            "-out",
            str(tmp_path / "sealed-secrets-cert.pem"),
            "-days",
            "1",
            "-subj",
            "/CN=rotated",
        ],
        check=True,
        capture_output=True,
    )
    result = run("diff", "jobs", *flags, "--color", "never", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"SealedSecret team-a/ds-mpi-ssh-auth changed: {mpikeys.RESEALED}" in result.stdout
    assert "sealed-with" in result.stdout and mpikeys.DIGEST_ANNOTATION not in result.stdout
    assert result.stdout.endswith("0 added, 1 changed, 0 removed\n")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--sealed-secrets-cert", os.devnull], "the certificate /dev/null cannot be read"),
        (["--sealed-secrets-cert", "job.yaml"], "the certificate job.yaml is not a PEM certificate"),
        (["--sealed-secrets-cert", "missing.pem"], "the certificate missing.pem cannot be read"),
        ([], "needs the controller's certificate: pass --sealed-secrets-cert FILE"),
        (["--sealed-secrets-cert", "weak.pem"], "holds an RSA key of 1024 bits, too weak to seal with"),
        (["--sealed-secrets-cert", "ec.pem"], "holds no RSA public key"),
    ],
)
def test_sealed_mode_without_a_usable_certificate_is_a_clear_error(tmp_path, flags, message):
    (tmp_path / "job.yaml").write_text(MPI_JOB)
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(0o600)
    for name, key in (
        ("weak.pem", ["-newkey", "rsa:1024"]),
        ("ec.pem", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]),
    ):
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                *key,
                "-nodes",
                "-keyout",
                str(tmp_path / "k.pem"),
                "-out",
                str(tmp_path / name),
                "-days",
                "1",
                "-subj",
                "/CN=t",
            ],
            check=True,
            capture_output=True,
        )
    result = run("build", "job.yaml", "--ssh-keys", "sealed-secrets", "--ssh-key-seed", "seed", *flags, cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("job.yaml:") and message in result.stderr and "Traceback" not in result.stderr


def test_sealed_mode_needs_the_seed(tmp_path):
    (tmp_path / "job.yaml").write_text(MPI_JOB)
    result = run("build", "job.yaml", "--ssh-keys", "sealed-secrets", "--sealed-secrets-cert", str(CERT), cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert "--ssh-keys sealed-secrets seals the key derived from the seed: pass --ssh-key-seed" in result.stderr


def test_external_secrets_needs_no_seed_and_the_project_config_chooses_the_mode(tmp_path):
    (tmp_path / "job.yaml").write_text(MPI_JOB)
    (tmp_path / ".trainc.yaml").write_text("ssh-keys: external-secrets\n")
    result = run("build", "job.yaml", "--require-ssh-key-seed", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [doc["kind"] for doc in yaml.safe_load_all(result.stdout)][:2] == ["SSHKey", "ExternalSecret"]
    (tmp_path / ".trainc.yaml").write_text("ssh-keys: vault\n")
    refused = run("build", "job.yaml", cwd=tmp_path)
    assert (refused.returncode, refused.stderr) == (
        1,
        ".trainc.yaml:1:11: ssh-keys: 'vault' is not one of seed, external-secrets, sealed-secrets\n",
    )


def test_a_scope_derives_other_keys_and_no_scope_keeps_todays():
    assert sshkeys.derive_keypair(GOLDEN_SEED, "team-a", "ds", None) == KEYS
    assert sshkeys.derive_keypair(GOLDEN_SEED, "team-a", "ds", "") == KEYS
    scoped = {
        sshkeys.derive_keypair(GOLDEN_SEED, "team-a", "ds", scope).public_line
        for scope in ("argocd-project/a", "argocd-project/b")
    }
    assert len(scoped) == 2 and KEYS.public_line not in scoped


def test_the_plugin_binds_keys_to_the_apps_project_when_the_sidecar_says_so(tmp_path):
    """Found 8: with TRAINC_SSH_KEYS_PER_PROJECT=true an app of another AppProject that names the same job gets
    another key; the app cannot choose its scope (ARGOCD_APP_PROJECT_NAME is Argo CD's, the flag beats the
    repository's config)."""
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    keys = {}
    for project_name in ("team-a", "team-b"):
        app = checkout(tmp_path / project_name, {"apps/training/ds.yaml": MPI_JOB})
        env = cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_FILE": str(seed), "TRAINC_SSH_KEYS_PER_PROJECT": "true"})
        env["ARGOCD_APP_PROJECT_NAME"] = project_name
        result = generate(app, env)
        assert result.returncode == 0, result.stderr
        secret = next(doc for doc in rendered(result) if doc["kind"] == "Secret")
        keys[project_name] = base64.b64decode(secret["data"]["ssh-publickey"])
    assert keys["team-a"] == sshkeys.derive_keypair(GOLDEN_SEED, "team-a", "ds", "argocd-project/team-a").public_line
    assert keys["team-a"] != keys["team-b"] and KEYS.public_line not in keys.values()
    app = checkout(tmp_path / "old", {"apps/training/ds.yaml": MPI_JOB})
    env = cmp_env(tmp_path, sidecar={"TRAINC_SSH_KEY_SEED_FILE": str(seed), "TRAINC_SSH_KEYS_PER_PROJECT": "true"})
    del env["ARGOCD_APP_PROJECT_NAME"]
    refused = generate(app, env)
    assert refused.returncode == 1 and "ARGOCD_APP_PROJECT_NAME" in refused.stderr and refused.stdout == ""


def test_the_docs_keys_section_shows_the_golden_output():
    """The YAML of "Keys and GitOps" is copied from the golden cases, as it is there (indentation included)."""
    import re

    section = (ROOT / "docs" / "guides" / "mpi.md").read_text().split("## Keys and GitOps\n")[1].split("\n## ")[0]
    blocks = re.findall(r"^( *)```yaml\n(.*?)^ *```$", section, re.DOTALL | re.MULTILINE)
    golden = {
        case: (GOLDEN / case / "expected.out.yaml").read_text()
        for case in ("mpi-external-secrets", "mpi-sealed-secrets")
    }
    assert len(blocks) == 2
    for indent, block in blocks:
        text = "".join(line.removeprefix(indent) + "\n" for line in block.splitlines())
        assert any(text in output for output in golden.values()), text


def test_diff_without_a_seed_renders_in_the_mode_asked(tmp_path):
    """Without --ssh-key-seed diff uses a throwaway seed on both sides, in the --ssh-keys mode given."""
    project(tmp_path, "sealed-secrets")
    (tmp_path / "base").mkdir()
    for mode, kind in (("sealed-secrets", "SealedSecret"), ("external-secrets", "ExternalSecret")):
        result = run(
            "diff",
            "--base",
            "base",
            "jobs/ds.yaml",
            "--ssh-keys",
            mode,
            "--sealed-secrets-cert",
            str(CERT),
            cwd=tmp_path,
        )
        assert result.returncode == 1, result.stderr
        assert f"{kind} team-a/ds-mpi-ssh-auth added" in result.stdout and "\nSecret " not in result.stdout
        for canary in private_key_canaries():
            assert canary not in result.stdout + result.stderr


@pytest.mark.parametrize(
    "spec",
    [
        None,
        "text",
        [1],
        {"encryptedData": [1]},
        {"encryptedData": "x"},
        {"encryptedData": {1: "a", "b": "c"}, "template": {"immutable": True}},
        {"template": "x"},
    ],
)
@pytest.mark.parametrize("annotations", ["text", None, {mpikeys.DIGEST_ANNOTATION: 5}])
def test_diff_takes_sealedsecrets_of_any_shape_a_user_wrote(tmp_path, spec, annotations):
    """A passed-through SealedSecret is the user's: diff compares whatever shape it has, without a traceback."""
    old = {
        "apiVersion": "bitnami.com/v1alpha1",
        "kind": "SealedSecret",
        "metadata": {"name": "s", "annotations": annotations},
        "spec": spec,
    }
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "s.yaml").write_text(yaml.safe_dump(old))
    new = {**old, "spec": {"encryptedData": {"k": "AgB" + "x" * 40}, "template": {"immutable": True}}}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(new))
    result = run("diff", "--base", "base", "s.yaml", cwd=tmp_path)
    assert result.returncode == 1 and "SealedSecret default/s changed" in result.stdout, result.stderr
    assert "Traceback" not in result.stderr and "AgBxxx" not in result.stdout


def test_a_scope_that_is_not_utf8_is_a_usage_error(tmp_path):
    (tmp_path / "job.yaml").write_text(MPI_JOB)
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "build", "job.yaml"],
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TRAINC_SSH_KEY_SCOPE": "a\udcff"},
        timeout=60,
    )
    assert result.returncode == 2 and b"--ssh-key-scope" in result.stderr and b"not valid UTF-8" in result.stderr
    assert b"Traceback" not in result.stderr
