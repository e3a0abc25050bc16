"""What the browser renderer refuses on top of the sanitiser, and the SVG text it puts in the page.

:func:`~svgeval.svg.sanitize.check_svg` is written for CairoSVG, which fetches only ``href`` and
CSS ``url()`` targets and runs no code. Chromium does more with the same text: it knows event
handler attributes, loads the ``src`` of HTML elements inside ``<foreignObject>``, navigates on
``<meta http-equiv="refresh">``, reads CSS escapes (``\\75 rl(`` is ``url(``) and ``image-set("a.png")``,
and SMIL can animate an ``href``. :func:`browser_document` runs the sanitiser and then refuses,
comparing element and attribute names without case (Chromium's HTML parser lowercases them):

* ``on*`` event handler attributes, animations of them, and ``javascript:``/``vbscript:`` values
  (``rejected:script``; so is ``<script>`` in any letter case);
* elements that embed a document or navigate: ``iframe``, ``frame``, ``frameset``, ``object``,
  ``embed``, ``applet``, ``portal``, ``fencedframe``, ``meta``, ``base``, ``link``
  (``rejected:embedded_content``);
* attributes that load a URL (``src``, ``poster``, ``data``, ``action``, ``background``, ...) unless
  the value is a ``#fragment`` or ``data:`` URI, ``srcset`` and ``ping`` always, SMIL animations
  (``from``, ``to``, ``by``, ``values``) of ``href`` or ``src`` to anything else, and CSS that
  loads once its escapes are read (``rejected:external_reference``).

The browser gets the document as lxml re-serialises it: comments, processing instructions and
CDATA sections are gone. The HTML parser reads those differently from XML (``<!-->`` ends an HTML
comment, ``<?x >`` ends at the first ``>``), so the raw text could hide from the sanitiser
an element that the browser would see; in the re-serialised text every tag the browser reads is
an element the checks above saw.
"""

from __future__ import annotations

import re

from lxml import etree

from svgeval.svg.refusals import (
    DEFAULT_LIMITS,
    SvgLimits,
    SvgRejected,
    check_css,
    is_local_reference,
    safe_parser,
)
from svgeval.svg.sanitize import check_svg

EMBEDDING_ELEMENTS = frozenset(
    {"iframe", "frame", "frameset", "object", "embed", "applet", "portal", "fencedframe", "meta"}
    | {"base", "link"}
)
"""Elements that load or navigate to another document (local names, lower case)."""

URL_ATTRIBUTES = frozenset(
    {"href", "src", "poster", "data", "action", "formaction", "background", "cite", "longdesc"}
    | {"codebase", "archive", "manifest", "icon", "lowsrc", "dynsrc", "usemap", "profile", "base"}
)
"""Attributes whose value is a URL that Chromium may load (``base`` is ``xml:base``)."""

ALWAYS_LOADING_ATTRIBUTES = frozenset({"srcset", "imagesrcset", "ping"})
"""Attributes holding several URLs: refused whatever they hold."""

ANIMATION_VALUES = ("from", "to", "by", "values")
_SCRIPT_URL = re.compile(r"^[\x00-\x20]*(?:java|vb)script:", re.IGNORECASE)
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(.))", re.DOTALL)
_CSS_LOADING_FUNCTION = re.compile(
    r"(?<![\w-])(?:-webkit-)?(?:image-set|image|src)\(", re.IGNORECASE
)


def browser_document(svg: str | bytes, limits: SvgLimits = DEFAULT_LIMITS) -> str:
    """The checked SVG as the text the browser page inlines.

    Raises :class:`~svgeval.svg.refusals.SvgRejected` for what :func:`check_svg` refuses and
    for what only a browser would run or load (see the module docstring).
    """
    root = etree.fromstring(check_svg(svg, limits), safe_parser())
    for element in root.iter():
        if isinstance(element.tag, str):
            _check_element(element)
    return str(etree.tostring(root, encoding="unicode"))


def _local(name: str) -> str:
    return name.rpartition("}")[2].rpartition(":")[2].lower()


def _check_element(element: etree._Element) -> None:
    name = _local(str(element.tag))
    if name == "script":
        raise SvgRejected("script", f"<{element.tag}> elements are not allowed")
    if name in EMBEDDING_ELEMENTS:
        raise SvgRejected("embedded_content", f"<{name}> loads another document")
    for attribute, value in element.attrib.items():
        _check_attribute(name, _local(str(attribute)), value)
    if name == "style" and element.text:
        _check_css_escapes(element.text, name)
    target = _local(element.get("attributeName", ""))
    if target.startswith("on"):
        raise SvgRejected("script", f"<{name}> animates the event handler {target!r}")
    if target in URL_ATTRIBUTES:
        for key in ANIMATION_VALUES:
            for value in element.get(key, "").split(";"):
                if not is_local_reference(value):
                    raise SvgRejected("external_reference", f"<{name}> sets {target} to {value!r}")


def _check_attribute(element: str, attribute: str, value: str) -> None:
    if attribute.startswith("on"):
        raise SvgRejected("script", f"<{element}> has the event handler {attribute!r}")
    if _SCRIPT_URL.match(value):
        raise SvgRejected("script", f"<{element} {attribute}> holds a script URL")
    if attribute in ALWAYS_LOADING_ATTRIBUTES or (
        attribute in URL_ATTRIBUTES and not is_local_reference(value)
    ):
        raise SvgRejected("external_reference", f"<{element} {attribute}={value[:80]!r}>")
    _check_css_escapes(value, element)


def _check_css_escapes(text: str, element: str) -> None:
    """Refuse CSS that loads a URL once its escapes are read, and ``image-set()``, ``image()``
    and ``src()``, which take a URL without ``url(``."""
    if "\\" in text:
        text = _CSS_ESCAPE.sub(_unescape, text)
        check_css(text, element)
    if _CSS_LOADING_FUNCTION.search(text):
        raise SvgRejected("external_reference", f"<{element}> has a CSS function that loads a URL")


def _unescape(match: re.Match[str]) -> str:
    code, character = match.groups()
    if code is None:
        return str(character)
    number = int(code, 16)
    return chr(number) if 0 < number <= 0x10FFFF else "\ufffd"
