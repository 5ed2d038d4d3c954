"""Every setting of a run resolved once, each value kept with where it came from.

A value comes from a flag, an environment variable, the project config (`trainc.formats.projectconfig`), the route trainc
runs in, or the default, in that order of precedence. Knowing the origin lets every message speak the
user's terms (`TRAINC_RUNTIMES: ...`, `.trainc.yaml:1:12: runtimes[0]: ...`, never a flag nobody passed)
and lets `trainc config` show it, as `git config --show-origin` does.

The Argo CD plugin's route (TRAINC_ROUTE=argocd, set by examples/argocd/plugin.yaml) reads the Application's
parameters here, so they are named in messages. Its destination namespace (ARGOCD_APP_NAMESPACE) is not a
default others override: Argo CD puts every namespaced object that sets none there, so a namespace from any
other source that differs would split the app from its ConfigMaps, PVCs and LocalQueues; that is an error
naming both.

Paths written in a repository (the project config) or in an Application (the plugin's parameters), and,
with --root, every path on the command line, must resolve inside the root, symlinks followed: a repository
must not read the files of the machine rendering it (other apps' checkouts in cmp-server's /tmp). The
environment is the operator's (a sidecar's TRAINC_RUNTIMES) and may point anywhere. Under the plugin the SSH
key seed is never a file of the repository: an Application names one of the seeds the operator put in the
sidecar's seed directory (TRAINC_SSH_KEY_SEED_DIR, keyed by AppProject with `{project}`), and nothing else.
A refused path is refused before anything looks at its file, in words that say nothing of it (whether it
exists, its type, mode or size, where a link leads).
"""

from __future__ import annotations

import os

from .errors import Record, TraincError, one_line

ROUTES = ("argocd", "kustomize")
KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")  # kustomize's names, in its order
# parameter name -> (config key, environment variable, flag)
SETTINGS = {
    "runtime_paths": ("runtimes", "TRAINC_RUNTIMES", "--runtimes"),
    "namespace": ("namespace", "TRAINC_NAMESPACE", "--namespace"),
    "ssh_key_seed": ("ssh-key-seed", "TRAINC_SSH_KEY_SEED_FILE", "--ssh-key-seed"),
    "output_dir": ("output-dir", None, "--output-dir"),
    "plugins": ("plugins", "TRAINC_PLUGINS", "--plugin"),
    "policy_paths": ("policy-paths", None, "--policies"),
    "kueue_paths": ("kueue-paths", None, "--kueue"),
    "cluster_state": ("cluster-state", None, "--cluster-state"),
    "ssh_keys": ("ssh-keys", "TRAINC_SSH_KEYS", "--ssh-keys"),
    "sealed_secrets_cert": ("sealed-secrets-cert", "TRAINC_SEALED_SECRETS_CERT", "--sealed-secrets-cert"),
    "trainer_version": ("trainer-version", "TRAINC_TRAINER_VERSION", "--trainer-version"),
    "as_user": ("as", "TRAINC_AS", "--as"),
    "as_groups": ("as-groups", "TRAINC_AS_GROUPS", "--as-group"),
}
LISTS = (
    "runtime_paths",
    "plugins",
    "policy_paths",
    "kueue_paths",
    "as_groups",
)  # the settings that take several values
_PLUGIN_NAMESPACE = (
    ("PARAM_NAMESPACE", "the plugin parameter namespace"),
    ("ARGOCD_ENV_TRAINC_NAMESPACE", "the Application's plugin env TRAINC_NAMESPACE"),
)
DESTINATION = "ARGOCD_APP_NAMESPACE"
# The seeds an Application may name under the plugin: the operator's directory (the sidecar's environment),
# `{project}` replaced by the app's AppProject, which Argo CD 3.0+ sets from spec.project and an app cannot.
SEED_DIR, DEFAULT_SEED_DIR, DEFAULT_SEED_NAME = "TRAINC_SSH_KEY_SEED_DIR", "/var/run/trainc", "seed"
PROJECT = "ARGOCD_APP_PROJECT_NAME"
# Who applies an Argo CD app's objects, for admission policies: its application controller (the install's
# ServiceAccount in the argocd namespace). The sidecar's TRAINC_AS / TRAINC_AS_GROUPS say otherwise; neither
# the repository nor the Application chooses it.
CONTROLLER = "system:serviceaccount:argocd:argocd-application-controller"
_PLUGIN_SEED = (
    ("PARAM_SSH_KEY_SEED_FILE", "the plugin parameter ssh-key-seed-file"),
    ("ARGOCD_ENV_TRAINC_SSH_KEY_SEED_FILE", "the Application's plugin env TRAINC_SSH_KEY_SEED_FILE"),
)
_PLUGIN_CERT = (
    ("PARAM_SEALED_SECRETS_CERT", "the plugin parameter sealed-secrets-cert"),
    ("ARGOCD_ENV_TRAINC_SEALED_SECRETS_CERT", "the Application's plugin env TRAINC_SEALED_SECRETS_CERT"),
)
_PLUGIN_SSH_KEYS = (
    ("PARAM_SSH_KEYS", "the plugin parameter ssh-keys"),
    ("ARGOCD_ENV_TRAINC_SSH_KEYS", "the Application's plugin env TRAINC_SSH_KEYS"),
)


# where a parameter's value came from, in click's names (ParameterSource)
COMMANDLINE, ENVIRONMENT, DEFAULT = "COMMANDLINE", "ENVIRONMENT", "DEFAULT"


class Invocation(Record):
    """How the command was called, as far as its settings care, however its command line was read: where each
    parameter's value came from (COMMANDLINE, ENVIRONMENT, else a default), and --root (TRAINC_ROOT) if given."""

    sources: dict
    root: str | None = None
    root_from_commandline: bool = False


class SettingError(TraincError):
    """A setting that cannot be used, said in the terms of where it came from."""


class Given(Record):
    """One value and where it came from: a flag, an environment variable, `FILE:LINE:COL` of the project
    config, or a description of a default. `confined`: a path that must resolve inside the root."""

    value: str
    origin: str
    confined: bool = False
    field: str = ""  # the config key (and item) it is written at, for `FILE:LINE:COL: runtimes[0]: ...`

    def error(self, message: str) -> SettingError:
        where = f"{self.origin}: {self.field}" if self.field else self.origin
        return SettingError(one_line(f"{where}: {message}"))


class Settings:
    def __init__(
        self,
        root: Given,
        config: str | None,
        values: dict | None = None,
        route: str | None = None,
        configs: tuple = (),
        house_rules: bool = False,
    ):
        self.root = root
        self.config = config  # the project config read, if any
        self.values: dict = {} if values is None else values  # config key -> [Given] (several for runtimes)
        # Under the kustomize generator: the kustomization's own namespace, where kustomize moves every
        # namespaced object the generator prints (a SealedSecret must be sealed for it); else None.
        self.moved_to: Given | None = None
        self.route = route
        self.configs = configs  # every project config layered, outermost first (`config` is the last)
        self.house_rules = house_rules  # whether one of them writes house rules

    def placement(self) -> dict:
        """What sealing must know of where the objects end up (`sshkeys.SeedFile`): under the kustomize
        generator, the kustomization's namespace they are moved to, or that no namespace is known (none from
        a flag, variable, config or the kustomization: an overlay's may move them anywhere)."""
        if self.route != "kustomize":
            return {}
        if self.moved_to is not None:
            return {"moved_to": self.moved_to.value}
        givens = self.values.get("namespace", [])
        return {"namespace_unknown": not givens or givens[0].origin == "default"}

    def value(self, name: str):
        """The parameter's value, as the command takes it."""
        key = SETTINGS[name][0]
        givens = self.values.get(key, [])
        if name in LISTS:
            return tuple(given.value for given in givens)
        return givens[0].value if givens else None

    def has(self, name: str) -> bool:
        """Whether the command takes this setting (it was resolved)."""
        return SETTINGS[name][0] in self.values

    def origin(self, key: str) -> str | None:
        """Where the setting came from, with the config's key: `.trainc.yaml:3:15: ssh-key-seed`."""
        givens = self.values.get(key, [])
        if not givens:
            return None
        return f"{givens[0].origin}: {givens[0].field}" if givens[0].field else givens[0].origin

    def runtimes_words(self, route: str | None) -> str:
        """How "runtime not found" names where runtimes come from besides the inputs, in the user's terms
        (`engine.Options.runtimes_words`)."""
        if route == "argocd":
            return "the plugin parameter runtimes (or the sidecar's TRAINC_RUNTIMES)"
        givens = self.values.get("runtimes")
        origin = givens[0].origin if givens else None
        if origin is None or origin == "--runtimes":
            from .trainer.catalog import RUNTIMES_WORDS

            return RUNTIMES_WORDS
        if origin == "TRAINC_RUNTIMES":
            return origin
        return f"runtimes in {os.path.relpath(self.config)}"

    def lines(self) -> list[str]:
        """`ORIGIN<TAB>KEY=VALUE` per value, as `git config --show-origin --list` prints."""
        out = [(self.root.origin, "root", self.root.value)]
        out.extend((os.path.relpath(path), "config", os.path.relpath(path)) for path in self.configs)
        out.extend((given.origin, key, given.value) for key, givens in self.values.items() for given in givens)
        return [f"{one_line(origin)}\t{key}={one_line(value)}" for origin, key, value in out]


def resolve(invocation: Invocation, params: dict, limit: int | None = None) -> Settings:
    """The settings of the command called as `invocation` with `params` (its parsed parameters), the files they
    are read from within `limit` bytes each (--max-input-bytes); raises SettingError."""
    from .formats import projectconfig as config

    root, explicit = _root(invocation)
    paths = [path for path in params.get("paths", ()) if path != "-"]
    folder = _folder(paths)
    found = config.load(folder, root.value if explicit else _config_root(folder), limit)
    below = config.nested(paths, folder)
    if below is not None:
        raise SettingError(
            one_line(
                f"{os.path.relpath(below)} governs some of the inputs and not the others, and one run has one set of "
                f"settings: run trainc on {os.path.relpath(os.path.dirname(below))} on its own (its config layers over "
                "the ones above it), and on the other inputs apart"
            )
        )
    route = _route()
    settings = Settings(root, found.path, route=route, configs=found.paths, house_rules=found.house_rules)
    for name, (key, envvar, flag) in SETTINGS.items():
        if name not in params:
            continue
        source = invocation.sources.get(name)
        raw = params[name]
        items = list(raw) if isinstance(raw, (list, tuple)) else [raw]
        argocd = route == "argocd"  # the plugin's parameters and the operator's defaults; not the kustomize generator
        plugin = _plugin(name) if argocd and source != COMMANDLINE else []
        if source == COMMANDLINE:
            givens = [Given(item, flag, explicit) for item in items]
        elif plugin:  # the Application's own settings, as the plugin's flags once were
            givens = plugin
        elif source == ENVIRONMENT:
            givens = [Given(item, envvar) for item in items]
        elif argocd and name == "as_user":  # the GitOps controller applies, whatever the repository says
            givens = [Given(CONTROLLER, "default under the Argo CD plugin (its application controller)")]
        elif argocd and name == "as_groups":
            givens = []
        elif argocd and name == "ssh_key_seed":  # the operator's, never the repository's
            folder, origin = _seed_dir()
            givens = [Given(os.path.join(folder, DEFAULT_SEED_NAME), f"the seed {DEFAULT_SEED_NAME!r} in {origin}")]
        else:
            givens = _configured(found, name, key) or [Given(item, "default") for item in items if item is not None]
        settings.values[key] = givens
    if route == "argocd" and "namespace" in params:
        settings.values["namespace"] = _destination(settings.values["namespace"], found)
    if route == "kustomize" and "namespace" in params:
        settings.moved_to = _kustomization_namespace(limit)
        if settings.moved_to is not None:
            settings.values["namespace"] = _moved(settings.values["namespace"], settings.moved_to)
    # an explicit `-o` asks for the stream on stdout: the config's output-dir does not apply (the plugin and the
    # kustomize generator pass `-o yaml`, since their host reads stdout)
    if "output_dir" in params and invocation.sources.get("output_format") == COMMANDLINE:
        settings.values["output-dir"] = [g for g in settings.values["output-dir"] if g.origin == "--output-dir"]
    for given in settings.values.get("namespace", []):  # given to passed-through objects too: never unchecked
        from .trainer.api import namespace_problem

        problem = namespace_problem(given.value)
        if problem is not None:
            raise given.error(problem)
    for given in settings.values.get("ssh-keys", []):  # a flag or variable went through click's choice already
        from .compiler.sshkeys import MODES

        if given.value not in MODES:
            raise given.error(f"{given.value!r} is not one of {', '.join(MODES)}")
    for given in settings.values.get("trainer-version", []):  # the config's and the plugin's: not through click
        from .trainer import releases

        if given.value not in releases.NAMES:
            raise given.error(
                f"{given.value!r} is not a Kubeflow Trainer release trainc renders for (supported: "
                f"{', '.join(releases.NAMES)})"
            )
    for key in ("runtimes", "policy-paths", "kueue-paths", "cluster-state"):
        for given in settings.values.get(key, []):
            if not (key == "cluster-state" and given.value == "-"):  # stdin: the cluster state piped from kubectl
                _check_path(settings, given, exists=True)
    for key in ("ssh-key-seed", "output-dir", "sealed-secrets-cert"):
        for given in settings.values.get(key, []):
            _check_path(settings, given)
    for given in settings.values.get("sealed-secrets-cert", []):
        if given.origin.startswith(("PARAM_", "ARGOCD_ENV_")) and not os.path.isfile(given.value):
            raise given.error(
                f"{given.value}: no such file (the path is relative to the app's folder, "
                f"{os.environ.get('ARGOCD_APP_SOURCE_PATH') or '.'} in the repository)"
            )
    if explicit:
        for path in params.get("paths", ()):
            if path != "-":
                _check_path(settings, Given(path, "PATHS", True))
    return settings


def _root(invocation: Invocation) -> tuple[Given, bool]:
    value = invocation.root
    if value is not None:
        origin = "--root" if invocation.root_from_commandline else "TRAINC_ROOT"
        if not os.path.isdir(value):
            raise Given(value, origin).error(f"{value}: not a directory")
        return Given(os.path.realpath(value), origin), True
    from .formats.projectconfig import _git_root

    here = os.getcwd()
    git = _git_root(here)
    if git is not None:
        return Given(os.path.realpath(git), "default (the git repository's root)"), False
    return Given(os.path.realpath(here), "default (the current directory)"), False


def _folder(paths) -> str:
    """The inputs' common folder, whose configs govern the run (a file's is its folder); the current directory
    for stdin or no inputs."""
    folders = [os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".") for path in paths]
    return os.path.commonpath(folders) if folders else os.getcwd()


def _config_root(folder: str) -> str:
    """Where the config lookup for `folder` starts without --root: its git repository's root; outside git, the
    current directory when `folder` is under it (a project's own config), else `folder`."""
    from .formats.projectconfig import _git_root

    git = _git_root(folder)
    if git is not None:
        return git
    here = os.getcwd()
    return here if os.path.commonpath([here, folder]) == here else folder


def _route() -> str | None:
    route = os.environ.get("TRAINC_ROUTE") or None
    if route is not None and route not in ROUTES:
        raise SettingError(
            one_line(f"TRAINC_ROUTE: {route!r} is not a route trainc knows (known: {', '.join(ROUTES)})")
        )
    return route


def _configured(found, name: str, key: str) -> list[Given]:
    if name not in found.values:
        return []
    value = found.values[name]
    items = value if isinstance(value, list) else [value]
    fields = [f"{key}[{index}]" for index in range(len(items))] if isinstance(value, list) else [key]
    return [Given(item, where, True, field_name) for item, where, field_name in zip(items, found.where[name], fields)]


def _plugin(name: str) -> list[Given]:
    """What the Application gives the Argo CD plugin for this setting: its parameters (PARAM_*, the array
    parameter runtimes as PARAM_RUNTIMES_0, _1, ...) or its plugin env (ARGOCD_ENV_*), confined paths."""
    environ = os.environ
    if name == "runtime_paths":
        indexed = []
        while f"PARAM_RUNTIMES_{len(indexed)}" in environ:
            indexed.append(f"PARAM_RUNTIMES_{len(indexed)}")
        if indexed:
            return [
                Given(environ[var], f"{var} (the plugin parameter runtimes)", True) for var in indexed if environ[var]
            ]
        for var, what in (
            ("PARAM_RUNTIMES", "the plugin parameter runtimes"),
            ("ARGOCD_ENV_TRAINC_RUNTIMES", "the Application's plugin env TRAINC_RUNTIMES"),
        ):
            if environ.get(var):
                return [Given(item, f"{var} ({what})", True) for item in environ[var].split(":") if item]
    if name == "ssh_key_seed":
        for var, what in _PLUGIN_SEED:
            if environ.get(var):
                return [_named_seed(Given(environ[var], f"{var} ({what})"))]
    if name == "sealed_secrets_cert":
        for var, what in _PLUGIN_CERT:
            if environ.get(var):
                return [Given(environ[var], f"{var} ({what})", True)]
    if name == "ssh_keys":  # the plugin's parameter (else its env), read here to be named in errors
        for var, what in _PLUGIN_SSH_KEYS:
            if environ.get(var):
                return [Given(environ[var], f"{var} ({what})")]
    if name == "namespace":
        for var, what in _PLUGIN_NAMESPACE:
            if environ.get(var):
                return [Given(environ[var], f"{var} ({what})")]
        if os.environ.get(DESTINATION):
            return [Given(os.environ[DESTINATION], f"{DESTINATION} (the Application's destination namespace)")]
    if name == "cluster_state":
        for var, what in (
            ("PARAM_CLUSTER_STATE", "the plugin parameter cluster-state"),
            ("ARGOCD_ENV_TRAINC_CLUSTER_STATE", "the Application's plugin env TRAINC_CLUSTER_STATE"),
        ):
            if environ.get(var):
                return [Given(environ[var], f"{var} ({what})", True)]
    if name == "trainer_version":
        for var, what in (
            ("PARAM_TRAINER_VERSION", "the plugin parameter trainer-version"),
            ("ARGOCD_ENV_TRAINC_TRAINER_VERSION", "the Application's plugin env TRAINC_TRAINER_VERSION"),
        ):
            if environ.get(var):
                return [Given(environ[var], f"{var} ({what})")]
    return []


def _destination(chosen: list[Given], found) -> list[Given]:
    """Under the plugin: every source that names a namespace must name the Application's destination."""
    destination = os.environ.get(DESTINATION)
    if not destination:
        return chosen
    here = f"{DESTINATION} (the Application's destination namespace)"
    named = [
        *chosen,
        *(Given(os.environ[var], f"{var} ({what})") for var, what in _PLUGIN_NAMESPACE if os.environ.get(var)),
        *_configured(found, "namespace", "namespace"),
    ]
    for given in named:
        if given.value != destination and given.origin != "default":
            raise given.error(
                f"namespace {given.value!r} differs from {here}, {destination!r}: Argo CD puts the "
                "app's objects that set no namespace in the destination, so the TrainJobs' objects "
                "would be split from them; set the destination namespace, or make both the same"
            )
    return [Given(destination, here)]


def _kustomization_namespace(limit: int | None = None) -> Given | None:
    """The `namespace:` of the kustomization the generator runs for: kustomize runs an exec generator in the
    kustomization's directory, and moves every namespaced object it prints to that namespace."""
    from .formats import position, source

    for name in KUSTOMIZATIONS:
        if os.path.isfile(name):
            break
    else:
        return None
    for origin, data in source.load_text(source.read(name, source.Budget(limit)), name):
        namespace = data.get("namespace") if isinstance(data, dict) else None
        if isinstance(namespace, str) and namespace:
            line, column = position.locate(origin, ("namespace",))
            return Given(namespace, f"{name}:{line}:{column}", field="namespace")
        return None
    return None


def _moved(chosen: list[Given], kustomization: Given) -> list[Given]:
    """Under the kustomize generator with the kustomization's namespace: that is the namespace; a flag, variable
    or config naming another would render (and seal) for a namespace kustomize then moves the objects out of."""
    for given in chosen:
        if given.value != kustomization.value and given.origin != "default":
            raise given.error(
                f"namespace {given.value!r} differs from the kustomization's namespace "
                f"{kustomization.value!r} ({kustomization.origin}), which kustomize moves every object "
                "the generator prints to: drop one, or make both the same"
            )
    return [kustomization]


def _check_path(settings: Settings, given: Given, exists: bool = False) -> None:
    """A path's checks, confinement first: a path outside the root is refused in the same words whatever
    its file is, before its file is looked at."""
    path, root = given.value, settings.root.value
    if "\0" in path:  # no file system takes it: said here, not as a traceback of whoever opens it
        raise given.error(f"{path}: a path cannot hold a NUL character")
    if given.confined and not _inside(path, root):
        raise given.error(
            f"{path}: outside the repository being rendered ({root}, the root from "
            f"{settings.root.origin}), symbolic links followed: a repository's settings name only "
            "its own files"
        )
    if exists and not os.path.exists(path):
        raise given.error(f"{path}: no such file or directory")


def _inside(path: str, top: str) -> bool:
    """Whether `path` is `top` or below it both as written (`..` taken as written, before any file is looked
    at) and with every symbolic link resolved."""
    if "\0" in path:
        return False
    top = os.path.abspath(top)
    written, real, real_top = os.path.abspath(path), os.path.realpath(path), os.path.realpath(top)
    return os.path.commonpath([written, top]) == top and os.path.commonpath([real, real_top]) == real_top


def _seed_dir() -> tuple[str, str]:
    """The app's seed directory and how messages name it."""
    template = os.environ.get(SEED_DIR) or DEFAULT_SEED_DIR
    origin = (
        f"{SEED_DIR} (the sidecar's seed directory)"
        if os.environ.get(SEED_DIR)
        else f"the sidecar's seed directory {DEFAULT_SEED_DIR} (the default of {SEED_DIR})"
    )
    if not os.path.isabs(template):  # relative to the app's path, it would be the repository's
        raise SettingError(
            one_line(
                f"{SEED_DIR}: {template!r} is not an absolute path: the seed directory is the "
                "sidecar's, never the repository's"
            )
        )
    if "{project}" in template:
        project = os.environ.get(PROJECT) or ""
        if not project or "/" in project or project in (".", "..") or "\0" in project:
            raise SettingError(
                one_line(
                    f"{SEED_DIR} is keyed by AppProject ({{project}}), but Argo CD set no "
                    f"usable {PROJECT} (Argo CD 3.0 and later set it): {project!r}"
                )
            )
        template = template.replace("{project}", project)
    return template, origin


def _named_seed(given: Given) -> Given:
    """The seed an Application names: a file of its seed directory (a name there, or a path inside it), else
    refused in words that say nothing about the file named."""
    folder, origin = _seed_dir()
    name = given.value
    path = name if os.path.isabs(name) else os.path.join(folder, name)
    if not _inside(path, folder) or os.path.abspath(path) == os.path.abspath(folder):
        raise given.error(
            f"{name}: not a seed of this app: an Application names a seed file of its seed directory "
            f"{folder} ({origin}), by its name there; files elsewhere are never read"
        )
    return Given(path, given.origin)
