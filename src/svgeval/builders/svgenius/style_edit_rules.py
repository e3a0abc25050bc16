"""The style-edit rules: seeded edits of an SVG with lxml, and the command that names them.

Used by :mod:`.style_edit_generator` to make new SVGenius style-editing data (paper appendix
G.3).

Rules read from the released data (236 items): an edit targets either "the most complex
element" (the element with the longest path data ``d``, the first one on ties) or "the entire
svg" (the root); colours are CSS names written as upper-case hex (``orange`` -> ``#FFA500``;
``green`` is ``#00FF00``); transforms are appended as one ``transform`` attribute in the order
the command names them; the answer is lxml's pretty-printed tree. Commands copy the released
wording, e.g. "Change fill color of the most complex element from #000000 to orange", "Add
stroke to the most complex element with color gold and width 8px", "Scale the entire SVG down
by 0.5 times and rotate the entire SVG by 90 degrees" (single edits say "svg", combined ones
"SVG", as released).

**Geometry.** The released icons are 1024 units on their short side, and the release moves
by 40 units, strokes 2 to 16 units wide, and rotates and scales about the origin
(``geometry="release"``, which reproduces all 236 released answers). On other icon sets
those constants empty the picture: 40 units throw a 24-unit icon out of view, and a rotation
about (0, 0) swings any icon drawn in ``0 0 W H`` off the canvas. So by default
(``geometry="viewbox"``) lengths are the released ones times (short side of the viewBox /
1024), rounded to two significant digits, and rotations and scalings pivot on the viewBox
centre (``rotate(90,12,12)``; ``translate(12,12) scale(2) translate(-12,-12)``). On the
released icons both give the same lengths.

Edit kinds: ``fill``, ``stroke`` (colour and width), ``stroke_width``, ``translate``,
``rotate``, ``scale`` (released) and ``gradient`` (a linear gradient fill; ours). Fill and
stroke are read as the element shows them: its own attribute or ``style``, else its
ancestors', else the SVG defaults (black fill, no stroke); colours are compared as colours.
There is no blur: CairoSVG, which draws the references, ignores ``feGaussianBlur``, so a blur
could never be scored.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lxml import etree

from svgeval.svg.colors import parse_color, same_color
from svgeval.svg.viewbox import view_box

PALETTE: Mapping[str, str] = {
    "red": "#FF0000",
    "orange": "#FFA500",
    "gold": "#FFD700",
    "yellow": "#FFFF00",
    "lawngreen": "#7CFC00",
    "green": "#00FF00",
    "olive": "#808000",
    "cyan": "#00FFFF",
    "skyblue": "#87CEEB",
    "blue": "#0000FF",
    "purple": "#800080",
    "magenta": "#FF00FF",
    "pink": "#FFC0CB",
    "brown": "#A52A2A",
    "gray": "#808080",
    "black": "#000000",
    "white": "#FFFFFF",
}
EDIT_KINDS = ("fill", "stroke", "stroke_width", "translate", "rotate", "scale", "gradient")
TARGETS = ("element", "svg")
WHOLE_SVG_KINDS = ("translate", "rotate", "scale")
RELEASED_SHORT_SIDE = 1024.0
"""Short side of the released icons' viewBox, the scale of the released lengths."""
Geometry = Literal["viewbox", "release"]
SAME_ATTRIBUTE = {"gradient": "fill", "stroke_width": "stroke"}
_HIDDEN_CONTAINERS = {"defs", "clipPath", "mask", "symbol", "marker", "pattern"}
_SHAPES = ("rect", "circle", "ellipse", "polygon", "polyline", "line")
_DEFAULTS = {"fill": "#000000", "stroke": "none", "stroke-width": "1"}
_ELEMENT = "the most complex element"


@dataclass(frozen=True)
class Frame:
    """Where rotations and scalings pivot, and the length of one released unit."""

    centre: tuple[float, float]
    unit: float

    def length(self, released: float) -> str:
        """A released length in this frame, to two significant digits (``40`` -> ``0.94``)."""
        return _number(float(f"{released * self.unit:.2g}"))

    def rotation(self, angle: int) -> str:
        """``rotate(angle)`` about the centre (written without it when it is the origin)."""
        x, y = self.centre
        if (x, y) == (0.0, 0.0):
            return f"rotate({angle})"
        return f"rotate({angle},{_number(x)},{_number(y)})"

    def scaling(self, factor: str) -> str:
        """``scale(factor)`` about the centre (written without it when it is the origin)."""
        x, y = self.centre
        if (x, y) == (0.0, 0.0):
            return f"scale({factor})"
        return (
            f"translate({_number(x)},{_number(y)}) scale({factor}) "
            f"translate({_number(-x)},{_number(-y)})"
        )


RELEASE_FRAME = Frame((0.0, 0.0), 1.0)


@dataclass(frozen=True)
class Clause:
    """One drawn edit: its command clause and what it does to the target element."""

    text: str
    attributes: tuple[tuple[str, str], ...] = ()
    transform: str = ""
    gradient: tuple[str, str] | None = None
    """Start and end colour of a linear gradient that becomes the fill."""


Edit = Callable[[etree._Element, str, random.Random, Frame], Clause | None]
"""Draws one edit of an element (None if it does not apply); does not change the element."""


def _number(value: float) -> str:
    return f"{value:g}"


def _same_number(a: str, b: str) -> bool:
    """True when both are the same number (``8`` = ``8.0``); other text compares as text."""
    try:
        return float(a) == float(b)
    except ValueError:
        return a == b


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def most_complex_element(root: etree._Element) -> etree._Element | None:
    """The drawn path with the longest ``d`` (first on ties), else the first basic shape."""
    drawn = [
        element
        for element in root.iter()
        if isinstance(element.tag, str)
        and not any(_local(parent) in _HIDDEN_CONTAINERS for parent in element.iterancestors())
    ]
    paths = [element for element in drawn if _local(element) == "path" and element.get("d")]
    if paths:
        return max(paths, key=lambda element: len(element.get("d", "")))
    return next((element for element in drawn if _local(element) in _SHAPES), None)


def _style(element: etree._Element) -> dict[str, str]:
    declarations = (item.partition(":") for item in element.get("style", "").split(";"))
    return {name.strip(): value.strip() for name, _, value in declarations if value.strip()}


def shown_value(element: etree._Element, name: str) -> str:
    """The ``fill``, ``stroke`` or ``stroke-width`` the element is drawn with.

    Its own ``style`` declaration or attribute, else the nearest ancestor's, else the SVG
    default (``fill`` black, no ``stroke``, ``stroke-width`` 1). Stylesheets are not read;
    an edit they override does not change the render and is dropped by the render checks.
    """
    for node in (element, *element.iterancestors()):
        value = _style(node).get(name) or node.get(name)
        if value and value != "inherit":
            return value
    return _DEFAULTS[name]


def _new_color(rng: random.Random, *avoid: str | None) -> str:
    """A palette name whose colour is none of ``avoid`` (compared as colours)."""
    return rng.choice(
        [name for name, hex_ in PALETTE.items() if not any(same_color(hex_, a) for a in avoid)]
    )


def _fill(element: etree._Element, who: str, rng: random.Random, _: Frame) -> Clause | None:
    old = shown_value(element, "fill")
    if parse_color(old) is None:
        return None
    name = _new_color(rng, old)
    return Clause(
        f"Change fill color of {who} from {old.lower()} to {name}", (("fill", PALETTE[name]),)
    )


def _stroke(element: etree._Element, who: str, rng: random.Random, frame: Frame) -> Clause:
    name = _new_color(rng, shown_value(element, "stroke"))
    width = frame.length(8)
    return Clause(
        f"Add stroke to {who} with color {name} and width {width}px",
        (("stroke", PALETTE[name]), ("stroke-width", width)),
    )


def _stroke_width(
    element: etree._Element, who: str, rng: random.Random, frame: Frame
) -> Clause | None:
    if shown_value(element, "stroke") == "none":
        return None
    current = shown_value(element, "stroke-width")
    widths = [frame.length(width) for width in (2, 4, 8, 16)]
    width = rng.choice([w for w in widths if not _same_number(w, current)])
    return Clause(f"Change stroke width of {who} to {width}px", (("stroke-width", width),))


def _translate(_: etree._Element, who: str, rng: random.Random, frame: Frame) -> Clause:
    side = rng.choice(["right", "left"])
    distance = frame.length(40)
    shift = distance if side == "right" else f"-{distance}"
    return Clause(f"Move {who} {distance} pixels to the {side}", transform=f"translate({shift},0)")


def _rotate(_: etree._Element, who: str, rng: random.Random, frame: Frame) -> Clause:
    angle = rng.choice([90, 180])
    return Clause(
        f"Rotate {who} by {angle} degrees", transform=frame.rotation(angle)
    )


def _scale(_: etree._Element, who: str, rng: random.Random, frame: Frame) -> Clause:
    factor = rng.choice(["2", "0.5"])
    return Clause(
        f"Scale {who} {'up' if factor == '2' else 'down'} by {factor} times",
        transform=frame.scaling(factor),
    )


def _gradient(element: etree._Element, who: str, rng: random.Random, _: Frame) -> Clause:
    start = _new_color(rng, shown_value(element, "fill"))
    end = _new_color(rng, PALETTE[start])
    return Clause(
        f"Fill {who} with a linear gradient from {start} to {end}",
        gradient=(PALETTE[start], PALETTE[end]),
    )


EDITS: Mapping[str, Edit] = {
    "fill": _fill,
    "stroke": _stroke,
    "stroke_width": _stroke_width,
    "translate": _translate,
    "rotate": _rotate,
    "scale": _scale,
    "gradient": _gradient,
}


def _qualified(element: etree._Element, name: str) -> str:
    """Tag ``name`` in the namespace of ``element``'s document root."""
    namespace = etree.QName(element.getroottree().getroot()).namespace
    return f"{{{namespace}}}{name}" if namespace else name


def _add_gradient(element: etree._Element, colors: tuple[str, str]) -> None:
    """A new ``<linearGradient>`` in the root's ``<defs>`` (made if missing) fills ``element``."""
    root = element.getroottree().getroot()
    defs = next((child for child in root if _local(child) == "defs"), None)
    if defs is None:
        defs = etree.Element(_qualified(root, "defs"))
        root.insert(0, defs)
    used = {str(item.get("id")) for item in root.iter() if isinstance(item.tag, str)}
    number = 1 + sum(1 for name in used if name.startswith("svgeval-linearGradient"))
    identifier = f"svgeval-linearGradient-{number}"
    gradient = etree.SubElement(defs, _qualified(root, "linearGradient"), id=identifier)
    for offset, color in zip(("0", "1"), colors):
        stop = etree.SubElement(gradient, _qualified(root, "stop"), offset=offset)
        stop.set("stop-color", color)
    element.set("fill", f"url(#{identifier})")


def _parse(svg: str) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    return etree.fromstring(svg.encode("utf-8"), parser)


def _target(root: etree._Element, target: str) -> etree._Element | None:
    return root if target == "svg" else most_complex_element(root)


def frame_for(svg: str, geometry: Geometry = "viewbox") -> Frame | None:
    """The frame edits of ``svg`` use; None when it has no viewBox or size (viewbox geometry)."""
    if geometry == "release":
        return RELEASE_FRAME
    box = view_box(_parse(svg))
    if box is None:
        return None
    return Frame(box.centre, min(box.width, box.height) / RELEASED_SHORT_SIDE)


def draw_edit(
    svg: str, kinds: Sequence[str], target: str, rng: random.Random, frame: Frame
) -> list[Clause] | None:
    """Draw ``kinds`` in order for ``target`` (``element`` or ``svg``); None if one fails."""
    element = _target(_parse(svg), target)
    if element is None:
        return None
    # The release writes "the entire svg" in single edits and "the entire SVG" in combined ones.
    whole = "the entire " + ("svg" if len(kinds) == 1 else "SVG")
    who = _ELEMENT if target == "element" else whole
    clauses = [EDITS[kind](element, who, rng, frame) for kind in kinds]
    return None if any(clause is None for clause in clauses) else [c for c in clauses if c]


def edited_svg(svg: str, target: str, clauses: Sequence[Clause]) -> str:
    """``svg`` with ``clauses`` applied to ``target``: lxml's pretty print, as released."""
    root = _parse(svg)
    element = _target(root, target)
    assert element is not None, "draw_edit found the target"
    for clause in clauses:
        for name, value in clause.attributes:
            element.set(name, value)
        if clause.gradient:
            _add_gradient(element, clause.gradient)
    transforms = [clause.transform for clause in clauses if clause.transform]
    if transforms:
        element.set("transform", " ".join([*transforms, element.get("transform", "")]).strip())
    return str(etree.tostring(root, pretty_print=True, encoding="unicode"))


def command_for(clauses: Sequence[Clause]) -> str:
    """The clauses joined as released: "A, b and c"."""
    texts = [clause.text for clause in clauses]
    return texts[0] + "".join(
        (" and " if number == len(texts) - 1 else ", ") + text[0].lower() + text[1:]
        for number, text in enumerate(texts[1:], start=1)
    )


def apply_style_edit(
    svg: str,
    kinds: Sequence[str],
    target: str,
    rng: random.Random,
    geometry: Geometry = "viewbox",
) -> tuple[str, str] | None:
    """Apply ``kinds`` in order to ``target`` (``element`` or ``svg``); (command, answer SVG).

    None when the SVG has no most complex element, an edit does not apply to it, or (viewbox
    geometry) it has no viewBox or size to measure lengths in.
    """
    frame = frame_for(svg, geometry)
    clauses = draw_edit(svg, kinds, target, rng, frame) if frame else None
    return (command_for(clauses), edited_svg(svg, target, clauses)) if clauses else None
