"""Rendering matches CairoSVG's own PNG output and letterboxes non-square viewBoxes."""

from __future__ import annotations

import io
import subprocess
import sys

import cairosvg
import numpy as np
import pytest
from PIL import Image

from svgeval.render.cairo import (
    EndlessPathData,
    RenderSpec,
    bgra_to_rgb,
    endless_close_path,
    render_svg,
    render_svg_uint8,
)
from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'


def test_pixels_equal_cairosvg_png_read_with_pillow() -> None:
    for name in DEMO_ICONS:
        svg = demo_svg(name)
        png = cairosvg.svg2png(
            bytestring=svg.encode(), output_width=72, output_height=72, background_color="white"
        )
        expected = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        assert np.array_equal(render_svg_uint8(svg, RenderSpec.square(72)), expected), name


def test_transparent_background_keeps_unpremultiplied_alpha() -> None:
    svg = f'<svg {NS} viewBox="0 0 2 1"><rect width="1" height="1" fill="#FF0000" opacity="0.5"/></svg>'
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=8, output_height=4)
    expected = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))
    assert np.array_equal(render_svg_uint8(svg, RenderSpec(8, 4, background=None)), expected)


def test_non_square_viewbox_is_letterboxed_and_centred() -> None:
    svg = f'<svg {NS} viewBox="0 0 18 36"><rect width="18" height="36" fill="#000"/></svg>'
    image = render_svg(svg, RenderSpec.square(72))
    columns = image.mean(axis=(0, 2))
    assert np.allclose(columns[:18], 1.0) and np.allclose(columns[54:], 1.0)
    assert np.allclose(columns[18:54], 0.0)
    assert image.dtype == np.float64 and image.min() >= 0.0 and image.max() <= 1.0


def test_bgra_pixels_become_rgb_byte_for_byte() -> None:
    rng = np.random.default_rng(3)
    for height, width in ((72, 72), (128, 128), (512, 256), (1, 7)):
        bgra = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
        rgb = bgra_to_rgb(bgra)
        assert rgb.dtype == np.uint8 and rgb.flags.c_contiguous
        assert np.array_equal(rgb, bgra[..., 2::-1])


def test_a_cairo_surface_is_opaque_exactly_when_every_alpha_byte_is_255() -> None:
    from svgeval.render.cairo import _opaque

    rng = np.random.default_rng(5)
    height, width, stride = 9, 5, 8 * 4  # three padding pixels a row, left transparent
    pixels = np.zeros((height, stride // 4, 4), np.uint8)
    pixels[:, :width, :3] = rng.integers(0, 256, (height, width, 3))
    pixels[:, :width, 3] = 255
    native = pixels if np.little_endian else pixels[..., ::-1]  # cairo: BGRA in a word, A on top
    buffer = np.ascontiguousarray(native).reshape(-1)
    assert _opaque(buffer, height, stride, width)
    for row, column, alpha in ((0, 0, 254), (8, 4, 0), (4, 2, 128)):
        changed = buffer.reshape(height, stride // 4, 4).copy()
        changed[row, column, 3 if np.little_endian else 0] = alpha
        assert not _opaque(changed.reshape(-1), height, stride, width)


ENDLESS = f'<svg {NS} viewBox="0 0 10 10"><path d="M1 1h8v8z e5 5"/></svg>'
"""A path CairoSVG 2.9 reads forever: text after ``z`` that is no command (from SVGenius' bug
fixing set, where ten answers of the identity model are of this kind)."""


@pytest.mark.parametrize(("data", "rest"), [
    ("M1 1h8v8z", None),
    ("M1 1h8v8Z M2 2h1z", None),
    ("M1 1h8v8z,M2 2h1", None),  # CairoSVG reads a comma as a space
    ("M1 1h8v8z \n", None),
    ("M1 1h8v8", None),
    ("M1 1h8v8z e5 5", "e5 5"),
    ("M1 1h8v8zE5 5", "e5 5"),  # CairoSVG's normalize writes an exponent's E as e
    ("M1 1h8v8Z;", ";"),
    ("M1 1h8v8zzX", "X"),  # the second z too
    ("M1 1h8v8z\fM2 2", None),  # a form feed: not CairoSVG's space, but stripped
    ("M1 1z y2-3", "y2 -3"),  # and puts a space before each minus sign
])
def test_endless_close_path_finds_the_text_cairosvg_cannot_read(data: str, rest: str | None
                                                                ) -> None:
    assert endless_close_path(data) == rest


def test_a_drawn_endless_path_is_a_render_error_and_an_undrawn_one_is_not() -> None:
    with pytest.raises(EndlessPathData, match=r"'e5 5' after a close-path command"):
        render_svg_uint8(ENDLESS, RenderSpec.square(10))
    unused = ENDLESS.replace("<path", '<defs><path id="p"').replace("/></svg>", "/></defs></svg>")
    assert render_svg_uint8(unused, RenderSpec.square(10)).min() == 255  # white: never drawn
    fine = ENDLESS.replace(" e5 5", "")
    png = cairosvg.svg2png(bytestring=fine.encode(), output_width=10, output_height=10,
                           background_color="white")
    expected = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert np.array_equal(render_svg_uint8(fine, RenderSpec.square(10)), expected)


@pytest.mark.e2e  # a fresh interpreter (tests/conftest.py, docs/development.md)
def test_cairosvg_itself_never_finishes_the_endless_path() -> None:
    """The guard's premise, on the installed CairoSVG: when it draws this path in its own
    time, this test fails, and the guard of :mod:`svgeval.render.cairo` should go."""
    code = ("import sys, cairosvg; cairosvg.svg2png(bytestring=sys.stdin.buffer.read(), "
            "output_width=10, output_height=10)")
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", code], input=ENDLESS.encode(), timeout=2,
                       capture_output=True, check=False)
