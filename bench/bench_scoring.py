"""Scoring throughput: the 600 SVGEditBench samples with the identity model.

Run by hand:  .venv/bin/python bench/bench_scoring.py [--data ../shared/data/svgeditbench]
Prints samples/s with one render worker and with one per core (each sample renders twice:
the model output and the answer, 72x72, in the isolated CairoSVG pool).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from pathlib import Path

from common import svgeditbench_arguments

from svgeval.models.baselines import IdentityModel
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.tasks.base import TaskOptions
from svgeval.tasks.svgeditbench import SvgEditBench


def samples_per_second(data: Path, workers: int) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as scratch:
        settings = RunSettings(render_workers=workers)
        runner = Runner(
            SvgEditBench(TaskOptions(data=data)), IdentityModel(), RunDir(Path(scratch)), settings
        )
        resumed = runner.prepare(resume=False)
        started = time.perf_counter()
        summary = asyncio.run(runner.run(resumed))
        elapsed = time.perf_counter() - started
    return summary.n, summary.n / elapsed


def main() -> None:
    args = svgeditbench_arguments(__doc__)
    cores = os.cpu_count() or 1
    for workers in sorted({1, cores}):
        n, rate = samples_per_second(args.data, workers)
        print(f"render workers {workers}: {n} samples, {rate:.1f} samples/s")


if __name__ == "__main__":
    main()
