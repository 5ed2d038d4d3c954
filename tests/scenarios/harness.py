"""Runs one repository through every route trainc ships, with the real tools, and reads back what each route
would apply: the objects (group, kind, namespace as written, name), each with its text as the route wrote it.

A scenario is a directory beside this file: `repo/` is the repository tree as a user commits it, and
`scenario.yaml` names its apps, the bad file every route must refuse, and the steps of its git history with
what `trainc diff` says about each (README.md beside this file)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from conftest import ROOT, need

HERE = Path(__file__).resolve().parent
BIN = Path(sysconfig.get_path("scripts"))
PLUGIN = yaml.safe_load((ROOT / "examples" / "argocd" / "plugin.yaml").read_text())
KUSTOMIZE_PLUGINS = ROOT / "examples" / "kustomize" / "plugin"
RENDERED_LABEL = "trainer.kubeflow.org/trainjob-name"
KPT_ANNOTATION = "trainc.kubeflow.org/rendered-from"
TIMEOUT = 240

Key = tuple[str, str, "str | None", str]  # API group, kind, namespace as written, name


@dataclass(frozen=True)
class App:
    name: str  # the Argo CD Application's name
    path: str  # its folder in the repository
    namespace: str  # its destination namespace, given to each route in that route's own terms
    overlay: str  # the kustomization that renders it through the TrainJobGenerator


@dataclass(frozen=True)
class Scenario:
    name: str
    apps: tuple[App, ...]
    spec: dict

    @classmethod
    def load(cls, name: str) -> Scenario:
        spec = yaml.safe_load((HERE / name / "scenario.yaml").read_text())
        return cls(name, tuple(App(**app) for app in spec["apps"]), spec)

    @property
    def tree(self) -> Path:
        return HERE / self.name / "repo"


def all_scenarios() -> list[str]:
    return sorted(p.parent.name for p in HERE.glob("*/scenario.yaml"))


# --- the repository ------------------------------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def make_repo(scenario: Scenario, dest: Path) -> Path:
    """The scenario's tree as a git repository with one commit, made by a user with no global git config."""
    need(shutil.which("git") is not None, "git is not installed")
    shutil.copytree(scenario.tree, dest)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "config", "user.email", "ci@example.com")
    git(dest, "config", "user.name", "CI")
    commit(dest, "initial")
    return dest


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def clone(repo: Path, dest: Path) -> Path:
    """A fresh working copy, .git included (Argo CD's cmp-server gets the whole repository, .git too)."""
    shutil.copytree(repo, dest, symlinks=True)
    return dest


def files(root: Path) -> dict[str, bytes]:
    """Every file under root but .git: to show that a refused run wrote and removed nothing."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def environment(seed: Path, **extra: str) -> dict[str, str]:
    """This interpreter's trainc first on PATH, the scenario's seed, and no TRAINC_* setting of the caller's."""
    need((BIN / "trainc").exists(), f"trainc is not installed in {BIN}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRAINC_", "PRE_COMMIT", "GIT_"))}
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "TRAINC_SSH_KEY_SEED_FILE": str(seed),
            **extra,
        }
    )
    return env


# --- what a route wrote ------------------------------------------------------------------------------------


@dataclass
class Rendered:
    route: str
    returncode: int
    stdout: str
    stderr: str
    cwd: Path  # where the route ran: the paths in its messages are relative to it
    objects: dict[Key, str] = field(default_factory=dict)  # each object's own text as the route wrote it
    data: dict[Key, dict] = field(default_factory=dict)  # the same objects, decoded

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def rendered(self) -> set[Key]:
        """The objects trainc rendered from a TrainJob (JobSet, Secret, ConfigMap, PodGroup)."""
        return {
            key
            for key, data in self.data.items()
            if RENDERED_LABEL in ((data.get("metadata") or {}).get("labels") or {})
        }

    def add(self, text: str) -> None:
        data = yaml.safe_load(text)
        key = object_key(data)
        assert key not in self.data, f"{self.route}: {key} twice"
        self.objects[key], self.data[key] = text, data


def object_key(data: dict) -> Key:
    group = data["apiVersion"].rpartition("/")[0]
    metadata = data["metadata"]
    return group, data["kind"], metadata.get("namespace"), metadata["name"]


def documents(stream: str) -> list[str]:
    """The documents of a YAML stream as text, without `---` lines and without the comment lines before the
    first key (the header trainc writes on a rendered file, a passed-through object's own comments)."""
    texts = []
    for chunk in re.split(r"^---[ \t]*\n", stream, flags=re.M):
        lines = chunk.splitlines(keepends=True)
        while lines and (not lines[0].strip() or lines[0].startswith("#")):
            lines.pop(0)
        if lines:
            texts.append("".join(lines))
    return texts


def run(route: str, argv: list[str], cwd: Path, env: dict[str, str]) -> Rendered:
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    return Rendered(route, result.returncode, result.stdout, result.stderr, cwd)


def from_stream(rendered: Rendered) -> Rendered:
    if rendered.returncode == 0:
        for text in documents(rendered.stdout):
            rendered.add(text)
    return rendered


# --- the routes ----------------------------------------------------------------------------------------------
# Each takes a working copy of its own (a route may write into it) and returns what it would apply.


def build_stdout(repo: Path, app: App, env: dict[str, str]) -> Rendered:
    """CI or a developer: `trainc build APP -n NS -o yaml` from the repository root."""
    return from_stream(run("build", ["trainc", "build", app.path, "-n", app.namespace, "-o", "yaml"], repo, env))


def workflow_command(repo: Path, app: App, start: str) -> list[str]:
    """The command of the repository's CI workflow (.github/workflows/ci.yaml) that starts with `start`, as
    it runs for the app's entry of the job matrix."""
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "ci.yaml").read_text())
    lines = [
        re.sub(r"\$\{\{ *matrix\.app *\}\}", app.name, line.strip())
        for job in workflow["jobs"].values()
        for step in job["steps"]
        for line in step.get("run", "").splitlines()
    ]
    found = [line for line in lines if line.startswith(start)]
    assert len(found) == 1, f"one `{start}` in the workflow, not {found}"
    return shlex.split(found[0])


def build_output_dir(repo: Path, app: App, env: dict[str, str]) -> Rendered:
    """The CI workflow's render step: `trainc build APP -n NS --output-dir rendered/APP/`."""
    argv = workflow_command(repo, app, "trainc build ")
    out = argv[argv.index("--output-dir") + 1]
    rendered = run("build --output-dir", argv, repo, env)
    if rendered.returncode == 0:
        manifest = (repo / out / ".trainc-manifest").read_text().splitlines()
        for name in (json.loads(line) for line in manifest if line and not line.startswith("#")):  # JSON strings
            for text in documents((repo / out / name).read_text()):
                rendered.add(text)
    return rendered


def argocd_environment(repo: Path, app: App, seed: Path) -> dict[str, str]:
    """cmp-server's environment for the Application `app` (reposerver/repository/repository.go newEnv,
    getPluginEnvs): the sidecar's own (its seed), the build environment, and the Application's plugin
    parameters as PARAM_* after Argo CD merged the app folder's `.argocd-source-<app>.yaml` into them."""
    need((BIN / "trainc").exists(), f"trainc is not installed in {BIN}")
    revision = git(repo, "rev-parse", "HEAD").strip()
    env = {
        "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(repo.parent),
        "TRAINC_SSH_KEY_SEED_FILE": str(seed),
        "ARGOCD_APP_NAME": app.name,
        "ARGOCD_APP_NAMESPACE": app.namespace,
        "ARGOCD_APP_PROJECT_NAME": "default",
        "ARGOCD_APP_REVISION": revision,
        "ARGOCD_APP_REVISION_SHORT": revision[:7],
        "ARGOCD_APP_REVISION_SHORT_8": revision[:8],
        "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/ml/training.git",
        "ARGOCD_APP_SOURCE_PATH": app.path,
        "ARGOCD_APP_SOURCE_TARGET_REVISION": "HEAD",
        "KUBE_VERSION": "1.32.0",
        "KUBE_API_VERSIONS": "v1,batch/v1,jobset.x-k8s.io/v1alpha2,kueue.x-k8s.io/v1beta2,"
        "scheduling.x-k8s.io/v1alpha1,trainer.kubeflow.org/v1alpha1",
    }
    override = repo / app.path / f".argocd-source-{app.name}.yaml"
    plugin = (yaml.safe_load(override.read_text()) or {}).get("plugin", {}) if override.exists() else {}
    env.update({f"ARGOCD_ENV_{e['name']}": e["value"] for e in plugin.get("env", [])})
    env.update(parameter_env(plugin.get("parameters", [])))
    return env


def parameter_env(parameters: list[dict]) -> dict[str, str]:
    """Argo CD's environment of plugin parameters (ApplicationSourcePluginParameters.Environ)."""

    def escaped(name: str) -> str:
        return re.sub("[^A-Z0-9_]", "_", name.upper())

    env = {"ARGOCD_APP_PARAMETERS": json.dumps(parameters or None, separators=(",", ":"))}
    for parameter in parameters:
        base = "PARAM_" + escaped(parameter["name"])
        if "string" in parameter:
            env[base] = parameter["string"]
        for key, value in parameter.get("map", {}).items():
            env[f"{base}_{escaped(key)}"] = value
        for index, value in enumerate(parameter.get("array", [])):
            env[f"{base}_{index}"] = value
    return env


def argocd(repo: Path, app: App, seed: Path) -> Rendered:
    """The shipped plugin.yaml as cmp-server runs it in the app's folder: discover (a match is exit 0 and
    something on stdout), then generate; a route that does not discover the app renders nothing."""
    env = argocd_environment(repo, app, seed)
    cwd = repo / app.path

    def command(spec: dict, route: str) -> Rendered:
        return run(route, [*spec["command"], *spec.get("args", [])], cwd, env)

    found = command(PLUGIN["spec"]["discover"]["find"], "argocd discover")
    if found.returncode != 0 or not found.stdout.strip():
        return found
    return from_stream(command(PLUGIN["spec"]["generate"], "argocd"))


def kpt_objects(rendered: Rendered, repo: Path, app: App, env: dict[str, str]) -> Rendered:
    """What `kpt live apply` would apply from the package: kpt's own list of its resources (`kpt fn
    source`) less the Kptfile and the local-config ones, each with its text in the package's file and
    without the rendered-from annotation (kpt's bookkeeping, not the object). `kpt fn source` lists every
    YAML file of the package, manifest or not (an `.argocd-source-<app>.yaml` too, unless a `.krmignore`
    names it, as the scenario's must: kpt refuses to run a pipeline over a file that is no KRM resource):
    those are not objects."""
    if rendered.returncode != 0:
        return rendered
    listed = subprocess.run(
        ["kpt", "fn", "source", app.path],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    ).stdout
    for item in yaml.safe_load(listed)["items"]:
        annotations = item["metadata"].get("annotations", {})
        if "apiVersion" not in item or "kind" not in item:
            continue
        if item["kind"] == "Kptfile" or annotations.get("config.kubernetes.io/local-config") == "true":
            continue
        path = repo / app.path / annotations["internal.config.kubernetes.io/path"]
        text = documents(path.read_text())[int(annotations["internal.config.kubernetes.io/index"])]
        rendered.add(
            re.sub(
                rf"  annotations:\n    {re.escape(KPT_ANNOTATION)}: \S+\n(?!    )|"
                rf"    {re.escape(KPT_ANNOTATION)}: \S+\n",
                "",
                text,
            )
        )
    return rendered


def kpt_render(repo: Path, app: App, env: dict[str, str]) -> Rendered:
    """The app's Kptfile pipeline (`exec: trainc fn`, its namespace in the configMap), from the root."""
    need(shutil.which("kpt") is not None, "kpt is not installed")
    rendered = run("kpt fn render", ["kpt", "fn", "render", app.path, "--allow-exec"], repo, env)
    return kpt_objects(rendered, repo, app, env)


def kpt_eval(repo: Path, app: App, env: dict[str, str]) -> Rendered:
    """Imperatively, from the package's folder, as the README says."""
    need(shutil.which("kpt") is not None, "kpt is not installed")
    rendered = run(
        "kpt fn eval",
        ["kpt", "fn", "eval", "--exec", "trainc fn", "--", f"namespace={app.namespace}"],
        repo / app.path,
        env,
    )
    return kpt_objects(rendered, repo, app, env)


def kustomize(repo: Path, app: App, env: dict[str, str]) -> Rendered:
    """`kubectl kustomize --enable-alpha-plugins` with the shipped TrainJobGenerator. kustomize re-encodes
    what a generator prints (key order kept, layout its own), so its texts are compared as data."""
    need(shutil.which("kubectl") is not None, "kubectl (with kustomize) is not installed")
    env = {**env, "KUSTOMIZE_PLUGIN_HOME": str(KUSTOMIZE_PLUGINS)}
    rendered = run("kustomize", ["kubectl", "kustomize", "--enable-alpha-plugins", app.overlay], repo, env)
    rendered.cwd = repo / app.overlay  # where kustomize runs the generator
    return from_stream(rendered)


# --- pre-commit ----------------------------------------------------------------------------------------------


def hook_repo(base: Path) -> tuple[Path, str]:
    """This checkout as a git repository pre-commit can install the hooks from (committed or not)."""
    repo = base / "hooks"
    repo.mkdir(parents=True)
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() and not name.startswith(("golden/", "tests/", "bench/")):
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "ci@example.com")
    git(repo, "config", "user.name", "CI")
    commit(repo, "hooks")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def pre_commit(repo: Path, home: Path, env: dict[str, str], *args: str) -> Rendered:
    env = {**env, "PRE_COMMIT_HOME": str(home), "PYTHONPATH": ""}
    return run("pre-commit " + args[0], [sys.executable, "-m", "pre_commit", *args], repo, env)


def use_hooks(repo: Path, hooks: Path, rev: str) -> None:
    """Point the repository's own .pre-commit-config.yaml at the hooks of this checkout, as committed."""
    config = repo / ".pre-commit-config.yaml"
    text = re.sub(r"repo: \S+", f"repo: {hooks}", config.read_text(), count=1)
    config.write_text(re.sub(r"rev: \S+", f"rev: {rev}", text, count=1))
    commit(repo, "hooks from this checkout")


# --- errors --------------------------------------------------------------------------------------------------


def error_path(rendered: Rendered, position: str, message: str) -> Path | None:
    """The file a route names in `FILE:LINE:COL: message` at `position` (LINE:COL), resolved from where the
    route ran: the user's own file, or None when no such line is printed."""
    match = re.search(rf"([^\s\"':]+):{re.escape(position)}: {re.escape(message)}", rendered.output)
    return (rendered.cwd / match.group(1)).resolve() if match else None
