"""Pull the SVG code out of a free-form model response.

Rules (see ``docs/extraction.md`` for which task uses which and why):

``auto`` (lenient, ours) tries in order

* ``fenced``: the first Markdown code block tagged ``svg`` (or ``xml``/``html``/untagged holding
  ``<svg``);
* ``answer_prefix``: the first SVG element after the last ``Answer:`` (any case, ASCII or
  full-width colon);
* ``bare``: the first SVG element in the text.

An SVG element here is ``<svg ...>...</svg>`` (any case, the first closing tag after the start
tag) or a self-closing ``<svg .../>``. The self-closing form must be a well-formed start tag:
attribute text cannot hold ``<`` (XML forbids it), so a start tag that lost its ``>`` does not
run on into the next tag's ``/>``.

``svgeditbench`` is the paper's rule (Nishina & Matsui, 2024, Sec. 3.1): only text between
```` ```svg ```` and ```` ``` ```` counts, and a response with no such block or with more than
one is invalid. The release (github.com/mti-lab/SVGEditBench) ships no evaluation code.

``svgeditbench-v2`` is ``parse_response`` of the SVGEditBench V2 inference code
(github.com/mti-lab/SVGEditBenchV2, ``src/inference/gpt_seq.py``, ``vllm.py``): the matches of
``` ```svg\\n[^`]+?``` ``` (a block holding no backtick); more than one is invalid, exactly one is
the answer (the text between ``` ```svg\\n``` and the closing fence, unstripped); with none, the
matches of ``<svg[\\s\\S]+?</svg>`` must be exactly one, else the response is invalid.

``svgenius`` is ``extract_svg_from_response`` of the released scorers (github.com/ZJU-REAL/
SVGenius, ``src/eval_util.py``, used by every editing and generation script): the last match of
``Answer:\\s*(<svg[\\s\\S]*?</svg>)``, else the last match of ``<svg[\\s\\S]*?</svg>``, else
nothing. Matching is case-sensitive, a literal ``</svg>`` is required, a self-closing
``<svg/>`` is never an answer, and the code runs from ``<svg`` to the first ``</svg>`` after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ExtractionRule = Literal["auto", "svgeditbench", "svgeditbench-v2", "svgenius"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_SVG_FENCE = re.compile(r"```svg[ \t]*\n(.*?)```", re.DOTALL)
_SVG_ELEMENT = re.compile(r"<svg\b(?:[^<>]*?/>|[^>]*?>.*?</svg\s*>)", re.DOTALL | re.IGNORECASE)
_ANSWER = re.compile(r"answer\s*[:：]", re.IGNORECASE)
_V2_FENCE = re.compile(r"```svg\n[^`]+?```")
_V2_ELEMENT = re.compile(r"<svg[\s\S]+?</svg>")
_SVGENIUS_ANSWER = re.compile(r"Answer:\s*(<svg[\s\S]*?</svg>)")
_SVGENIUS_ELEMENT = re.compile(r"<svg[\s\S]*?</svg>")


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
    if rule == "svgenius":
        return _extract_svgenius(response)
    if rule == "svgeditbench-v2":
        return _extract_svgeditbench_v2(response)
    return _extract_auto(response)


def _extract_svgeditbench(response: str) -> Extraction:
    blocks = _SVG_FENCE.findall(response)
    if not blocks:
        return Extraction(None, "svgeditbench", "no ```svg block in the response")
    if len(blocks) > 1:
        return Extraction(None, "svgeditbench", f"{len(blocks)} ```svg blocks in the response")
    return Extraction(blocks[0].strip(), "svgeditbench")


def _extract_svgeditbench_v2(response: str) -> Extraction:
    blocks: list[str] = _V2_FENCE.findall(response)
    if len(blocks) == 1:
        return Extraction(blocks[0][len("```svg\n"):-3], "svgeditbench-v2:fenced")
    if blocks:
        return Extraction(None, "svgeditbench-v2", f"{len(blocks)} ```svg blocks in the response")
    elements: list[str] = _V2_ELEMENT.findall(response)
    if len(elements) == 1:
        return Extraction(elements[0], "svgeditbench-v2:bare")
    return Extraction(None, "svgeditbench-v2",
                      f"{len(elements)} <svg ...>...</svg> elements in the response, not one")


def _extract_svgenius(response: str) -> Extraction:
    answers: list[str] = _SVGENIUS_ANSWER.findall(response)
    if answers:
        return Extraction(answers[-1], "svgenius:answer")
    elements: list[str] = _SVGENIUS_ELEMENT.findall(response)
    if elements:
        return Extraction(elements[-1], "svgenius:last")
    return Extraction(None, "svgenius", "no <svg ...>...</svg> in the response")


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
