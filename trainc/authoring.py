"""A TrainJob from a Python function, as the Kubeflow SDK's CustomTrainer builds one, with the code kept intact.

The SDK (kubeflow 0.5, `get_command_using_train_func`) puts the function's source
and its call into a `bash -c` script, through an *unquoted* heredoc read with
`read -r -d ''`: bash expands `$HOME`, `$(...)` and backticks inside the user's
code, a line reading `EOM` ends it early, and `read` strips its leading and
trailing whitespace. Here the same command shape (pip install, then the launcher
the runtime's ML policy calls for: `torchrun`, `mpirun ... bash -c` with `python`, or
`python`) writes the code with `cat` from a *quoted* heredoc whose delimiter is
no line of the code, into a fresh directory per process (ranks on one node never
share the file). The kubelet expands `$(VAR)` and `$$` in a container's command
before bash sees it, so those are escaped too: the file the pod runs is the
source byte for byte.
"""

from __future__ import annotations

import inspect
import shlex
import textwrap
from functools import cache

from .k8s import kubelet

DEFAULT_PIP_INDEX_URLS = ("https://pypi.org/simple",)
DELIMITER = "TRAINC_EOF"
MPI_HOSTFILE = "/etc/mpi/hostfile"
_LAUNCHERS = {"torch": "torchrun", "mpi": "python", None: "python"}


def custom_trainer(
    func,
    *,
    name: str,
    func_args: dict | None = None,
    runtime: str = "torch-distributed",
    runtime_kind: str = "ClusterTrainingRuntime",
    namespace: str | None = None,
    num_nodes: int | None = None,
    resources_per_node: dict | None = None,
    env: dict | None = None,
    packages_to_install: list[str] | None = None,
    pip_index_urls=DEFAULT_PIP_INDEX_URLS,
    image: str | None = None,
    runtimes=(),
) -> dict:
    """The TrainJob (a dict) running `func(**func_args)` on `runtime`, found among the bundled runtimes or under
    `runtimes` (files or directories), as `trainc build` finds it; raises TraincError if it is not there, or
    if an argument has the wrong type (every such argument named at once)."""
    _check_arguments(locals())
    policy = _policy(runtime, runtime_kind, namespace or "default", runtimes)
    script = _install_script(packages_to_install, pip_index_urls, policy == "mpi")
    script += write_and_run(function_code(func, func_args), f"{func.__name__}.py", _LAUNCHERS[policy])
    command = ["bash", "-c", kubelet.escape(script)]
    if policy == "mpi":
        command = ["mpirun", "--hostfile", MPI_HOSTFILE, *command]
    trainer: dict = {}
    if image is not None:
        trainer["image"] = image
    if num_nodes is not None:
        trainer["numNodes"] = num_nodes
    if resources_per_node:
        resources = {key.lower(): value for key, value in resources_per_node.items()}
        if "gpu" in resources:
            resources["nvidia.com/gpu"] = resources.pop("gpu")
        trainer["resourcesPerNode"] = {"requests": resources, "limits": dict(resources)}
    trainer["command"] = command
    if env:
        trainer["env"] = [{"name": key, "value": value} for key, value in env.items()]
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": metadata,
        "spec": {"runtimeRef": {"kind": runtime_kind, "name": runtime}, "trainer": trainer},
    }


@cache
def _arguments():
    """The pydantic model of custom_trainer's arguments, built on first use: Python callers pass anything, and
    a wrong type must fail here, named, not as a TrainJob the API server refuses or code that cannot run (the
    call `func(**func_args)` is written as Python literals, so arguments must be JSON values)."""
    from typing import Any, Callable, Literal

    import pydantic

    text = pydantic.StrictStr
    return pydantic.create_model(
        "CustomTrainerArguments",
        __config__=pydantic.ConfigDict(arbitrary_types_allowed=True, extra="ignore"),
        func=(Callable[..., Any], ...),
        name=(text, ...),
        func_args=(dict[text, pydantic.JsonValue] | None, None),
        runtime=(text, ...),
        runtime_kind=(Literal["ClusterTrainingRuntime", "TrainingRuntime"], ...),
        namespace=(text | None, None),
        num_nodes=(pydantic.conint(strict=True, ge=1) | None, None),
        resources_per_node=(dict[text, text | pydantic.StrictInt | pydantic.StrictFloat] | None, None),
        env=(dict[text, text] | None, None),
        packages_to_install=(list[text] | None, None),
        pip_index_urls=(pydantic.conlist(text, min_length=1), ...),
        image=(text | None, None),
        runtimes=(list[text] | tuple[text, ...], ()),
    )


def _check_arguments(arguments: dict) -> None:
    import pydantic

    from .errors import InputError, InputErrors

    try:
        _arguments().model_validate(arguments)
    except pydantic.ValidationError as exc:
        raise InputErrors(
            [InputError(None, ("custom_trainer",) + tuple(error["loc"]), error["msg"]) for error in exc.errors()]
        ) from None


def to_yaml(trainjob: dict) -> str:
    """The TrainJob as YAML text to commit, printed as `trainc build` prints objects."""
    from .formats.serialize import dump_all

    return dump_all([trainjob])


def function_code(func, func_args: dict | None = None) -> str:
    """The program the pod runs: the function's source, dedented, then its call (the SDK's shape)."""
    source = textwrap.dedent(inspect.getsource(func))
    call = f"{func.__name__}(**{func_args!r})" if func_args else f"{func.__name__}()"
    return f"{source}\n{call}\n"


def write_and_run(code: str, file: str, launcher: str) -> str:
    """Shell that writes `code` verbatim to a new directory and execs `launcher` on it."""
    if "\0" in code:
        raise ValueError("the function's source holds a NUL character, which no command line can carry")
    lines = set(code.split("\n"))
    delimiter, suffix = DELIMITER, 0
    while delimiter in lines:
        suffix += 1
        delimiter = f"{DELIMITER}_{suffix}"
    body = code if code.endswith("\n") else code + "\n"
    path = f'"$TRAINC_CODE_DIR"/{shlex.quote(file)}'
    return f"TRAINC_CODE_DIR=\"`mktemp -d`\"\ncat > {path} <<'{delimiter}'\n{body}{delimiter}\nexec {launcher} {path}\n"


def _install_script(packages, index_urls, user: bool) -> str:
    """The SDK's pip step (get_script_for_python_packages), each argument shell-quoted."""
    if not packages:
        return ""
    options = [
        f"--index-url {shlex.quote(index_urls[0])}",
        *(f"--extra-index-url {shlex.quote(url)}" for url in index_urls[1:]),
    ]
    if user:  # OpenMPI images run as mpiuser: install for that user, as the SDK does
        options.append("--user")
    return textwrap.dedent(f"""\
        if ! [ -x "$(command -v pip)" ]; then
            python -m ensurepip || python -m ensurepip --user || apt-get install python-pip
        fi
        PIP_DISABLE_PIP_VERSION_CHECK=1 python -m pip install --quiet --no-warn-script-location \\
            {" ".join(options)} {" ".join(shlex.quote(p) for p in packages)}
        """)


def _policy(runtime: str, kind: str, namespace: str, runtime_paths) -> str | None:
    """`torch`, `mpi` or None: which launcher the runtime's ML policy calls for."""
    from . import engine
    from .errors import InputError
    from .trainer import catalog

    user = engine.runtimes(runtime_paths, engine.Options(namespace=namespace))
    found = catalog.build(user, namespace).find(kind, namespace, runtime)
    if found is None:
        raise InputError(None, (), f"{kind} {runtime!r} not found among the bundled runtimes or --runtimes")
    policy = found.spec.ml_policy
    if policy is not None and policy.torch is not None:
        return "torch"
    if policy is not None and policy.mpi is not None:
        return "mpi"
    return None
