"""Seeded style edits on lxml for new SVGenius style-editing data (paper appendix G.3).

Rules read from the released data (236 items): an edit targets either "the most complex
element" (the element with the longest path data ``d``, the first one on ties) or "the entire
svg" (the root); colours are CSS names written as upper-case hex (``orange`` -> ``#FFA500``;
``green`` is ``#00FF00``); transforms are appended as one ``transform`` attribute in the order
the command names them (``translate(40,0) rotate(90)``; rotation and scaling about the origin);
the answer is lxml's pretty-printed tree. Commands copy the released wording, e.g. "Change fill
color of the most complex element from #000000 to orange", "Add stroke to the most complex
element with color gold and width 8px", "Scale the entire SVG down by 0.5 times and rotate the
entire SVG by 90 degrees" (single edits say "svg", combined ones "SVG", as released).

Edit kinds: ``fill``, ``stroke`` (colour and width), ``stroke_width``, ``translate``,
``rotate``, ``scale``, ``blur`` (``feGaussianBlur`` filter) and ``gradient`` (linear gradient
fill); the last three are not in the released data and use our own wording. CairoSVG ignores
``feGaussianBlur``, so a blur alone never changes the render and is never emitted alone.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lxml import etree

from svgeval.svg.isolation import Renderer
from svgeval.svg.sanitize import SvgRejected, check_svg
from svgeval.tasks.svgenius.data import checked_choices, seeded_key
from svgeval.tasks.svgenius.generation import generator_renderer, render, visibly_different

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
EDIT_KINDS = (
    "fill",
    "stroke",
    "stroke_width",
    "translate",
    "rotate",
    "scale",
    "blur",
    "gradient",
)
TARGETS = ("element", "svg")
WHOLE_SVG_KINDS = ("translate", "rotate", "scale", "blur")
_SAME_ATTRIBUTE = {"gradient": "fill", "stroke_width": "stroke"}
_HIDDEN_CONTAINERS = {"defs", "clipPath", "mask", "symbol", "marker", "pattern"}
_SHAPES = ("rect", "circle", "ellipse", "polygon", "polyline", "line")
_ELEMENT = "the most complex element"

Edit = Callable[[etree._Element, str, random.Random, list[str]], str | None]
"""Applies one edit to an element; returns its clause (None if it does not apply) and adds
transform functions to the list it is given."""


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


def _new_color(rng: random.Random, *avoid: str | None) -> str:
    taken = {value.upper() for value in avoid if value}
    return rng.choice(
        [name for name, hex_ in PALETTE.items() if hex_ not in taken and name.upper() not in taken]
    )


def _fill(element: etree._Element, who: str, rng: random.Random, _: list[str]) -> str | None:
    old = element.get("fill")
    if not old or old == "none" or old.startswith("url("):
        return None
    name = _new_color(rng, old)
    element.set("fill", PALETTE[name])
    return f"Change fill color of {who} from {old.lower()} to {name}"


def _stroke(element: etree._Element, who: str, rng: random.Random, _: list[str]) -> str | None:
    name = _new_color(rng, element.get("stroke"))
    element.set("stroke", PALETTE[name])
    element.set("stroke-width", "8")
    return f"Add stroke to {who} with color {name} and width 8px"


def _stroke_width(
    element: etree._Element, who: str, rng: random.Random, _: list[str]
) -> str | None:
    if element.get("stroke") in (None, "none"):
        return None
    width = rng.choice([w for w in ("2", "4", "8", "16") if w != element.get("stroke-width")])
    element.set("stroke-width", width)
    return f"Change stroke width of {who} to {width}px"


def _translate(_: etree._Element, who: str, rng: random.Random, transforms: list[str]) -> str:
    side = rng.choice(["right", "left"])
    transforms.append("translate(40,0)" if side == "right" else "translate(-40,0)")
    return f"Move {who} 40 pixels to the {side}"


def _rotate(_: etree._Element, who: str, rng: random.Random, transforms: list[str]) -> str:
    angle = rng.choice([90, 180])
    transforms.append(f"rotate({angle})")
    return f"Rotate {who} by {angle} degrees"


def _scale(_: etree._Element, who: str, rng: random.Random, transforms: list[str]) -> str:
    factor = rng.choice(["2", "0.5"])
    transforms.append(f"scale({factor})")
    return f"Scale {who} {'up' if factor == '2' else 'down'} by {factor} times"


def _qualified(element: etree._Element, name: str) -> str:
    """Tag ``name`` in the namespace of ``element``'s document root."""
    namespace = etree.QName(element.getroottree().getroot()).namespace
    return f"{{{namespace}}}{name}" if namespace else name


def _definition(element: etree._Element, kind: str) -> tuple[etree._Element, str]:
    """A new ``<kind>`` inside the root's ``<defs>`` (made if missing), with an unused id."""
    root = element.getroottree().getroot()
    defs = next((child for child in root if _local(child) == "defs"), None)
    if defs is None:
        defs = etree.Element(_qualified(root, "defs"))
        root.insert(0, defs)
    used = {str(item.get("id")) for item in root.iter() if isinstance(item.tag, str)}
    number = 1 + sum(1 for name in used if name.startswith(f"svgeval-{kind}"))
    identifier = f"svgeval-{kind}-{number}"
    definition = etree.SubElement(defs, _qualified(root, kind), id=identifier)
    return definition, identifier


def _blur(element: etree._Element, who: str, rng: random.Random, _: list[str]) -> str:
    deviation = rng.choice([2, 5, 10])
    definition, identifier = _definition(element, "filter")
    blur = etree.SubElement(definition, _qualified(element, "feGaussianBlur"))
    blur.set("stdDeviation", str(deviation))
    element.set("filter", f"url(#{identifier})")
    return f"Apply a blur filter with standard deviation {deviation} to {who}"


def _gradient(element: etree._Element, who: str, rng: random.Random, _: list[str]) -> str:
    start = _new_color(rng, element.get("fill"))
    end = _new_color(rng, PALETTE[start])
    gradient, identifier = _definition(element, "linearGradient")
    for offset, color in (("0", start), ("1", end)):
        stop = etree.SubElement(gradient, _qualified(element, "stop"), offset=offset)
        stop.set("stop-color", PALETTE[color])
    element.set("fill", f"url(#{identifier})")
    return f"Fill {who} with a linear gradient from {start} to {end}"


EDITS: Mapping[str, Edit] = {
    "fill": _fill,
    "stroke": _stroke,
    "stroke_width": _stroke_width,
    "translate": _translate,
    "rotate": _rotate,
    "scale": _scale,
    "blur": _blur,
    "gradient": _gradient,
}


def apply_style_edit(
    svg: str, kinds: Sequence[str], target: str, rng: random.Random
) -> tuple[str, str] | None:
    """Apply ``kinds`` in order to ``target`` (``element`` or ``svg``); (command, answer SVG).

    None when the SVG has no most complex element or an edit does not apply to it.
    """
    root = etree.fromstring(
        svg.encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True)
    )
    element = root if target == "svg" else most_complex_element(root)
    if element is None:
        return None
    # The release writes "the entire svg" in single edits and "the entire SVG" in combined ones.
    who = _ELEMENT if target == "element" else "the entire " + ("svg" if len(kinds) == 1 else "SVG")
    transforms: list[str] = []
    clauses = []
    for kind in kinds:
        clause = EDITS[kind](element, who, rng, transforms)
        if clause is None:
            return None
        clauses.append(clause)
    if transforms:
        element.set("transform", " ".join([*transforms, element.get("transform", "")]).strip())
    command = clauses[0] + "".join(
        (" and " if number == len(clauses) - 1 else ", ") + clause[0].lower() + clause[1:]
        for number, clause in enumerate(clauses[1:], start=1)
    )
    return command, etree.tostring(root, pretty_print=True, encoding="unicode")


def _draw_kinds(allowed: Sequence[str], size: int, rng: random.Random) -> list[str]:
    chosen: list[str] = []
    for kind in rng.sample(list(allowed), len(allowed)):
        group = _SAME_ATTRIBUTE.get(kind, kind)
        if len(chosen) < size and group not in {_SAME_ATTRIBUTE.get(k, k) for k in chosen}:
            chosen.append(kind)
    return chosen


def build_style_edit_cases(
    svgs: Mapping[str, str],
    *,
    kinds: Sequence[str] = EDIT_KINDS,
    targets: Sequence[str] = TARGETS,
    edits_per_case: Sequence[int] = (1, 2, 3),
    seed: int = 0,
    attempts: int = 8,
    renderer: Renderer | None = None,
) -> list[dict[str, Any]]:
    """Style-editing items in the released layout ``{name: {command, original, modified}}``.

    One item per source SVG at most: a target and ``n`` (drawn from ``edits_per_case``)
    compatible edit kinds are drawn until the edited SVG renders and looks visibly different,
    for up to ``attempts`` draws. The same seed and sources give the same items byte for byte.
    """
    allowed = checked_choices(kinds, EDIT_KINDS, "edit kinds")
    places = checked_choices(targets, TARGETS, "targets")
    cases = []
    with generator_renderer(renderer) as pool:
        for name, svg in svgs.items():
            try:
                check_svg(svg)
            except SvgRejected:
                continue
            original = render(svg, pool)
            if original is None:
                continue
            rng = random.Random(seeded_key(seed, name))
            for _ in range(attempts):
                target = rng.choice(places)
                usable = [k for k in allowed if target == "element" or k in WHOLE_SVG_KINDS]
                chosen = _draw_kinds(usable, rng.choice(list(edits_per_case)), rng)
                edited = apply_style_edit(svg, chosen, target, rng) if chosen else None
                image = render(edited[1], pool) if edited else None
                if edited and image is not None and visibly_different(original, image):
                    command, modified = edited
                    cases.append(
                        {name: {"command": command, "original": svg, "modified": modified}}
                    )
                    break
    return cases
