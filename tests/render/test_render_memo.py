"""Renders shared within a run: each distinct (SVG, spec) is drawn once, memory stays bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.memo import RenderMemo, render_key
from svgeval.render.picture import Picture, Rendered, RenderFailure

SPEC = RenderSpec.square(8)


def get_or_render(memo: RenderMemo, key: str, draw: Callable[[], Rendered]) -> Rendered:
    """The render of ``key`` through ``memo``, drawn by ``draw()`` in the calling thread."""

    def start(_: int) -> Future[Rendered]:
        drawn: Future[Rendered] = Future()
        try:
            drawn.set_result(draw())
        except Exception as error:  # noqa: BLE001 - the memo raises it to every waiter
            drawn.set_exception(error)
        return drawn

    return memo.get_or_render_many([key], start)[0]


def _pixels(value: int) -> np.ndarray:
    return np.full((8, 8, 3), value, dtype=np.uint8)  # 192 bytes


def _picture(value: int) -> Picture:
    return Picture(_pixels(value))


def _same(drawn: Rendered, pixels: np.ndarray) -> bool:
    return isinstance(drawn, Picture) and np.array_equal(drawn.pixels, pixels)


def test_a_key_is_drawn_once_even_by_concurrent_callers() -> None:
    memo = RenderMemo()
    release = threading.Event()
    calls: list[int] = []

    def draw() -> Picture:
        calls.append(1)
        release.wait()
        return _picture(7)

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(get_or_render, memo, "k", draw) for _ in range(8)]
        release.set()
        results = [future.result() for future in futures]
    assert len(calls) == 1
    assert all(_same(result, _pixels(7)) for result in results)
    assert memo.hits == 7


def test_failures_reach_waiters_but_are_not_remembered() -> None:
    memo = RenderMemo()
    failure = RenderFailure("timeout", "render took longer than 1 s")
    assert get_or_render(memo, "k", lambda: failure) is failure
    assert _same(get_or_render(memo, "k", lambda: _picture(1)), _pixels(1))


def test_an_error_of_the_drawing_reaches_waiters_as_that_error() -> None:
    """The machinery failing (the render workers lost) is raised by every caller waiting on
    the render, never turned into a render failure they would record."""
    memo = RenderMemo()
    drawing, release = threading.Event(), threading.Event()

    def draw() -> Picture:
        drawing.set()
        release.wait()
        raise RuntimeError("render workers lost")

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(get_or_render, memo, "k", draw)
        assert drawing.wait(10)
        waiter = pool.submit(get_or_render, memo, "k", lambda: _picture(1))
        while memo.hits == 0:  # the waiter has found the render in flight
            time.sleep(0.001)
        release.set()
        for future in (first, waiter):
            with pytest.raises(RuntimeError, match="render workers lost"):
                future.result(timeout=10)
    assert _same(get_or_render(memo, "k", lambda: _picture(2)), _pixels(2))


def test_least_recently_used_renders_are_evicted_past_the_budget() -> None:
    noise = Picture(np.random.default_rng(0).integers(0, 256, (8, 8, 3), dtype=np.uint8))
    memo = RenderMemo(budget_bytes=2 * noise.packed().nbytes)  # two renders
    for key in ("a", "b"):
        get_or_render(memo, key, lambda: noise)
    get_or_render(memo, "a", lambda: _picture(9))  # a hit: "a" becomes the most recent
    get_or_render(memo, "c", lambda: noise)  # evicts "b"
    drawn: list[str] = []
    for key in ("a", "c", "b"):
        get_or_render(memo, key, lambda key=key: drawn.append(key) or noise)  # type: ignore[misc]
    assert drawn == ["b"]


def test_remembered_pixels_come_back_equal_and_read_only() -> None:
    memo = RenderMemo()
    gradient = np.arange(72 * 72 * 3, dtype=np.uint64).astype(np.uint8).reshape(72, 72, 3)
    get_or_render(memo, "k", lambda: Picture(gradient))
    again = get_or_render(memo, "k", lambda: _picture(0))
    assert isinstance(again, Picture) and again.pixels.dtype == np.uint8
    assert np.array_equal(again.pixels, gradient) and not again.pixels.flags.writeable


def test_render_key_separates_svg_spec_and_renderer() -> None:
    keys = {
        render_key("<svg/>", SPEC, "cairosvg"),
        render_key(b"<svg/>", RenderSpec.square(9), "cairosvg"),
        render_key("<svg/>", RenderSpec.square(8, None), "cairosvg"),
        render_key("<svg/>", SPEC, "resvg"),
        render_key("<svg />", SPEC, "cairosvg"),
    }
    assert len(keys) == 5
    assert render_key("<svg/>", SPEC, "cairosvg") == render_key(b"<svg/>", SPEC, "cairosvg")


def test_renderer_draws_a_repeated_svg_once() -> None:
    svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="2" height="4"/></svg>'
    with Renderer(workers=1) as renderer:
        first = renderer.render(svg, SPEC).floats
        second = renderer.render(svg, SPEC).floats
        other_size = renderer.render(svg, RenderSpec.square(4)).floats
    assert renderer.memo.hits == 1
    assert first is not None and second is not None and np.array_equal(first, second)
    assert other_size is not None and other_size.shape == (4, 4, 3)


def test_many_keys_start_every_draw_before_waiting_and_share_repeats() -> None:
    """``get_or_render_many`` starts each missing key's draw before it waits for any, draws a
    key repeated within the call or kept from before once, and when a draw fails for the
    machinery every key it started ends its flight with that error (none is left in flight)."""
    memo = RenderMemo()
    get_or_render(memo, "kept", lambda: _picture(5))
    started: list[str] = []
    keys = ["a", "kept", "b", "a"]

    def submit(index: int) -> Future[Rendered]:
        started.append(keys[index])
        future: Future[Rendered] = Future()
        if len(started) == 2:  # both draws were started before either finished
            future.set_result(_picture(2))
        else:
            threading.Timer(0.05, future.set_result, [_picture(1)]).start()
        return future

    drawn = memo.get_or_render_many(keys, submit)
    assert started == ["a", "b"]
    assert [int(image.pixels[0, 0, 0]) for image in drawn  # type: ignore[union-attr]
            ] == [1, 5, 2, 1]
    assert memo.hits == 2  # "kept", and the second "a"

    def lost(index: int) -> Future[Rendered]:
        future: Future[Rendered] = Future()
        future.set_exception(RuntimeError("render workers lost"))
        return future

    with pytest.raises(RuntimeError, match="render workers lost"):
        memo.get_or_render_many(["x", "y"], lost)
    assert _same(get_or_render(memo, "y", lambda: _picture(3)), _pixels(3))


def test_draw_all_draws_together_what_render_draws_one_by_one() -> None:
    svgs = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="{w}" '
            'height="4"/></svg>' for w in (1, 2, 3)]
    with Renderer(workers=1) as renderer:
        together = renderer.draw_all([svgs[0], svgs[1], svgs[0], "<svg", svgs[2]], SPEC)
        one_by_one = [renderer.render(svg, SPEC) for svg in svgs]
    assert renderer.memo.hits == 1 + 3  # the repeat within the call, then every SVG again
    assert isinstance(together[3], RenderFailure) and together[3].tag == "rejected:malformed_xml"
    for mine, theirs in zip([together[0], together[1], together[4]], one_by_one):
        assert isinstance(theirs, Picture) and _same(mine, theirs.pixels)
    assert isinstance(together[0], Picture) and _same(together[2], together[0].pixels)
