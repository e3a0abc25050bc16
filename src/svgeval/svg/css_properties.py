"""The CSS side of reference counting: which paint-server and reference properties an element
sets (attributes, ``style``, ``<style>`` sheets matched as CairoSVG matches them) and which of them
its children inherit. Used by :func:`svgeval.svg.sanitize.expanded_size`.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

INHERITED = ("fill", "stroke", "marker", "marker-start", "marker-mid", "marker-end")
"""Properties that name references and are inherited by children."""
NOT_INHERITED = ("clip-path", "mask", "filter")
"""Properties that name references and apply to the element alone."""
_PROPERTIES = frozenset(INHERITED + NOT_INHERITED)
_FRAGMENT_URL = re.compile(r"url\(\s*['\"]?\s*#([^'\"()\s]+)", re.IGNORECASE)

Properties = dict[str, tuple[str, ...]]
"""Property name -> ids it references with ``url(#id)`` (empty: set, to no reference)."""
Context = tuple[tuple[str, tuple[str, ...]], ...]
"""The inherited properties that reference something, sorted by name."""


def inherited_by_children(inherited: Context, declared: Properties) -> Context:
    """The inherited properties of an element's children: ``inherited`` updated by its own."""
    if not any(name in declared for name in INHERITED):
        return inherited
    merged = dict(inherited)
    for name in INHERITED:
        if declared.get(name):
            merged[name] = declared[name]
        elif name in declared:
            merged.pop(name, None)
    return tuple(sorted(merged.items()))


def declared_properties(element: etree._Element, sheet: list[tuple[str, str]]) -> Properties:
    """The reference properties ``element`` sets in attributes, its style sheet and style."""
    declared = [(name, element.get(name, "")) for name in _PROPERTIES if name in element.attrib]
    declared.extend(sheet)
    style = element.get("style", "")
    if "url(" in style.lower():
        declared.extend(_css_declarations(style))
    properties: Properties = {}
    for name, value in declared:
        if value.strip().lower() != "inherit":
            properties[name] = properties.get(name, ()) + tuple(_FRAGMENT_URL.findall(value))
    return properties


def _css_declarations(css: str | list[Any]) -> list[tuple[str, str]]:
    """The reference properties in a CSS declaration list (``style`` or a rule's content)."""
    import tinycss2

    declarations = tinycss2.parse_declaration_list(css, skip_comments=True, skip_whitespace=True)
    return [
        (declaration.lower_name, tinycss2.serialize(declaration.value))
        for declaration in declarations
        if declaration.type == "declaration" and declaration.lower_name in _PROPERTIES
    ]


def stylesheet_declarations(root: etree._Element) -> dict[etree._Element, list[tuple[str, str]]]:
    """Reference properties that ``<style>`` sheets set, per element they match."""
    sheets = [
        element.text
        for element in root.iter("{http://www.w3.org/2000/svg}style", "style")
        if element.text and "url(" in element.text.lower()
    ]
    if not sheets:
        return {}
    import cssselect2
    import tinycss2

    matcher = cssselect2.Matcher()
    for sheet in sheets:
        for rule in tinycss2.parse_stylesheet(sheet, skip_comments=True, skip_whitespace=True):
            declarations = _css_declarations(rule.content) if rule.type == "qualified-rule" else []
            if not declarations:
                continue
            try:
                selectors = cssselect2.compile_selector_list(rule.prelude)
            except cssselect2.SelectorError:
                continue  # CairoSVG fails on the document
            for selector in selectors:
                matcher.add_selector(selector, declarations)
    matched: dict[etree._Element, list[tuple[str, str]]] = {}
    for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
        for match in matcher.match(wrapper):
            matched.setdefault(wrapper.etree_element, []).extend(match[-1])
    return matched
