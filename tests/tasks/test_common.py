"""What suites share (tasks/common): drawings of failed answers, the two readings, row ids."""

from __future__ import annotations

import numpy as np
import pytest

from svgeval.svg.isolation import Renderer
from svgeval.svg.render import RenderSpec
from svgeval.svg.renderers import render_function
from svgeval.tasks.base import BLANK_SVG
from svgeval.tasks.common import Drawing, ReferenceRenders, TwoReadings, unique_ids
from svgeval.tasks.outcome import MetricValues

SPEC = RenderSpec.square(16, background="white")
RED = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4" fill="red"/></svg>'


def test_repeated_ids_get_a_suffix() -> None:
    assert unique_ids(["a", "b", "a", "a"]) == ["a", "b", "a#2", "a#3"]


def test_a_failed_answer_is_drawn_as_the_suites_stand_in(renderer: Renderer) -> None:
    white, black = Drawing(SPEC, "white"), Drawing(SPEC, "black")
    assert white.canvas.shape == (16, 16, 3) and (white.canvas == 1.0).all()
    assert (black.canvas == 0.0).all()
    assert white.canvas is white.canvas  # one array, shared by every failure of a run
    for drawing in (white, black):
        assert drawing.render(BLANK_SVG, renderer) is None
        assert drawing.draw(BLANK_SVG, renderer) is drawing.canvas
        assert drawing.draw("<svg", renderer) is drawing.canvas  # a render that fails
        red = drawing.draw(RED, renderer)
        assert red.tolist() == [[[1.0, 0.0, 0.0]] * 16] * 16
    none = Drawing(SPEC, "none")
    assert none.render(BLANK_SVG, renderer) is None
    with pytest.raises(ValueError, match="no picture"):
        none.draw(BLANK_SVG, renderer)


@pytest.mark.parametrize("name", ["cairosvg", "skia", "resvg"])
def test_the_runners_blank_svg_renders_as_the_white_stand_in(name: str) -> None:
    """What lets a white drawing skip rendering BLANK_SVG: every renderer draws it white."""
    pytest.importorskip({"cairosvg": "cairosvg", "skia": "skia", "resvg": "resvg_py"}[name])
    with Renderer(workers=1, render_function=render_function(name)) as pool:
        for size in (224, 512):
            spec = RenderSpec.square(size, background="white")
            image = pool.render(BLANK_SVG, spec).image
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


def test_reference_renders_are_drawn_once_per_content(renderer: Renderer) -> None:
    calls: list[str] = []

    class Counting:
        def render(self, svg: str, spec: RenderSpec):  # type: ignore[no-untyped-def]
            calls.append(svg)
            return renderer.render(svg, spec)

    cache = ReferenceRenders(SPEC, capacity=1)
    first = cache.get(RED, Counting())  # type: ignore[arg-type]
    assert cache.get(RED, Counting()) is first  # type: ignore[arg-type]
    cache.get(BLANK_SVG, Counting())  # type: ignore[arg-type]
    cache.get(RED, Counting())  # type: ignore[arg-type]  (pushed out by the capacity of 1)
    assert calls == [RED, BLANK_SVG, RED]
