"""The project config: lookup, paths relative to the file, precedence, and exact errors."""

from __future__ import annotations

from helpers import RUNTIME, run, trainjob, write


def project(tmp_path):
    """A git repository whose runtimes live outside the jobs folder."""
    (tmp_path / ".git").mkdir(parents=True)
    write(tmp_path, "platform/runtimes.yaml", RUNTIME.format(name="mine", policy="torch: {}"))
    write(tmp_path, "jobs/team/job.yaml", trainjob(runtime="mine").replace("  namespace: team-a\n", ""))
    return tmp_path


def namespaces(result) -> set:
    assert result.returncode == 0, result.stderr
    return {line.split(": ")[1] for line in result.stdout.splitlines() if line.startswith("  namespace: ")}


def test_pyproject_table_from_a_subfolder(tmp_path):
    write(
        project(tmp_path),
        "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.trainc]\nruntimes = ["platform"]\nnamespace = "team-b"\n',
    )
    assert namespaces(run("build", "job.yaml", cwd=tmp_path / "jobs" / "team")) == {"team-b"}
    # flags and the environment override it
    assert namespaces(run("build", "-n", "team-c", "job.yaml", cwd=tmp_path / "jobs" / "team")) == {"team-c"}


def test_trainc_yaml_wins_over_pyproject_in_the_same_folder(tmp_path):
    write(project(tmp_path), "pyproject.toml", '[tool.trainc]\nnamespace = "team-b"\n')
    write(tmp_path, ".trainc.yaml", "runtimes: [platform/runtimes.yaml]\nnamespace: team-d\n")
    assert namespaces(run("build", "jobs", cwd=tmp_path)) == {"team-d"}


def test_a_pyproject_without_the_table_is_passed_over(tmp_path):
    write(project(tmp_path), ".trainc.yaml", "runtimes: [platform]\n")
    write(tmp_path, "jobs/pyproject.toml", '[project]\nname = "jobs"\n')
    assert namespaces(run("build", "team", cwd=tmp_path / "jobs")) == {"default"}


def test_lookup_stops_at_the_git_root(tmp_path):
    write(tmp_path, ".trainc.yaml", "namespace: outside\n")
    repo = project(tmp_path / "repo")
    write(repo, "pyproject.toml", '[tool.trainc]\nruntimes = ["platform"]\n')
    assert namespaces(run("build", "jobs", cwd=repo)) == {"default"}
    (repo / "pyproject.toml").unlink()
    result = run("build", "jobs", cwd=repo)  # the outer config is not read: no runtimes
    assert result.returncode == 1 and 'ClusterTrainingRuntime "mine" not found' in result.stderr


def test_output_dir_and_seed_paths_are_relative_to_the_config(tmp_path):
    write(project(tmp_path), ".trainc.yaml", "runtimes: [platform]\noutput-dir: rendered\nssh-key-seed: seed\n")
    write(tmp_path, "seed", "s" * 64)
    result = run("build", "../jobs", cwd=tmp_path / "platform")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "rendered" / "default" / "demo.yaml").is_file()


def test_unknown_keys_and_wrong_types(tmp_path):
    write(project(tmp_path), "pyproject.toml", '[tool.trainc]\nnamespace = "a"\n  numNodes = 3\n')
    result = run("validate", "jobs", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "pyproject.toml:3:3: numNodes: unknown key (known: runtimes, namespace, ssh-key-seed, "
        "output-dir, plugins, ssh-keys, sealed-secrets-cert, policy-paths, kueue-paths, cluster-state, "
        "trainer-version, as, as-groups, policies, prices)\n"
    )
    write(tmp_path, ".trainc.yaml", "runtimes: platform\n")
    result = run("validate", "jobs", cwd=tmp_path / "jobs")
    assert result.stderr == "../.trainc.yaml:1:11: runtimes: must be a list of non-empty strings\n"


def test_commands_without_those_settings_do_not_read_it(tmp_path):
    write(tmp_path, ".trainc.yaml", "bad: key\n")
    assert run("version", cwd=tmp_path).returncode == 0
    assert run("validate", "x.yaml", cwd=tmp_path).returncode == 1
