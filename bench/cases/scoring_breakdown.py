"""SVGEditBench identity scoring taken apart: the plain loop, the lean pipeline, the isolated
pool, a run with its references cached and the runner in process, each beside the floor.

    python -m bench scoring-breakdown [--data ../shared/data/svgeditbench] [--set copies=1]
        [--set renderers=cairosvg,skia,resvg]

The floor of each renderer is :func:`bench.floors.fresh_floor`: a fresh process that draws the
run's distinct SVGs (every input and every answer once) at 72 px through the sanitiser, one
process per core, nothing else. Beside it, for each renderer:

* the plain loop (CairoSVG only; the fast-scoring issue's yardstick): one process, CairoSVG to
  a 72 px PNG on white, decoded with Pillow, numpy MSE, for the (input, answer) pairs, one
  render after the other, timed in this process after its imports; also the largest difference
  between its MSE and the run's, per sample;
* the lean pipeline (:mod:`bench.lean_pipeline`): a fresh process that does a run's essential
  work (hash the release, score in the workers, write the records) and nothing else;
* the isolated pool: the distinct SVGs rendered through svgeval's isolated :class:`Renderer`
  in this process (the sanitiser, time and memory limits, pixels back; the pool started
  before the clock): no records, no run directory, no scoring;
* ``svgeval run svgeditbench --model identity`` as a user runs it (``python -m svgeval``: a
  fresh interpreter, start-up, imports and the worker pool included), cold, and with a render
  cache that an oracle run filled with the references (so identity, a second model on the same
  data, renders only its own outputs); its peak RSS (the render workers' memory does not
  depend on the number of samples);
* the runner in this process (:class:`~svgeval.runner.Runner`, loading the data not timed)
  with one render worker and with one per core, in samples/s against the floor's.

svgeval's modules are compiled to bytecode first, as ``pip install`` does. ``copies=N`` scores
N copies of the release (each SVG tagged with a comment naming its copy, so no render is shared
between copies).
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import sys
import time
from pathlib import Path

from bench.floors import fresh_floor
from bench.measure import (
    REPOSITORY,
    Figures,
    Scale,
    identity_release,
    svgeval_run,
    timed_process,
)

SIZE = 72


def plain_loop(pairs: dict[str, tuple[str, str]]) -> tuple[float, dict[str, float]]:
    """(seconds, MSE per sample) of rendering and comparing every pair with CairoSVG, Pillow
    and numpy, one after the other."""
    import cairosvg
    import numpy as np
    from PIL import Image

    def pixels(svg: str) -> np.ndarray:
        data = cairosvg.svg2png(bytestring=svg.encode(), output_width=SIZE, output_height=SIZE,
                                background_color="white")
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), np.float64) / 255

    started = time.perf_counter()
    values = {key: float(np.mean((pixels(a) - pixels(b)) ** 2)) for key, (a, b) in pairs.items()}
    return time.perf_counter() - started, values


def isolated_pool_seconds(renderer: str, svgs: list[str]) -> float:
    """Seconds of rendering ``svgs`` through a started isolated pool."""
    from svgeval.render.backends import render_function
    from svgeval.render.cairo import RenderSpec
    from svgeval.render.isolated import Renderer, render_many

    with Renderer(render_function=render_function(renderer)) as pool:
        render_many(pool, svgs[:4], RenderSpec.square(SIZE))
        started = time.perf_counter()
        render_many(pool, svgs, RenderSpec.square(SIZE))
        return time.perf_counter() - started


def runner_rate(data: Path, workers: int) -> float:
    """Samples/s of the identity model run by :class:`Runner` in this process."""
    import tempfile

    from svgeval.run_request import RunRequest
    from svgeval.runner.build import build_runner

    with tempfile.TemporaryDirectory() as scratch:
        runner = build_runner(RunRequest(task="svgeditbench", data=data, out_dir=Path(scratch),
                                         render_workers=workers))
        resumed = runner.prepare(resume=False)
        started = time.perf_counter()
        summary = asyncio.run(runner.run(resumed))
        return summary.n / (time.perf_counter() - started)


def run(scale: Scale) -> Figures:
    import json

    copies = scale.pick("copies", 1, 1)
    renderers = scale.pick("renderers", "cairosvg,skia,resvg", "cairosvg").split(",")
    figures = Figures()
    data, pairs, distinct = identity_release(scale, copies, figures)
    n = len(pairs)
    loop_s, reference = plain_loop(pairs)
    cores = os.cpu_count() or 1
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPOSITORY),
                                                        os.environ.get("PYTHONPATH")]))}
    for renderer in renderers:
        floor = fresh_floor(renderer, distinct, SIZE, scale.workdir)
        where = "safe render, fresh process"
        if renderer == "cairosvg":
            figures.add("plain loop (CairoSVG PNG, numpy MSE, one process)", loop_s, "s",
                        floor, where)
        lean = timed_process([sys.executable, "-m", "bench.lean_pipeline", str(data), renderer],
                             scale.workdir / "lean.rss", env=env)
        figures.add(f"{renderer}: lean pipeline", lean.seconds, "s", floor, where)
        figures.add(f"{renderer}: isolated pool, in process",
                    isolated_pool_seconds(renderer, distinct), "s", floor, where)
        cache = ("--render-cache", str(scale.workdir / f"cache-{renderer}"))
        for name, options in (("svgeval run", ()), ("svgeval run, references cached", cache)):
            if options:  # a first model (the oracle) renders the references
                svgeval_run(data, scale.workdir / "oracle", "--renderer", renderer, *options,
                            model="oracle")
                shutil.rmtree(scale.workdir / "oracle")
            out = scale.workdir / "run"
            timed = svgeval_run(data, out, "--renderer", renderer, *options)
            records = map(json.loads, (out / "samples.jsonl").read_text().splitlines())
            values = {r["id"]: r["metrics"]["mse"] for r in records}
            shutil.rmtree(out)
            figures.add(f"{renderer}: {name}", timed.seconds, "s", floor, where)
            figures.add(f"{renderer}: {name}, peak RSS", timed.rss_mib, "MiB")
            if renderer == "cairosvg" and not options:
                figures.add("cairosvg: max |run mse - plain loop mse|",
                            max(abs(values[k] - reference[k]) for k in reference), "")
    for workers in sorted({1, cores}):
        floor = fresh_floor("cairosvg", distinct, SIZE, scale.workdir)
        figures.add(f"cairosvg: Runner in process, {workers} render worker(s)",
                    runner_rate(data, workers), "samples/s", n / floor,
                    "safe render, fresh process")
    return figures
