"""What every static page of svgeval shares: escaping, the document frame and its assets.

Pages are plain files that work offline (no server, no CDN): one HTML document, a style sheet
and a script copied beside it from ``svgeval/report/assets``. Text from a run (responses,
prompts, failure details) is only ever written HTML-escaped, or as JSON in a script file with
``<``, ``>`` and ``&`` escaped, so nothing from a run can become markup. A content security
policy forbids inline scripts, plugins, frames and network requests as a second line of defence.
"""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from svgeval.report.summary import format_value

ASSETS = ("report.css", "report.js")
"""Files copied beside every page."""

CSP = (
    "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; "
    "base-uri 'none'; form-action 'none'"
)


def esc(text: object) -> str:
    """``text`` as HTML text (quotes escaped too, so it is safe in attributes)."""
    return html.escape(str(text), quote=True)


def script_json(value: Any) -> str:
    """``value`` as JSON that contains no ``<``, ``>`` or ``&`` (safe anywhere in a page)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (
        ("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
        ("\u2028", "\\u2028"), ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def document(title: str, body: str, scripts: Iterable[str] = ()) -> str:
    """A complete HTML document with the shared style sheet and the given script files."""
    tags = "".join(f'<script src="{esc(src)}"></script>\n' for src in scripts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n"
        '<link rel="stylesheet" href="report.css">\n</head>\n'
        f"<body>\n{body}\n{tags}</body>\n</html>\n"
    )


def copy_assets(out_dir: Path) -> None:
    """Copy the style sheet and script beside a page in ``out_dir``."""
    folder = resources.files("svgeval.report") / "assets"
    for name in ASSETS:
        with resources.as_file(folder / name) as source:
            shutil.copyfile(source, out_dir / name)


def number(value: float | None) -> str:
    """A value for a table cell (``n/a`` for None)."""
    return format_value(value)


def table(header: list[str], rows: Iterable[list[str]], css: str = "") -> str:
    """An HTML table; ``header`` cells are text, row cells are HTML already escaped."""
    head = "".join(f"<th>{esc(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    klass = f' class="{esc(css)}"' if css else ""
    return f"<table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
