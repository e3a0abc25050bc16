"""The floor under an identity run of SVGEditBench: its distinct SVGs drawn, nothing else.

    python bench/render_floor.py DATA RENDERER            # prints the process's wall time
    python bench/render_floor.py DATA RENDERER --plain

A fresh process (its interpreter start included, as a run's is) that lists the release and
draws each distinct SVG an identity run draws (every input and every answer, once) at 72 px,
one process per CPU:

* ``--plain``: the floor as issue 30 defines it: a plain loop in each process with the
  renderer's own calls (``reward_floor.draw_all``: no sanitiser, no viewBox fitting, no
  isolation, no pixels sent back), the processes started inside the timing;
* by default, the isolated floor: what any safe run must do and nothing else: start the render
  workers' server with the renderer preloaded (as ``svgeval run`` does) and render through the
  isolated pool (sanitiser, time and memory limits, pixels back). No records, no run directory,
  no scoring: the time between this and ``svgeval run`` is the runner's own overhead.

``bench_scoring_floor.py`` times both beside the run.
"""

from __future__ import annotations

import sys
import time

STARTED = time.perf_counter()


def plain() -> None:
    import os
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

    from release_pairs import release_pairs
    from reward_floor import draw_all

    data, renderer = Path(sys.argv[1]), sys.argv[2]
    distinct = sorted({svg for pair in release_pairs(data).values() for svg in pair})
    count = os.cpu_count() or 1
    with ProcessPoolExecutor(count) as pool:
        drawn = sum(pool.map(draw_all, [renderer] * count,
                             [distinct[i::count] for i in range(count)], [72] * count))
    print(f"{drawn} distinct SVGs drawn plainly, {time.perf_counter() - STARTED:.2f} s")


def main() -> None:
    from svgeval.render.forkserver import start_early

    start_early(sys.argv[2])
    from pathlib import Path

    from release_pairs import release_pairs

    from svgeval.render.backends import render_function
    from svgeval.render.cairo import RenderFailure, RenderSpec
    from svgeval.render.isolated import Renderer, render_many

    data, renderer = Path(sys.argv[1]), sys.argv[2]
    pairs = release_pairs(data)
    distinct = sorted({svg for pair in pairs.values() for svg in pair})
    with Renderer(render_function=render_function(renderer)) as pool:
        drawn = render_many(pool, distinct, RenderSpec.square(72))
    failed = sum(1 for image in drawn if isinstance(image, RenderFailure))
    print(f"{len(distinct)} distinct SVGs, {failed} failed, {time.perf_counter() - STARTED:.2f} s")


if __name__ == "__main__":
    plain() if "--plain" in sys.argv else main()
