"""Safety checks for untrusted SVG code before it reaches a renderer.

Model outputs are untrusted. :func:`check_svg` parses them with lxml with entity resolution,
DTD loading, network access and huge trees all off, and rejects anything that could make a
renderer read a local file or the network, or blow up: DTDs and entity declarations
(billion laughs, XXE), references that are neither ``#fragment`` nor ``data:`` URIs (in
``href``/``xlink:href``, CSS ``url(...)`` and ``@import``), ``<script>``, trees deeper or
larger than the limits, and inputs that are not UTF-8. A rejection raises :class:`SvgRejected`
whose ``reason`` is a short machine-readable tag that ends up in the per-sample record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

MAX_BYTES = 4_000_000
MAX_DEPTH = 128
MAX_ELEMENTS = 100_000

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
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
    """Size limits applied by :func:`check_svg`."""

    max_bytes: int = MAX_BYTES
    max_depth: int = MAX_DEPTH
    max_elements: int = MAX_ELEMENTS


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def _is_local_reference(url: str) -> bool:
    url = url.strip()
    return url.startswith("#") or url.lower().startswith("data:") or url == ""


DEFAULT_LIMITS = SvgLimits()


def check_svg(svg: str | bytes, limits: SvgLimits = DEFAULT_LIMITS) -> bytes:
    """Check untrusted SVG code and return it as UTF-8 bytes ready for rendering.

    Raises :class:`SvgRejected` if the code is unsafe, malformed or over the limits.
    """
    data = svg.encode("utf-8") if isinstance(svg, str) else bytes(svg)
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
    _check_tree(root, limits)
    return data


def _check_tree(root: etree._Element, limits: SvgLimits) -> None:
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
            if (attribute == _XLINK_HREF or attribute == "href") and not _is_local_reference(value):
                raise SvgRejected("external_reference", f"{name} refers to {value[:80]!r}")
            _check_css(value, name)
        if name == "style" and element.text:
            _check_css(element.text, name)
        stack.extend((child, depth + 1) for child in element)


def _check_css(text: str, element: str) -> None:
    if "url(" not in text.lower() and "@import" not in text.lower():
        return
    if _CSS_IMPORT.search(text):
        raise SvgRejected("external_reference", f"CSS @import in <{element}>")
    for match in _CSS_URL.finditer(text):
        if not _is_local_reference(match.group(2)):
            url = match.group(2)[:80]
            raise SvgRejected("external_reference", f"<{element}> has url({url!r})")
