"""What the batched metric stage spends drawing a batch and handing it to the model metrics.

Run by hand:  .venv/bin/python bench/bench_drawn.py [--data ../shared/data/svgenius]
              [--samples 256] [--batch 64] [--rounds 3]

SVGenius image-to-SVG at 224 px, the oracle's answers (each answer is its reference's SVG: one
render serves both, as for a perfect model), ``--samples`` of them over the three tiers. For each
batch of ``--batch``: :meth:`ImageGenerationTask.drawn` (what every image suite's batched stage
calls), then each picture as the model metrics turn it into uint8 RGB (``as_rgb_uint8``), the
step before their image processors. Two cases:

* ``kept``: every render drawn before (by the scoring, as in a run whose renders fit the
  renderer's memory); the floor beside it is the renders read back from that memory alone.
* ``cold``: a new renderer and task (an evicted render, a resumed run); the floor beside it is
  the same SVGs drawn by ``Renderer.draw_all``, nothing else.

Compare two versions by running the script with each on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from common import machine_line

import svgeval
from svgeval.metrics._pixels import as_rgb_uint8
from svgeval.render.isolated import Renderer
from svgeval.render.memo import render_key
from svgeval.tasks.base import BatchItem, CommonOptions
from svgeval.tasks.svgenius.img2svg import SvgeniusImg2Svg

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "svgenius"


def items(data: Path, n: int) -> list[BatchItem[Any]]:
    samples = SvgeniusImg2Svg(CommonOptions(data=data)).load()
    step = max(1, len(samples) // n)
    return [BatchItem(s, s.target.answer, in_paper_reading=True) for s in samples[::step][:n]]


def stage_seconds(task: SvgeniusImg2Svg, batch: list[BatchItem[Any]], renderer: Renderer,
                  size: int) -> float:
    started = time.perf_counter()
    for start in range(0, len(batch), size):
        drawn = task.drawn(batch[start : start + size], renderer)
        for picture in (*drawn.outputs, *drawn.references):
            as_rgb_uint8(picture)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=SHARED)
    parser.add_argument("--samples", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{machine_line()}; svgeval at {Path(svgeval.__file__).parent}")
    batch = items(args.data, args.samples)
    svgs = [item.output_svg for item in batch]
    n = len(batch)
    for round_ in range(1, args.rounds + 1):
        with Renderer() as renderer:
            task = SvgeniusImg2Svg(CommonOptions(data=args.data))
            spec = task.drawing.spec
            started = time.perf_counter()
            renderer.draw_all(svgs, spec)
            cold_floor = time.perf_counter() - started
            keys = [render_key(svg, spec, renderer._renderer_id) for svg in svgs]
            started = time.perf_counter()
            for key in keys:
                renderer.memo.lookup(key)
            kept_floor = time.perf_counter() - started
            stage_seconds(task, batch, renderer, args.batch)  # the references kept too
            kept = stage_seconds(task, batch, renderer, args.batch)
        with Renderer() as renderer:
            cold = stage_seconds(SvgeniusImg2Svg(CommonOptions(data=args.data)), batch, renderer,
                                 args.batch)
        print(f"round {round_}: {n} samples, batch {args.batch}: kept {kept * 1e6 / n:6.0f} us "
              f"a sample (floor {kept_floor * 1e6 / n:4.0f}), cold {cold * 1e6 / n:6.0f} us "
              f"a sample (floor {cold_floor * 1e6 / n:6.0f})", flush=True)


if __name__ == "__main__":
    main()
