"""A command's call, however its command line was read (by click, or by `plain` for a plain `trainc build`), and
what every compiling command makes of it: its settings resolved once (`settle`), then the run's Options and
SSH key seed built from them. Nothing here imports click."""

from __future__ import annotations

from ..errors import TraincError
from ..formats.limits import MAX_INPUT_BYTES

QUICK_EXIT = "quick_exit"  # the console script's run (`Call.process`): its command holds nothing to clean up
# parameter -> SeedFile argument: taken off the command's parameters by `settle`, for `seed`
_KEYS = (("ssh_keys", "mode"), ("sealed_secrets_cert", "cert"), ("ssh_key_scope", "scope"))


class Call:
    """One command's call: how it was invoked (`settings.Invocation`), what the console script asks of the
    process (`process`, click's ctx.obj), its inputs' byte bound (--max-input-bytes), and, once settled, its
    settings and the SSH key settings `seed` takes."""

    __slots__ = ("invocation", "process", "input_limit", "settings", "keys")

    def __init__(self, invocation, process=None, input_limit: int = MAX_INPUT_BYTES):
        self.invocation = invocation
        self.process = process
        self.input_limit = input_limit
        self.settings = None
        self.keys: dict = {}


_running: list[Call] = []  # the calls being run, innermost last, as click's contexts


def current() -> Call:
    return _running[-1]


def settle(call: Call, function, params: dict):
    """`function` run with `params`, its settings resolved once (trainc.settings: flags, environment, project
    config, the route) and its setting parameters replaced by the resolved values; a bad setting is exit 1,
    a plugin that cannot load or groups without a user a `commands.Usage`."""
    from .. import settings

    try:
        resolved = settings.resolve(call.invocation, params, call.input_limit)
    except TraincError as error:
        from ..commands import fail

        fail(error)
    call.settings = resolved
    params.update({name: resolved.value(name) for name in settings.SETTINGS if name in params})
    call.keys = {key: params.pop(name) for name, key in _KEYS if name in params}
    if "plugins" in params:
        _plugins(params.pop("plugins"))
    params.pop("trainer_version", None)  # the run's Options take these from the settings (`options`)
    params.pop("kueue_paths", None)
    params.pop("cluster_state", None)
    if "as_user" in params:
        _admitted_as(params.pop("as_user"), params.pop("as_groups"))
    _running.append(call)
    try:
        return function(**params)
    finally:
        _running.pop()


def _plugins(value) -> None:
    """The installed plugins every TrainJob of this run gets (`trainc.compiler.plugins.entrypoints`), loaded now
    so that a missing one is said once."""
    if not value:
        return
    from ..commands import Usage
    from ..compiler.plugins import entrypoints

    for name in dict.fromkeys(value):
        try:
            entrypoints.load(name)
        except entrypoints.PluginError as exc:
            raise Usage(str(exc), param_hint="--plugin") from None


def _admitted_as(user: str | None, groups: tuple) -> None:
    """The identity admission policies see (request.userInfo, authorizer checks) travels in the run's Options;
    groups without a user are a usage error, as kubectl's --as-group."""
    if groups and not user:
        from ..commands import Usage

        raise Usage("--as-group (TRAINC_AS_GROUPS, as-groups) needs --as (TRAINC_AS, as): groups of whom?")


def options(**given):
    """The run's options (`trainc.engine.Options`): the command's resolved settings, then `given`. A run the
    settings give the repository's own CEL (policies, house rules) goes under the supervisor now
    (`bounds.supervise`), before the engine is imported: a child forked this small copies few of its parent's
    pages (forking at the first policy cost a one-TrainJob build with every check about 5 ms)."""
    from .. import bounds

    call = current()
    settings = call.settings
    if settings.house_rules or settings.value("policy_paths"):
        bounds.supervise()
    from ..engine import Options

    plugins = tuple(dict.fromkeys(settings.value("plugins"))) if settings.has("plugins") else ()
    return Options.from_settings(settings, plugins=plugins, max_input_bytes=call.input_limit, **given)


def seed(path: str | None, required: bool = False):
    """The seed, read only when an MPI TrainJob needs one; messages name where its path came from."""
    from ..compiler.sshkeys import SeedFile

    call = current()
    origin = call.settings.origin("ssh-key-seed")
    return SeedFile(path, origin or "--ssh-key-seed", required, **call.keys, **call.settings.placement())


def throwaway_seed():
    """For a command that never prints a key (validate, summary, explain): a fixed seed (no random key, no
    notice), with the run's --ssh-keys settings, so a sealed-secrets run without a usable certificate fails
    there as in `trainc build`."""
    from ..compiler.sshkeys import MIN_SEED_BYTES, SeedFile

    return SeedFile(None, _seed=bytes(MIN_SEED_BYTES), **current().keys)


def quick_exit() -> None:
    """Under the console script, exit without tearing down (`trainc.cli._exit_now`) once the command ends."""
    process = current().process
    if isinstance(process, dict):
        process[QUICK_EXIT] = True
