"""What makes untrusted SVG unsafe to render, node by node, and the refusal it gets.

:class:`SvgRejected` is the refusal (its ``reason`` a short tag that ends up in the per-sample
record), :class:`SvgLimits` the size limits, :func:`safe_parser` the parser every check reads
with (entities, DTDs, network and huge trees off) and :func:`check_nodes` the walk over a
parsed tree that refuses what could make a renderer read a local file or the network or blow
up (see :mod:`svgeval.svg.sanitize`, which checks whole documents with it).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from lxml import etree

from svgeval.errors import SvgevalError

MAX_BYTES = 4_000_000
MAX_DEPTH = 128
MAX_ELEMENTS = 100_000
MAX_EXPANDED_NODES = 10_000

_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)
_CSS_IMPORT = re.compile(r"@import", re.IGNORECASE)


class SvgRejected(SvgevalError, ValueError):
    """An SVG refused before rendering; ``reason`` is a short tag, ``detail`` says why."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"


@dataclass(frozen=True)
class SvgLimits:
    """Size limits applied by :func:`check_svg`.

    ``max_expanded_nodes`` bounds :func:`~svgeval.svg.sanitize.expanded_size`, the elements drawn once references are
    followed, so it also caps documents without references. The largest released SVG
    (SVGEditBench, SVGenius) has 52 elements and none uses a reference. At the default, 10 000,
    the costliest drawing we found, 4 990 ``<use>`` of one ``<rect>`` (each ``<use>`` makes
    CairoSVG search the whole document for its target), renders within the renderer's 10 s
    limit, and so do 10 000 plain elements; 20 000 ``<use>`` would not (CairoSVG 2.9.1).
    """

    max_bytes: int = MAX_BYTES
    max_depth: int = MAX_DEPTH
    max_elements: int = MAX_ELEMENTS
    max_expanded_nodes: int = MAX_EXPANDED_NODES


_parsers = threading.local()


def safe_parser() -> etree.XMLParser:
    """This thread's parser (lxml advises one a thread): entities, DTDs, network and huge trees
    off, comments and processing instructions dropped. Kept, not made for each document:
    making one is a sizeable part of a small icon's parse."""
    parser: etree.XMLParser | None = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = etree.XMLParser(
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            dtd_validation=False,
            huge_tree=False,
            remove_comments=True,
            remove_pis=True,
        )
    return parser


def is_local_reference(url: str) -> bool:
    url = url.strip()
    return url.startswith("#") or url.lower().startswith("data:") or url == ""


DEFAULT_LIMITS = SvgLimits()


def check_nodes(root: etree._Element, limits: SvgLimits) -> int:
    """Check every node of ``root`` (module doc); the number of nodes, comments included."""
    count = 0
    stack: list[tuple[etree._Element, int]] = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        count += 1
        if count > limits.max_elements:
            raise SvgRejected("too_large", f"more than {limits.max_elements} elements")
        if depth > limits.max_depth:
            raise SvgRejected("too_deep", f"nesting deeper than {limits.max_depth}")
        if not isinstance(element.tag, str):
            continue
        name = etree.QName(element).localname
        if name == "script":
            raise SvgRejected("script", "<script> elements are not allowed")
        for attribute, value in element.attrib.items():
            if attribute == _XML_BASE:
                raise SvgRejected("external_reference", f"{name} has xml:base {value[:80]!r}")
            if is_href(attribute) and not is_local_reference(value):
                raise SvgRejected("external_reference", f"{name} refers to {value[:80]!r}")
            check_css(value, name)
        if name == "style":
            check_css("".join(element.itertext()), name)
        stack.extend((child, depth + 1) for child in element)
    return count


def is_href(attribute: str) -> bool:
    """``href`` in any namespace or none (``{uri}href`` as lxml names it)."""
    return attribute == "href" or attribute.endswith("}href")


def check_css(text: str, element: str) -> None:
    """Refuse ``@import`` and a ``url()`` that is not local in CSS ``text``, as written and as
    read once escapes are resolved (a backslash is the only way to write an escape)."""
    lowered = text.lower()
    if "url(" not in lowered and "@import" not in lowered and "\\" not in text:
        return
    if _CSS_IMPORT.search(text):
        raise SvgRejected("external_reference", f"CSS @import in <{element}>")
    for match in _CSS_URL.finditer(text):
        if not is_local_reference(match.group(2)):
            url = match.group(2)[:80]
            raise SvgRejected("external_reference", f"<{element}> has url({url!r})")
    if "\\" in text:
        _check_css_tokens(text, element)


def _check_css_tokens(text: str, element: str) -> None:
    """:func:`check_css` on the tokens tinycss2 reads from ``text`` (escapes resolved)."""
    import tinycss2

    stack = list(tinycss2.parse_component_value_list(text, skip_comments=True))
    while stack:
        token = stack.pop()
        if token.type == "at-keyword" and token.lower_value == "import":
            raise SvgRejected("external_reference", f"CSS @import (escaped) in <{element}>")
        url = token.value if token.type == "url" else None
        if token.type == "function" and token.lower_name == "url":
            url = next((arg.value for arg in token.arguments if arg.type == "string"), "")
        if url is not None and not is_local_reference(url):
            raise SvgRejected("external_reference", f"<{element}> has url({url[:80]!r})")
        stack.extend(getattr(token, "arguments", None) or getattr(token, "content", None) or [])


def over_budget(budget: int) -> SvgRejected:
    """The refusal of a document that draws more than ``budget`` elements."""
    return SvgRejected("use_budget", f"references followed, over {budget} elements to draw")
