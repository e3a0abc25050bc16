"""Peak memory of SGP-GenBench's diversity (its set-level metric) against the number of answers.

Run by hand:  .venv/bin/python bench/bench_diversity_memory.py [--data ../shared/data/svgeditbench]
              [--answers 40,400] [--side 512]

For each count, a fresh process hands ``SGP-GenBench``'s ``set_score`` that many answers (two
per prompt, as ``--epochs 2``): distinct Twemoji SVGs of the SVGEditBench release, each given a
``--side`` px size (SGP-GenBench draws an answer at its own size), and prints the set-level
stage's peak RSS and the wall time of the call (its render workers apart). DINOv2 is replaced
by a stand-in that reads each view and returns its mean colour (no weights here): what is
measured is what the stage holds around the network, the pictures. Compare two versions by
running the script with each on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import SHARED_SVGEDITBENCH


def mean_colour(images: Any, **options: Any) -> Any:
    """The stand-in for DINOv2's features: each view's mean colour, read one at a time and
    turned into 8 bits as the metric turns it (``as_rgb_uint8``)."""
    from svgeval.metrics._pixels import as_rgb_uint8

    return np.asarray([as_rgb_uint8(image).reshape(-1, 3).mean(axis=0) + 1.0
                       for image in images], np.float32)


def measure(data: Path, answers: int, side: int) -> None:
    """``set_score`` of ``answers`` answers; print the peak RSS and the time."""
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
    items: list[Any] = [BatchItem(Sample(f"{k // 2:05d}", "object", [], "", target=None), svg, True)
             for k, svg in enumerate(svgs)]
    with Renderer() as renderer:
        started = time.perf_counter()
        values = task.set_score({"object": items}, MetricContext(renderer, batch_size=32))
        seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(items):6d} answers at {side} px: peak RSS {peak:7.1f} MiB, {seconds:6.2f} s, "
          f"diversity {values.metrics['object/diversity_checked']:.6f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=SHARED_SVGEDITBENCH)
    parser.add_argument("--answers", default="40,400")
    parser.add_argument("--side", type=int, default=512)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        measure(args.data, args.one, args.side)
        return
    for count in (int(n) for n in args.answers.split(",")):
        subprocess.run([sys.executable, __file__, "--data", str(args.data), "--side",
                        str(args.side), "--one", str(count)], check=True)


if __name__ == "__main__":
    main()
