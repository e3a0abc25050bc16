"""What the batched metric stage spends drawing a batch and handing it to the model metrics.

    python -m bench drawn [--data ../shared/data/svgenius] [--set samples=256]
        [--set batch=64] [--set rounds=3]

SVGenius image-to-SVG at 224 px, the oracle's answers (each answer is its reference's SVG: one
render serves both, as for a perfect model), ``samples`` of them over the three tiers. For each
batch of ``batch``: :meth:`ImageGenerationTask.drawn` (what every image suite's batched stage
calls), then each picture as the model metrics turn it into uint8 RGB (``as_rgb_uint8``), the
step before their image processors. Two figures a round, in microseconds a sample:

* ``kept``: every render drawn before (by the scoring, as in a run whose renders fit the
  renderer's memory); the floor beside it is the renders read back from that memory alone.
* ``cold``: a new renderer and task (an evicted render, a resumed run); the floor beside it is
  the same SVGs drawn by ``Renderer.draw_all``, nothing else.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.measure import Figures, Scale, svgenius

if TYPE_CHECKING:
    from svgeval.render.isolated import Renderer
    from svgeval.tasks.base import BatchItem
    from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg


def items(data: Path, n: int) -> list[BatchItem[Any]]:
    from svgeval.tasks.base import BatchItem, CommonOptions
    from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg

    samples = SvgeniusImg2Svg(CommonOptions(data=data)).load()
    step = max(1, len(samples) // n)
    return [BatchItem(s, s.target.answer, in_paper_reading=True) for s in samples[::step][:n]]


def stage_seconds(task: SvgeniusImg2Svg, batch: list[BatchItem[Any]], renderer: Renderer,
                  size: int) -> float:
    from svgeval.metrics._pixels import as_rgb_uint8

    started = time.perf_counter()
    for start in range(0, len(batch), size):
        drawn = task.drawn(batch[start : start + size], renderer)
        for picture in (*drawn.outputs, *drawn.references):
            as_rgb_uint8(picture)
    return time.perf_counter() - started


def run(scale: Scale) -> Figures:
    from svgeval.render.isolated import Renderer
    from svgeval.render.memo import render_key
    from svgeval.tasks.base import CommonOptions
    from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg

    samples, size = scale.pick("samples", 256, 6), scale.pick("batch", 64, 4)
    rounds = scale.pick("rounds", 3, 1)
    data = svgenius(scale)
    batch = items(data, samples)
    svgs = [item.output_svg for item in batch]
    n = len(batch)
    figures = Figures()
    figures.note(f"{n} samples, batch {size}")
    for round_ in range(1, rounds + 1):
        with Renderer() as renderer:
            task = SvgeniusImg2Svg(CommonOptions(data=data))
            spec = task.drawing.spec
            started = time.perf_counter()
            renderer.draw_all(svgs, spec)
            cold_floor = time.perf_counter() - started
            keys = [render_key(svg, spec, renderer._renderer_id) for svg in svgs]
            started = time.perf_counter()
            for key in keys:
                renderer.memo.lookup(key)
            kept_floor = time.perf_counter() - started
            stage_seconds(task, batch, renderer, size)  # the references kept too
            kept = stage_seconds(task, batch, renderer, size)
        with Renderer() as renderer:
            cold = stage_seconds(SvgeniusImg2Svg(CommonOptions(data=data)), batch, renderer,
                                 size)
        figures.add(f"round {round_}: kept", kept * 1e6 / n, "us/sample", kept_floor * 1e6 / n,
                    "renders read from memory")
        figures.add(f"round {round_}: cold", cold * 1e6 / n, "us/sample", cold_floor * 1e6 / n,
                    "Renderer.draw_all")
    return figures
