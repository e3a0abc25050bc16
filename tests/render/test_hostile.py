"""The hostile corpus: every SVG ends as a recorded failure or a safe render, within the limit."""

from __future__ import annotations

import base64
import contextlib
import time
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from support.hostile import DEEP, NS, SPEC, counting_server, hostile_corpus, red_png  # noqa: F401

from svgeval.render.cairo import _refuse_url
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, RenderFailure
from svgeval.svg.refusals import SvgRejected


def test_hostile_svgs_become_recorded_failures(
    tmp_path: Path, counting_server: tuple[str, list[str]], renderer: Renderer  # noqa: F811
) -> None:
    base_url, hits = counting_server
    for name, (svg, expected) in hostile_corpus(tmp_path, base_url).items():
        started = time.monotonic()
        outcome = renderer.render(svg, SPEC)
        assert isinstance(outcome, RenderFailure) and outcome.tag == expected, name
        assert time.monotonic() - started < renderer.timeout_s + 2, name
    assert hits == [], "a renderer touched the network"


def test_a_path_cairosvg_reads_forever_is_a_render_error_not_a_time_out(
        renderer: Renderer) -> None:
    svg = f'<svg {NS} viewBox="0 0 9 9"><path d="M1 1h7v7z X5 5"/></svg>'
    outcome = renderer.render(svg, SPEC)
    assert isinstance(outcome, RenderFailure) and outcome.kind == "render_error"
    assert outcome.message.startswith("EndlessPathData: path data has 'X5 5'")


def test_giant_canvas_renders_safely(renderer: Renderer) -> None:
    svg = f'<svg {NS} width="1e9" height="1e9"><rect width="5e8" height="1e9" fill="#000"/></svg>'
    image = renderer.render(svg, SPEC).floats  # type: ignore[union-attr]
    left, right = image[:, :30].mean(), image[:, 42:].mean()
    assert left == pytest.approx(0.0) and right == pytest.approx(1.0)


def test_data_uri_images_still_render(renderer: Renderer) -> None:
    uri = "data:image/png;base64," + base64.b64encode(red_png()).decode()
    svg = f'<svg {NS} viewBox="0 0 4 4"><image href="{uri}" width="4" height="4"/></svg>'
    image = renderer.render(svg, SPEC).floats  # type: ignore[union-attr]
    assert np.allclose(image[36, 36], [1.0, 0.0, 0.0])


def test_url_fetcher_refuses_anything_but_data_uris() -> None:
    for url in ("file:///etc/passwd", "http://127.0.0.1:9/x", "secret.png"):
        with pytest.raises(SvgRejected):
            _refuse_url(url, "image/png")


@pytest.mark.e2e
def test_crash_and_hang_lose_only_their_sample() -> None:
    from support.crashers import segfault_on_marker

    with Renderer(workers=1, timeout_s=1.0, render_function=segfault_on_marker) as pool:
        fine = f'<svg {NS} width="4" height="4"><rect width="4" height="4"/></svg>'
        crash = pool.render(fine.replace("<rect", "<!--CRASH--><rect"), SPEC)
        assert isinstance(crash, RenderFailure) and crash.kind == "crash"
        hang = pool.render(fine.replace("<rect", "<desc>HANG</desc><rect"), SPEC)
        assert isinstance(hang, RenderFailure) and hang.kind == "timeout"
        after = pool.render(fine, SPEC)
        assert isinstance(after, Picture) and after.floats.mean() == pytest.approx(0.0)


def test_the_attribute_walk_is_skipped_only_where_it_cannot_refuse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A document whose bytes hold none of what a refusal needs (``script``, ``href``,
    ``base``, ``url(``, ``@import``, a backslash, a character reference) is counted by lxml
    without the walk; every other document, and any with more nodes than the depth limit,
    still gets the walk, so each hostile document is refused as before."""
    from svgeval.svg import refusals, sanitize
    from svgeval.svg.demo_corpus import DEMO_ICONS, demo_svg

    icons = [demo_svg(name) for name in DEMO_ICONS]
    plain = [svg for svg in icons
             if not any(t in svg.lower().encode() for t in sanitize._WALK_TRIGGERS)]
    assert plain, "no demo SVG takes the short path"
    hostile = [svg for svg, _ in hostile_corpus(tmp_path, "http://127.0.0.1:9").values()]
    for svg in [*icons, *hostile]:
        data = svg.encode() if isinstance(svg, str) else svg
        try:
            root = etree.fromstring(data, refusals.safe_parser())
        except etree.XMLSyntaxError:
            continue
        walked = None
        with contextlib.suppress(SvgRejected):
            walked = refusals.check_nodes(root, refusals.DEFAULT_LIMITS)
        trigger = any(t in data.lower() for t in sanitize._WALK_TRIGGERS)
        if walked is not None and not trigger:  # the short path counts the same nodes
            assert sanitize._counted_nodes(root, refusals.DEFAULT_LIMITS) == walked
    nested = f"<svg {NS}>" + "<g>" * 200 + "</g>" * 200 + "</svg>"  # no trigger, too deep
    with pytest.raises(SvgRejected, match="nesting deeper"):
        sanitize.check_svg(nested)

    def no_walk(*args: object) -> int:
        raise AssertionError("walked")

    monkeypatch.setattr(sanitize, "check_nodes", no_walk)
    for svg in plain:
        sanitize.check_svg(svg)
    with pytest.raises(AssertionError, match="walked"):
        sanitize.check_svg(hostile_corpus(tmp_path, "http://127.0.0.1:9")["script"][0])
