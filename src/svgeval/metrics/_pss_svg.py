"""SVG side of PSS: validity rules, colour normalisation, centring and scaling, path extraction.

Follows the released SVGenius code (``src/metrics/pss/validate.py``, ``normal.py``,
``similarity.py``); where this module departs from it, the comment says so and why.
"""

from __future__ import annotations

import colorsys
import functools
import re
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

import numpy as np
from lxml import etree
from numpy.typing import NDArray

from svgeval.errors import SvgevalError
from svgeval.metrics import _svgpath as sp
from svgeval.render.backends import render_coverage_skia, render_svg_uint8_skia
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.isolated import RenderFunction
from svgeval.svg.sanitize import check_svg

SVG_NS = "http://www.w3.org/2000/svg"
DEFAULT_VIEWBOX = "0 0 1024 1024"
PATH_TAG = f"{{{SVG_NS}}}path"

_NAMED_HEX = {
    "red": "#FF0000", "green": "#00FF00", "blue": "#0000FF", "yellow": "#FFFF00",
    "cyan": "#00FFFF", "magenta": "#FF00FF", "black": "#000000", "white": "#FFFFFF",
    "gray": "#808080", "grey": "#808080", "purple": "#800080", "orange": "#FFA500",
    "brown": "#A52A2A", "pink": "#FFC0CB", "lime": "#00FF00", "navy": "#000080",
    "teal": "#008080", "aqua": "#00FFFF", "silver": "#C0C0C0", "gold": "#FFD700",
}  # the 20 names normal.py converts; others stay as written
_NAMED_RGB = {
    "black": (0, 0, 0), "white": (1, 1, 1), "red": (1, 0, 0), "green": (0, 1, 0),
    "blue": (0, 0, 1), "yellow": (1, 1, 0), "cyan": (0, 1, 1), "magenta": (1, 0, 1),
    "gray": (0.5, 0.5, 0.5), "silver": (0.75, 0.75, 0.75), "maroon": (0.5, 0, 0),
    "olive": (0.5, 0.5, 0), "lime": (0, 1, 0), "aqua": (0, 1, 1), "teal": (0, 0.5, 0.5),
    "navy": (0, 0, 0.5), "fuchsia": (1, 0, 1), "purple": (0.5, 0, 0.5),
}  # similarity.py's parse_color table; unknown names read as black
_RGB_RE = re.compile(r"rgb\((\d+),\s*(\d+),\s*(\d+)\)")
_NUMBER_RE = re.compile(r"[\d.]+")

Color = tuple[float, ...]


class InvalidSvg(SvgevalError, ValueError):
    """An SVG that PSS refuses; ``reason`` is a short tag."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def safe_parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           remove_comments=True, remove_pis=True)


def parse_valid(svg: str) -> etree._Element:
    """Parse ``svg`` and apply the released validity rules; raise :class:`InvalidSvg`.

    Rules (validate.py): the root is ``<svg>`` in the SVG namespace declared as the default
    ``xmlns``; it contains only ``<svg>`` and ``<path>`` elements, at least one path, and every
    path has a ``d`` attribute. "Renderable" is judged by the renders PSS makes anyway (512 px)
    rather than by an extra render at the SVG's natural size. Paths with ``fill=""`` lose the
    attribute (merge.py ``_process_empty_fills``).
    """
    data = check_svg(svg)
    root = etree.fromstring(data, safe_parser())
    if root.tag != f"{{{SVG_NS}}}svg" or root.nsmap.get(None) != SVG_NS:
        raise InvalidSvg("namespace", "missing or incorrect SVG namespace")
    paths = []
    for element in root.iter():
        name = etree.QName(element).localname if isinstance(element.tag, str) else "?"
        if name not in ("svg", "path"):
            raise InvalidSvg("disallowed_element", f"contains <{name}>")
        if name == "path":
            paths.append(element)
    if not paths:
        raise InvalidSvg("no_paths", "contains no <path> elements")
    for i, path in enumerate(paths):
        if "d" not in path.attrib:
            raise InvalidSvg("missing_d", f"path {i + 1} has no d attribute")
        if path.get("fill") == "":
            del path.attrib["fill"]
        # Unparseable path data would make the released code skip centring altogether; we
        # refuse the SVG instead (cairo would not draw such a path either).
        if path.get("d"):
            try:
                sp.parse_path(path.get("d", ""))
            except sp.PathSyntaxError as err:
                raise InvalidSvg("bad_path_data", str(err)) from None
    return root


def normalize_color(color: str) -> str:
    """normal.py ``_normalize_color``: hex to upper-case #RRGGBB, rgb()/hsl() and 20 names to hex."""
    if color == "":
        return "#000000"
    c = color.lower().strip()
    if c == "none":
        return "none"
    if c.startswith("#"):
        if len(c) == 4:
            return f"#{c[1]}{c[1]}{c[2]}{c[2]}{c[3]}{c[3]}".upper()
        return c.upper()
    if c.startswith("rgb"):
        try:
            parts = [p.strip() for p in c[c.find("(") + 1 : c.find(")")].strip().split(",")]
            nums = [max(0, min(255, int(float(p[:-1]) * 2.55) if p.endswith("%") else int(float(p))))
                    for p in parts[:3]]
            return f"#{nums[0]:02X}{nums[1]:02X}{nums[2]:02X}"
        except (ValueError, IndexError):
            pass
    if c.startswith("hsl"):
        try:
            parts = [p.strip() for p in c[c.find("(") + 1 : c.find(")")].strip().split(",")]
            h = float(parts[0].rstrip("°")) / 360.0
            s = float(parts[1][:-1]) / 100.0 if parts[1].endswith("%") else float(parts[1])
            li = float(parts[2][:-1]) / 100.0 if parts[2].endswith("%") else float(parts[2])
            r, g, b = colorsys.hls_to_rgb(h, li, s)
            return f"#{int(r * 255):02X}{int(g * 255):02X}{int(b * 255):02X}"
        except (ValueError, IndexError):
            pass
    return _NAMED_HEX.get(c, color)


def parse_color(color: str) -> Color:
    """similarity.py ``parse_color``: RGB in [0, 1]; ``none``/``transparent`` give alpha 0."""
    if color == "":
        return (0, 0, 0)
    if color.lower() in ("none", "transparent"):
        return (0, 0, 0, 0)
    if color.startswith("#"):
        if len(color) == 4:
            return tuple(int(color[i] * 2, 16) / 255 for i in (1, 2, 3))
        return tuple(int(color[i : i + 2], 16) / 255 for i in (1, 3, 5))  # ValueError: skip
    match = _RGB_RE.match(color)
    if match:
        return tuple(int(g) / 255 for g in match.groups())
    return _NAMED_RGB.get(color.lower(), (0, 0, 0))


def _paths(root: etree._Element) -> list[etree._Element]:
    return [p for p in root.iter(PATH_TAG) if p is not root]


_WRITTEN: dict[str, sp.ParsedPath] = {}
"""Text of moved paths -> what :func:`sp.parse_path` reads back from it (:func:`sp.read_back`):
the released code writes each moved path and reads it again; the reading costs nothing here.
Emptied when it reaches 4,096 entries."""


def _write(path: sp.ParsedPath) -> str:
    """``sp.to_d(path)``, remembering what reading it back gives."""
    d = sp.to_d(path)
    if d and "n" not in d and d not in _WRITTEN:  # inf/nan: let parse_path refuse them
        if len(_WRITTEN) >= 4096:
            _WRITTEN.clear()
        _WRITTEN[d] = sp.read_back(path)
    return d


def _read(d: str) -> sp.ParsedPath:
    """``sp.parse_path(d)``, from :data:`_WRITTEN` when PSS wrote ``d``."""
    return _WRITTEN.get(d) or sp.parse_path(d)


@functools.lru_cache(maxsize=4096)
def _box(d: str) -> sp.BBox | None:
    """``sp.bbox`` of path data ``d``, kept for the last 4,096 distinct ``d`` (PSS boxes each
    reference path twice: to centre the SVG and to compare the path)."""
    return sp.bbox(_read(d))


def _reread(d: str) -> str:
    """``sp.to_d(sp.parse_path(d))`` for a ``d`` that :func:`sp.to_d` wrote (the released code
    reads each moved path back before drawing it alone). Reading such text gives the same
    segments, since floats print and parse exactly, so the text comes back unchanged, except
    for arcs (their radius is corrected again) and ``-0.0`` (read back as 0.0)."""
    return sp.to_d(_read(d)) if "A" in d or "-0.0" in d else d


def _union_bbox(root: etree._Element) -> sp.BBox | None:
    box: sp.BBox | None = None
    for path in _paths(root):
        d = path.get("d")
        if d:
            b = _box(d)
            if b is not None:
                box = b if box is None else box.union(b)
    return box


def _viewbox_numbers(viewbox: str) -> list[float]:
    return [float(v) for v in viewbox.split()]


def _move_paths(root: etree._Element, scale: float, about: complex, shift: complex) -> None:
    for path in _paths(root):
        d = path.get("d")
        if d:
            path.set("d", _write(sp.transform(_read(d), scale, about, shift)))


def center(root: etree._Element, target_viewbox: str) -> None:
    """normal.py ``center_and_normalize_svg``: move the union box of all paths to the centre of
    ``target_viewbox``, normalise fill/stroke colours, and set the viewBox (in place)."""
    x, y, w, h = _viewbox_numbers(target_viewbox)[:4]
    box = _union_bbox(root)
    shift = complex(x + w / 2, y + h / 2) - box.center if box is not None else 0j
    _move_paths(root, 1.0, 0j, shift)
    for path in _paths(root):
        for attr in ("fill", "stroke"):
            value = path.get(attr)
            if value:
                path.set(attr, normalize_color(value))
    root.set("viewBox", target_viewbox)


def center_reference(reference: etree._Element) -> tuple[str, sp.BBox | None]:
    """The reference's half of normal.py ``compare_and_scale_svg``: centre it in its own
    viewBox (in place); return that viewBox and the centred paths' box. Nothing here depends
    on the generated SVG, so PSS can reuse the result between generated SVGs."""
    target = str(reference.get("viewBox", DEFAULT_VIEWBOX))
    center(reference, target)
    return target, _union_bbox(reference)


def fit_generated(generated: etree._Element, target: str, ref_box: sp.BBox | None) -> None:
    """The generated SVG's half of ``compare_and_scale_svg`` (in place): centre it in the
    reference's viewBox ``target``, scale its paths uniformly so its box fits ``ref_box``
    (ratio clamped to [0.05, 10]) and centre it again."""
    center(generated, target)
    gen_box = _union_bbox(generated)
    gw, gh = (gen_box.width, gen_box.height) if gen_box else (0.0, 0.0)
    rw, rh = (ref_box.width, ref_box.height) if ref_box else (0.0, 0.0)
    ratio = min(rw / gw if gw > 0 else 1.0, rh / gh if gh > 0 else 1.0)
    ratio = max(0.05, min(10.0, ratio))
    _move_paths(generated, ratio, gen_box.center if gen_box else 0j, 0j)
    center(generated, target)


def to_string(root: etree._Element) -> str:
    return str(etree.tostring(root, encoding="unicode"))


def alpha_mask(
    svg: str, size: tuple[int, int], render: RenderFunction = render_svg_uint8
) -> NDArray[np.bool_]:
    """Pixels with alpha > 0 when ``svg`` is drawn on a transparent canvas of ``size`` (w, h).

    With skia the mask is :func:`render_coverage_skia`: skia's own render leaves out edge rows
    that CairoSVG covers with alpha 1-17, which moved PSS by up to 7.7e-3 (0.36 where a
    match flipped) on SVGenius pairs; with it the gap is under 6e-4 on 140 pairs. ``svg`` is
    always PSS' own serialisation of a tree that :func:`parse_valid` checked (re-centred, or
    one path of it with a parsed colour and rewritten ``d``), so skia does not check it again
    (about a tenth of skia PSS time); CairoSVG, the released code's renderer, still does.
    """
    if render is render_svg_uint8_skia:
        return render_coverage_skia(svg, size, checked=True)
    rgba = render(svg, RenderSpec(size[0], size[1], background=None))
    return rgba[..., 3] > 0


@dataclass(frozen=True)
class PathInfo:
    """One path as PSS compares it."""

    index: int
    """Position among the SVG's ``<path>`` elements (skipped ones included)."""
    ident: str
    """``id`` attribute or ``path_<index>`` (what the released code orders by)."""
    color: Color
    bbox: tuple[float, float, float, float]
    """x, y, width, height in the units position similarity divides by ``size``."""
    mask: NDArray[np.bool_]


def extract_paths(root: etree._Element, size: tuple[int, int], fix_defects: bool,
                  render: RenderFunction = render_svg_uint8) -> list[PathInfo]:
    """similarity.py ``extract_svg_data_from_string``: each path with a box of positive width and
    height, drawn alone with its ``fill`` on a transparent ``size`` canvas.

    Released behaviour: box coordinates are scaled by ``size / width`` where width/height come
    from the root's ``width``/``height`` attributes (first number in them) and only otherwise
    from the viewBox, then truncated to int; the single-path render ignores ``fill-rule``.
    With ``fix_defects`` the box is taken relative to the viewBox (offset and size) and the
    render keeps ``fill-rule``. Every ``d`` must have been written by :func:`sp.to_d`
    (:func:`center` writes them all), as the single-path renders take it via :func:`_reread`.
    """
    viewbox = root.get("viewBox", DEFAULT_VIEWBOX)
    vb = _viewbox_numbers(viewbox)
    width = height = None
    w_attr, h_attr = root.get("width"), root.get("height")
    if w_attr is not None and h_attr is not None:
        wm, hm = _NUMBER_RE.search(w_attr), _NUMBER_RE.search(h_attr)
        if wm and hm:
            width, height = float(wm.group()), float(hm.group())
    if (width is None or height is None) and len(vb) >= 4:
        width, height = vb[2], vb[3]
    if width is None or height is None:
        width, height = float(size[0]), float(size[1])
    out = []
    for i, path in enumerate(_paths(root)):
        d = path.get("d")
        if not d:
            continue
        box = _box(d)
        if box is None or box.width <= 0 or box.height <= 0:
            continue
        fill = path.get("fill", "#000000")
        try:
            color = parse_color(fill)
        except ValueError:
            continue  # the released code skips a path whose colour does not parse
        if fix_defects:
            sx, sy = size[0] / vb[2], size[1] / vb[3]
            bb = ((box.min_x - vb[0]) * sx, (box.min_y - vb[1]) * sy, box.width * sx,
                  box.height * sy)
        else:
            sx, sy = size[0] / width, size[1] / height
            bb = (float(int(box.min_x * sx)), float(int(box.min_y * sy)),
                  float(int(box.width * sx)), float(int(box.height * sy)))
        rule = path.get("fill-rule") if fix_defects else None
        rule_attr = f" fill-rule={quoteattr(rule)}" if rule else ""
        single = (
            f'<svg xmlns="{SVG_NS}" viewBox={quoteattr(viewbox)} width="{width}" '
            f'height="{height}"><path d={quoteattr(_reread(d))} fill={quoteattr(fill)}'
            f"{rule_attr} /></svg>"
        )
        try:
            mask = alpha_mask(single, size, render)
        except Exception:  # noqa: BLE001 - the released code draws nothing for such a path
            mask = np.zeros((size[1], size[0]), dtype=bool)
        out.append(PathInfo(i, path.get("id", f"path_{i}"), color, bb, mask))
    return out
