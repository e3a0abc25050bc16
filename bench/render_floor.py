"""The floor under an identity run of SVGEditBench: its distinct SVGs through the isolated pool.

    python bench/render_floor.py DATA RENDERER   # prints the process's wall time

A fresh process that does what any run must and nothing else: start the interpreter and the
render workers' server with the renderer preloaded (as ``svgeval run`` does), import what
rendering needs, list the release, then render each distinct SVG an identity run draws (every
input and every answer, once) at 72 px with one isolated worker per CPU, as a run does by
default. No records, no run directory, no scoring: the time between this and ``svgeval run`` is
the runner's own overhead. ``bench_scoring_compare.py`` times it.
"""

from __future__ import annotations

import sys
import time

STARTED = time.perf_counter()


def main() -> None:
    from svgeval.svg.forkserver import start_early

    start_early(sys.argv[2])
    from pathlib import Path

    from release_pairs import release_pairs

    from svgeval.svg.batch import render_many
    from svgeval.svg.isolation import Renderer
    from svgeval.svg.render import RenderFailure, RenderSpec
    from svgeval.svg.renderers import render_function

    data, renderer = Path(sys.argv[1]), sys.argv[2]
    pairs = release_pairs(data)
    distinct = sorted({svg for pair in pairs.values() for svg in pair})
    with Renderer(render_function=render_function(renderer)) as pool:
        drawn = render_many(pool, distinct, RenderSpec.square(72))
    failed = sum(1 for image in drawn if isinstance(image, RenderFailure))
    print(f"{len(distinct)} distinct SVGs, {failed} failed, {time.perf_counter() - STARTED:.2f} s")


if __name__ == "__main__":
    main()
