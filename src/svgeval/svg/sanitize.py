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
100 000 ``<use>`` stops it. See :func:`expanded_size` for what is counted.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from svgeval.svg.css_properties import (
    NOT_INHERITED,
    Context,
    Properties,
    declared_properties,
    inherited_by_children,
    stylesheet_declarations,
)

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
    CairoSVG search the whole document for its target), renders in 2.7 s, under the renderer's
    10 s timeout; 10 000 plain elements take 0.9 s, 20 000 ``<use>`` 22 s (CairoSVG 2.9.1).
    """

    max_bytes: int = MAX_BYTES
    max_depth: int = MAX_DEPTH
    max_elements: int = MAX_ELEMENTS
    max_expanded_nodes: int = MAX_EXPANDED_NODES


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
    return checked_tree(svg, limits)[0]


def checked_tree(svg: str | bytes, limits: SvgLimits = DEFAULT_LIMITS) -> tuple[
        bytes, etree._Element]:
    """:func:`check_svg`'s bytes and the tree it parsed (a renderer that rewrites the document,
    such as the viewBox fitting of :mod:`svgeval.svg.renderers`, need not parse it again)."""
    data = svg.encode("utf-8") if isinstance(svg, str) else bytes(svg)
    root, _ = _checked(data, limits)
    return data, root


def _checked_size(data: bytes, limits: SvgLimits) -> int:
    """Check a document as :func:`check_svg` does and return its :func:`expanded_size`."""
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
walk but its size and depth."""


def _checked_nodes(root: etree._Element, lowered: bytes, limits: SvgLimits) -> int:
    """:func:`_check_tree`'s node count; the walk over every attribute is skipped for a
    document that cannot fail it (:data:`_WALK_TRIGGERS`) and has fewer nodes than the depth
    limit (so it cannot nest too deep): lxml counts them in C, 5x faster at Twemoji sizes."""
    if any(trigger in lowered for trigger in _WALK_TRIGGERS):
        return _check_tree(root, limits)
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
    nodes = _checked_nodes(root, lowered, limits)
    if _may_reference(lowered):
        return root, expanded_size(root, limits)
    if nodes > limits.max_expanded_nodes:
        raise _over_budget(limits.max_expanded_nodes)
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
            if _is_href(attribute) and not _is_local_reference(value):
                raise SvgRejected("external_reference", f"{name} refers to {value[:80]!r}")
            _check_css(value, name)
        if name == "style":
            _check_css("".join(element.itertext()), name)
        stack.extend((child, depth + 1) for child in element)
    return count


def _is_href(attribute: str) -> bool:
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


# References -----------------------------------------------------------------------------------

_PAINTED = frozenset(
    {"a", "circle", "clipPath", "ellipse", "filter", "image", "line", "linearGradient", "marker"}
    | {"mask", "path", "pattern", "polyline", "polygon", "radialGradient", "rect", "svg", "text"}
    | {"textPath", "tspan", "use"}
)
"""Elements CairoSVG fills and strokes (its ``surface.TAGS``); ``<g>`` only passes paint on."""
_MARKED = frozenset({"path", "line", "polyline", "polygon"})
_HREF_DRAWN = frozenset({"use", "pattern"})
_NOT_DRAWN = frozenset({"linearGradient", "radialGradient", "filter"})
_EMBEDDING = frozenset({"use", "image"})
_SVG_SIGNATURES = (b"<svg ", b"<?xml", b"<!DOC")
_GZIP = b"\x1f\x8b"
_VERTEX = re.compile(r"[A-Za-z]|[-+]?(?:\d+\.?\d*|\.\d+)")

State = tuple[etree._Element, Context]


def expanded_size(root: etree._Element, limits: SvgLimits = DEFAULT_LIMITS) -> int:
    """Number of elements CairoSVG draws for ``root`` once every reference is followed.

    Each element counts once, plus, each time it is drawn, a copy of what it draws by reference
    (the rules follow CairoSVG 2.9's ``surface.draw``, ``defs.use`` and ``draw_markers``):

    * ``<use href="#id">`` draws its target (and the target's references) in its place, the
      target inheriting the ``<use>``'s properties; ``<pattern href="#id">`` its template's
      content;
    * ``fill``/``stroke: url(#id)`` draw a pattern's content for each element CairoSVG paints
      (``<g>`` is not one, its children are); ``marker``/``marker-start|mid|end`` draw the
      marker at each vertex of a path, line, polyline or polygon (bounded by its numbers and
      commands plus two); ``mask`` and ``clip-path`` draw their target;
    * ``fill``, ``stroke`` and the markers are inherited, so a pattern or marker defined under
      ``<g fill="url(#p)">`` paints its own content with ``p``; properties come from
      attributes, ``style`` attributes and ``<style>`` sheets (matched with cssselect2, as
      CairoSVG does);
    * a gradient or filter target counts its own elements only: CairoSVG draws none of their
      content and follows gradient ``href`` chains with its own loop guard;
    * an SVG document that a ``<use>`` or ``<image>`` embeds as a ``data:`` URI (what CairoSVG
      reads as SVG: it starts like SVG or XML, holds ``<svg`` or is gzipped) counts its own
      expanded size, and must pass :func:`check_svg` itself (gzipped, once inflated).

    ``<tref>`` and ``<textPath>`` copy text or geometry, not drawings, and are not counted;
    ``<image href="#id">`` is fetched as a URL and refused at render time. An id held by several
    elements references all of them. A reference that leads back to itself raises
    :class:`SvgRejected` ``use_cycle``; a count over ``limits.max_expanded_nodes`` raises
    ``use_budget``. Sizes are memoised per element and inherited references and counting stops
    at the budget, so a bomb is refused in milliseconds, never expanded.
    """
    budget = limits.max_expanded_nodes
    graph = _ReferenceGraph(root, limits)
    sizes: dict[State, int] = {}
    pending: dict[State, tuple[int, list[tuple[State, int]]]] = {}
    stack: list[tuple[State, bool]] = [((root, ()), False)]
    while stack:
        state, children_done = stack.pop()
        if children_done:
            extra, successors = pending.pop(state)
            size = 1 + extra + sum(sizes[successor] * times for successor, times in successors)
            if size > budget:
                raise _over_budget(budget)
            sizes[state] = size
        elif state not in sizes:
            if state in pending:
                raise SvgRejected("use_cycle", f"a reference leads back to {_describe(state[0])}")
            if len(sizes) + len(pending) >= budget:
                raise _over_budget(budget)  # each state is drawn at least once
            pending[state] = graph.successors(state)
            stack.append((state, True))
            stack.extend((successor, False) for successor, _ in pending[state][1])
    return sizes[(root, ())]


def _over_budget(budget: int) -> SvgRejected:
    return SvgRejected("use_budget", f"references followed, over {budget} elements to draw")


def _describe(element: etree._Element) -> str:
    name = _local_name(element)
    identifier = element.get("id")
    return f"<{name} id={identifier!r}>" if identifier is not None else f"<{name}>"


class _ReferenceGraph:
    """The elements of a document and what each draws besides its children."""

    def __init__(self, root: etree._Element, limits: SvgLimits) -> None:
        sheet = stylesheet_declarations(root)
        self.limits = limits
        self._embedded: dict[etree._Element, int] = {}
        self.ids: dict[str, list[etree._Element]] = {}
        self.declared: dict[etree._Element, Properties] = {}
        self.inherited_at: dict[etree._Element, Context] = {}
        self._sizes: dict[etree._Element, int] = {}
        stack: list[tuple[etree._Element, Context]] = [(root, ())]
        while stack:
            element, inherited = stack.pop()
            identifier = element.get("id")
            if identifier is not None:
                self.ids.setdefault(identifier.strip(), []).append(element)
                self.inherited_at[element] = inherited
            declared = declared_properties(element, sheet.get(element, []))
            if declared:
                self.declared[element] = declared
            context = inherited_by_children(inherited, declared)
            stack.extend((child, context) for child in element if isinstance(child.tag, str))

    def successors(self, state: State) -> tuple[int, list[tuple[State, int]]]:
        """What ``state`` draws besides itself: a number of elements, and (state, times) pairs."""
        element, inherited = state
        declared = self.declared.get(element, {})
        context = inherited_by_children(inherited, declared)
        successors = [((child, context), 1) for child in element if isinstance(child.tag, str)]
        if _local_name(element) in _HREF_DRAWN:
            for identifier in _href_ids(element):
                successors += [((target, context), 1) for target in self.ids.get(identifier, [])]
        extra = self._embedded_size(element)
        for identifier, times in _drawn_references(element, declared, context):
            for target in self.ids.get(identifier, []):
                if _local_name(target) in _NOT_DRAWN:
                    extra += times * self._subtree_size(target)
                else:
                    successors.append(((target, self.inherited_at[target]), times))
        return extra, successors

    def _embedded_size(self, element: etree._Element) -> int:
        if element not in self._embedded:
            document = _embedded_svg(element, self.limits.max_bytes)
            self._embedded[element] = _checked_size(document, self.limits) if document else 0
        return self._embedded[element]

    def _subtree_size(self, element: etree._Element) -> int:
        if element not in self._sizes:
            self._sizes[element] = sum(1 for _ in element.iter())
        return self._sizes[element]


def _local_name(element: etree._Element) -> str:
    return str(element.tag).rpartition("}")[2]


def _drawn_references(
    element: etree._Element, declared: Properties, context: Context
) -> Iterator[tuple[str, int]]:
    """The ids that ``element`` draws through ``url(#id)`` properties, with how many times."""
    name = _local_name(element)
    for prop in NOT_INHERITED:
        yield from ((identifier, 1) for identifier in declared.get(prop, ()))
    for prop, identifiers in context:
        if prop in ("fill", "stroke"):
            times = 1 if name in _PAINTED else 0
        else:
            times = _vertex_bound(element) if name in _MARKED else 0
        yield from ((identifier, times) for identifier in identifiers if times)


def _vertex_bound(element: etree._Element) -> int:
    """At least the vertices of a path, line, polyline or polygon (CairoSVG marks each one)."""
    geometry = f"{element.get('d', '')} {element.get('points', '')}"
    return 2 + len(_VERTEX.findall(geometry))


def _embedded_svg(element: etree._Element, max_bytes: int) -> bytes | None:
    """The document a ``<use>`` or ``<image>`` embeds as a ``data:`` URI, when it is markup
    (an SVG to every renderer whatever the prefix of its root; CairoSVG, which looks for
    ``<svg``, would skip ``<s:svg>``, resvg draws it); a gzipped one is inflated to at most one
    byte past ``max_bytes``."""
    url = next((v for v in _href_values(element) if v.strip().lower().startswith("data:")),
               "").strip()
    if _local_name(element) not in _EMBEDDING or not url.lower().startswith("data:"):
        return None
    import urllib.request  # data: URIs only; imported here to keep it off every start-up

    try:
        with urllib.request.urlopen(url.partition("#")[0]) as response:
            payload: bytes = response.read()
        if payload.startswith(_GZIP):
            return zlib.decompressobj(wbits=31).decompress(payload, max_bytes + 1)
    except (OSError, ValueError, zlib.error):
        return None  # CairoSVG cannot read it either
    markup = payload.lstrip().startswith(b"<")
    return payload if markup or payload.startswith(_SVG_SIGNATURES) or b"<svg" in payload else None


def _href_values(element: etree._Element) -> list[str]:
    """The values of ``element``'s ``href`` attributes, in any namespace."""
    return [value for attribute, value in element.attrib.items() if _is_href(attribute)]


def _href_ids(element: etree._Element) -> list[str]:
    values = _href_values(element)
    return [value.strip()[1:] for value in values if value.strip().startswith("#")]
