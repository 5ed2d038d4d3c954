"""trainc: compile Kubeflow Trainer TrainJobs into the manifests the Trainer controller would create.

The Python API is the run every command is (`trainc.engine`), as `trainc build` runs it from the current
directory: the project config found from there gives what the call does not (every setting but output-dir, and
the house rules). Imports are deferred so `import trainc` stays cheap.
"""

from __future__ import annotations

__all__ = ["from_objects", "objects", "render"]


def objects(
    paths,
    runtimes=(),
    *,
    namespace: str | None = None,
    ssh_key_seed: bytes | None = None,
    runtime_snapshot: bool = False,
    **options,
) -> list[dict]:
    """The rendered objects for every TrainJob under `paths` (files, directories or "-"; one path alone is one),
    as `trainc build`; `options` are the run's other options (`trainc.engine.Options`: policy_paths, previous,
    plugins, ...). Raises InputErrors for everything the build refuses."""
    from . import engine

    settings = _options(runtimes, namespace, ssh_key_seed, runtime_snapshot=runtime_snapshot, **options)
    return engine.run(engine.Inputs(_paths(paths)), settings).checked().documents()


def render(paths, runtimes=(), **options) -> str:
    """The same objects as one deterministic YAML stream (options as for `objects`)."""
    from .formats.serialize import dump_all

    return dump_all(objects(paths, runtimes, **options))


def from_objects(
    documents, runtimes=(), *, namespace: str | None = None, ssh_key_seed: bytes | None = None, **options
) -> list[dict]:
    """Render in-memory TrainJobs and runtimes: dicts (e.g. what the Kubeflow SDK would POST), the SDK's
    and the `kubernetes` client's model objects, or YAML/JSON text (str or UTF-8 bytes). The other objects
    among them (Kueue queues, policies) are checked against as `trainc build` checks the documents beside its
    TrainJobs; only the rendered objects are returned.

    Runtimes are used as by `trainc build`; errors name `<object N>` with the line and column of
    the object written out as YAML.
    """
    from . import engine
    from .errors import InputErrors, Origin, caught
    from .formats import source

    if isinstance(documents, (str, bytes, dict)):  # one document alone, not its characters or keys
        documents = [documents]
    found, errors = [], []
    for index, document in enumerate(documents):
        name = f"<object {index}>"
        loaded, problems = caught(lambda: list(source.load_text(_as_text(document, Origin(name)), name)))
        errors.extend(problems)
        for origin, data in loaded or ():
            found.extend(source.items(origin, data))
    if errors:
        raise InputErrors(errors)
    settings = _options(runtimes, namespace, ssh_key_seed, trainer_only=True, **options)
    return engine.run(engine.Inputs(documents=tuple(found)), settings).checked().documents()


def _options(runtimes, namespace, ssh_key_seed, **given):
    """The run's options: the call's, else the project config's (found from the current directory, as the
    command line finds it), else the defaults."""
    from .compiler.sshkeys import SeedFile
    from .engine import Options
    from .errors import TraincError
    from .formats import projectconfig
    from .trainer import releases

    config = projectconfig.load()
    values = config.values
    where = config.where.get("ssh_key_seed")
    seed = SeedFile(
        values.get("ssh_key_seed") if ssh_key_seed is None else None,  # the config's seed file, as the CLI reads it
        f"{where[0]}: ssh-key-seed" if where else "ssh_key_seed",
        _seed=ssh_key_seed,
        mode=values.get("ssh_keys", "seed"),
        cert=values.get("sealed_secrets_cert"),
    )
    read_here = set(Options._fields) - {"ssh_key_seed", "output_dir"}  # the objects are returned, not written
    defaults = {
        name: tuple(value) if isinstance(value, list) else value for name, value in values.items() if name in read_here
    }
    if "trainer_version" in defaults:  # refused as the command line refuses it, where the config writes it
        try:
            releases.named(defaults["trainer_version"])
        except ValueError as exc:
            raise TraincError(f"{config.where['trainer_version'][0]}: trainer-version: {exc}") from None
    chosen = {"runtime_paths": _paths(runtimes) or None, "namespace": namespace}
    return Options(
        **{
            **defaults,
            **{name: value for name, value in chosen.items() if value},
            "config": config.path,
            "ssh_key_seed": seed,
            **given,
        }
    )


def _paths(given) -> tuple:
    """Paths as the run reads them: text, bytes or os.PathLike each; one path alone is one, not its characters."""
    import os

    return tuple(map(os.fsdecode, [given] if isinstance(given, (str, bytes, os.PathLike)) else given))


def _as_text(document, origin) -> str:
    from .errors import InputError
    from .formats.clientdata import json_data
    from .formats.limits import room_for_depth
    from .formats.serialize import dump_all

    if isinstance(document, str):
        if not document.isascii():
            try:
                document.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate: no reader (nor kubectl) takes such text
                raise InputError(origin, (), "not UTF-8 text (a lone surrogate)") from None
        return document
    if isinstance(document, bytes):
        try:
            return document.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(origin, (), "not UTF-8 text") from None
    with room_for_depth(frames_per_level=2):  # a level is a frame or two in each recursive walk
        return dump_all([json_data(document, origin)])
