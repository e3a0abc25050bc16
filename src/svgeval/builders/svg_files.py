"""SVG folders in and case files out, for every builder.

:func:`read_svg_folder` reads a folder of ``.svg`` files as their ``<svg>`` element text (XML
prolog, DOCTYPE and outer comments dropped; files that are not UTF-8 or hold no single
``<svg>`` element left out); :func:`write_cases` writes generated items as the JSON list of the
released task files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_SVG_ROOT = re.compile(r"<svg\b.*</svg\s*>", re.DOTALL | re.IGNORECASE)


def svg_element_text(text: str) -> str | None:
    """The ``<svg>...</svg>`` part of a file: XML prolog, DOCTYPE and outer comments dropped.

    Returns None when the file has no such element or holds nested ``<svg>`` elements (which
    the answer extraction could not recover intact).
    """
    match = _SVG_ROOT.search(text)
    if match is None or match.group(0).lower().count("<svg") != 1:
        return None
    return match.group(0)


def read_svg_folder(folder: Path) -> dict[str, str]:
    """Every ``*.svg`` directly in ``folder`` by file name (sorted), as ``<svg>`` element text.

    Files that are not UTF-8 or have no single ``<svg>`` element are left out.
    """
    svgs: dict[str, str] = {}
    for path in sorted(Path(folder).glob("*.svg")):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        element = svg_element_text(text)
        if element is not None:
            svgs[path.name] = element
    return svgs


def write_cases(cases: Sequence[Any], out: Path) -> None:
    """Write generated items as a JSON list (UTF-8, stable formatting) to ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(list(cases), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
