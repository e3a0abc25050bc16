"""The plain reference loop of the fast-scoring issue, standing alone (no svgeval import).

    python bench/plain_loop.py DATA      # prints the wall time of the whole process's loop

For each SVGEditBench case (``DATA/<n>_<Task>/{query,answer}/<id>``): the input SVG (the
query's ```svg block, what the identity model answers) and the answer SVG, each rendered by
CairoSVG to a 72 px PNG on white, decoded with Pillow, then the numpy MSE of the two: one
process, one render after the other. ``bench_scoring_compare.py`` times it in its own process
(after the imports) and as a fresh process like this one (interpreter start and imports
included, as a run of ``svgeval`` is timed).
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import cairosvg
import numpy as np
from PIL import Image
from release_pairs import release_pairs


def _pixels(svg: str) -> np.ndarray:
    data = cairosvg.svg2png(bytestring=svg.encode(), output_width=72, output_height=72,
                            background_color="white")
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), np.float64) / 255


def plain_loop(pairs: dict[str, tuple[str, str]]) -> tuple[float, dict[str, float]]:
    """(seconds, MSE per case) of rendering and comparing every pair, one after the other."""
    started = time.perf_counter()
    values = {key: float(np.mean((_pixels(a) - _pixels(b)) ** 2)) for key, (a, b) in pairs.items()}
    return time.perf_counter() - started, values


if __name__ == "__main__":
    seconds, values = plain_loop(release_pairs(Path(sys.argv[1])))
    print(f"{len(values)} cases, {seconds:.2f} s")
