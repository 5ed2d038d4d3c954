"""`trainc build --output-dir DIR --check`: compares with the rendered tree, writes nothing."""

from __future__ import annotations

from helpers import run, trainjob, write


def test_check(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob())
    write(tmp_path, "jobs/b.yaml", trainjob(name="other"))
    assert run("build", "jobs", "--output-dir", "out", cwd=tmp_path).returncode == 0
    result = run("build", "jobs", "--output-dir", "out", "--check", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    write(tmp_path, "jobs/a.yaml", trainjob(extra="  trainer:\n    numNodes: 3\n"))
    (tmp_path / "jobs" / "b.yaml").unlink()
    write(tmp_path, "jobs/c.yaml", trainjob(name="new"))
    write(tmp_path, "out/notes.txt", "not build's\n")
    before = sorted((p.relative_to(tmp_path), p.read_text()) for p in (tmp_path / "out").rglob("*") if p.is_file())
    result = run("build", "jobs", "--output-dir", "out", "--check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "out/team-a/demo.yaml: stale\n"
        "out/team-a/new.yaml: missing\n"
        "out/team-a/other.yaml: left over (the build would remove it)\n"
        "out is out of date: 3 files (re-run the build without --check)\n"
    )
    assert (
        sorted((p.relative_to(tmp_path), p.read_text()) for p in (tmp_path / "out").rglob("*") if p.is_file()) == before
    )


def test_check_needs_the_output_dir(tmp_path):
    write(tmp_path, "a.yaml", trainjob())
    result = run("build", "a.yaml", "--check", cwd=tmp_path)
    assert result.returncode == 2 and "give it with --output-dir" in result.stderr


def test_skip_other_files(tmp_path):
    write(tmp_path, "ci.yaml", "on: push\nkey: 1\nkey: 2\n")
    write(tmp_path, "a.yaml", trainjob())
    assert run("validate", "ci.yaml", "a.yaml", cwd=tmp_path).returncode == 1
    result = run("validate", "--skip-other-files", "ci.yaml", "a.yaml", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "valid: 1 TrainJob, 0 runtimes\n")
