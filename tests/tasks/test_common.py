"""What suites share (tasks/common): drawings of failed answers, the two readings, row ids."""

from __future__ import annotations

import numpy as np
import pytest

from svgeval.metrics._pixels import as_rgb_uint8
from svgeval.render.backends import render_function
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import Picture, RenderFailure
from svgeval.tasks.common import Drawing, ReferenceRenders, TwoReadings, unique_ids
from svgeval.tasks.outcome import MetricValues

SPEC = RenderSpec.square(16, background="white")
EMPTY_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"></svg>'
"""What the runner drew for a failed answer before it handed it on as no SVG (None)."""
RED = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>'


def test_repeated_ids_get_a_suffix() -> None:
    assert unique_ids(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"]


def test_a_failed_answer_is_drawn_as_the_suites_stand_in(renderer: Renderer) -> None:
    white, black = Drawing(SPEC, "white"), Drawing(SPEC, "black")
    assert white.canvas.shape == (16, 16, 3) and (white.canvas == 1.0).all()
    assert (black.canvas == 0.0).all()
    assert white.canvas is white.canvas  # one array, shared by every failure of a run
    for drawing in (white, black):
        assert drawing.render(None, renderer) is None
        assert drawing.draw(None, renderer) is drawing.canvas
        assert drawing.draw("<svg", renderer) is drawing.canvas  # a render that fails
        red = drawing.draw(RED, renderer)
        assert red.tolist() == [[[1.0, 0.0, 0.0]] * 16] * 16
    none = Drawing(SPEC, "none")
    assert none.render(None, renderer) is None
    with pytest.raises(ValueError, match="no picture"):
        none.draw(None, renderer)


@pytest.mark.parametrize("name", ["cairosvg", "skia", "resvg"])
def test_the_empty_svg_renders_as_the_white_stand_in(name: str) -> None:
    """Why a failed answer's white stand-in keeps the numbers of the empty SVG the runner drew
    for it before (UniSVG rendered it): every renderer draws that SVG white."""
    pytest.importorskip({"cairosvg": "cairosvg", "skia": "skia", "resvg": "resvg_py"}[name])
    with Renderer(workers=1, render_function=render_function(name)) as pool:
        for size in (224, 512):
            spec = RenderSpec.square(size, background="white")
            image = pool.render(EMPTY_SVG, spec).floats
            assert image is not None
            assert np.array_equal(image, Drawing(spec, "white").canvas)


def test_svgenius_readings_leave_failures_out_of_the_paper_key_only() -> None:
    readings = TwoReadings(suffix="_all", paper="left_out", other="stand_in")
    score = MetricValues()
    readings.put(score, "mse", 0.25, ok=True)
    readings.put(score, "ssim", 0.5, ok=False)
    assert score.metrics == {"mse": 0.25, "mse_all": 0.25, "ssim": None, "ssim_all": 0.5}
    assert readings.keys({"mse": "mse"}) == {"mse": "mse", "mse_all": "mse"}


def test_worst_readings_give_a_failure_the_metrics_worst_value() -> None:
    readings = TwoReadings(suffix="_worst", paper="stand_in", other="worst",
                           worst={"ssim": 0.0, "lpips": 1.0})
    score = MetricValues()
    readings.put(score, "ssim", 0.8, ok=True)
    readings.put(score, "lpips", 0.3, ok=False)
    assert score.metrics == {"ssim": 0.8, "ssim_worst": 0.8, "lpips": 0.3, "lpips_worst": 1.0}


def test_a_batched_metric_that_cannot_run_is_none_under_both_readings_with_a_reason() -> None:
    from svgeval.metrics.registry import MetricUnavailable

    readings = TwoReadings(suffix="_worst", paper="stand_in", other="worst", worst={"dino": 0.0})
    scores = [MetricValues(), MetricValues()]

    def missing() -> list[float | None]:
        raise MetricUnavailable("no DINOv2 weights here")

    readings.put_batch(scores, [True, False], "dino", missing)
    for score in scores:
        assert score.metrics == {"dino": None, "dino_worst": None}
        assert score.not_computed == {"dino": "no DINOv2 weights here",
                                      "dino_worst": "no DINOv2 weights here"}
    readings.put_batch(scores, [True, False], "dino", lambda: [0.9, 0.4])
    assert [s.metrics["dino_worst"] for s in scores] == [0.9, 0.0]


def test_reference_renders_are_drawn_once_per_content_within_their_budget(
        renderer: Renderer) -> None:
    calls: list[str] = []
    blue = RED.replace("red", "blue")

    class Counting:
        def draw_all(self, svgs: list[str], spec: RenderSpec):  # type: ignore[no-untyped-def]
            calls.extend(svgs)
            return renderer.draw_all(svgs, spec)

    drawn = Counting()
    one = renderer.draw_all([RED], SPEC)[0].packed().nbytes  # type: ignore[union-attr]
    cache = ReferenceRenders(SPEC, budget_bytes=one)  # room for one render
    first = cache.get(RED, drawn)  # type: ignore[arg-type]
    assert isinstance(first, Picture) and first.floats.tolist() == [[[1.0, 0.0, 0.0]] * 16] * 16
    assert np.array_equal(cache.get(RED, drawn).pixels, first.pixels)  # type: ignore[arg-type, union-attr]
    assert isinstance(cache.get("<svg", drawn), RenderFailure)  # type: ignore[arg-type]
    assert isinstance(cache.get("<svg", drawn), RenderFailure)  # type: ignore[arg-type]  (kept)
    red, blue_drawn = cache.draw_all([RED, blue], drawn)  # type: ignore[arg-type]
    assert isinstance(red, Picture) and isinstance(blue_drawn, Picture)
    assert blue_drawn.pixels.dtype == np.uint8 and red.pixels.tolist() == [[[255, 0, 0]] * 16] * 16
    cache.get(RED, drawn)  # type: ignore[arg-type]  (pushed out by the blue one)
    assert calls == [RED, "<svg", blue, RED]


def test_the_model_metrics_get_the_same_bytes_from_draw_all_as_from_draw(
        renderer: Renderer) -> None:
    """The batched stage hands 8-bit pictures to the model metrics: the bytes they made of
    each float picture (``as_rgb_uint8``), for every level and for the stand-ins."""
    stops = "".join(f'<stop offset="{i / 255}" stop-color="rgb({i},{255 - i},{i // 2})"/>'
                    for i in range(0, 256, 15))
    ramp = ('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><defs>'
            f'<linearGradient id="g">{stops}</linearGradient></defs>'
            '<rect width="16" height="16" fill="url(#g)"/></svg>')
    svgs = [RED, ramp, None, "<svg"]
    for drawing in (Drawing(SPEC, "white"), Drawing(SPEC, "black")):
        pixels = drawing.draw_all(svgs, renderer)
        assert [p.dtype for p in pixels] == [np.dtype(np.uint8)] * 4
        assert pixels[2] is pixels[3] is drawing.canvas_pixels
        for picture, svg in zip(pixels, svgs):
            assert np.array_equal(as_rgb_uint8(drawing.draw(svg, renderer)), picture)
    assert len(np.unique(pixels[1])) > 20  # the ramp holds many levels
    levels = np.arange(256, dtype=np.uint8).reshape(16, 16, 1).repeat(3, axis=2)
    assert np.array_equal(as_rgb_uint8(Picture(levels).floats), levels)  # every level comes back


def test_pictures_of_their_own_sizes_are_drawn_side_by_side(
        renderer: Renderer, monkeypatch: pytest.MonkeyPatch) -> None:
    """``draw_pictures``: one ``draw_each`` for the whole batch, each SVG at its own spec, the
    pixels of a lone render at that spec; no picture for a failed answer, an SVG given no spec
    (VCode's over-large drawings) or a failed render."""
    from svgeval.tasks.common.drawing import draw_pictures

    sizes = {RED: RenderSpec(12, 8), RED.replace("red", "blue"): RenderSpec(5, 9)}
    big = RED.replace("<rect", "<!--too large--><rect")
    calls: list[int] = []
    draw_each = renderer.draw_each
    monkeypatch.setattr(renderer, "draw_each", lambda drawings: calls.append(len(drawings))
                        or draw_each(drawings))
    svgs = [*sizes, None, big, "<svg"]
    pictures = draw_pictures(svgs, lambda svg: None if svg == big else sizes.get(
        svg, RenderSpec(4, 4)), renderer)
    assert calls == [3]  # the two drawings and the malformed one, together
    assert pictures[2:] == [None, None, None]
    for svg, picture in zip(sizes, pictures):
        assert picture is not None and picture.shape == (sizes[svg].height, sizes[svg].width, 3)
        assert np.array_equal(as_rgb_uint8(renderer.render(svg, sizes[svg]).floats),  # type: ignore[union-attr]
                              picture.pixels)
