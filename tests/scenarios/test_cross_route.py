"""Issue 20's cross-route test: a repository and hostile variants of it (a house rule, a
ValidatingAdmissionPolicy, a Kueue queue no job fits, sealed-secrets without a certificate) through every
route, with the real tools. Every route runs the one run (`trainc.engine`), so every route gives the same
verdict, for the same reason, and where it renders, the same objects."""

from __future__ import annotations

import json
import re
import stat
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import harness
import pytest
from conftest import GOLDEN_SEED, need
from harness import App, Rendered

SCENARIO = "two-teams"
HOUSE_RULE = """\
policies:
  - name: no-resnet
    match: {kinds: [jobset.x-k8s.io/JobSet]}
    rule: "object.metadata.name != 'resnet'"
    message: resnet is retired
"""
VAP = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-resnet
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
      - apiGroups: [jobset.x-k8s.io]
        apiVersions: ["*"]
        operations: [CREATE, UPDATE]
        resources: [jobsets]
  validations:
    - expression: "object.metadata.name != 'resnet'"
      message: resnet is retired by policy
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-resnet
spec:
  policyName: no-resnet
  validationActions: [Deny]
"""
SMALL_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: gpu-pool
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: "1"}
"""
# variant -> (app, {file: text appended (or written)}, the words every refusing route says; None: it renders)
VARIANTS = {
    "as committed": ("vision", {}, None),
    "house rule": ("vision", {".trainc.yaml": HOUSE_RULE}, "resnet is retired"),
    "admission policy": ("vision", {"apps/vision/policy.yaml": VAP}, "resnet is retired by policy"),
    "kueue inadmissible": ("vision", {"apps/vision/queues.yaml": SMALL_QUEUE}, "gpu-pool"),
    "sealed-secrets without a certificate": (
        "nlp",
        {".trainc.yaml": "ssh-keys: sealed-secrets\n"},
        "needs the controller's certificate",
    ),
}
API = """\
import json, sys, trainc
from trainc.errors import TraincError
try:
    print(json.dumps(trainc.objects([sys.argv[1]], namespace=sys.argv[2], ssh_key_seed=open(sys.argv[3], "rb").read())))
except TraincError as error:
    sys.exit(error.render())
"""
ROUTES = {
    "build": lambda repo, app, seed, env: harness.build_stdout(repo, app, env),
    "argocd": lambda repo, app, seed, env: harness.argocd(repo, app, seed),
    "kpt fn render": lambda repo, app, seed, env: harness.kpt_render(repo, app, env),
    "kustomize": lambda repo, app, seed, env: harness.kustomize(repo, app, env),
    "validate": lambda repo, app, seed, env: harness.run(
        "validate", ["trainc", "validate", app.path, "-n", app.namespace], repo, env
    ),
    "diff": lambda repo, app, seed, env: harness.run(
        "diff", ["trainc", "diff", "--base", "HEAD", app.path, "-n", app.namespace], repo, env
    ),
    "python api": lambda repo, app, seed, env: api(repo, app, seed, env),
}


def api(repo: Path, app: App, seed: Path, env: dict) -> Rendered:
    """`trainc.objects()` from the repository's root, as a script would call it there."""
    rendered = harness.run("python api", [sys.executable, "-c", API, app.path, app.namespace, str(seed)], repo, env)
    if rendered.returncode == 0:
        for obj in json.loads(rendered.stdout):
            rendered.add(json.dumps(obj))
    return rendered


def accepted(route: str, rendered: Rendered) -> bool:
    """The route's verdict: `trainc diff` exits as `kubectl diff` (1: changes), every other route 0."""
    return rendered.returncode in ((0, 1) if route == "diff" else (0,))


@pytest.fixture(scope="module")
def variants(tmp_path_factory) -> dict:
    """{variant: (app, {route: Rendered})}: each variant committed into a repository of its own, each route on
    its own copy; pre-commit's trainc-validate hook runs over the whole repository."""
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        need(False, "pre-commit is not installed (pip install '.[test]')")
    base = tmp_path_factory.mktemp("cross-route")
    seed = base / "seed"
    seed.write_bytes(GOLDEN_SEED)
    seed.chmod(stat.S_IRUSR | stat.S_IWUSR)
    env = harness.environment(seed)
    hooks, rev = harness.hook_repo(base / "hooks")
    scenario = harness.Scenario.load(SCENARIO)
    found = {}
    for number, (variant, (app_name, files, _)) in enumerate(VARIANTS.items()):
        repo = harness.make_repo(scenario, base / f"v{number}" / "repo")
        for name, text in files.items():
            with open(repo / name, "a") as handle:
                handle.write(text)
        harness.use_hooks(repo, hooks, rev)
        app = next(app for app in scenario.apps if app.name == app_name)
        jobs = list(ROUTES)
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = pool.map(
                lambda route: ROUTES[route](
                    harness.clone(repo, base / f"v{number}" / re.sub(r"\W+", "-", route)), app, seed, env
                ),
                jobs,
            )
            rendered = dict(zip(jobs, results))
        rendered["pre-commit"] = harness.pre_commit(
            repo, base / "pre-commit-home", env, "run", "trainc-validate", "--all-files"
        )
        found[variant] = app, rendered
    return found


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_route_gives_the_same_verdict_for_the_same_reason(variants, variant):
    _, rendered = variants[variant]
    says = VARIANTS[variant][2]
    verdicts = {route: accepted(route, result) for route, result in rendered.items()}
    assert set(verdicts.values()) == {says is None}, (
        verdicts,
        {route: result.output[-300:] for route, result in rendered.items() if verdicts[route] != (says is None)},
    )
    if says is not None:
        for route, result in rendered.items():
            assert says in result.output, (route, result.output)
            assert not result.data, route  # nothing is deployed by a refused run


@pytest.mark.parametrize("variant", [name for name, spec in VARIANTS.items() if spec[2] is None])
def test_every_rendering_route_renders_the_same_objects(variants, variant):
    """The objects trainc renders, as data: the same on every route that renders (`build`'s are the reference)."""
    _, rendered = variants[variant]
    reference = rendered["build"]
    expected = {key: reference.data[key] for key in reference.rendered()}
    assert expected
    for route in ("argocd", "kpt fn render", "kustomize", "python api"):
        result = rendered[route]
        got = {key: _without_kpt_bookkeeping(result.data[key]) for key in result.rendered()}
        assert got == expected, route


def _without_kpt_bookkeeping(obj: dict) -> dict:
    annotations = obj.get("metadata", {}).get("annotations") or {}
    annotations.pop(harness.KPT_ANNOTATION, None)
    if "annotations" in obj.get("metadata", {}) and not annotations:
        del obj["metadata"]["annotations"]
    return obj


def test_the_python_api_from_objects_refuses_what_objects_refuses(tmp_path):
    """`trainc.from_objects()` is the same run: a Kueue queue no job fits refuses it as `trainc.objects()` does."""
    import trainc
    from trainc.errors import InputErrors

    job = (harness.HERE / SCENARIO / "repo" / "apps" / "vision" / "jobs" / "resnet.yaml").read_text()
    queues = (
        (harness.HERE / SCENARIO / "repo" / "apps" / "vision" / "namespace.yaml").read_text() + "---\n" + SMALL_QUEUE
    )
    (tmp_path / "job.yaml").write_text(job + "---\n" + queues)
    with pytest.raises(InputErrors) as from_files:
        trainc.objects([str(tmp_path / "job.yaml")], ssh_key_seed=GOLDEN_SEED)
    with pytest.raises(InputErrors) as in_memory:
        trainc.from_objects([job, *queues.split("---\n")], ssh_key_seed=GOLDEN_SEED)
    assert [error.message for error in in_memory.value.errors] == [error.message for error in from_files.value.errors]
    assert any("gpu-pool" in error.message for error in from_files.value.errors)
