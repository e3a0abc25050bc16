"""Griffe extension (mkdocs.yml, mkdocstrings' ``extensions``): svgeval's docstrings, written in
reStructuredText's inline style, read as Markdown in the Python API reference.

The docstrings name other objects with Sphinx roles (``:class:`~svgeval.runner.Results```) and
introduce examples with ``::``. Markdown would print both as they are; here a role becomes the
code span of its target (the last dotted part when the target starts with ``~``, as Sphinx
shows it) and a ``::`` that ends a line becomes ``:`` (alone on its line, it goes), so the
indented example after it reads as a code block. The docstrings themselves stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
LITERAL_MARKER = re.compile(r"(\S)::$|^\s*::$", re.MULTILINE)


def markdown_of(docstring: str) -> str:
    """``docstring`` with its roles as code spans and its ``::`` markers as Markdown reads them."""

    def code_span(match: re.Match[str]) -> str:
        target = match.group(2)
        return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"

    text = ROLE.sub(code_span, docstring)
    return LITERAL_MARKER.sub(lambda match: f"{match.group(1)}:" if match.group(1) else "", text)


class RestRoles(griffe.Extension):
    """Rewrites each object's docstring for the reference as it is loaded."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
