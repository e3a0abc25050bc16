"""The picture size SVGBench renders an answer at (``SVGRenderer.calculate_svg_bounds`` of
``src/utils/svg_renderer.py``), and the fixed size of svgeval's corrected reading.

Released rule, in order: the root's ``width`` and ``height`` when both parse
(``_parse_dimension``: ``px`` 1, ``pt`` 1.33, ``pc`` 16, ``mm`` 3.78, ``cm`` 37.8, ``in`` 96 px,
``%`` of 1000 px, a bare or unknown unit as px, anything else through ``float``, truncated
to an integer); else the ``viewBox``
width and height; else 800 x 600. Not ported: where a ``viewBox`` exists the release grows it to
the bounding box of the drawn elements (an element walk over paths and shapes), and with
neither a size nor a ``viewBox`` it uses that box plus 20 px margins (at least 200 px). Each side
is then clamped to [1, :data:`MAX_SIDE`] (ours: a 100,000 px answer would otherwise be drawn).
"""

from __future__ import annotations

import math
import re

from lxml import etree

FALLBACK = (800, 600)
MAX_SIDE = 4096
FIXED_SIDE = 1024
"""The longest side of every render in the ``fixed`` reading (ours)."""
_UNITS = {"px": 1.0, "pt": 1.33, "pc": 16.0, "mm": 3.78, "cm": 37.8, "in": 96.0}
_DIMENSION = re.compile(r"^(\d+(?:\.\d+)?)\s*([a-z%]*)$")


def parse_dimension(text: str | None) -> int | None:
    """``_parse_dimension``: a length in whole pixels, None when it does not parse (or is 0)."""
    if not text:
        return None
    text = text.strip()
    found = _DIMENSION.match(text.lower())
    if found is None:  # the release falls back on float(): "1e3" is 1000 px
        try:
            number = float(text)
        except ValueError:
            return None
        return int(number) or None if math.isfinite(number) else None
    value, unit = float(found.group(1)), found.group(2) or "px"
    pixels = int(1000 * value / 100) if unit == "%" else int(value * _UNITS.get(unit, 1.0))
    return pixels or None


def _root(svg: str) -> etree._Element | None:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        return etree.fromstring(svg.strip().encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError):
        return None


def released_size(svg: str) -> tuple[int, int]:
    """The render size of ``svg`` under the released rule (see the module docstring)."""
    root = _root(svg)
    if root is None:
        return FALLBACK
    width, height = parse_dimension(root.get("width")), parse_dimension(root.get("height"))
    if width and height:
        return _clamped(width, height)
    parts = (root.get("viewBox") or "").split()
    if len(parts) >= 4:
        try:
            box_width, box_height = int(float(parts[2])), int(float(parts[3]))
        except ValueError:
            return FALLBACK
        if box_width > 0 and box_height > 0:
            return _clamped(box_width, box_height)
    return FALLBACK


def fixed_size(svg: str) -> tuple[int, int]:
    """Ours: the released size's aspect ratio with the longest side :data:`FIXED_SIDE`."""
    width, height = released_size(svg)
    scale = FIXED_SIDE / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _clamped(width: int, height: int) -> tuple[int, int]:
    return min(max(width, 1), MAX_SIDE), min(max(height, 1), MAX_SIDE)
