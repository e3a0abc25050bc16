"""PSS under isolation, per renderer, against PSS in a fresh process of its own.

    python -m bench pss [--data ../shared/data/svgenius] [--set pairs=100]
        [--set renderers=cairosvg,skia]

The ``metrics`` case's icon pairs. For each renderer: the floor, PSS in process (in a new
process: PSS keeps parsed paths and the last references, and a warm cache would flatter it),
and ``pss_isolated`` in a render worker pool of 1 and 2 new workers, in pairs/s; the notes give
each renderer's largest difference from CairoSVG's PSS on the same pairs.
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from bench.cases.metrics import icon_pairs
from bench.measure import Figures, Scale, seconds_of, svgenius


def timed_pss(pairs: list[tuple[str, str]], renderer: str) -> float:
    """Seconds to score ``pairs`` with ``renderer``'s render function in this process."""
    from svgeval.metrics.pss import pss
    from svgeval.render.backends import render_function

    draw = render_function(renderer)
    pss(*pairs[0], render=draw)  # imports the renderer, as the isolated pools' first call does
    started = time.perf_counter()
    for reference, generated in pairs:
        pss(reference, generated, render=draw)
    return time.perf_counter() - started


def run(scale: Scale) -> Figures:
    from svgeval.metrics.pss import pss, pss_isolated
    from svgeval.render.backends import render_function
    from svgeval.render.isolated import Renderer

    pairs = icon_pairs(svgenius(scale) / "src" / "data", scale.pick("pairs", 100, 6))
    renderers = scale.pick("renderers", "cairosvg,skia", "cairosvg,skia").split(",")
    refs, gens = [r for r, _ in pairs], [g for _, g in pairs]
    n = len(pairs)
    cairo = [pss(r, g) for r, g in pairs]
    figures = Figures()
    for name in renderers:
        draw = render_function(name)
        values = [pss(r, g, render=draw) for r, g in pairs]
        figures.note(f"{name}: max |PSS - CairoSVG PSS| "
                     f"{max(abs(a - b) for a, b in zip(values, cairo)):.1e}")
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("forkserver")) as fresh:
            floor = n / fresh.submit(timed_pss, pairs, name).result()
        for workers in (1, 2):
            with Renderer(workers=workers, timeout_s=60, render_function=draw) as renderer:
                pss_isolated(renderer, refs[:workers], gens[:workers])  # start the workers
                seconds = seconds_of(lambda: pss_isolated(renderer, refs, gens))
            figures.add(f"{name}: pss_isolated, {workers} worker(s)", n / seconds, "pairs/s",
                        floor, "pss in a fresh process")
    return figures
