"""resvg behind the same sanitiser and isolation; several renders per worker call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_hostile import DEEP, NS, SPEC, counting_server, hostile_corpus  # noqa: F401

from svgeval.svg.batch import render_many
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.svg.isolation import Renderer
from svgeval.svg.render import RenderFailure, render_svg_uint8

pytest.importorskip("resvg_py")

from svgeval.svg.render_fast import render_function, render_svg_uint8_resvg


@pytest.fixture(scope="module")
def resvg_pool() -> Iterator[Renderer]:
    with Renderer(workers=2, timeout_s=10.0, render_function=render_svg_uint8_resvg) as pool:
        yield pool


def test_hostile_corpus_through_resvg(
    tmp_path: Path, counting_server: tuple[str, list[str]], resvg_pool: Renderer  # noqa: F811
) -> None:
    base_url, hits = counting_server
    corpus = hostile_corpus(tmp_path, base_url)
    for name, (svg, expected) in corpus.items():
        started = time.monotonic()
        outcome = resvg_pool.render(svg, SPEC)
        assert outcome.failure is not None and outcome.failure.tag == expected, name
        assert time.monotonic() - started < resvg_pool.timeout_s + 2, name
    batched = render_many(resvg_pool, [svg for svg, _ in corpus.values()], SPEC,
                          render_svg_uint8_resvg, chunk_size=5)
    assert [r.tag for r in batched if isinstance(r, RenderFailure)] == [
        expected for _, expected in corpus.values()]
    assert hits == [], "a renderer touched the network"


def test_resvg_close_to_cairosvg_on_demo_icons(tmp_path: Path) -> None:
    write_demo_corpus(tmp_path)
    for path in sorted(tmp_path.glob("*.svg")):
        svg = path.read_text()
        a = render_svg_uint8_resvg(svg, SPEC).astype(np.float64) / 255
        b = render_svg_uint8(svg, SPEC).astype(np.float64) / 255
        assert np.mean((a - b) ** 2) < 2e-3, path.name


def test_batch_keeps_order_and_isolates_a_crash() -> None:
    from crashers import segfault_on_marker

    fine = f'<svg {NS} width="4" height="4"><rect width="4" height="4"/></svg>'
    svgs = [fine, fine.replace("<rect", "<!--CRASH--><rect"), DEEP, fine]
    with Renderer(workers=1, timeout_s=5.0, render_function=segfault_on_marker) as pool:
        out = render_many(pool, svgs, SPEC, segfault_on_marker, chunk_size=4)
    assert isinstance(out[1], RenderFailure) and out[1].kind == "crash"
    assert isinstance(out[2], RenderFailure) and out[2].tag == "rejected:malformed_xml"
    assert all(isinstance(out[i], np.ndarray) and out[i].max() == 0 for i in (0, 3))


def test_render_function_names() -> None:
    assert render_function("cairosvg") is render_svg_uint8
    with pytest.raises(ValueError, match="unknown renderer"):
        render_function("skia")
