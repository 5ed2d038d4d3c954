"""The input set (`trainc/inputs.py`): which files every command reads, each once (issue 14, items 5 and 6;
issue 15: only runtimes under --runtimes)."""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT

from trainc import inputs as inputset
from trainc.cli import cli

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
spec:
  runtimeRef:
    name: {runtime}
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
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: busybox
"""
SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: other-apps-secret\nstringData:\n  token: CANARY\n"
# YAML that is not manifests, where a repository keeps it
TOOL_FILES = {
    ".trainc.yaml": "runtimes: [platform/runtimes]\n",
    ".pre-commit-config.yaml": "repos:\n- repo: https://example.com/trainc\n  rev: v1\n  hooks: [{id: trainc}]\n",
    ".github/workflows/ci.yaml": "on: [push]\njobs:\n  render: {runs-on: ubuntu-latest, steps: []}\n",
    ".gitlab-ci.yml": "render:\n  script: [trainc build .]\n",
    "apps/a/.argocd-source.yaml": "plugin:\n  parameters: [{name: namespace, string: team-a}]\n",
    "apps/a/.argocd-source-a.yaml": "plugin:\n  env: []\n",
}


def write(root, files: dict) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def run(tmp_path, monkeypatch, *args, env=None):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, list(args), env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def identities(text: str) -> set:
    return {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(text) if d}


def repository(tmp_path) -> None:
    (tmp_path / ".git").mkdir()  # the config's search stops here
    write(
        tmp_path,
        {
            **TOOL_FILES,
            "platform/runtimes/mine.yaml": RUNTIME,
            "apps/a/job.yaml": TRAINJOB.format(name="a", runtime="mine"),
            "apps/b/job.yaml": TRAINJOB.format(name="b", runtime="torch-distributed"),
        },
    )


def test_a_repository_root_builds_and_validates(tmp_path, monkeypatch):
    """`trainc build .` at a repository root read its tool configs as manifests and failed; and the config's
    runtimes, inside `.`, were "defined twice (first in <the same file>)"."""
    repository(tmp_path)
    result = run(tmp_path, monkeypatch, "build", ".")
    assert result.exit_code == 0, result.stderr
    assert identities(result.stdout) == {("JobSet", "a"), ("JobSet", "b")}
    result = run(tmp_path, monkeypatch, "validate", ".")
    assert result.exit_code == 0 and result.stderr.endswith("valid: 2 TrainJobs, 1 runtime\n"), result.stderr


NAME_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: short-names}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE, UPDATE], resources: ["*"]}]
  validations: [{expression: "object.metadata.name.size() <= 63"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: short-names}
spec: {policyName: short-names, validationActions: [Deny]}
"""


def test_the_platform_s_files_are_no_inputs_however_paths_reach_them(tmp_path, monkeypatch):
    """The platform's queues (kueue-paths), its policies (policy-paths) and the cluster state are read apart and
    never pass through: `trainc build .` at the root, a hook given every file and a diff against a commit read
    them as the runs naming only the apps do. They were inputs too: the state's queues were then "defined twice"
    (first in the platform's queues), and an app's render would have deployed them."""
    case = ROOT / "golden" / "kueue-placement"
    write(
        tmp_path,
        {
            ".trainc.yaml": "kueue-paths: [platform/kueue]\ncluster-state: platform/state.json\n"
            "policy-paths: [platform/policies]\n",
            "platform/kueue/queues.yaml": (case / "queues.yaml").read_text(),
            "platform/state.json": (case / "cluster" / "state.json").read_text(),
            "platform/policies/names.yaml": NAME_POLICY,
            "apps/jobs.yaml": (case / "trainjobs.yaml").read_text(),
        },
    )
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    (tmp_path / "apps" / "jobs.yaml").write_text((tmp_path / "apps" / "jobs.yaml").read_text() + "\n# changed\n")
    # what the trainc-validate hook is given: every file but dot-files (its `exclude`)
    every_file = sorted(
        str(path.relative_to(tmp_path))
        for path in tmp_path.rglob("*")
        if path.suffix in (".yaml", ".json")
        and not any(part.startswith(".") for part in path.relative_to(tmp_path).parts)
    )
    for command in (
        ["build"],
        ["validate"],
        ["summary"],
        ["diff", "--base", "HEAD"],
        ["validate", "--previous", "HEAD"],
    ):
        apps = run(tmp_path, monkeypatch, *command, "apps")
        assert apps.exit_code in (0, 1) and "defined twice" not in apps.stderr, (command, apps.stderr)
        for paths in (["."], every_file):
            reached = run(tmp_path, monkeypatch, *command, *paths)
            assert (reached.exit_code, reached.stdout) == (apps.exit_code, apps.stdout), (
                command,
                paths,
                reached.stderr,
            )
    built = identities(run(tmp_path, monkeypatch, "build", ".").stdout)
    assert {kind for kind, _ in built} == {"JobSet"} and built  # no queue, policy or workload passed through


def test_hidden_names_are_skipped_in_directories_only(tmp_path):
    write(tmp_path, {"a.yaml": "", ".b.yaml": "", ".hidden/c.yaml": "", "d/.e.yml": "", "d/f.json": "", ".yaml": ""})
    assert inputset.listed([str(tmp_path)]) == [f"{tmp_path}/a.yaml", f"{tmp_path}/d/f.json"]
    # named explicitly, or a hidden directory given as a PATH: read
    assert inputset.listed([str(tmp_path / ".b.yaml"), str(tmp_path / ".hidden")]) == [
        f"{tmp_path}/.b.yaml",
        f"{tmp_path}/.hidden/c.yaml",
    ]


def test_a_runtime_file_reached_by_every_route_is_read_once(tmp_path, monkeypatch):
    repository(tmp_path)
    for args, env in [
        (["--runtimes", "platform/runtimes"], None),
        (["--runtimes", "platform/runtimes/mine.yaml"], None),
        ([], {"TRAINC_RUNTIMES": "platform"}),
    ]:
        result = run(tmp_path, monkeypatch, "build", ".", *args, env=env)
        assert result.exit_code == 0, (args, result.stderr)
        assert identities(result.stdout) == {("JobSet", "a"), ("JobSet", "b")}
    result = run(tmp_path, monkeypatch, "runtimes", "list", ".", "--runtimes", "platform/runtimes")
    assert result.exit_code == 0 and "platform/runtimes/mine.yaml:1" in result.stdout, result.stderr


def test_only_runtimes_are_read_under_runtimes(tmp_path, monkeypatch):
    """`--runtimes /tmp` (or a config's or an Application's `runtimes`) passed every other document there
    through: another app's Secret landed in this app's manifests."""
    write(
        tmp_path,
        {
            "app/job.yaml": TRAINJOB.format(name="a", runtime="mine"),
            "elsewhere/runtime.yaml": RUNTIME + "---\n" + SECRET,
            "elsewhere/job.yaml": TRAINJOB.format(name="theirs", runtime="mine"),
        },
    )
    for command in ("build", "validate"):
        result = run(tmp_path, monkeypatch, command, "app", "--runtimes", "elsewhere")
        assert result.exit_code == 0, result.stderr
        assert "CANARY" not in result.stdout and "other-apps-secret" not in result.output
        assert "notice: elsewhere/job.yaml:2:7: a TrainJob under --runtimes, not a runtime: ignored" in result.stderr
        assert "notice: elsewhere/runtime.yaml:19:7: a Secret under --runtimes, not a runtime: ignored" in result.stderr
    result = run(tmp_path, monkeypatch, "build", "app", "--runtimes", "elsewhere")
    assert identities(result.stdout) == {("JobSet", "a")}


# --- a git base: PATHS read as the tree at REV holds them (issue 14, item 3) ---------------------------


def git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def history(tmp_path, monkeypatch):
    """A repository with two TrainJobs, a ConfigMap and tool files committed; the working tree is the test's."""
    write(
        tmp_path,
        {
            ".github/workflows/ci.yaml": TOOL_FILES[".github/workflows/ci.yaml"],
            "apps/a.yaml": TRAINJOB.format(name="a", runtime="torch-distributed") + NODES.format(4),
            "apps/b.yaml": TRAINJOB.format(name="b", runtime="torch-distributed"),
            "apps/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
        },
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "v1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


NODES = "  trainer:\n    numNodes: {}\n"


def headers(result) -> list[str]:
    return [line.partition(":")[0] for line in result.stdout.splitlines() if line[:1] not in ("", "+", "-", "@", " ")]


def test_a_deleted_file_is_removed(history, monkeypatch):
    git(history, "rm", "-q", "apps/b.yaml", "apps/settings.yaml")
    result = run(history, monkeypatch, "diff", "apps")
    assert result.exit_code == 1, result.stderr
    assert headers(result) == [
        "ConfigMap default/settings removed",
        "JobSet default/b removed",
        "0 added, 0 changed, 2 removed",
    ]


def test_a_moved_file_is_not_added(history, monkeypatch):
    (history / "apps" / "team").mkdir()
    git(history, "mv", "apps/a.yaml", "apps/team/a.yaml")
    git(history, "mv", "apps/settings.yaml", "apps/team/settings.yml")
    result = run(history, monkeypatch, "diff", "apps")
    assert (result.exit_code, result.stdout) == (0, "no changes\n"), result.stderr
    for command in ("validate", "build"):
        assert run(history, monkeypatch, command, "--previous", "HEAD", "apps").exit_code == 0


def test_a_moved_file_with_an_immutable_change_is_refused(history, monkeypatch):
    (history / "moved").mkdir()
    git(history, "mv", "apps/a.yaml", "moved/a.yaml")
    (history / "moved" / "a.yaml").write_text((history / "moved" / "a.yaml").read_text().replace("4", "8"))
    for command in ("validate", "build"):
        result = run(history, monkeypatch, command, "--previous", "HEAD", ".")
        assert result.exit_code == 1, result.stderr
        assert "moved/a.yaml:9:5: spec.trainer: field is immutable" in result.stderr
    result = run(history, monkeypatch, "diff", ".")
    assert result.exit_code == 1 and headers(result)[0] == "JobSet default/a changed", result.stdout


def test_a_git_base_reads_with_one_process_per_git_command(history, monkeypatch):
    """Not one `git show` per file: rev-parse (twice), ls-tree and cat-file, however many files."""
    write(
        history, {f"apps/many/{n}.yaml": TRAINJOB.format(name=f"j{n}", runtime="torch-distributed") for n in range(40)}
    )
    git(history, "add", ".")
    git(history, "commit", "-qm", "v2")
    started = []
    real = subprocess.Popen

    def counted(args, *rest, **options):
        started.append(args[3])
        return real(args, *rest, **options)

    monkeypatch.setattr(subprocess, "Popen", counted)
    result = run(history, monkeypatch, "diff", ".")
    assert (result.exit_code, result.stdout) == (0, "no changes\n"), result.stderr
    assert started == ["rev-parse", "rev-parse", "ls-tree", "cat-file"]


def test_a_git_base_is_read_within_the_input_bound(history, monkeypatch):
    (history / "apps" / "a.yaml").unlink()
    result = run(history, monkeypatch, "validate", "--max-input-bytes", "200", "--previous", "HEAD", "apps")
    assert result.exit_code == 1
    assert result.stderr.startswith("HEAD:apps/b.yaml:1:1: the inputs of this run exceed 200 bytes"), result.stderr


def test_git_base_messages_name_what_is_wrong(history, tmp_path_factory, monkeypatch):
    unknown = run(history, monkeypatch, "diff", "--base", "no-such-rev", "apps")
    assert unknown.exit_code == 2
    assert f"'no-such-rev' is neither a directory nor a git revision of the repository at {history}" in unknown.stderr
    elsewhere = tmp_path_factory.mktemp("plain")
    write(elsewhere, {"a.yaml": TRAINJOB.format(name="a", runtime="torch-distributed")})
    for args in (["diff", "a.yaml"], ["validate", "--previous", "HEAD", "a.yaml"]):
        result = run(elsewhere, monkeypatch, *args)
        assert result.exit_code == 2
        assert "'HEAD' is not a directory, and git cannot read a repository holding a.yaml: not a git repository" in (
            result.stderr
        )
    stdin = CliRunner().invoke(cli, ["validate", "--previous", "HEAD", "-"], input="")
    assert stdin.exit_code == 2 and "stdin" not in stdin.stderr and "no file a git revision" in stdin.stderr


# --- validate is build without writing (issue 14, item 4) -------------------------------------------------

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\n"
JOBSET = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: a\n  namespace: default\n"


@pytest.mark.parametrize(
    "files, expected",
    [
        (
            {"a.yaml": CONFIGMAP.format(name="c"), "b.yaml": CONFIGMAP.format(name="c")},
            ["b.yaml:4:9: metadata.name: ConfigMap default/c is defined twice (first in a.yaml:4:9)"],
        ),
        (
            {"jobset.yaml": JOBSET},
            ["jobset.yaml:4:9: metadata.name: JobSet default/a is also rendered for TrainJob default/a"],
        ),
        (
            {"c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: default}\n"},
            ["c.yaml:3:11: metadata.name: required for kubectl apply: a non-empty string"],
        ),
        (
            {"notes.yaml": "title: not a manifest\n"},
            ["notes.yaml:1:1: apiVersion: required for kubectl apply: a non-empty string"],
        ),
        # every problem of the run, sorted by file, line and column: a missing name hides no duplicate
        (
            {
                "z.yaml": CONFIGMAP.format(name="c") + "---\n" + CONFIGMAP.format(name="c"),
                "jobset.yaml": JOBSET,
                "m.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: default}\n",
            },
            [
                "jobset.yaml:4:9: metadata.name: JobSet default/a is also rendered for TrainJob default/a",
                "m.yaml:3:11: metadata.name: required for kubectl apply: a non-empty string",
                "z.yaml:10:9: metadata.name: ConfigMap default/c is defined twice (first in z.yaml:4:9)",
            ],
        ),
    ],
    ids=["duplicate", "named-like-a-rendered-jobset", "no-name", "not-a-manifest", "all-at-once"],
)
def test_validate_refuses_what_build_refuses(tmp_path, monkeypatch, files, expected):
    write(tmp_path, {"job.yaml": TRAINJOB.format(name="a", runtime="torch-distributed"), **files})
    build = run(tmp_path, monkeypatch, "build", ".")
    assert (build.exit_code, build.stdout, build.stderr.splitlines()) == (1, "", expected)
    validate = run(tmp_path, monkeypatch, "validate", ".")
    assert validate.exit_code == 1
    assert validate.stderr.splitlines() == [*expected, f"invalid: {len(expected)} error{'s' * (len(expected) > 1)}"]


# --- confusing output (issue 14) -----------------------------------------------------------------------------


def test_github_annotations_name_files_from_the_repository_root(tmp_path, monkeypatch):
    """GitHub places `::error file=F` by F's path in the repository: a run from a subfolder (or with absolute
    paths) gave annotations GitHub could not place."""
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"apps/a/job.yaml": TRAINJOB.format(name="a", runtime="torch-distributed") + NODES.format("two")})
    expected = "::error file=apps/a/job.yaml,line=9,col=15::spec.trainer.numNodes:"
    for cwd, path in ((tmp_path / "apps" / "a", "job.yaml"), (tmp_path / "apps", "a"), (tmp_path, str(tmp_path))):
        result = run(cwd, monkeypatch, "validate", "--format", "github", path)
        assert result.exit_code == 1 and result.stdout.startswith(expected), (cwd, result.stdout)


def test_runtimes_only_inputs_say_why_nothing_is_output(tmp_path, monkeypatch):
    write(tmp_path, {"runtimes/mine.yaml": RUNTIME})
    result = run(tmp_path, monkeypatch, "build", "runtimes")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "notice: nothing to output: the inputs hold only 1 runtime, which are used to render "
        "TrainJobs but not output (--include-runtimes outputs them)\n"
    )
    result = run(tmp_path, monkeypatch, "build", "runtimes", "--include-runtimes")
    assert (result.exit_code, result.stderr) == (0, "") and "kind: ClusterTrainingRuntime" in result.stdout


def test_fn_compiles_no_item_of_a_file_the_rule_skips(tmp_path, monkeypatch):
    """kpt gives `trainc fn` the package's files as items: one under a hidden name is not trainc's input there
    either (it comes back as it came, uncompiled)."""

    def item(name: str, path: str) -> dict:
        obj = yaml.safe_load(TRAINJOB.format(name=name, runtime="torch-distributed"))
        obj["metadata"]["annotations"] = {"config.kubernetes.io/path": path, "config.kubernetes.io/index": "0"}
        return obj

    items = [item("seen", "jobs/a.yaml"), item("skipped", ".github/b.yaml"), item("also", "jobs/.drafts/c.yaml")]
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["fn"], input=text)
    assert result.exit_code == 0, result.stderr
    out = yaml.safe_load(result.stdout)["items"]
    assert sorted((o["kind"], o["metadata"]["name"]) for o in out) == [
        ("JobSet", "seen"),
        ("TrainJob", "also"),
        ("TrainJob", "seen"),
        ("TrainJob", "skipped"),
    ]
    assert [o for o in out if o["metadata"]["name"] == "skipped"] == [items[1]]


def test_a_parallel_build_reads_the_same_input_set(tmp_path, monkeypatch):
    """Forked workers read their slices, the parent the runtime files: the same output and notices as -j1,
    a runtime file inside PATHS read once, and what is not a runtime under --runtimes ignored."""
    repository(tmp_path)
    write(
        tmp_path,
        {
            **{f"apps/c/{n}.yaml": TRAINJOB.format(name=f"c{n}", runtime="mine") for n in range(6)},
            "elsewhere/r.yaml": RUNTIME.replace("name: mine", "name: theirs") + "---\n" + SECRET,
        },
    )
    env = {"TRAINC_PARALLEL_MIN_FILES": "1"}
    results = [
        run(
            tmp_path,
            monkeypatch,
            "build",
            "apps",
            "platform",
            "--runtimes",
            "elsewhere",
            "--runtimes",
            "platform",
            "-j",
            workers,
            env=env,
        )
        for workers in ("1", "2", "3")
    ]
    assert results[0].exit_code == 0, results[0].stderr
    assert len(identities(results[0].stdout)) == 8 and "CANARY" not in results[0].stdout
    assert "a Secret under --runtimes, not a runtime: ignored" in results[0].stderr
    assert {(r.exit_code, r.stdout, r.stderr) for r in results} == {(0, results[0].stdout, results[0].stderr)}


def test_a_rendered_tree_inside_paths_is_not_read(tmp_path, monkeypatch):
    """A committed `--output-dir` tree holds JobSets named like the ones the build renders: read as inputs, they
    made `build .` and `validate .` (and a pre-commit hook given a changed rendered file) refuse them."""
    from trainc.output import outputdir

    assert outputdir.HEADER.startswith(inputset.RENDERED)
    repository(tmp_path)
    write(tmp_path, {"apps/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"})
    result = run(tmp_path, monkeypatch, "build", "apps", "--output-dir", "apps/rendered")
    assert result.exit_code == 0, result.stderr
    rendered = sorted(str(path.relative_to(tmp_path)) for path in (tmp_path / "apps" / "rendered").rglob("*.yaml"))
    assert len(rendered) == 3
    for args in (
        ["build", "."],
        ["validate", "."],
        ["validate", "apps/a/job.yaml", *rendered],
        ["build", "apps", "--output-dir", "apps/rendered", "--check"],
    ):
        result = run(tmp_path, monkeypatch, *args)
        assert result.exit_code == 0, (args, result.stderr)
    assert identities(run(tmp_path, monkeypatch, "build", ".").stdout) == {
        ("JobSet", "a"),
        ("JobSet", "b"),
        ("ConfigMap", "settings"),
    }
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "rendered")
    result = run(tmp_path, monkeypatch, "diff", ".")
    assert (result.exit_code, result.stdout) == (0, "no changes\n"), result.stderr


def test_validate_reads_each_file_once_with_skip_other_files(tmp_path, monkeypatch):
    """The pre-commit hook's filter read every file, then the build read the kept ones again."""
    from trainc.formats import source

    write(tmp_path, {"job.yaml": TRAINJOB.format(name="a", runtime="torch-distributed"), "ci.yaml": "on: push\n"})
    (tmp_path / "bad.yaml").write_bytes(b"\xff not UTF-8, not Trainer\n")
    reads = []
    real = source.read_bytes
    monkeypatch.setattr(source, "read_bytes", lambda path, budget=None: reads.append(path) or real(path, budget))
    result = run(tmp_path, monkeypatch, "validate", "--skip-other-files", "job.yaml", "ci.yaml", "bad.yaml")
    assert result.exit_code == 0 and result.stderr == "valid: 1 TrainJob, 0 runtimes\n", result.stderr
    assert sorted(reads) == ["bad.yaml", "ci.yaml", "job.yaml"]


def test_runtimes_outside_the_repository_are_current_at_a_git_base(history, tmp_path_factory, monkeypatch):
    """A sidecar's own runtimes (TRAINC_RUNTIMES outside the repository) have no history: the base compiles
    with them as they are, instead of the whole diff failing."""
    outside = tmp_path_factory.mktemp("sidecar")
    write(outside, {"mine.yaml": RUNTIME})
    write(history, {"apps/c.yaml": TRAINJOB.format(name="c", runtime="mine")})
    result = run(history, monkeypatch, "diff", "apps", env={"TRAINC_RUNTIMES": str(outside)})
    assert result.exit_code == 1, result.stderr
    assert headers(result) == ["JobSet default/c added", "1 added, 0 changed, 0 removed"]
    result = run(history, monkeypatch, "validate", "--previous", "HEAD", "apps", "--runtimes", str(outside))
    assert result.exit_code == 0, result.stderr


def test_a_file_reaching_the_platform_s_files_through_a_link_is_no_input(tmp_path):
    """`files` leaves out what lies under a path read apart, by where each file really is: a link to one of the
    platform's files, or to its folder, is left out too; a sibling whose name only begins like it is kept."""
    write(
        tmp_path,
        {
            "platform/policies/names.yaml": NAME_POLICY,
            "platform/policies-extra/kept.yaml": NAME_POLICY,
            "apps/job.yaml": "kind: TrainJob\n",
        },
    )
    (tmp_path / "apps" / "policy.yaml").symlink_to(tmp_path / "platform" / "policies" / "names.yaml")
    (tmp_path / "linked").symlink_to(tmp_path / "platform")
    found = inputset.files(
        [str(tmp_path / "apps"), str(tmp_path / "linked" / "policies-extra")],
        apart=[str(tmp_path / "platform" / "policies")],
    )
    assert found.inputs == [
        str(tmp_path / "apps" / "job.yaml"),
        str(tmp_path / "linked" / "policies-extra" / "kept.yaml"),
    ]
    linked = inputset.files([str(tmp_path / "linked" / "policies")], apart=[str(tmp_path / "platform" / "policies")])
    assert linked.inputs == []


def test_git_asked_past_the_deadline_is_stopped_with_the_shell(tmp_path, monkeypatch):
    """Staleness asks git through one shell; a git that does not answer in time is stopped with it (the whole
    process group), and the run takes no answer: the state's modification time stands."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text(f"#!/bin/sh\necho $$ > {tmp_path}/pid\nexec sleep 30\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    asked = inputset._spawned(inputset._QUESTIONS, str(tmp_path), str(tmp_path), "state.json")
    while not (tmp_path / "pid").exists() or not (tmp_path / "pid").read_text().strip():
        time.sleep(0.01)
    started = time.monotonic()
    assert inputset._answers(asked, time.monotonic() + 0.2) == []
    assert time.monotonic() - started < 5
    git = int((tmp_path / "pid").read_text())
    for _ in range(500):  # stopped: gone, or a zombie until its new parent reaps it
        try:
            with open(f"/proc/{git}/stat") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.01)
    else:
        raise AssertionError("the git the shell started still runs")


def test_git_s_answers_come_back_one_per_question(tmp_path):
    """Each question's answer, None for one git failed; past a failure nothing more is asked."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "state.json").write_text("{}")
    asked = inputset._spawned(inputset._QUESTIONS, str(tmp_path), str(tmp_path), "state.json")
    assert inputset._answers(asked, time.monotonic() + 60) == [None]  # no commit yet
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "add", "state.json"], check=True)
    subprocess.run(
        [*git, "commit", "-qm", "state", "--date", "@1764590400"],
        check=True,
        env={**os.environ, "GIT_COMMITTER_DATE": "@1764590400"},
    )
    asked = inputset._spawned(inputset._QUESTIONS, str(tmp_path), str(tmp_path), "state.json")
    assert inputset._answers(asked, time.monotonic() + 60) == ["1764590400\n", "state.json\n", "", "1764590400\n"]
