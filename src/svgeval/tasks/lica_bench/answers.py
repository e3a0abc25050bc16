"""How LICA-Bench reads a model's answer: the option letter (svg-1, svg-2) and the SVG code
(svg-3 .. svg-8), as ``purvanshi/lica-bench`` c5c63dc does, and the corrected readings.

* :func:`strip_thinking` (``utils/text_helpers.py:11-22``): ``<think>...</think>`` removed,
  then, when the text holds a fenced block, only the **first** block's body is kept
  (``fence="last"``, ours: the last block's body, so a reply that shows the input and then the
  answer in two fences is scored on the answer).
* :func:`answer_code` (``_strip_svg_wrapper``, ``tasks/svg.py:27-32``): that, less a leading
  fence line and a trailing fence, less every ``<?xml ...?>``, stripped. There is no search for
  ``<svg``: chatter outside a fence stays in the scored text. Never fails (an empty reply is the
  empty string, which the release scores).
* :func:`answer_letter` (``_parse_answer_letter``, ``tasks/svg.py:35-59``): after
  :func:`strip_thinking`, the last match of the first of five patterns that matches, upper-cased,
  else the last line that is a single letter A-D, else ``""`` (scored wrong). The patterns are
  case-insensitive on the letter too, so ``"The answer is clear: B"`` reads ``C`` (the ``c`` of
  ``clear``). ``reading="strict"`` (ours): the last ``Answer: X`` with an upper-case ``X``.
"""

from __future__ import annotations

import re
from typing import Literal

from svgeval.svg.extract import Extraction, extraction_rule

Fence = Literal["first", "last"]
LetterReading = Literal["lica", "strict"]

_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCED = re.compile(r"```(?:\w*)\s*\n?(.*?)```", re.DOTALL)
_LEADING_FENCE = re.compile(r"^```(?:xml|svg|html)?\s*\n?")
_TRAILING_FENCE = re.compile(r"\n?```\s*$")
_XML_DECLARATION = re.compile(r"<\?xml[^>]*\?>\s*")
_LETTER_PATTERNS = (
    re.compile(r"Answer:\s*([A-D])", re.IGNORECASE),
    re.compile(r"(?:The\s+)?answer(?:\s+is)?(?:\s*[:=]?\s*)([A-D])", re.IGNORECASE),
    re.compile(r"(?:I|my)?\s*(?:choose|select|pick)(?:\s+option)?\s*(?:is|:)?\s*([A-D])",
               re.IGNORECASE),
    re.compile(r"option\s*([A-D])(?:\s+is\s+(?:correct|right|the\s+answer))", re.IGNORECASE),
    re.compile(r"^([A-D])$"),
)
_LETTER_LINE = re.compile(r"^[A-D]$")
_STRICT = re.compile(r"Answer:\s*([A-D])")


def strip_thinking(text: str, fence: Fence = "first") -> str:
    """``text`` without thinking blocks; the body of its first (or last) fenced block if any."""
    text = _THINKING.sub("", text).strip()
    blocks = [match.group(1) for match in _FENCED.finditer(text)]
    if blocks:
        text = (blocks[0] if fence == "first" else blocks[-1]).strip()
    return text


def answer_code(response: str, fence: Fence = "first") -> str:
    """The text LICA-Bench scores as the answer's SVG (see the module docstring)."""
    text = _LEADING_FENCE.sub("", strip_thinking(response, fence))
    text = _TRAILING_FENCE.sub("", text)
    return _XML_DECLARATION.sub("", text).strip()


def answer_letter(response: str, reading: LetterReading = "lica") -> str:
    """The option letter of a reply, ``""`` when none is found (see the module docstring)."""
    text = strip_thinking(response.strip())
    if reading == "strict":
        found = _STRICT.findall(text)
        return str(found[-1]) if found else ""
    for pattern in _LETTER_PATTERNS:
        matches = pattern.findall(text)
        if matches:
            return str(matches[-1]).upper()
    for line in reversed(text.splitlines()):
        if _LETTER_LINE.match(line.strip()):
            return line.strip().upper()
    return ""


def code_extraction(code: str, fence: Fence = "first") -> Extraction:
    """The text :func:`answer_code` read as an :class:`Extraction`: no SVG when it holds no
    ``<svg`` (the release scores that text all the same: its renders fail)."""
    rule = "lica" if fence == "first" else "lica-last"
    if "<svg" not in code:
        return Extraction(None, rule, "no <svg in the answer" if code else "empty answer")
    return Extraction(code, rule)


@extraction_rule("lica")
def extract_lica(response: str) -> Extraction:
    """The released ``_strip_svg_wrapper`` (first fenced block)."""
    return code_extraction(answer_code(response, "first"), "first")


@extraction_rule("lica-last")
def extract_lica_last(response: str) -> Extraction:
    """``_strip_svg_wrapper`` on the last fenced block (ours)."""
    return code_extraction(answer_code(response, "last"), "last")
