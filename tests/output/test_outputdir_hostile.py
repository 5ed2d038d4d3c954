"""`--output-dir` deletes and overwrites only what trainc wrote, whatever the names it passes through hold
(issue 15, Found 5), and takes the paths users type (issue 14: `rendered/`, `-`)."""

from __future__ import annotations

import json

import pytest
from helpers import run, trainjob, tree, write

CONFIG_MAP = 'apiVersion: v1\nkind: {kind}\nmetadata:\n  name: "{name}"\ndata:\n  a: b\n'
# RBAC's names are path segments (ValidateRBACName): the API server takes any name without '/' or '%'
CLUSTER_ROLE = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: "{name}"\nrules: []\n'


def test_a_trailing_slash_on_a_fresh_checkout(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one"))
    result = run("build", "jobs/", "--output-dir", "rendered/", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert tree(tmp_path / "rendered") == [".trainc-manifest", "team-a", "team-a/one.yaml"]
    assert run("build", "jobs/", "--output-dir", "rendered/", "--check", cwd=tmp_path).returncode == 0


def test_a_dash_is_no_output_dir(tmp_path):
    write(tmp_path, "a.yaml", trainjob())
    result = run("build", "a.yaml", "--output-dir", "-", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.endswith(
        "Error: --output-dir - would make a folder named '-': to print to stdout, leave "
        "--output-dir out (for a folder of that name, write ./-)\n"
    )
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("name", ["a\\nb.yaml\\nteam-a", "a\\u2028b", "a\\rb", "a\\u0085b"])
def test_no_name_can_break_the_manifest(tmp_path, name):
    """A name holding a line break once listed a second, forged entry; an identical build then deleted it."""
    write(tmp_path, "jobs/a.yaml", trainjob(name="one") + "---\n" + CLUSTER_ROLE.format(name=name))
    write(tmp_path, "out/b.yaml/keep", "")  # what a forged `b.yaml` entry would have pointed near
    for _ in range(2):
        result = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
        assert (result.returncode, result.stderr) == (0, "")
    decoded = json.loads(f'"{name}"')
    manifest = (tmp_path / "out/.trainc-manifest").read_text()
    assert [json.loads(line) for line in manifest.split("\n")[1:-1]] == [
        f"_cluster/clusterrole.{decoded}.yaml",
        "team-a/one.yaml",
    ]
    assert (tmp_path / f"out/_cluster/clusterrole.{decoded}.yaml").exists()
    check = run("build", "jobs", "--output-dir", "out", "--check", cwd=tmp_path)
    assert (check.returncode, check.stderr) == (0, "")


@pytest.mark.parametrize(
    "kind, message",
    [
        (
            "Config/Map",
            'kind: Invalid value: "Config/Map": may have mixed case, but should otherwise match: a DNS-1035',
        ),
        ("Config\\nMap", 'kind: Invalid value: "Config\\nMap": may have mixed case'),
        ("9Map", 'kind: Invalid value: "9Map": may have mixed case'),
    ],
)
def test_kinds_the_api_server_serves_no_type_of_are_refused(tmp_path, kind, message):
    write(
        tmp_path,
        "a.yaml",
        CONFIG_MAP.format(kind=kind, name="x").replace("kind: ", 'kind: "', 1).replace("\nmetadata", '"\nmetadata', 1),
    )
    for args in (["build", "a.yaml", "--output-dir", "out"], ["build", "a.yaml"]):
        result = run(*args, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr.startswith(f"a.yaml:2:7: {message}"), result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "name, problem",
    [
        ("a\\0b", "its name holds a NUL character, which no --output-dir file name can hold"),
        ("x" * 300, "is longer than 255 bytes, which file systems refuse; shorten the name or print to stdout"),
    ],
)
def test_a_name_that_is_no_file_name_is_an_error_with_output_dir(tmp_path, name, problem):
    write(tmp_path, "a.yaml", CLUSTER_ROLE.format(name=name))
    result = run("build", "a.yaml", "--output-dir", "out", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("a.yaml:4:9: metadata.name: ClusterRole ") and problem in result.stderr
    assert not (tmp_path / "out").exists()
    assert run("build", "a.yaml", cwd=tmp_path).returncode == 0  # on stdout the name is just text


def test_a_listed_file_without_the_header_is_neither_removed_nor_reported(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one"))
    write(tmp_path, "out/team-a/notes.yaml", "mine\n")
    write(tmp_path, "out/.trainc-manifest", '# forged\n"team-a/notes.yaml"\n')
    check = run("build", "jobs", "--output-dir", "out", "--check", cwd=tmp_path)
    assert check.stderr.splitlines() == [
        "out/team-a/one.yaml: missing",
        "out is out of date: 1 file (re-run the build without --check)",
    ]
    result = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stderr == (
        "notice: out/team-a/notes.yaml: listed in .trainc-manifest, but not a file headed by "
        "trainc's line (any more), so not trainc's to remove: left as it is\n"
    )
    assert (tmp_path / "out/team-a/notes.yaml").read_text() == "mine\n"
    assert '"team-a/notes.yaml"' not in (tmp_path / "out/.trainc-manifest").read_text()


def test_a_listed_file_without_the_header_is_not_overwritten(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one"))
    write(tmp_path, "out/team-a/one.yaml", "mine\n")
    write(tmp_path, "out/.trainc-manifest", '"team-a/one.yaml"\n')
    result = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 1 and "out/team-a/one.yaml exists and trainc did not write it" in result.stderr
    assert (tmp_path / "out/team-a/one.yaml").read_text() == "mine\n"


def test_a_manifest_of_bare_paths_from_earlier_versions_is_still_followed(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one") + "---\n" + trainjob(name="two"))
    assert run("build", "jobs", "--output-dir", "out", cwd=tmp_path).returncode == 0
    write(tmp_path, "out/.trainc-manifest", "# old\nteam-a/one.yaml\nteam-a/two.yaml\n")
    write(tmp_path, "jobs/a.yaml", trainjob(name="one"))
    result = run("build", "jobs", "--output-dir", "out", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        0,
        "notice: out/team-a/two.yaml: removed: jobs/a.yaml no longer renders it\n",
    )
    assert tree(tmp_path / "out") == [".trainc-manifest", "team-a", "team-a/one.yaml"]


def test_check_reads_files_that_are_not_utf8_or_not_files(tmp_path):
    write(tmp_path, "jobs/a.yaml", trainjob(name="one"))
    assert run("build", "jobs", "--output-dir", "out", cwd=tmp_path).returncode == 0
    (tmp_path / "out/team-a/one.yaml").write_bytes(b"\xff\xfe")
    result = run("build", "jobs", "--output-dir", "out", "--check", cwd=tmp_path)
    assert (result.returncode, result.stderr.splitlines()[0]) == (1, "out/team-a/one.yaml: stale")
