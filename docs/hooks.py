"""MkDocs hook: a page's `::: trainc-command VERB` and `::: trainc-settings` lines become the references
tools/docs/reference.py generates from trainc's click declarations and settings table."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "trainc_docs_reference", Path(__file__).resolve().parent.parent / "tools" / "docs" / "reference.py"
)
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def on_page_markdown(markdown, page, config, files):
    return reference.expand(markdown)
