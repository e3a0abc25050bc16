"""Peak memory of an SVGEditBench identity run against the number of samples (issue 30).

Run by hand:  .venv/bin/python bench/bench_memory.py [--data ../shared/data/svgeditbench]
              [--copies 167] [--renderer skia]

Two runs of ``svgeval run svgeditbench --model identity`` as a user runs them (fresh
interpreters, one after the other): a small one, 17 cases of each subtask (102 samples) of one
copy of the release, and a large one over ``--copies`` copies (167: 100,200 samples; each SVG
tagged with its copy, so no render is shared between copies, see ``bench_scoring_compare.py``).
Prints the peak RSS of each run's main process (the render workers' memory does not depend on
the number of samples), the difference per sample of the large run, and the wall times. The
target: at most 2 KiB a sample above the small run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from bench_scoring_compare import copy_release, timed_run
from common import compile_svgeval, svgeditbench_arguments


def main() -> None:
    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--copies", type=int, default=167)
        parser.add_argument("--renderer", default="skia")

    args = svgeditbench_arguments(__doc__, more)
    compile_svgeval()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        runs = {}
        for name, copies, limit in (("small", 1, ("--limit", "17")), ("large", args.copies, ())):
            data = root / f"release-{name}"
            copy_release(args.data, data, copies)
            load = " ".join(f"{value:.1f}" for value in os.getloadavg())
            out = root / f"run-{name}"
            seconds, rss, _ = timed_run(data, out, "--renderer", args.renderer, *limit)
            samples = len((out / "samples.jsonl").read_text().splitlines())
            runs[name] = (samples, rss)
            print(f"{name}: {samples} samples, peak RSS {rss:.1f} MiB, {seconds:.1f} s "
                  f"(load average at start {load})")
            shutil.rmtree(data)
            shutil.rmtree(out)
        (small_n, small_rss), (large_n, large_rss) = runs["small"], runs["large"]
        per_sample = (large_rss - small_rss) * 1024 / (large_n - small_n)
        print(f"above the small run: {large_rss - small_rss:.1f} MiB for {large_n - small_n} "
              f"samples more = {per_sample:.2f} KiB a sample (target: at most 2)")


if __name__ == "__main__":
    main()
