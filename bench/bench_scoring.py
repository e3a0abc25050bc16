"""Scoring throughput: the 600 SVGEditBench samples with the identity model.

Run by hand:  .venv/bin/python bench/bench_scoring.py [--data ../shared/data/svgeditbench]
Prints samples/s with one render worker and with one per core (each sample renders twice:
the model output and the answer, 72x72, in the isolated CairoSVG pool).
"""

from __future__ import annotations

import os

from common import identity_run_rate, svgeditbench_arguments

from svgeval.runner import RunSettings


def main() -> None:
    args = svgeditbench_arguments(__doc__)
    cores = os.cpu_count() or 1
    for workers in sorted({1, cores}):
        n, rate = identity_run_rate(args.data, RunSettings(render_workers=workers))
        print(f"render workers {workers}: {n} samples, {rate:.1f} samples/s")


if __name__ == "__main__":
    main()
