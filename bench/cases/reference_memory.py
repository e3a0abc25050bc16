"""Peak memory of the reference renders a run keeps, against their number.

    python -m bench reference-memory [--data ../shared/data/svgeditbench]
        [--set counts=50,400] [--set size=512]

For each count, a fresh process (spawned) draws that many distinct Twemoji SVGs of the
SVGEditBench release at ``size`` px through :class:`~svgeval.tasks.common.ReferenceRenders`
(what StarVector, VectorGym, VGBench, UniSVG, SVGenius and LICA use for their references; 512 px
is StarVector's, VectorGym's and VGBench's size), each once, as a run with one answer a
reference does, and reports its peak RSS (its render workers apart). The floor is the same
process with the first count: memory that grows with the count grows with the run.
"""

from __future__ import annotations

import multiprocessing
import resource
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.measure import Figures, Scale, svgeditbench


def draw(data: Path, count: int, size: int) -> tuple[int, float]:
    """Draw ``count`` distinct SVGs of ``data`` through ReferenceRenders; (the number drawn,
    this process's peak RSS in MiB)."""
    from svgeval.render.cairo import RenderSpec
    from svgeval.render.isolated import Renderer
    from svgeval.tasks.common import ReferenceRenders

    svgs: dict[str, None] = {}
    for path in sorted(data.rglob("*.svg")):
        svgs[path.read_text(encoding="utf-8")] = None
        if len(svgs) == count:
            break
    references = ReferenceRenders(RenderSpec.square(size, background="white"))
    with Renderer() as renderer:
        for svg in svgs:
            references.get(svg, renderer)
    return len(svgs), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def in_fresh_process(data: Path, count: int, size: int) -> tuple[int, float]:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as fresh:
        return fresh.submit(draw, data, count, size).result()


def run(scale: Scale) -> Figures:
    counts = [int(n) for n in scale.pick("counts", "50,400", "4,20").split(",")]
    size = scale.pick("size", 512, 128)
    data = svgeditbench(scale)
    figures = Figures()
    first, floor = in_fresh_process(data, counts[0], size)
    for count in counts[1:]:
        drawn, peak = in_fresh_process(data, count, size)
        figures.add(f"peak RSS, {drawn} references at {size} px", peak, "MiB", floor,
                    f"{first} references")
    return figures
