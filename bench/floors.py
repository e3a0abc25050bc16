"""The floor of every scoring and reward case: the safe render, and nothing else (issue 30).

A model's output is always sanitised before it is drawn, so no scoring or reward can cost less
than the safe render of the SVGs it draws: :func:`~svgeval.svg.sanitize.check_svg` (the
sanitiser) and the renderer's own drawing, as :func:`svgeval.render.backends.render_function`
composes them (CairoSVG: :func:`~svgeval.render.cairo.render_svg_uint8`; skia and resvg also
fit the viewBox, which is part of their render), in a bare loop: no isolation, no time or memory
limits, no pixels sent back, no scoring, one process per core, each drawing an equal share.

Two ways to time it:

* :func:`safe_render_seconds`: processes started and warmed up before the clock (what a
  long-lived scorer, such as the reward scorer or its server, already has);
* :func:`fresh_floor`: the same as a fresh process, ``python -m bench.floors``, timed from
  its interpreter's start (as a run of ``svgeval`` is timed): the interpreter, its imports and
  its processes' start inside the time.
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

STARTED = time.perf_counter()


def draw_all(renderer: str, svgs: list[str], size: int) -> int:
    """The safe render of each SVG at ``size`` px on white, in a bare loop, its pixels
    dropped; the number drawn (a rejected or failed SVG still took its time, and counts)."""
    from svgeval.render.backends import render_function
    from svgeval.render.cairo import RenderSpec

    render, spec = render_function(renderer), RenderSpec.square(size)
    for svg in svgs:
        try:
            render(svg, spec)
        except Exception:  # noqa: BLE001, S112 - a refusal or a failure is a result here
            continue
    return len(svgs)


def _shares(svgs: list[str], processes: int) -> list[list[str]]:
    return [svgs[i::processes] for i in range(processes)]


def safe_render_seconds(renderer: str, svgs: list[str], size: int,
                        processes: int | None = None) -> float:
    """Wall seconds of the safe render of ``svgs`` at ``size`` px split evenly over
    ``processes`` (one per core by default), each started and warmed up (its renderer imported,
    two SVGs drawn) before the clock starts."""
    count = processes or os.cpu_count() or 1
    with ProcessPoolExecutor(count) as pool:
        list(pool.map(draw_all, [renderer] * count, [svgs[:2]] * count, [size] * count))
        started = time.perf_counter()
        list(pool.map(draw_all, [renderer] * count, _shares(svgs, count), [size] * count))
        return time.perf_counter() - started


def fresh_floor(renderer: str, svgs: list[str], size: int, scratch: Path) -> float:
    """Wall seconds of ``python -m bench.floors``: a fresh process that draws ``svgs`` (each
    once) at ``size`` px, one process per core, started inside the time."""
    from bench.measure import REPOSITORY, timed_process

    listed = scratch / f"floor-{renderer}.json"
    listed.write_text(json.dumps(svgs))
    command = [sys.executable, "-m", "bench.floors", renderer, str(size), str(listed)]
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(REPOSITORY),
                                                        os.environ.get("PYTHONPATH")]))}
    return timed_process(command, scratch / "floor.rss", env=env).seconds


def main() -> None:
    """``python -m bench.floors RENDERER SIZE SVGS.json``: :func:`fresh_floor`'s process."""
    renderer, size, listed = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    svgs = json.loads(listed.read_text())
    count = os.cpu_count() or 1
    with ProcessPoolExecutor(count) as pool:
        drawn = sum(pool.map(draw_all, [renderer] * count, _shares(svgs, count),
                             [size] * count))
    print(f"{drawn} SVGs drawn safely, {time.perf_counter() - STARTED:.2f} s")


if __name__ == "__main__":
    main()
