"""Pull the SVG code out of a free-form model response.

Rules, in the order ``auto`` tries them:

* ``fenced``: a Markdown code block tagged ``svg`` (or ``xml``/untagged holding ``<svg``).
* ``answer_prefix``: SVGenius style ``Answer: <svg ...>`` (the text after the last ``Answer:``).
* ``bare``: the first ``<svg ...>...</svg>`` (or self-closing ``<svg .../>``) element in the text.

The ``svgeditbench`` rule is the paper's (Nishina & Matsui, 2024, Sec. 3.1): only text between
```` ```svg ```` and ```` ``` ```` counts, and a response with no such block or with more than
one is invalid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ExtractionRule = Literal["auto", "svgeditbench"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_SVG_FENCE = re.compile(r"```svg[ \t]*\n(.*?)```", re.DOTALL)
_SVG_ELEMENT = re.compile(r"<svg\b[^>]*?(?:/>|>.*?</svg\s*>)", re.DOTALL | re.IGNORECASE)
_ANSWER = re.compile(r"answer\s*[:：]", re.IGNORECASE)


@dataclass(frozen=True)
class Extraction:
    """Result of extracting SVG code from a response.

    ``svg`` is None when extraction failed; ``rule`` names the rule that matched (or was
    tried) and ``error`` says why extraction failed.
    """

    svg: str | None
    rule: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.svg is not None


def extract_svg(response: str, rule: ExtractionRule = "auto") -> Extraction:
    """Return the SVG code in ``response`` following ``rule`` (see module docstring)."""
    if rule == "svgeditbench":
        return _extract_svgeditbench(response)
    return _extract_auto(response)


def _extract_svgeditbench(response: str) -> Extraction:
    blocks = _SVG_FENCE.findall(response)
    if not blocks:
        return Extraction(None, "svgeditbench", "no ```svg block in the response")
    if len(blocks) > 1:
        return Extraction(None, "svgeditbench", f"{len(blocks)} ```svg blocks in the response")
    return Extraction(blocks[0].strip(), "svgeditbench")


def _extract_auto(response: str) -> Extraction:
    for language, body in _FENCE.findall(response):
        if language.lower() in ("svg", "xml", "html", "") and "<svg" in body.lower():
            element = _SVG_ELEMENT.search(body)
            return Extraction((element.group(0) if element else body).strip(), "fenced")
    answers = list(_ANSWER.finditer(response))
    if answers:
        element = _SVG_ELEMENT.search(response, answers[-1].end())
        if element:
            return Extraction(element.group(0).strip(), "answer_prefix")
    element = _SVG_ELEMENT.search(response)
    if element:
        return Extraction(element.group(0).strip(), "bare")
    if "<svg" in response.lower():
        return Extraction(None, "bare", "an <svg> start tag with no closing </svg>")
    return Extraction(None, "auto", "no SVG code in the response")
