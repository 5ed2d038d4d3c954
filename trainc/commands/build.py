"""`trainc build`: its flags' checks and what it prints of the run (`trainc.engine`): the output set on stdout,
or as a rendered tree (`trainc.output`), as kustomize's commands/build is over krusty."""

from __future__ import annotations

import sys

from ..errors import PreviousError, TraincError
from . import EXIT_INVALID, Usage, echo, fail, write_out


def main(paths, options, output_format, allow_empty, check) -> None:
    """The run of PATHS on stdout (YAML or a JSON List), or written to (or checked against) --output-dir."""
    from .. import engine
    from ..output import manifests as passthrough

    output_dir = options.output_dir
    if check and output_dir is None:
        raise Usage("--check compares with a rendered tree: give it with --output-dir")
    if output_dir == "-":
        raise Usage(
            "--output-dir - would make a folder named '-': to print to stdout, leave --output-dir "
            "out (for a folder of that name, write ./-)"
        )
    if output_dir is not None and output_format != "yaml":
        raise Usage("--output-dir writes YAML files; -o json is for stdout")
    try:
        result = engine.run(engine.Inputs(tuple(paths)), options).checked()
    except PreviousError as exc:
        raise Usage(str(exc), param_hint="--previous") from None
    except TraincError as error:
        fail(error)
    manifests = result.manifests
    seed = options.ssh_key_seed
    echo(*seed.warnings, *result.notices, *manifests.notices, *passthrough.only_runtimes(result, manifests))
    empty = passthrough.why_empty(result, paths)
    if empty is not None and not allow_empty:
        fail(TraincError(f"Error: {empty}"))
    if output_dir is None:
        if output_format == "json":
            from ..formats.jsonlist import dump_list

            write_out(dump_list(manifests.objects()))
        else:
            write_out(manifests.yaml_pieces())
        return
    _write(manifests, output_dir, check, paths)


def _write(manifests, output_dir: str, check: bool, paths=None) -> None:
    """The rendered tree written to DIR (or, with --check, compared with it)."""
    from ..output import outputdir

    contents = outputdir.files(manifests)
    if check:
        _check(contents, output_dir, paths)
        return
    try:
        for notice in outputdir.write(output_dir, contents, paths):
            echo(notice)
    except outputdir.OutputDirError as exc:
        fail(TraincError(f"Error: {exc}"))
    if any(secret for _, secret in contents.values()):  # else no object is read back (a parallel build's are bytes)
        _plain_key_notice(manifests.objects(), output_dir)


def _plain_key_notice(objects, where: str) -> None:
    """Said once when files about to be committed hold an MPI private key in clear."""
    from ..compiler.mpikeys import PLAIN_NOTICE, holds_plain_key

    if holds_plain_key(objects):
        echo(PLAIN_NOTICE.format(where=where))


def _check(contents: dict, output_dir: str, paths=None) -> None:
    from ..output import check

    found = check.problems(contents, output_dir, paths)
    for line in found:
        echo(line)
    if found:
        sys.exit(EXIT_INVALID)
