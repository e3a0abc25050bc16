"""Render SVG code to a numpy array with CairoSVG, in this process.

This is the reference renderer of the papers (SVGEditBench renders 72x72 PNGs with CairoSVG on
a white background; SVGenius renders 224x224). We draw on CairoSVG's cairo surface and read its
pixels directly instead of encoding and decoding a PNG; the result is identical to
``cairosvg.svg2png(..., output_width=W, output_height=H, background_color=bg)`` read back with
Pillow (a test checks this). A viewBox whose aspect ratio differs from the output is scaled to
fit and centred (``preserveAspectRatio="xMidYMid meet"``), as CairoSVG does.

Call :func:`render_svg` only inside the isolation of :mod:`svgeval.render.isolated` for untrusted
code: CairoSVG can hang or exhaust memory on hostile input. One hang is common in model answers
and known in advance: CairoSVG 2.9 never finishes a ``<path>`` whose data has text after a
close-path command (``z`` or ``Z``) that is not itself a command, as in ``d="M0 0h9z e5 5"``
(its parser puts the text back after ``z`` and reads ``z`` again, forever). Such a path is a
render error the moment CairoSVG reaches it (:class:`EndlessPathData`), not a render that burns
its whole time limit (:func:`endless_close_path`, checked at drawing time, so a path that is
never drawn refuses nothing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svgeval.errors import SvgevalError
from svgeval.render.picture import FloatImage, Picture
from svgeval.svg.refusals import DEFAULT_LIMITS, SvgLimits, SvgRejected
from svgeval.svg.sanitize import check_svg


@dataclass(frozen=True)
class RenderSpec:
    """Output size in pixels and background; ``background=None`` keeps the alpha channel.
    ``dpi`` converts absolute units (``pt``, ``mm``, ``in``) to pixels: CairoSVG's 96 unless a
    released pipeline renders at another (StarVector 100, VectorGym 128); it moves only a drawing
    sized in such units without a viewBox. The optional fast renderers (``--renderer``) ignore it."""

    width: int
    height: int
    background: str | None = "white"
    dpi: float = 96.0

    @classmethod
    def square(cls, size: int, background: str | None = "white", dpi: float = 96.0
               ) -> RenderSpec:
        return cls(size, size, background, dpi)


class EndlessPathData(SvgevalError, ValueError):
    """A ``<path>`` CairoSVG would draw forever (see the module doc); a render error."""


_AFTER_CLOSE = re.compile(r"[zZ](?=[ \n\r\t,]*(.?))", re.DOTALL)
"""A close-path command and the first character after it that ``normalize`` keeps."""


def endless_close_path(data: str) -> str | None:
    """The text CairoSVG finds after a close-path command of path ``data`` and can never read
    (``None`` when there is none), found by CairoSVG's own steps of ``cairosvg.path.path``: a
    space around each command letter, its ``normalize``, then each command letter with the
    text up to the next one. Every command but ``z``/``Z`` reads its numbers or raises."""
    from cairosvg.helpers import PATH_LETTERS, normalize

    if all(not after or after in PATH_LETTERS for after in _AFTER_CLOSE.findall(data)):
        return None  # each z is followed by spaces and commas, then a command or the end
    for letter in PATH_LETTERS:
        data = data.replace(letter, f" {letter} ")
    for letter, rest in re.findall(f"([{PATH_LETTERS}])([^{PATH_LETTERS}]*)",
                                   normalize(data).strip()):
        if letter in "zZ" and rest.strip():
            return str(rest.strip())
    return None


@dataclass(frozen=True)
class _GuardedPath:
    """CairoSVG's drawing of a ``<path>``, refusing endless path data first."""

    draw: Callable[[Any, Any], None]

    def __call__(self, surface: Any, node: Any) -> None:
        rest = endless_close_path(node.get("d", ""))
        if rest is not None:
            raise EndlessPathData(f"path data has {rest[:40]!r} after a close-path command, "
                                  "which CairoSVG reads forever")
        self.draw(surface, node)


def guard_endless_paths() -> None:
    """Route CairoSVG's ``<path>`` drawing through :class:`_GuardedPath` (once a process)."""
    from cairosvg.surface import TAGS

    if not isinstance(TAGS["path"], _GuardedPath):
        TAGS["path"] = _GuardedPath(TAGS["path"])


def _refuse_url(url: str, resource_type: str) -> bytes:
    """CairoSVG URL fetcher that serves only ``data:`` URIs and refuses everything else."""
    if url.lower().startswith("data:"):
        from urllib.request import urlopen

        with urlopen(url) as response:
            data: bytes = response.read()
            return data
    raise SvgRejected("external_reference", f"refused to fetch {url[:80]!r}")


def render_svg_uint8(
    svg: str | bytes, spec: RenderSpec, limits: SvgLimits = DEFAULT_LIMITS
) -> NDArray[np.uint8]:
    """Render to ``uint8`` RGB (H, W, 3), or RGBA (H, W, 4) when ``spec.background`` is None.

    Raises :class:`SvgRejected` for unsafe input and other exceptions for render errors
    (:class:`EndlessPathData` among them).
    """
    import cairosvg.parser
    import cairosvg.surface

    guard_endless_paths()
    data = check_svg(svg, limits)
    tree = cairosvg.parser.Tree(bytestring=data, url_fetcher=_refuse_url, unsafe=False)
    surface = cairosvg.surface.PNGSurface(
        tree,
        None,
        spec.dpi,
        output_width=spec.width,
        output_height=spec.height,
        background_color=spec.background,
    )
    cairo_surface = surface.cairo
    cairo_surface.flush()
    height, width = cairo_surface.get_height(), cairo_surface.get_width()
    stride = cairo_surface.get_stride()
    buffer = np.frombuffer(cairo_surface.get_data(), dtype=np.uint8)
    drawn = buffer.reshape(height, stride // 4, 4)[:, :width, :]
    if spec.background is not None and _opaque(buffer, height, stride, width):
        opaque = bgra_to_rgb(drawn)  # premultiplied and straight colours are the same
        surface.finish()
        return opaque
    bgra = drawn.astype(np.uint16)
    surface.finish()
    alpha = bgra[..., 3]
    rgb = bgra[..., [2, 1, 0]]
    # cairo stores premultiplied alpha; undo it the way cairo's PNG writer does.
    safe_alpha = np.maximum(alpha, 1)[..., None]
    straight = np.where(alpha[..., None] > 0, (rgb * 255 + safe_alpha // 2) // safe_alpha, 0)
    straight = straight.astype(np.uint8)
    if spec.background is None:
        return np.concatenate([straight, alpha[..., None].astype(np.uint8)], axis=-1)
    return straight


def _opaque(buffer: NDArray[np.uint8], height: int, stride: int, width: int) -> bool:
    """True when every pixel of a cairo ARGB32 surface's ``buffer`` has alpha 255. A pixel is
    one native-endian 32-bit word with alpha in its top byte, so the smallest word is at least
    ``0xFF000000`` exactly then: faster than comparing the alpha bytes."""
    words = buffer.view(np.uint32).reshape(height, stride // 4)[:, :width]
    return bool(words.min() >= 0xFF000000)


def bgra_to_rgb(bgra: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """RGB (H, W, 3) of opaque BGRA pixels (cairo's and skia's native order): OpenCV's
    ``cvtColor``, which only moves bytes, faster than numpy copying one channel at a time
    (``bench/RESULTS.md``). The render
    workers' server has imported OpenCV already (:data:`~svgeval.render.forkserver.COMMON_PRELOAD`)."""
    import cv2

    rgb: NDArray[np.uint8] = np.asarray(cv2.cvtColor(bgra, cv2.COLOR_BGRA2RGB), np.uint8)
    return rgb


def render_svg(svg: str | bytes, spec: RenderSpec) -> FloatImage:
    """Render to float64 values in [0, 1], shape (H, W, 3) or (H, W, 4) without background."""
    return Picture(render_svg_uint8(svg, spec)).floats


def render_png(svg: str, spec: RenderSpec) -> bytes:
    """Render ``svg`` and encode it as PNG. Sent by reference to an isolated render worker (a
    report's pictures): it lives here, a module the workers' server has imported, so that a
    fresh worker imports nothing before drawing."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(render_svg_uint8(svg, spec)).save(buffer, format="PNG")
    return buffer.getvalue()
