"""Pull the SVG code out of a free-form model response.

A rule is a named function from a response to an :class:`Extraction`, registered in
:data:`EXTRACTION_RULES` with :func:`extraction_rule`. This module holds the generic rule
``auto``; each benchmark registers its released rule from its own package (``svgeditbench``,
``svgeditbench-v2``, ``svgenius``, ``vectorgym``, ``unisvg``), found through the
``svgeval.extraction_rules`` entry points like any plugin's (see :mod:`svgeval.registry` and
``docs/extraction.md`` for which task uses which and why).

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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from svgeval.registry import Registry

_LANGUAGE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-")
_SVG_START = re.compile(r"<svg\b(?:([^<>]*?/>)|[^>]*?>)", re.IGNORECASE)
_SVG_END = re.compile(r"</svg\s*>", re.IGNORECASE)
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


Extractor = Callable[[str], Extraction]
"""A rule's function: the response in, the extraction out."""


@dataclass(frozen=True)
class ExtractionRule:
    """A named way of reading the SVG in a response."""

    name: str
    extract: Extractor


EXTRACTION_RULES: Registry[ExtractionRule] = Registry(
    "extraction rule", "svgeval.extraction_rules")
"""Every extraction rule by name; ``auto`` is this module's, the others their suites'."""


def extraction_rule(name: str) -> Callable[[Extractor], Extractor]:
    """Decorator that registers a function as the extraction rule ``name``."""

    def register(extract: Extractor) -> Extractor:
        EXTRACTION_RULES.register(ExtractionRule(name, extract))
        return extract

    return register


def extract_svg(response: str, rule: str = "auto") -> Extraction:
    """Return the SVG code in ``response`` following the registered ``rule`` (KeyError naming
    the known rules for an unknown one)."""
    return EXTRACTION_RULES.get(rule).extract(response)


def svg_element(text: str, start: int = 0) -> str | None:
    """The first SVG element (module doc) that starts at or after ``start``, as the one regex
    ``<svg\\b(?:[^<>]*?/>|[^>]*?>.*?</svg\\s*>)`` (DOTALL, IGNORECASE) finds it, in less
    time: the start tag is matched first and its closing tag then searched for, instead
    of the regex trying ``</svg`` at every character of the element. A start tag with no closing tag
    after it is passed over, as the regex does when it moves on by one character; once no closing
    tag is left, only self-closing ones can follow."""
    closing_left = True
    while (tag := _SVG_START.search(text, start)) is not None:
        if tag.group(1) is not None:
            return tag.group(0)
        end = _SVG_END.search(text, tag.end()) if closing_left else None
        if end is not None:
            return text[tag.start():end.end()]
        closing_left = False  # none after this tag, so none after any later one
        start = tag.start() + 1
    return None


def fenced_blocks(text: str) -> Iterator[tuple[str, str]]:
    """Each Markdown code block of ``text``, in order, as ``(language, body)``: what the regular
    expression ``"```[ \\t]*([A-Za-z0-9_+-]*)[^\\n]*\\n(.*?)```"`` (dot matching newlines)
    finds with ``findall``, found with ``str.find`` and read only as far as the caller goes
    (the regex tries the closing fence at every character of a block). A block runs from the line
    after its opening fence to the next fence; the language is the run of letters, digits, ``_``,
    ``+`` and ``-`` after the opening fence and any spaces or tabs. Once an opening has no newline
    or no closing fence after it, no later one has."""
    start = text.find("```")
    while start >= 0:
        line_end = text.find("\n", start + 3)
        close = text.find("```", line_end + 1) if line_end >= 0 else -1
        if close < 0:
            return
        header = text[start + 3:line_end].lstrip(" \t")
        length = next((i for i, char in enumerate(header) if char not in _LANGUAGE), len(header))
        yield header[:length], text[line_end + 1:close]
        start = text.find("```", close + 3)


def may_hold_answer(response: str) -> bool:
    """False when ``response`` holds no ``Answer:`` (the regex ``answer\\s*[:：]``, IGNORECASE):
    it has no ``answer`` once in lower case, and no long s ``ſ``, the one character besides the
    ASCII letters that the regex takes for a letter of ``answer`` and that lower case leaves as
    it is: a cheaper test than the regex."""
    return "answer" in response.lower() or "ſ" in response


def after_last_answer(response: str) -> int | None:
    """Where the text after the last ``Answer:`` (any case, ASCII or full-width colon) begins;
    None when there is none."""
    if not may_hold_answer(response):
        return None
    answers = list(_ANSWER.finditer(response))
    return answers[-1].end() if answers else None


@extraction_rule("auto")
def extract_auto(response: str) -> Extraction:
    """The lenient rule (see the module docstring)."""
    for language, body in fenced_blocks(response):
        if language.lower() in ("svg", "xml", "html", "") and "<svg" in body.lower():
            element = svg_element(body)
            return Extraction((element or body).strip(), "fenced")
    answer = after_last_answer(response)
    if answer is not None:
        element = svg_element(response, answer)
        if element:
            return Extraction(element.strip(), "answer_prefix")
    element = svg_element(response)
    if element:
        return Extraction(element.strip(), "bare")
    if "<svg" in response.lower():
        return Extraction(None, "bare", "an <svg> start tag with no closing </svg>")
    return Extraction(None, "auto", "no SVG code in the response")
