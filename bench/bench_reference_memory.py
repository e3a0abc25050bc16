"""Peak memory of the reference renders a run keeps, against their number.

Run by hand:  .venv/bin/python bench/bench_reference_memory.py [--data ../shared/data/svgeditbench]
              [--counts 50,400] [--size 512]

For each count, a fresh process draws that many distinct Twemoji SVGs of the SVGEditBench release
at ``--size`` px through :class:`~svgeval.tasks.common.ReferenceRenders` (what StarVector,
VectorGym, VGBench, UniSVG, SVGenius and LICA use for their references; 512 px is StarVector's,
VectorGym's and VGBench's size), each once, as a run with one answer a reference does, and prints
its peak RSS (its render workers apart). Memory that grows with the count grows with the run.
Compare two versions by running the script with each on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
from pathlib import Path

from common import SHARED_SVGEDITBENCH


def draw(data: Path, count: int, size: int) -> None:
    """Draw ``count`` distinct SVGs of ``data`` through ReferenceRenders; print the peak RSS."""
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
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(svgs):5d} references at {size} px: peak RSS {peak:7.1f} MiB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=SHARED_SVGEDITBENCH)
    parser.add_argument("--counts", default="50,400")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # the child process's count
    args = parser.parse_args()
    if args.one is not None:
        draw(args.data, args.one, args.size)
        return
    for count in args.counts.split(","):
        subprocess.run([sys.executable, __file__, "--data", str(args.data), "--size",
                        str(args.size), "--one", count], check=True)


if __name__ == "__main__":
    main()
