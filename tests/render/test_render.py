"""Rendering matches CairoSVG's own PNG output and letterboxes non-square viewBoxes."""

from __future__ import annotations

import io

import cairosvg
import numpy as np
from PIL import Image

from svgeval.render.cairo import RenderSpec, bgra_to_rgb, render_svg, render_svg_uint8
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
