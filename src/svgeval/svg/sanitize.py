"""Safety checks for untrusted SVG code before it reaches a renderer.

Model outputs are untrusted. :func:`check_svg` parses them with lxml with entity resolution,
DTD loading, network access and huge trees all off, and rejects anything that could make a
renderer read a local file or the network, or blow up: DTDs and entity declarations
(billion laughs, XXE), references that are neither ``#fragment`` nor ``data:`` URIs (in
``href``/``xlink:href``, CSS ``url(...)`` and ``@import``), ``xml:base``, ``<script>``, trees
deeper or larger than the limits, and inputs that are not UTF-8. A rejection raises
:class:`SvgRejected` whose ``reason`` is a short machine-readable tag that ends up in the
per-sample record.

Names are read as the renderers read them, whatever the spelling: an ``href`` attribute in any
namespace is a reference (CairoSVG and resvg follow the XLink namespace under any prefix, skia
reads ``xlink:href`` by its prefix even when ``xlink`` is bound to another namespace), CSS is
checked both as written and as tinycss2 reads it after resolving escapes (``@\69mport`` is an
``@import`` to CairoSVG), and a ``data:`` document of a ``<use>`` or ``<image>`` is checked
as SVG when it is markup, whatever prefix its root has.

It also refuses SVG that would draw too much once its internal references are followed
(``use_budget``) or whose references loop (``use_cycle``): ten levels of ten ``<use>`` each are
10^10 nodes to draw, and CairoSVG spends a full render timeout on them before its own limit of
100 000 ``<use>`` stops it. See :func:`svgeval.svg.references.expanded_size` for what is
counted.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from lxml import etree

MAX_BYTES = 4_000_000
MAX_DEPTH = 128
MAX_ELEMENTS = 100_000
MAX_EXPANDED_NODES = 10_000

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
_CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)
_CSS_IMPORT = re.compile(r"@import", re.IGNORECASE)
_DTD = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


class SvgRejected(ValueError):
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

    ``max_expanded_nodes`` bounds :func:`expanded_size`, the elements drawn once references are
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


def _parser() -> etree.XMLParser:
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


def _is_local_reference(url: str) -> bool:
    url = url.strip()
    return url.startswith("#") or url.lower().startswith("data:") or url == ""


DEFAULT_LIMITS = SvgLimits()


def check_svg(svg: str | bytes, limits: SvgLimits = DEFAULT_LIMITS) -> bytes:
    """Check untrusted SVG code and return it as UTF-8 bytes ready for rendering.

    Raises :class:`SvgRejected` if the code is unsafe, malformed or over the limits.
    """
    return checked_tree(svg, limits)[0]


def checked_tree(svg: str | bytes, limits: SvgLimits = DEFAULT_LIMITS) -> tuple[
        bytes, etree._Element]:
    """:func:`check_svg`'s bytes and the tree it parsed (a renderer that rewrites the document,
    such as the viewBox fitting of :mod:`svgeval.render.backends`, need not parse it again)."""
    data = svg.encode("utf-8") if isinstance(svg, str) else bytes(svg)
    root, _ = _checked(data, limits)
    return data, root


def checked_size(data: bytes, limits: SvgLimits) -> int:
    """Check a document as :func:`check_svg` does and return its
    :func:`~svgeval.svg.references.expanded_size` (an embedded document is checked so)."""
    return _checked(data, limits)[1]


def _may_reference(lowered: bytes) -> bool:
    """False when the document ``lowered`` (its bytes in lower case) cannot hold a reference of
    any kind: no ``href`` attribute, no CSS ``url(``, no backslash (a CSS escape can spell
    ``url``) and no character reference (an attribute value's ``&#114;`` is an ``r`` once
    parsed). Such a document draws each of its nodes once, so its :func:`expanded_size` is its
    node count."""
    return b"href" in lowered or b"url(" in lowered or b"\\" in lowered or b"&#" in lowered


_WALK_TRIGGERS = (b"script", b"href", b"base", b"url(", b"@import", b"\\", b"&#")
"""What every refusal of :func:`_check_tree` needs spelled out in the document's bytes (lower
case): element and attribute names cannot be written with character references, and DTDs
(entities) are refused before parsing. A document with none of them passes every check of the
walk but its size and depth, and holds no reference (they include :func:`_may_reference`'s)."""


def _counted_nodes(root: etree._Element, limits: SvgLimits) -> int:
    """:func:`_check_tree`'s node count of a document that holds none of
    :data:`_WALK_TRIGGERS`: the walk over every attribute is skipped when the document also has
    fewer nodes than the depth limit (so it cannot nest too deep), and lxml counts them in C,
    faster than that walk."""
    count = sum(1 for _ in root.iter())
    if count > limits.max_depth:
        return _check_tree(root, limits)
    return count


def _checked(data: bytes, limits: SvgLimits) -> tuple[etree._Element, int]:
    """Check a document as :func:`check_svg` does: its tree and :func:`expanded_size`."""
    if len(data) > limits.max_bytes:
        raise SvgRejected("too_large", f"{len(data)} bytes, limit {limits.max_bytes}")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SvgRejected("encoding", f"not valid UTF-8 ({err.reason} at byte {err.start})")
    if _DTD.search(data):
        raise SvgRejected("entity", "DOCTYPE or ENTITY declarations are not allowed")
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as err:
        raise SvgRejected("malformed_xml", str(err)) from None
    if not isinstance(root.tag, str) or etree.QName(root).localname != "svg":
        raise SvgRejected("not_svg", f"root element is <{root.tag}>, not <svg>")
    lowered = data.lower()
    if not any(trigger in lowered for trigger in _WALK_TRIGGERS):
        nodes = _counted_nodes(root, limits)  # nor can it hold a reference (_may_reference)
    else:
        nodes = _check_tree(root, limits)
        if _may_reference(lowered):
            # imported here: svgeval.svg.references checks the documents it embeds with this
            # module
            from svgeval.svg.references import expanded_size

            return root, expanded_size(root, limits)
    if nodes > limits.max_expanded_nodes:
        raise over_budget(limits.max_expanded_nodes)
    return root, nodes


def _check_tree(root: etree._Element, limits: SvgLimits) -> int:
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
            if is_href(attribute) and not _is_local_reference(value):
                raise SvgRejected("external_reference", f"{name} refers to {value[:80]!r}")
            _check_css(value, name)
        if name == "style":
            _check_css("".join(element.itertext()), name)
        stack.extend((child, depth + 1) for child in element)
    return count


def is_href(attribute: str) -> bool:
    """``href`` in any namespace or none (``{uri}href`` as lxml names it)."""
    return attribute == "href" or attribute.endswith("}href")


def _check_css(text: str, element: str) -> None:
    """Refuse ``@import`` and a ``url()`` that is not local in CSS ``text``, as written and as
    read once escapes are resolved (a backslash is the only way to write an escape)."""
    lowered = text.lower()
    if "url(" not in lowered and "@import" not in lowered and "\\" not in text:
        return
    if _CSS_IMPORT.search(text):
        raise SvgRejected("external_reference", f"CSS @import in <{element}>")
    for match in _CSS_URL.finditer(text):
        if not _is_local_reference(match.group(2)):
            url = match.group(2)[:80]
            raise SvgRejected("external_reference", f"<{element}> has url({url!r})")
    if "\\" in text:
        _check_css_tokens(text, element)


def _check_css_tokens(text: str, element: str) -> None:
    """:func:`_check_css` on the tokens tinycss2 reads from ``text`` (escapes resolved)."""
    import tinycss2

    stack = list(tinycss2.parse_component_value_list(text, skip_comments=True))
    while stack:
        token = stack.pop()
        if token.type == "at-keyword" and token.lower_value == "import":
            raise SvgRejected("external_reference", f"CSS @import (escaped) in <{element}>")
        url = token.value if token.type == "url" else None
        if token.type == "function" and token.lower_name == "url":
            url = next((arg.value for arg in token.arguments if arg.type == "string"), "")
        if url is not None and not _is_local_reference(url):
            raise SvgRejected("external_reference", f"<{element}> has url({url[:80]!r})")
        stack.extend(getattr(token, "arguments", None) or getattr(token, "content", None) or [])


def over_budget(budget: int) -> SvgRejected:
    """The refusal of a document that draws more than ``budget`` elements."""
    return SvgRejected("use_budget", f"references followed, over {budget} elements to draw")
