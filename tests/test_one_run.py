"""Issue 20's one run (`trainc.engine`): no route compiles or admits on its own, the per-TrainJob sequence is
one visible tuple, and the findings that routes disagreed on fall out of it: fn and the Python API see house
rules, policies and Kueue; diff sees policies; validate sees the key settings build sees; validate --previous
reports an update refusal and a policy denial together."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT
from helpers import checked_repository

from trainc import build, engine

PACKAGE = ROOT / "trainc"
# module -> the only modules (besides its own package) that may import it: the run's internals
INTERNAL = {
    "trainc.build": {"trainc.engine", "trainc.parallel"},
    "trainc.parallel": {"trainc.engine"},
    "trainc.policy": {"trainc.engine"},
    "trainc.compiler.pipeline": {"trainc.build", "trainc.parallel", "trainc.compiler", "trainc.validation"},
}
# names whose use is compiling or admitting: module -> (names, the modules that may use them)
ADMISSION = {
    "trainc.validation": (
        {
            "check_trainjob",
            "check_jobset",
            "check_runtime",
            "trainjob_rules",
            "runtime_transition",
            "trainjob_transition",
        },
        {"trainc.build"},
    ),
    "trainc.validation.kueue": ({"check"}, {"trainc.engine"}),
    "trainc.compiler.plugins.entrypoints": ({"check"}, {"trainc.build"}),
}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path.name == "__init__.py", ast.parse(path.read_text(), str(path))


def uses(name: str, package: bool, tree) -> list[tuple[str, str | None]]:
    """(module, name or None) of every import in the module, relative ones resolved; an attribute of an imported
    module (`kueue.check(...)`) counts as using that name."""
    found, aliases = [], {}
    here = name if package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, None))
                aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            for alias in node.names:
                found.append((module, alias.name))
                aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            found.append((aliases[node.value.id], node.attr))
    return found


def test_only_the_run_compiles_or_admits():
    """A command (or any module) that imports the compile or admission internals, or calls them, fails here:
    every route goes through `trainc.engine.run`."""
    offences = []
    for name, package, tree in modules():
        for module, member in uses(name, package, tree):
            full = f"{module}.{member}" if member else module
            for internal, allowed in INTERNAL.items():
                inside = name == internal or name.startswith(internal + ".")
                if (
                    (full == internal or module == internal)
                    and not inside
                    and not any(name == owner or name.startswith(owner + ".") for owner in allowed)
                ):
                    offences.append(f"{name} imports {internal}")
            names, allowed = ADMISSION.get(module, (set(), set()))
            if member in names and name not in allowed:
                offences.append(f"{name} uses {module}.{member}")
    assert sorted(set(offences)) == []


def test_the_check_sees_an_offence():
    """The rule above reads imports as Python does: a command importing the build is found."""
    tree = ast.parse("from .. import build\nfrom ..validation import kueue\nkueue.check([], [])\n")
    assert ("trainc.build", None) not in uses("trainc.commands.x", False, tree)
    assert ("trainc", "build") in uses("trainc.commands.x", False, tree)
    assert ("trainc.validation.kueue", "check") in uses("trainc.commands.x", False, tree)


def test_the_stages_are_one_visible_tuple_of_named_functions():
    assert [stage.__name__ for stage in build.STAGES] == [
        "unique",
        "transition",
        "webhooks",
        "update_webhooks",
        "multikueue",
        "passes",
        "jobset",
        "jobset_update",
        "lints",
        "objects",
        "plugin_checks",
        "self_deleting",
    ]
    assert [stage.__name__ for stage in engine.RUN] == [
        "input_files",
        "previous",
        "compiled",
        "base",
        "kueue",
        "cost",
        "policies",
        "output_set",
        "placed",
    ]
    assert all(stage.__doc__ for stage in (*build.STAGES, *engine.RUN))


def test_a_setting_is_one_field_of_the_options():
    """Options.from_settings takes every setting the command resolved that is an option, by its name, and the
    root and the words naming the runtimes' source with it."""
    from trainc.settings import Given, Settings

    settings = Settings(
        Given("/", "default"), None, {"namespace": [Given("team-a", "-n")], "runtimes": [Given("rt", "--runtimes")]}
    )
    options = engine.Options.from_settings(settings, workers=3)
    assert (options.namespace, options.runtime_paths, options.workers) == ("team-a", ("rt",), 3)
    assert (options.root, options.runtimes_words) == ("/", "--runtimes")


# where a module-level name is rebound, and why: not a run's setting
GLOBALS = {
    "trainc.bounds": "the supervisor's shared page, made once per process by the console script",
    "trainc.formats": "installs errors' position lookup once, when imported (the layer below cannot import it)",
}


def module_state_set(name: str, package: bool, tree) -> list[str]:
    """The places that rebind a module-level name (`global`) or set an attribute of an imported module
    (`module.name = ...`, `setattr(module, ...)`): state a command would leave for a pass to read."""
    modules = {alias for (module, member), alias in _aliases(name, package, tree)}
    found = [
        f"{name}:{node.lineno}: global {', '.join(node.names)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Global)
    ]
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        found += [
            f"{name}:{node.lineno}: {ast.unparse(target)} ="
            for target in targets
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in modules
        ]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in modules
        ):
            found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return found


def _aliases(name: str, package: bool, tree):
    """((module, member), local name) of every import of a trainc module, or of a module of a trainc package."""
    here = name if package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (
                ((alias.name, None), alias.asname or alias.name)
                for alias in node.names
                if alias.name.startswith("trainc")
            )
        elif isinstance(node, ast.ImportFrom):
            base = here
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            if module.startswith("trainc"):
                yield from (((module, alias.name), alias.asname or alias.name) for alias in node.names)


def test_no_command_leaves_state_in_a_module():
    """Issue 20: a run's settings travel in its Options (and the compile context built from them), never in a
    module global a command sets and a pass reads (the release, the byte bound, the root, the runtimes' words)."""
    found = [
        place
        for name, package, tree in modules()
        if name not in GLOBALS
        for place in module_state_set(name, package, tree)
    ]
    assert found == []
    offence = ast.parse(
        "from .formats import limits\nlimits.input_bytes = 3\nsetattr(limits, 'x', 1)\ndef f():\n    global selected\n"
    )
    assert len(module_state_set("trainc.cli", False, offence)) == 3


# --- the findings, through the command line -------------------------------------------------------------------

JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: resnet
  namespace: team-a
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: img:1
"""
MPI_JOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ds
  namespace: team-a
spec:
  runtimeRef:
    name: deepspeed-distributed
  trainer:
    numNodes: 2
"""
HOUSE_RULE = textwrap.dedent("""\
    policies:
      - name: no-resnet
        match: {kinds: [jobset.x-k8s.io/JobSet]}
        rule: "object.metadata.name != 'resnet'"
        message: resnet is retired
    """)
DENIED = "house rule 'no-resnet' denied: resnet is retired"
VAP = textwrap.dedent("""\
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata:
      name: one-node
    spec:
      failurePolicy: Fail
      matchConstraints:
        resourceRules:
          - apiGroups: [jobset.x-k8s.io]
            apiVersions: ["*"]
            operations: [CREATE, UPDATE]
            resources: [jobsets]
      validations:
        - expression: "object.spec.replicatedJobs.all(j, j.replicas == 1 && j.template.spec.parallelism <= 1)"
          message: at most one node
    ---
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicyBinding
    metadata:
      name: one-node
    spec:
      policyName: one-node
      validationActions: [Deny]
    """)


def trainc(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trainc", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)},
    )


def resource_list(*documents: str) -> str:
    import yaml

    items = [yaml.safe_load(document) for document in documents]
    return json.dumps({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items})


def repository(tmp_path: Path, config: str = "") -> Path:
    (tmp_path / ".git").mkdir()  # the project config is looked for up to the git root
    (tmp_path / ".trainc.yaml").write_text(config or "namespace: team-a\n")
    return tmp_path


def test_fn_applies_the_house_rules_build_applies(tmp_path):
    repo = repository(tmp_path, HOUSE_RULE)
    (repo / "job.yaml").write_text(JOB)
    built = trainc("build", "job.yaml", cwd=repo)
    function = trainc("fn", cwd=repo, stdin=resource_list(JOB))
    assert built.returncode == function.returncode == 1
    assert DENIED in built.stderr and DENIED in function.stderr


def test_fn_and_from_objects_apply_the_policies_among_the_items(tmp_path):
    import trainc as api
    from trainc.errors import InputErrors

    repo = repository(tmp_path)
    function = trainc("fn", cwd=repo, stdin=resource_list(JOB, *VAP.split("---\n")))
    assert function.returncode == 1 and "at most one node" in function.stderr
    with pytest.raises(InputErrors) as refused:
        api.from_objects([JOB, *VAP.split("---\n")], ssh_key_seed=bytes(32))
    assert any("at most one node" in error.message for error in refused.value.errors)


def test_diff_evaluates_the_policies_and_house_rules(tmp_path):
    repo = repository(tmp_path, HOUSE_RULE)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "job.yaml").write_text(JOB)
    (tmp_path / "nothing").mkdir()
    compared = trainc("diff", "--base", str(tmp_path / "nothing"), "job.yaml", cwd=repo)
    assert compared.returncode == 2, compared.stdout + compared.stderr
    assert DENIED in compared.stderr and "applying creates it" not in compared.stdout


@pytest.mark.parametrize("cert", [None, "cert.pem"])
def test_validate_refuses_sealed_secrets_without_a_usable_certificate_as_build_does(tmp_path, cert):
    config = "namespace: team-a\nssh-keys: sealed-secrets\n" + (f"sealed-secrets-cert: {cert}\n" if cert else "")
    repo = repository(tmp_path, config)
    if cert:
        (repo / cert).write_text("not a certificate\n")
    (repo / "ds.yaml").write_text(MPI_JOB)
    (repo / "seed").write_bytes(bytes(range(32)))
    (repo / "seed").chmod(0o600)
    built = trainc("build", "ds.yaml", "--ssh-key-seed", "seed", cwd=repo)
    validated = trainc("validate", "ds.yaml", cwd=repo)
    assert built.returncode == validated.returncode == 1, validated.stderr
    error = built.stderr.splitlines()[-1]
    assert error.startswith("ds.yaml:") and error in validated.stderr.splitlines()


def test_validate_previous_reports_the_update_refusal_and_the_policy_denial_together(tmp_path):
    repo = repository(tmp_path)
    (tmp_path / "before").mkdir()
    (tmp_path / "before" / "job.yaml").write_text(JOB.replace("numNodes: 2", "numNodes: 1"))
    (repo / "job.yaml").write_text(JOB.replace("numNodes: 2", "numNodes: 3").replace("img:1", "img:2"))
    (repo / "policy.yaml").write_text(VAP)
    validated = trainc("validate", "--previous", str(tmp_path / "before"), "job.yaml", "policy.yaml", cwd=repo)
    assert validated.returncode == 1
    assert "field is immutable" in validated.stderr and "at most one node" in validated.stderr, validated.stderr


def test_a_build_with_every_check_imports_no_dataclasses(tmp_path):
    """The checks after the build (Kueue and the cluster state, cost, house rules and policies) keep their records in
    named tuples and plain classes: `dataclasses` (with `inspect`) and a compiled class each cost a one-TrainJob
    build about 25 ms of its start, which the Argo CD repo-server pays for every app it renders."""
    checked_repository(tmp_path, "1000.0", "100")
    for extra in tmp_path.glob("jobs/job-0[1-9].yaml"):
        extra.unlink()
    (tmp_path / "state.json").write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
    probe = (
        "import sys, trainc.cli as script\nscript._exit_now = lambda code: None\ntry:\n    script.main()\n"
        "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    built = subprocess.run(
        [sys.executable, "-c", probe, "--root", str(tmp_path), "build", "--cluster-state", "state.json", "jobs"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    loaded = set(built.stderr.splitlines()[-1].split())
    assert built.returncode == 0 and "kind: JobSet" in built.stdout, built.stderr
    checks = {
        "trainc.validation.kueue",
        "trainc.validation.clusterstate",
        "trainc.validation.cost",
        "trainc.policy.vap",
    }
    assert checks <= loaded and "dataclasses" not in loaded
