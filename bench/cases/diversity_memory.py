"""Peak memory of SGP-GenBench's diversity (its set-level metric) against the number of answers.

    python -m bench diversity-memory [--data ../shared/data/svgeditbench]
        [--set answers=40,400] [--set side=512]

For each count, a fresh process (spawned) hands ``SGP-GenBench``'s ``set_score`` that many
answers (two per prompt, as ``--epochs 2``): distinct Twemoji SVGs of the SVGEditBench release,
each given a ``side`` px size (SGP-GenBench draws an answer at its own size), and reports the
set-level stage's peak RSS and the wall time of the call (its render workers apart). The floor
is the same process with the first count. DINOv2 is replaced by a stand-in that reads each view
and returns its mean colour (no weights here): what is measured is what the stage holds around
the network, the pictures.
"""

from __future__ import annotations

import multiprocessing
import re
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench.measure import Figures, Scale, svgeditbench


def mean_colour(images: Any, **options: Any) -> Any:
    """The stand-in for DINOv2's features: each view's mean colour, read one at a time and
    turned into 8 bits as the metric turns it (``as_rgb_uint8``)."""
    import numpy as np

    from svgeval.metrics._pixels import as_rgb_uint8

    return np.asarray([as_rgb_uint8(image).reshape(-1, 3).mean(axis=0) + 1.0
                       for image in images], np.float32)


def measure(data: Path, answers: int, side: int) -> tuple[int, float, float, float | None]:
    """``set_score`` of ``answers`` answers: (answers, peak RSS MiB, seconds, diversity)."""
    from svgeval.render.isolated import Renderer
    from svgeval.tasks.base import BatchItem, CommonOptions, MetricContext, Sample
    from svgeval.tasks.sgp_genbench import genbench

    svgs: dict[str, None] = {}
    for path in sorted(data.rglob("*.svg")):
        text = re.sub(r"<svg ", f'<svg width="{side}" height="{side}" ',
                      path.read_text(encoding="utf-8"), count=1)
        svgs[text] = None
        if len(svgs) == answers:
            break
    vars(genbench)["dino_cls_features"] = mean_colour
    task = genbench.GenBenchObject(CommonOptions())
    items: list[Any] = [BatchItem(Sample(f"{k // 2:05d}", "object", [], "", target=None), svg,
                                  True) for k, svg in enumerate(svgs)]
    with Renderer() as renderer:
        started = time.perf_counter()
        values = task.set_score({"object": items}, MetricContext(renderer, batch_size=32))
        seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return len(items), peak, seconds, values.metrics["object/diversity_checked"]


def run(scale: Scale) -> Figures:
    counts = [int(n) for n in scale.pick("answers", "40,400", "4,16").split(",")]
    side = scale.pick("side", 512, 128)
    data = svgeditbench(scale)
    figures = Figures()
    results = []
    for count in counts:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as fresh:
            results.append(fresh.submit(measure, data, count, side).result())
    first, floor, floor_s, _ = results[0]
    for answers, peak, seconds, diversity in results[1:]:
        figures.add(f"peak RSS, {answers} answers at {side} px", peak, "MiB", floor,
                    f"{first} answers")
        figures.add(f"set_score, {answers} answers", seconds, "s", floor_s, f"{first} answers")
        figures.note(f"{answers} answers: diversity {diversity}")
    return figures
