"""The fast renderers (skia, resvg) behind the same sanitiser and isolation; several renders
per worker call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.hostile import DEEP, NS, SPEC, counting_server, hostile_corpus  # noqa: F401

from svgeval.render.backends import (
    RENDERERS,
    render_function,
    render_svg_uint8_skia,
)
from svgeval.render.cairo import RenderSpec, render_svg_uint8
from svgeval.render.isolated import Renderer, render_many
from svgeval.render.picture import Picture, RenderFailure
from svgeval.svg.demo_corpus import write_demo_corpus

PACKAGES = {"skia": "skia", "resvg": "resvg_py"}
"""Each fast renderer and the module it needs; a test of one is skipped without it."""


@pytest.fixture(scope="module", params=sorted(PACKAGES))
def fast_pool(request: pytest.FixtureRequest) -> Iterator[Renderer]:
    pytest.importorskip(PACKAGES[request.param])
    with Renderer(workers=2, timeout_s=10.0,
                  render_function=render_function(request.param)) as pool:
        yield pool


def test_hostile_corpus_through_the_fast_renderers(
    tmp_path: Path, counting_server: tuple[str, list[str]], fast_pool: Renderer  # noqa: F811
) -> None:
    base_url, hits = counting_server
    corpus = hostile_corpus(tmp_path, base_url)
    for name, (svg, expected) in corpus.items():
        started = time.monotonic()
        outcome = fast_pool.render(svg, SPEC)
        assert isinstance(outcome, RenderFailure) and outcome.tag == expected, name
        assert time.monotonic() - started < fast_pool.timeout_s + 2, name
    batched = render_many(fast_pool, [svg for svg, _ in corpus.values()], SPEC)
    assert [r.tag for r in batched if isinstance(r, RenderFailure)] == [
        expected for _, expected in corpus.values()]
    assert hits == [], "a renderer touched the network"


@pytest.mark.parametrize("name", sorted(PACKAGES))
@pytest.mark.parametrize("spec", [SPEC, RenderSpec(96, 48), RenderSpec(48, 96, None)],
                         ids=["square", "wide", "tall-transparent"])
def test_fast_renderers_close_to_cairosvg_on_demo_icons(
    tmp_path: Path, name: str, spec: RenderSpec
) -> None:
    pytest.importorskip(PACKAGES[name])
    write_demo_corpus(tmp_path)
    for path in sorted(tmp_path.glob("*.svg")):
        svg = path.read_text()
        a = render_function(name)(svg, spec)
        b = render_svg_uint8(svg, spec)
        assert a.shape == b.shape, path.name
        error = np.mean((_over_white(a) - _over_white(b)) ** 2)
        assert error < 2e-3, (path.name, error)


def _over_white(pixels: np.ndarray) -> np.ndarray:
    """RGB in [0, 1]; RGBA composited over white (the colour of a fully transparent pixel is
    arbitrary, and anti-aliased edges differ most in alpha)."""
    image = pixels.astype(np.float64) / 255
    if image.shape[-1] == 3:
        return image
    alpha = image[..., 3:]
    return image[..., :3] * alpha + (1 - alpha)


def test_skia_draws_an_svg_without_a_view_box_centred_like_cairosvg() -> None:
    pytest.importorskip("skia")
    svg = f'<svg {NS} width="20" height="10"><rect width="20" height="10" fill="red"/></svg>'
    spec = RenderSpec.square(40)
    skia_pixels = render_function("skia")(svg, spec)
    cairo_pixels = render_svg_uint8(svg, spec)
    # a 40 x 20 red band in the middle rows, white above and below, in both renderers
    assert np.array_equal(skia_pixels, cairo_pixels)
    assert skia_pixels[20, 20].tolist() == [255, 0, 0] and skia_pixels[5, 20].tolist() == [
        255, 255, 255]


def test_batch_keeps_order_and_isolates_a_crash() -> None:
    from support.crashers import segfault_on_marker

    fine = f'<svg {NS} width="4" height="4"><rect width="4" height="4"/></svg>'
    svgs = [fine, fine.replace("<rect", "<!--CRASH--><rect"), DEEP, fine]
    with Renderer(workers=1, timeout_s=5.0, render_function=segfault_on_marker) as pool:
        out = render_many(pool, svgs, SPEC)
    assert isinstance(out[1], RenderFailure) and out[1].kind == "crash"
    assert isinstance(out[2], RenderFailure) and out[2].tag == "rejected:malformed_xml"
    assert all(isinstance(out[i], Picture) and out[i].pixels.max() == 0  # type: ignore[union-attr]
               for i in (0, 3))


def test_render_function_names() -> None:
    assert render_function("cairosvg") is render_svg_uint8
    assert RENDERERS == ("cairosvg", "skia", "resvg")
    with pytest.raises(ValueError, match="unknown renderer"):
        render_function("batik")


def test_skia_coverage_mask_takes_rows_that_edges_barely_enter_as_cairosvg_does() -> None:
    pytest.importorskip("skia")
    from svgeval.render.backends import render_coverage_skia

    svg = (f'<svg {NS} viewBox="0 0 64 64"><path d="M10.5 10.06 H50.3 L45 50.06 H10.5 Z"/>'
           "</svg>")
    cairo = render_svg_uint8(svg, RenderSpec(64, 64, background=None))[..., 3] > 0
    own = render_svg_uint8_skia(svg, RenderSpec(64, 64, background=None))[..., 3] > 0
    assert not np.array_equal(own, cairo)  # skia's own render misses rows 10 and 50
    assert np.array_equal(render_coverage_skia(svg, (64, 64)), cairo)
