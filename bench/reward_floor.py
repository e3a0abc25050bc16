"""The floor under a reward call: the same renders by a plain loop, one process per core.

    python bench/reward_floor.py DATA RENDERER    # prints the floor's wall time for one GRPO step

The renders are those one reward call of ``bench_rewards.py`` draws (``step_renders``): each
prompt's reference and each distinct SVG of its completions, at the preset's 128 px (or
``bench_rewards.py --size``) on white. Each of ``os.cpu_count()`` processes, started and warmed
up before the clock starts, draws its share in a plain loop with the renderer's own calls and
nothing else: no sanitiser, no viewBox fitting, no isolation, no scoring, no pixels sent back
(skia: ``SVGDOM`` drawn on a raster surface and read back as an array; CairoSVG: its parser and
cairo surface, read back as an array, no PNG written).
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

SIZE = 128


def draw_skia(svg: str, size: int = SIZE) -> np.ndarray:
    """skia's own render of ``svg`` at ``size`` px on white, fitted as skia fits a container."""
    import skia

    dom = skia.SVGDOM.MakeFromStream(skia.MemoryStream(svg.encode()))
    surface = skia.Surface(size, size)
    canvas = surface.getCanvas()
    canvas.clear(skia.ColorWHITE)
    if dom is not None:
        dom.setContainerSize(skia.Size(size, size))
        dom.render(canvas)
    return np.asarray(surface.toarray())


def draw_cairosvg(svg: str, size: int = SIZE) -> np.ndarray:
    """CairoSVG's own render of ``svg`` at ``size`` px on white, pixels read from its surface."""
    import cairosvg.parser
    import cairosvg.surface

    tree = cairosvg.parser.Tree(bytestring=svg.encode())
    surface = cairosvg.surface.PNGSurface(tree, None, 96, output_width=size, output_height=size,
                                          background_color="white")
    surface.cairo.flush()
    pixels = np.frombuffer(surface.cairo.get_data(), np.uint8).copy()
    surface.finish()
    return pixels


def draw_all(renderer: str, svgs: list[str], size: int = SIZE) -> int:
    """Draw each SVG at ``size`` px (a plain loop); the number drawn (a failure counts as
    drawn)."""
    draw = draw_skia if renderer == "skia" else draw_cairosvg
    for svg in svgs:
        try:
            draw(svg, size)
        except Exception:  # noqa: BLE001, S112 - a failed render still took its time
            continue
    return len(svgs)


def floor_seconds(renderer: str, svgs: list[str], processes: int | None = None,
                  size: int = SIZE) -> float:
    """Wall time of drawing ``svgs`` at ``size`` px split evenly over ``processes`` warm
    processes."""
    count = processes or os.cpu_count() or 1
    shares = [svgs[i::count] for i in range(count)]
    with ProcessPoolExecutor(count) as pool:
        warm_up = [svgs[:2]] * count  # each process imports the renderer and draws twice
        list(pool.map(draw_all, [renderer] * count, warm_up, [size] * count))
        started = time.perf_counter()
        list(pool.map(draw_all, [renderer] * count, shares, [size] * count))
        return time.perf_counter() - started


if __name__ == "__main__":
    from bench_rewards import step_renders

    drawn = step_renders(Path(sys.argv[1]))
    print(f"{len(drawn)} renders, {floor_seconds(sys.argv[2], drawn):.3f} s")
