"""Issue 14's repository-level suite: each scenario (a realistic repository, see README.md beside this file)
goes through every route trainc ships, with the real tools, and every route must deploy the same objects
with the same bytes, refuse the same bad file at the user's own line, and `trainc diff` must read the
repository's git history right."""

from __future__ import annotations

import re
import stat
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import harness
import pytest
from conftest import GOLDEN_SEED, need
from harness import App, Rendered, Scenario

# Every route that prints or writes what a cluster gets, keyed by name; `build` (stdout) is the reference.
ROUTES = {
    "build": lambda repo, app, ws: harness.build_stdout(repo, app, ws.env),
    "build --output-dir": lambda repo, app, ws: harness.build_output_dir(repo, app, ws.env),
    "argocd": lambda repo, app, ws: harness.argocd(repo, app, ws.seed),
    "kpt fn render": lambda repo, app, ws: harness.kpt_render(repo, app, ws.env),
    "kpt fn eval": lambda repo, app, ws: harness.kpt_eval(repo, app, ws.env),
    "kustomize": lambda repo, app, ws: harness.kustomize(repo, app, ws.env),
}
CLUSTER_SCOPED = {"Namespace"}


@dataclass
class Workspace:
    scenario: Scenario
    repo: Path  # the committed repository; routes run on copies of it
    seed: Path
    env: dict[str, str]
    base: Path

    def copy(self, name: str) -> Path:
        return harness.clone(self.repo, self.base / name)

    def app(self, name: str) -> App:
        return next(app for app in self.scenario.apps if app.name == name)

    def render(self, routes: dict, apps, repo_for) -> dict[tuple[str, str], Rendered]:
        """Every route on every app, each on its own copy, a few at a time (the tools are slow to start)."""
        jobs = [(route, app) for route in routes for app in apps]
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = pool.map(lambda job: routes[job[0]](repo_for(*job), job[1], self), jobs)
            return {(route, app.name): rendered for (route, app), rendered in zip(jobs, results)}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class Suite:
    """Each scenario's repository, made once for the module, and what is run on it, run once."""

    def __init__(self, base: Path):
        self.base = base
        self.cache: dict[tuple[str, str], object] = {}

    def once(self, what: str, scenario: str, make):
        """make() the first time; its result, or its error, every time."""
        if (what, scenario) not in self.cache:
            try:
                self.cache[what, scenario] = make()
            except Exception as error:  # each test that needs it fails with it
                self.cache[what, scenario] = error
        if isinstance(self.cache[what, scenario], Exception):
            raise self.cache[what, scenario]
        return self.cache[what, scenario]

    def workspace(self, name: str) -> Workspace:
        def make() -> Workspace:
            scenario = Scenario.load(name)
            base = self.base / name
            base.mkdir()
            seed = base / "seed"  # the secret store's copy, owner-only as the README asks
            seed.write_bytes(GOLDEN_SEED)
            seed.chmod(stat.S_IRUSR | stat.S_IWUSR)
            repo = harness.make_repo(scenario, base / "repo")
            return Workspace(scenario, repo, seed, harness.environment(seed), base)

        return self.once("workspace", name, make)

    def renders(self, name: str) -> dict[tuple[str, str], Rendered]:
        ws = self.workspace(name)
        return self.once(
            "renders",
            name,
            lambda: ws.render(ROUTES, ws.scenario.apps, lambda route, app: ws.copy(f"{slug(route)}-{app.name}")),
        )


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Suite:
    return Suite(tmp_path_factory.mktemp("scenarios"))


def _specs() -> dict[str, dict]:
    return {name: Scenario.load(name).spec for name in harness.all_scenarios()}


SPECS = _specs()
APPS = [f"{name}/{app['name']}" for name, spec in SPECS.items() for app in spec["apps"]]


def reference(suite: Suite, case: str) -> tuple[Workspace, App, Rendered]:
    """`trainc build` to stdout, which must deploy the scenario's objects: what every route is compared with."""
    scenario, _, app_name = case.partition("/")
    rendered = suite.renders(scenario)["build", app_name]
    assert rendered.returncode == 0, rendered.output
    deployed = sorted(f"{kind}/{name}" for _, kind, _, name in rendered.data)
    assert deployed == sorted(SPECS[scenario]["objects"][app_name]), rendered.output
    workspace = suite.workspace(scenario)
    return workspace, workspace.app(app_name), rendered


@pytest.mark.parametrize("case", APPS)
def test_build_deploys_the_scenarios_objects_all_in_the_apps_namespace(suite, case):
    _, app, rendered = reference(suite, case)
    # an object that sets no namespace lands in the destination, the app's namespace, in every route
    assert {namespace or app.namespace for _, kind, namespace, _ in rendered.data if kind not in CLUSTER_SCOPED} == {
        app.namespace
    }


@pytest.mark.parametrize("case", APPS)
@pytest.mark.parametrize("route", [route for route in ROUTES if route != "build"], ids=slug)
def test_every_route_deploys_the_same_objects(suite, route, case):
    workspace, app, expected = reference(suite, case)
    rendered = suite.renders(workspace.scenario.name)[route, app.name]
    assert rendered.returncode == 0, rendered.output
    assert sorted(rendered.data, key=repr) == sorted(expected.data, key=repr), rendered.output


@pytest.mark.parametrize("case", APPS)
@pytest.mark.parametrize("route", [route for route in ROUTES if route != "build"], ids=slug)
def test_every_route_renders_the_same_bytes(suite, route, case):
    """The rendered objects byte for byte (kustomize re-encodes: there, as data); every object as data."""
    workspace, app, expected = reference(suite, case)
    rendered = suite.renders(workspace.scenario.name)[route, app.name]
    assert rendered.returncode == 0, rendered.output
    assert expected.rendered() and rendered.rendered() == expected.rendered()
    for key in sorted(expected.rendered(), key=repr):
        if route == "kustomize":
            assert rendered.data[key] == expected.data[key], key
        else:
            assert rendered.objects[key] == expected.objects[key], key
    assert rendered.data == expected.data


@pytest.mark.parametrize("case", APPS)
def test_argocd_discovers_the_app(suite, case):
    name, _, app_name = case.partition("/")
    workspace = suite.workspace(name)
    app = workspace.app(app_name)
    repo = workspace.copy(f"discover-{app.name}")
    find = harness.PLUGIN["spec"]["discover"]["find"]
    found = harness.run(
        "discover",
        [*find["command"], *find["args"]],
        repo / app.path,
        harness.argocd_environment(repo, app, workspace.seed),
    )
    assert found.returncode == 0 and found.stdout.strip(), found.output


# --- pre-commit ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hooks(suite):
    """This checkout's hooks, installed by pre-commit once for the module."""
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        need(False, "pre-commit is not installed (pip install '.[test]')")
    repo, rev = harness.hook_repo(suite.base / "hooks")
    return repo, rev, suite.base / "pre-commit-home"


def hooked_copy(workspace: Workspace, hooks, name: str) -> Path:
    """A copy whose own .pre-commit-config.yaml uses this checkout's hooks, installed once for the module
    (`pre-commit try-repo` installs them anew into a store of its own on every call: 18 s each here;
    tests/test_precommit.py runs it)."""
    hook_repo, rev, _ = hooks
    repo = workspace.copy(name)
    harness.use_hooks(repo, hook_repo, rev)
    return repo


@pytest.mark.parametrize("name", SPECS)
def test_the_repositorys_pre_commit_hooks_pass_after_the_ci_build(suite, hooks, name):
    """The repository's own .pre-commit-config.yaml on every file: trainc-validate (workflows, configs and
    Argo CD overrides among them), and trainc-build-check of each app against the tree CI rendered."""
    workspace = suite.workspace(name)
    repo = hooked_copy(workspace, hooks, "pre-commit")
    for app in workspace.scenario.apps:
        built = harness.build_output_dir(repo, app, workspace.env)
        assert built.returncode == 0, built.output
    harness.commit(repo, "rendered")
    checked = harness.pre_commit(repo, hooks[2], workspace.env, "run", "--all-files")
    assert checked.returncode == 0, checked.output
    assert checked.stdout.count("Passed") == 1 + len(workspace.scenario.apps), checked.stdout


# --- a bad TrainJob ------------------------------------------------------------------------------------------

BROKEN_ROUTES = {
    **ROUTES,
    "validate": lambda repo, app, ws: harness.run(
        "validate", ["trainc", "validate", app.path, "-n", app.namespace], repo, ws.env
    ),
    "diff": lambda repo, app, ws: harness.run("diff", ["trainc", "diff", app.path, "-n", app.namespace], repo, ws.env),
}
PRE_COMMIT = "pre-commit trainc-validate"
WRITERS = {"build --output-dir", "kpt fn render", "kpt fn eval"}  # the routes that write into the repository


def broken(suite: Suite, hooks, name: str) -> dict[str, tuple[Rendered, Path, Rendered | None, dict, dict]]:
    """Each route on a copy where the bad file was added (after the route, if it writes, rendered the good
    commit there): its result, the copy, that good render, and the copy's files before and after."""
    workspace = suite.workspace(name)
    spec = workspace.scenario.spec["broken"]
    app = workspace.app(spec["app"])

    def make():
        copies = {}

        def prepared(route: str, _app: App) -> Path:
            repo = workspace.copy(f"broken-{slug(route)}")
            # what a writing route wrote from the good commit, to show that it stays
            good = ROUTES[route](repo, app, workspace) if route in WRITERS else None
            (repo / spec["file"]).write_text(spec["text"])
            copies[route] = repo, good, harness.files(repo)
            return repo

        results = workspace.render(BROKEN_ROUTES, [app], prepared)
        out = {
            route: (rendered, *copies[route], harness.files(copies[route][0]))
            for (route, _), rendered in results.items()
        }
        repo = hooked_copy(workspace, hooks, "broken-pre-commit")
        (repo / spec["file"]).write_text(spec["text"])
        harness.commit(repo, "a bad TrainJob")
        before = harness.files(repo)
        hook = harness.pre_commit(repo, hooks[2], workspace.env, "run", "trainc-validate", "--all-files")
        out[PRE_COMMIT] = hook, repo, None, before, harness.files(repo)
        return out

    return suite.once("broken", name, make)


@pytest.mark.parametrize("name", SPECS)
@pytest.mark.parametrize("route", [*BROKEN_ROUTES, PRE_COMMIT], ids=slug)
def test_a_bad_trainjob_fails_every_route_at_the_users_line_and_changes_nothing(suite, hooks, route, name):
    spec = SPECS[name]["broken"]
    rendered, repo, good, before, after = broken(suite, hooks, name)[route]
    assert good is None or good.returncode == 0, good.output
    assert rendered.returncode == (2 if route == "diff" else 1), rendered.output  # diff exits as kubectl diff
    assert harness.error_path(rendered, spec["position"], spec["message"]) == (repo / spec["file"]).resolve(), (
        rendered.output
    )
    if route not in ("diff", PRE_COMMIT):
        assert rendered.stdout == ""
    assert after == before  # nothing written, nothing removed: the good tree stays deployable


# --- git history ---------------------------------------------------------------------------------------------


def history(suite: Suite, name: str) -> dict[str, tuple[Rendered, Rendered]]:
    """Each step of the scenario's history on one working copy, in order: diff and validate against HEAD,
    then the step committed."""
    workspace = suite.workspace(name)

    def make():
        repo = workspace.copy("history")
        results = {}
        for step in workspace.scenario.spec["history"]:
            if "delete" in step:
                harness.git(repo, "rm", "-q", step["delete"])
            if "move" in step:
                (repo / step["move"]["to"]).parent.mkdir(parents=True, exist_ok=True)
                harness.git(repo, "mv", step["move"]["from"], step["move"]["to"])
            if "replace" in step:
                path = repo / step["replace"]["file"]
                text = path.read_text()
                assert step["replace"]["old"] in text
                path.write_text(text.replace(step["replace"]["old"], step["replace"]["new"]))
            app = workspace.app(step["app"])
            diff = harness.run(
                "diff", ["trainc", "diff", app.path, "-n", app.namespace, "--color", "never"], repo, workspace.env
            )
            validate = harness.run(
                "validate",
                ["trainc", "validate", "--previous", "HEAD", app.path, "-n", app.namespace],
                repo,
                workspace.env,
            )
            results[step["name"]] = diff, validate
            harness.commit(repo, step["name"])
        return results

    return suite.once("history", name, make)


STEPS = [f"{name}/{step['name']}" for name, spec in SPECS.items() for step in spec["history"]]


@pytest.mark.parametrize("case", STEPS)
def test_diff_and_validate_read_each_step_of_the_history(suite, case):
    name, _, step = case.partition("/")
    spec = next(s for s in SPECS[name]["history"] if s["name"] == step)
    diff, validate = history(suite, name)[step]
    assert diff.returncode == spec["diff"]["exit"], diff.output
    body, _, requests = diff.stdout.partition("\nrequests change since the base:\n")  # Kueue's table ends it
    lines = body.splitlines()
    assert lines and lines[-1] == spec["diff"]["summary"], diff.output
    assert requests.splitlines() == [f"  {line}" for line in spec["diff"].get("requests", [])], diff.output
    for start in spec["diff"]["says"]:
        assert any(line.startswith(start) for line in lines), diff.output
    assert validate.returncode == spec["validate"]["exit"], validate.output
    for line in spec["validate"].get("says", []):
        assert line in validate.stderr, validate.output


# --- a bad setting -------------------------------------------------------------------------------------------

SEED_ROUTES = ["build", "argocd", "kpt fn render", "kustomize"]  # each hands trainc the environment its own way


def seed_directory(suite: Suite, name: str) -> dict[tuple[str, str], Rendered]:
    """Every app through the routes with TRAINC_SSH_KEY_SEED_FILE naming the seed's folder, not the file in
    it (the Secret's mount point instead of its key: an easy slip)."""
    workspace = suite.workspace(name)

    def make():
        folder = workspace.seed.parent / "seed-folder"
        folder.mkdir()
        bad = Workspace(workspace.scenario, workspace.repo, folder, harness.environment(folder), workspace.base)
        return bad.render(
            {route: ROUTES[route] for route in SEED_ROUTES},
            workspace.scenario.apps,
            lambda route, app: workspace.copy(f"seed-{slug(route)}-{app.name}"),
        )

    return suite.once("seed", name, make)


@pytest.mark.parametrize("case", APPS)
@pytest.mark.parametrize("route", SEED_ROUTES, ids=slug)
def test_a_seed_that_is_a_folder_fails_only_an_app_with_mpi_naming_the_setting(suite, route, case):
    workspace, app, expected = reference(suite, case)
    rendered = seed_directory(suite, workspace.scenario.name)[route, app.name]
    if not any(kind == "Secret" and name.endswith("-mpi-ssh-auth") for _, kind, _, name in expected.data):
        assert rendered.returncode == 0, rendered.output  # the seed is read only when an MPI job needs it
        assert rendered.data == expected.data
        return
    assert rendered.returncode == 1, rendered.output
    assert "TRAINC_SSH_KEY_SEED_FILE" in rendered.stderr and "--ssh-key-seed" not in rendered.stderr, rendered.output
    assert rendered.stdout == "" and not rendered.data
