"""Fast renderers behind the same sanitiser and isolation as CairoSVG: skia (``skia-python``)
and resvg (``resvg-py``).

``render_function(name)`` maps ``--renderer cairosvg|skia|resvg`` to a render function for
:class:`~svgeval.render.isolated.Renderer` (run it in the isolation: resvg, like CairoSVG, can be
driven into deep recursion by hostile input). Every SVG first passes
:func:`~svgeval.svg.sanitize.check_svg`, which refuses external references (resvg would read the
local file named by ``<image href>``); resvg is also given an empty resources directory.
Both draw at the output size directly; their anti-aliasing differs from cairo's, so their pixels
(and metrics on them) differ slightly from CairoSVG's (see ``docs/rewards.md``). skia draws
straight into a pixel buffer (faster than CairoSVG: ``bench/RESULTS.md``); resvg-py
returns a PNG that is decoded again. Skia's SVG module is given no resource provider, so it
loads no image or font file either.
"""

from __future__ import annotations

import importlib
import io
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from svgeval.errors import UserError
from svgeval.render.cairo import RenderSpec, bgra_to_rgb, render_svg_uint8
from svgeval.render.disk_cache import RenderCache
from svgeval.render.forkserver import DEFAULT_RENDERER, RENDERER_PRELOAD
from svgeval.render.isolated import DEFAULT_TIMEOUT_S, Renderer, RenderFunction
from svgeval.svg.refusals import DEFAULT_LIMITS, SvgLimits
from svgeval.svg.sanitize import checked_tree

if TYPE_CHECKING:
    import skia
    from lxml import etree
    from PIL import Image

RENDERERS = tuple(RENDERER_PRELOAD)
"""The names ``--renderer`` takes: those whose module the render workers' server can preload."""

PACKAGES = {"cairosvg": "cairosvg", "skia": "skia-python", "resvg": "resvg-py"}
"""The package on PyPI that provides each renderer."""


class RendererUnavailable(UserError):
    """The renderer asked for cannot be imported here (its optional package is missing or
    broken): svgeval's set-up, never a render's failure."""


@lru_cache(maxsize=1)
def _empty_dir() -> tempfile.TemporaryDirectory[str]:
    """The folder resvg resolves relative references in: an empty one, so that a reference
    left in an SVG reads no file; removed when the process exits."""
    return tempfile.TemporaryDirectory(prefix="svgeval-resvg-")


def render_svg_uint8_resvg(
    svg: str | bytes, spec: RenderSpec, limits: SvgLimits = DEFAULT_LIMITS
) -> NDArray[np.uint8]:
    """Render with resvg to ``uint8`` RGB (H, W, 3), or RGBA without background."""
    from PIL import Image, ImageColor

    text = _square_view_box(checked_tree(svg, limits)[1], spec)
    image = _resvg_png(text, spec, width=spec.width)
    if image.height > spec.height:
        image = _resvg_png(text, spec, height=spec.height)
    # resvg keeps the aspect ratio; centre on the canvas as CairoSVG does (xMidYMid meet)
    fill = (0, 0, 0, 0) if spec.background is None else ImageColor.getrgb(spec.background)
    canvas = Image.new("RGBA", (spec.width, spec.height), fill)
    canvas.paste(image.crop((0, 0, min(image.width, spec.width), image.height)),
                 ((spec.width - image.width) // 2 if image.width < spec.width else 0,
                  (spec.height - image.height) // 2))
    pixels = np.asarray(canvas, dtype=np.uint8)
    return pixels if spec.background is None else np.ascontiguousarray(pixels[..., :3])


def _square_view_box(root: etree._Element, spec: RenderSpec) -> str:
    """Widen the viewBox to the output's aspect ratio, centred, and drop width and height.

    CairoSVG fits the viewBox into the output (``xMidYMid meet``) and draws what lies outside
    it in the margins; resvg would size its canvas to the viewBox and clip. A viewBox
    ``(x, y, w, h)`` with scale ``s = min(W / w, H / h)`` becomes ``(x - (W/s - w) / 2,
    y - (H/s - h) / 2, W/s, H/s)``, which draws the same pixels as CairoSVG. ``root`` is the
    tree :func:`~svgeval.svg.sanitize.checked_tree` parsed (changed in place).
    """
    from lxml import etree

    parts = (root.get("viewBox") or "").replace(",", " ").split()
    try:
        x, y, w, h = (float(v) for v in parts)
    except ValueError:
        return str(etree.tostring(root, encoding="unicode"))
    if w <= 0 or h <= 0:
        return str(etree.tostring(root, encoding="unicode"))
    scale = min(spec.width / w, spec.height / h)
    width, height = spec.width / scale, spec.height / scale
    box = (x - (width - w) / 2, y - (height - h) / 2, width, height)
    root.set("viewBox", " ".join(f"{v:.10g}" for v in box))
    for attribute in ("width", "height", "preserveAspectRatio"):
        root.attrib.pop(attribute, None)
    return str(etree.tostring(root, encoding="unicode"))


def _resvg_png(text: str, spec: RenderSpec, **size: int) -> Image.Image:
    import resvg_py
    from PIL import Image

    png = resvg_py.svg_to_bytes(svg_string=text, background=spec.background,
                                resources_dir=_empty_dir().name, **size)  # type: ignore[arg-type]
    with Image.open(io.BytesIO(bytes(png))) as image:
        converted: Image.Image = image.convert("RGBA")
    return converted


def render_svg_uint8_skia(
    svg: str | bytes, spec: RenderSpec, limits: SvgLimits = DEFAULT_LIMITS
) -> NDArray[np.uint8]:
    """Render with skia's SVG module to ``uint8`` RGB (H, W, 3), or RGBA without background.

    The viewBox is widened to the output's aspect ratio first (:func:`_square_view_box`), so
    skia's container of W x H pixels shows what CairoSVG shows. An SVG without a viewBox is
    scaled from its own width and height, centred (``xMidYMid meet``) as CairoSVG does.
    """
    import skia

    root = checked_tree(svg, limits)[1]
    if spec.background is None:  # transparent: read back unpremultiplied, as CairoSVG writes
        surface = _skia_surface(root, spec)
        pixels = surface.toarray(colorType=skia.kRGBA_8888_ColorType,
                                 alphaType=skia.kUnpremul_AlphaType)
        return np.ascontiguousarray(pixels, dtype=np.uint8)
    # on an opaque background premultiplied and straight colours are the same: skia draws
    # straight into the array in its native BGRA order (RGBA order blends a few values 1-3
    # apart), read back as RGB
    pixels = np.empty((spec.height, spec.width, 4), np.uint8)
    _skia_surface(root, spec, pixels=pixels)
    return bgra_to_rgb(pixels)


def render_coverage_skia(
    svg: str | bytes, size: tuple[int, int], limits: SvgLimits = DEFAULT_LIMITS,
    *, checked: bool = False
) -> NDArray[np.bool_]:
    """Pixels (H, W) that ``svg`` covers at all on a transparent ``size`` (w, h) canvas, drawn
    by skia 4x taller on an 8-bit alpha surface and read back as "any of a pixel's 4 rows has
    alpha > 0". ``checked=True`` skips :func:`check_svg`, for SVG built from a document that
    passed it (PSS draws its own serialisations of checked documents).

    A pixel row holds 4 sub-scanlines in skia's anti-aliasing and 15 in cairo's (both take x
    almost exactly), so skia leaves out a row that a shape enters by under 1/8 px where
    CairoSVG gives it alpha 1-17; 16 sub-scanlines take it from 1/32 px on, as cairo does from
    1/30. Used for PSS' ``alpha > 0`` masks. Measured against CairoSVG's masks on 580 SVGenius
    renders (512 and 256 px, 5.9M covered pixels): 23,309 covered by cairo only and 2,090 by
    skia only with skia's own render at the mask's size, 6,300 and 4,651 with this. The alpha
    surface keeps the cost down: PSS with these masks costs little more than with skia's own
    render, and less than with a 4x taller RGBA surface.
    """
    import skia

    if checked:
        from lxml import etree

        from svgeval.svg.refusals import safe_parser

        root = etree.fromstring(svg.encode() if isinstance(svg, str) else svg, safe_parser())
    else:
        root = checked_tree(svg, limits)[1]
    surface = _skia_surface(root, RenderSpec(size[0], size[1], background=None),
                            rows_per_pixel=_COVERAGE_ROWS, alpha_only=True)
    tall = surface.toarray(colorType=skia.kAlpha_8_ColorType)
    covered: NDArray[np.bool_] = tall.reshape(size[1], _COVERAGE_ROWS, size[0]).max(axis=1) > 0
    return covered


_COVERAGE_ROWS = 4
"""Rows drawn per pixel row by :func:`render_coverage_skia`."""


def _skia_surface(root: etree._Element, spec: RenderSpec, rows_per_pixel: int = 1,
                  alpha_only: bool = False, pixels: NDArray[np.uint8] | None = None
                  ) -> skia.Surface:
    """The tree of an SVG that passed :func:`check_svg`, drawn by skia on a ``spec``-sized
    raster surface (see :func:`render_svg_uint8_skia`), or one ``rows_per_pixel`` times taller
    with the drawing stretched to fill it; an 8-bit alpha surface with ``alpha_only`` (no colour
    is drawn: ``spec`` must have no background); drawn into ``pixels`` (H, W, 4), premultiplied
    BGRA, when given."""
    import skia
    from PIL import ImageColor

    text = _square_view_box(root, spec).encode()
    dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(text))  # reads ``text`` without a copy
    if dom is None:
        raise ValueError("skia could not read the SVG")
    height = spec.height * rows_per_pixel
    if pixels is not None:
        surface = skia.Surface(pixels, skia.kBGRA_8888_ColorType, skia.kPremul_AlphaType)
    elif alpha_only:
        surface = skia.Surface.MakeRaster(skia.ImageInfo.MakeA8(spec.width, height))
    else:
        surface = skia.Surface(spec.width, height)
    canvas = surface.getCanvas()
    if spec.background is None:
        canvas.clear(skia.ColorTRANSPARENT)
    else:
        red, green, blue = ImageColor.getrgb(spec.background)[:3]
        canvas.clear(skia.Color(red, green, blue))
    if rows_per_pixel != 1:
        canvas.scale(1, rows_per_pixel)
    own = dom.containerSize()
    if own.width() > 0 and own.height() > 0:
        scale = min(spec.width / own.width(), spec.height / own.height())
        canvas.translate((spec.width - own.width() * scale) / 2,
                         (spec.height - own.height() * scale) / 2)
        canvas.scale(scale, scale)
    else:
        dom.setContainerSize(skia.Size(spec.width, spec.height))
    dom.render(canvas)
    return surface


class UnknownRenderer(UserError, ValueError):
    """A renderer name that is none of :data:`RENDERERS`. A ValueError as well, the error it
    was before, which callers and tests catch."""


def check_renderer(name: str) -> None:
    """Import ``name``'s module in this process, so that a renderer that cannot load here stops
    the caller before anything runs, with one line naming the install (every render in the
    workers would fail, and be recorded as the SVG's failure)."""
    if name not in RENDERER_PRELOAD:
        raise UnknownRenderer(f"unknown renderer {name!r}; known: {', '.join(RENDERERS)}")
    try:
        importlib.import_module(RENDERER_PRELOAD[name])
    except ImportError as error:
        raise RendererUnavailable(
            f"--renderer {name} needs the Python package {PACKAGES[name]}, which cannot be "
            f"imported here ({error}); install it (pip install {PACKAGES[name]}, or the fast "
            'extra: pip install -e ".[fast]") or choose --renderer cairosvg') from None


def render_function(name: str) -> RenderFunction:
    """The render function of ``name`` (``cairosvg``, ``skia`` or ``resvg``), once its package
    has loaded here (:func:`check_renderer`)."""
    check_renderer(name)
    if name == "cairosvg":
        return render_svg_uint8
    if name == "skia":
        return render_svg_uint8_skia
    return render_svg_uint8_resvg


def renderer_version(name: str) -> str:
    """``name`` and the installed version of its package, e.g. ``resvg-py 0.5.0``."""
    from importlib.metadata import version

    return f"{PACKAGES[name]} {version(PACKAGES[name])}"


def make_renderer(name: str = DEFAULT_RENDERER, workers: int | None = None,
                  timeout_s: float = DEFAULT_TIMEOUT_S,
                  cache_dir: Path | str | None = None) -> Renderer:
    """An isolated :class:`Renderer` for ``name``, with a render cache under ``cache_dir``."""
    cache = RenderCache(cache_dir, renderer_version(name)) if cache_dir else None
    return Renderer(workers, timeout_s, render_function=render_function(name), cache=cache)
