"""`--output-dir`: a tree trainc owns (manifest, stale files removed, others never touched), written whole,
under a lock, never through a link, Secrets 0600; and stdout written whole or reported."""

from __future__ import annotations

import fcntl
import os
import resource
import subprocess
import sys

from conftest import GOLDEN, GOLDEN_SEED, ROOT
from helpers import run, trainjob, tree, write

from trainc.output import outputdir

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{namespace}data:\n  a: b\n"


def test_layout_headers_and_manifest(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one") + "---\n" + CONFIG_MAP.format(name="cfg", namespace=""))
    write(tmp_path, "jobs/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n")
    result = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    out = tmp_path / "out"
    # the ConfigMap that sets no namespace is given -n's (namespaced.py); the Namespace is cluster-scoped
    assert tree(out) == [
        ".trainc-manifest",
        "_cluster",
        "_cluster/namespace.team-a.yaml",
        "default",
        "default/configmap.cfg.yaml",
        "team-a",
        "team-a/one.yaml",
    ]
    assert (out / ".trainc-manifest").read_text().splitlines()[1:] == [
        '"_cluster/namespace.team-a.yaml"',
        '"default/configmap.cfg.yaml"',
        '"team-a/one.yaml"',
    ]
    assert (
        (out / "team-a/one.yaml")
        .read_text()
        .startswith("# Rendered by trainc from jobs/a.yaml; do not edit.\n---\napiVersion: jobset.x-k8s.io/v1alpha2\n")
    )
    assert (out / "_cluster/namespace.team-a.yaml").read_text() == (
        "# Rendered by trainc from jobs/ns.yaml; do not edit.\n---\napiVersion: v1\nkind: Namespace\n"
        "metadata:\n  name: team-a\n"
    )


def test_files_of_deleted_trainjobs_go_and_files_trainc_did_not_write_stay(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one"))
    write(tmp_path, "jobs/b.yaml", trainjob(name="two", namespace="team-b"))
    write(tmp_path, "out/team-a/notes.md", "mine\n")
    write(tmp_path, "out/kustomization.yaml", "resources: []\n")
    assert run("build", "jobs", "--output-dir", "out", cwd=tmp_path).returncode == 0
    (tmp_path / "jobs/b.yaml").unlink()
    result = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path / "out") == [
        ".trainc-manifest",
        "kustomization.yaml",
        "team-a",
        "team-a/notes.md",
        "team-a/one.yaml",
    ]  # team-b/ went with its last file
    assert (tmp_path / "out/team-a/notes.md").read_text() == "mine\n"


def test_a_file_trainc_did_not_write_is_never_overwritten(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    write(tmp_path, "out/team-a/demo.yaml", "hand-written\n")
    result = run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: out/team-a/demo.yaml exists and trainc did not write it (it does not start with "
        "trainc's '# Rendered by trainc from ...' line): move it away, or write to another "
        "--output-dir\n"
    )
    assert tree(tmp_path / "out") == ["team-a", "team-a/demo.yaml"]
    assert (tmp_path / "out/team-a/demo.yaml").read_text() == "hand-written\n"


def test_a_symlinked_namespace_directory_is_refused_and_nothing_is_written_outside(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    (tmp_path / "outside").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out/team-a").symlink_to("../outside")
    result = run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "Error: out/team-a is a symbolic link: trainc writes only inside the output directory "
        "and never through a link (it could lead outside); remove the link\n"
    )
    assert tree(tmp_path / "outside") == [] and tree(tmp_path / "out") == ["team-a"]


def test_stale_files_behind_a_planted_link_are_not_removed(tmp_path):
    write(tmp_path, "job.yaml", trainjob(name="gone", namespace="team-b") + "---\n" + trainjob())
    assert run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path).returncode == 0
    write(tmp_path, "outside/gone.yaml", "precious\n")
    (tmp_path / "out/team-b/gone.yaml").unlink()
    (tmp_path / "out/team-b").rmdir()
    (tmp_path / "out/team-b").symlink_to("../outside")
    write(tmp_path, "job.yaml", trainjob())
    assert run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path).returncode == 0
    assert (tmp_path / "outside/gone.yaml").read_text() == "precious\n"


def test_secrets_are_written_0600(tmp_path):
    case = GOLDEN / "mpi-env-order"
    seed = tmp_path / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(0o600)
    result = run(
        "build",
        *(str(p) for p in sorted(case.glob("*.yaml")) if not p.name.endswith(".out.yaml")),
        "--ssh-key-seed",
        str(seed),
        "--output-dir",
        str(tmp_path / "out"),
    )
    assert result.returncode == 0, result.stderr
    files = [p for p in (tmp_path / "out").rglob("*.yaml")]
    modes = {p.name: p.stat().st_mode & 0o777 for p in files}
    assert files and all(mode == 0o600 for mode in modes.values()), modes  # each file holds its job's SSH key
    write(tmp_path, "cm.yaml", CONFIG_MAP.format(name="c", namespace="  namespace: team-a\n"))
    write(tmp_path, "secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: team-a\n")
    assert run("build", "cm.yaml", "secret.yaml", "--output-dir", "plain", cwd=tmp_path).returncode == 0
    assert (tmp_path / "plain/team-a/secret.s.yaml").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "plain/team-a/configmap.c.yaml").stat().st_mode & 0o777 == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_second_build_fails_fast_naming_the_holder(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    (tmp_path / "out").mkdir()
    holder = os.open(tmp_path / "out", os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        result = run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path)
    finally:
        os.close(holder)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: out is being written by another trainc build (pid {os.getpid()}); run one "
        "build per directory at a time\n"
    )
    assert tree(tmp_path / "out") == []
    assert run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path).returncode == 0


def test_concurrent_builds_never_leave_a_mix(tmp_path):
    """Many builds of two different apps into one directory at once: each either writes its app whole or fails
    clearly; neither removes the other's files (inputs it was not given)."""
    write(tmp_path, "a.yaml", "".join(trainjob(name=f"a{i}") + "---\n" for i in range(8)))
    write(tmp_path, "b.yaml", "".join(trainjob(name=f"b{i}") + "---\n" for i in range(8)))
    command = [sys.executable, "-m", "trainc", "build", "--output-dir", "out"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = [
        subprocess.Popen([*command, f"{'ab'[i % 2]}.yaml"], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
        for i in range(6)
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0 or "is being written by another trainc build" in stderr, stderr
    written = [p.name for p in (tmp_path / "out/team-a").glob("*.yaml")]
    for app in {name[0] for name in written}:
        assert sorted(name for name in written if name[0] == app) == [f"{app}{i}.yaml" for i in range(8)]


def _limited(size: int):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def test_a_file_size_limit_fails_whole_naming_the_real_file(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    write(tmp_path, "small.yaml", CONFIG_MAP.format(name="c", namespace="  namespace: team-a\n"))
    result = subprocess.run(
        [sys.executable, "-m", "trainc", "build", "job.yaml", "small.yaml", "--output-dir", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        preexec_fn=_limited(600),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "Error: out/team-a/demo.yaml: File too large\n"
    assert not (tmp_path / "out").exists()


def test_stdout_cut_by_a_file_size_limit_is_reported(tmp_path):
    write(tmp_path, "jobs.yaml", "".join(trainjob(name=f"job{i}") + "---\n" for i in range(60)))
    with open(tmp_path / "rendered.yaml", "wb") as target:
        result = subprocess.run(
            [sys.executable, "-m", "trainc", "build", "jobs.yaml"],
            cwd=tmp_path,
            stdout=target,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_limited(64 * 1024),
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
        )
    assert (result.returncode, result.stderr) == (1, "Error: cannot write the output: File too large\n")
    assert len(run("build", "jobs.yaml", cwd=tmp_path).stdout.encode()) > 64 * 1024


def test_a_full_pipe_reader_is_reported(tmp_path):
    """`trainc build | cat > file` on a full disk: cat fails, trainc sees the pipe close and exits 1 quietly."""
    write(tmp_path, "jobs.yaml", "".join(trainjob(name=f"job{i}") + "---\n" for i in range(60)))
    script = f"'{sys.executable}' -m trainc build jobs.yaml | head -c 10 >/dev/null; echo ${{PIPESTATUS[0]}}"
    result = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert (result.stdout, result.stderr) == ("1\n", "")


def test_manifest_entries_outside_the_tree_are_never_acted_on(tmp_path):
    write(tmp_path, "job.yaml", trainjob())
    write(tmp_path, "victim.yaml", "precious\n")
    write(tmp_path, "out/.trainc-manifest", "../victim.yaml\n/etc/passwd\nteam-a/../../victim.yaml\n.hidden/x\n")
    assert run("build", "job.yaml", "--output-dir", "out", cwd=tmp_path).returncode == 0
    assert (tmp_path / "victim.yaml").read_text() == "precious\n"


def test_files_maps_jobs_and_documents_to_their_paths(tmp_path):
    from helpers import build
    from trainc.output import manifests as passthrough

    write(tmp_path, "app.yaml", trainjob() + "---\n" + CONFIG_MAP.format(name="c", namespace="  namespace: team-b\n"))
    manifests = passthrough.select(build([str(tmp_path / "app.yaml")]), namespace="default", files=True)
    assert sorted(outputdir.files(manifests)) == ["team-a/demo.yaml", "team-b/configmap.c.yaml"]


def test_an_intentionally_empty_app_empties_the_tree(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob())
    assert run("build", "jobs", "--output-dir", "out", cwd=tmp_path).returncode == 0
    (tmp_path / "jobs/a.yaml").unlink()
    refused = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert refused.returncode == 1 and tree(tmp_path / "out") == [".trainc-manifest", "team-a", "team-a/demo.yaml"]
    assert run("build", "jobs", "--allow-empty", "--output-dir", "out", cwd=tmp_path).returncode == 0
    assert tree(tmp_path / "out") == [".trainc-manifest"]


def test_a_build_prunes_only_what_its_own_inputs_rendered_and_says_so(tmp_path):
    """A per-app CI loop into one directory keeps every app; a TrainJob deleted from an input this run was
    given is removed, by name (issue 20)."""
    write(tmp_path, "a/jobs.yaml", trainjob(name="a1") + "---\n" + trainjob(name="a2"))
    write(tmp_path, "b/jobs.yaml", trainjob(name="b1"))
    for app in ("a", "b"):
        result = run("build", app, "--output-dir", "out", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "out/team-a").iterdir()) == ["a1.yaml", "a2.yaml", "b1.yaml"]
    write(tmp_path, "a/jobs.yaml", trainjob(name="a1"))
    result = run("build", "a/jobs.yaml", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "out/team-a/a2.yaml: removed: a/jobs.yaml no longer renders it" in result.stderr
    assert (
        "out: 1 file(s) rendered from inputs this run was not given kept as they are (e.g. out/team-a/b1.yaml, "
        "from b/jobs.yaml)" in result.stderr
    )
    assert sorted(p.name for p in (tmp_path / "out/team-a").iterdir()) == ["a1.yaml", "b1.yaml"]
    (tmp_path / "b" / "jobs.yaml").unlink()
    result = run("build", "a", "b", "--output-dir", "out", "--allow-empty", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "out/team-a/b1.yaml: removed: b/jobs.yaml no longer renders it" in result.stderr
    assert run("build", "a", "--output-dir", "out", "--check", cwd=tmp_path).returncode == 0
    write(tmp_path, "b/jobs.yaml", trainjob(name="b1"))
    assert run("build", "b", "--output-dir", "out", cwd=tmp_path).returncode == 0
    checked = run("build", "a", "--output-dir", "out", "--check", cwd=tmp_path)  # b's file is not a's left-over
    assert (checked.returncode, checked.stderr) == (0, "")


def test_a_directory_another_build_makes_meanwhile_is_taken_as_there(tmp_path, monkeypatch):
    """Two builds into one new directory: the second finds it missing, then made by the first when it makes it. It
    goes on as if it had been there (the lock then decides), never `cannot create out: File exists`; and it is not
    the second build's to remove."""
    made_meanwhile = tmp_path / "out"
    real = os.path.lexists
    monkeypatch.setattr(os.path, "lexists", lambda path: False if str(path) == str(made_meanwhile) else real(path))
    made_meanwhile.mkdir()  # by the other build, after this one looked
    assert outputdir._make(str(made_meanwhile / "team-a")) == [str(made_meanwhile / "team-a")]
