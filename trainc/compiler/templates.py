"""Text that trainc renders from the Jinja2 templates shipped in templates/ (e.g. MPI hostfiles).

Templates are files of the package, never strings from the inputs: values from a
TrainJob reach them only as render variables, in a sandboxed environment that
fails on undefined names. Jinja2 is imported on first use, keeping it off the
start-up path of runs that render no template.
"""

from __future__ import annotations

from functools import cache

from ..shipped import data_dir


@cache
def _environment():
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(
        loader=FileSystemLoader(data_dir("templates")),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
    )


def render(name: str, **values) -> str:
    """Render the shipped template `name` with `values`."""
    return _environment().get_template(name).render(**values)
