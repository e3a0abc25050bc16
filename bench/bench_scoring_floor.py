"""SVGEditBench identity scoring against its render floors, side by side (issue 30).

Run by hand:  .venv/bin/python bench/bench_scoring_floor.py [--data ../shared/data/svgeditbench]
              [--copies 10] [--renderers cairosvg,skia] [--rounds 3]

Each round, for each renderer, one after the other: the two floors of ``render_floor.py``
(fresh processes that draw the run's distinct SVGs at 72 px, one process per core, and nothing
else: ``--plain``, the renderer's own calls in a plain loop, the floor as issue 30 defines it;
and the isolated floor, the same renders through svgeval's isolated pool and sanitiser, what a
safe run cannot avoid) and ``svgeval run svgeditbench --model identity`` as a user runs it
(``python -m svgeval``, a fresh interpreter, cold: no render cache). Prints each wall time, the
run's ratio to each floor of the same round, the run's peak RSS, the CPU time of each main
process (the render workers excluded: what the run adds to the floor's work, in CPU, which
the load sways less than the wall time), and the load average when the
round started (the machine may be shared: the ratio, measured side by side, is what counts;
under heavy load a process with more threads also takes a larger share of the cores). Each run
must write a record for every sample. ``--copies N``
scores N copies of the release, each SVG tagged with its copy, so no render is shared between
copies (see ``bench_scoring_compare.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench_scoring_compare import copy_release, timed_process, timed_run
from common import compile_svgeval, svgeditbench_arguments

HERE = Path(__file__).resolve().parent


def floor_seconds(data: Path, renderer: str, report: Path, *options: str) -> tuple[float, float]:
    """(wall s, CPU s of its main process) of ``render_floor.py`` as a fresh process."""
    command = [sys.executable, str(HERE / "render_floor.py"), str(data), renderer, *options]
    seconds, _, cpu = timed_process(command, report)
    return seconds, cpu


def main() -> None:
    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--copies", type=int, default=10)
        parser.add_argument("--renderers", default="cairosvg,skia")
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--baseline-python", help="interpreter of the code to compare with")

    args = svgeditbench_arguments(__doc__, more)
    compile_svgeval()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        data = root / "release"
        copy_release(args.data, data, args.copies)
        for round_ in range(1, args.rounds + 1):
            load = " ".join(f"{value:.1f}" for value in os.getloadavg())
            print(f"round {round_}, load average {load}")
            for renderer in args.renderers.split(","):
                plain, _ = floor_seconds(data, renderer, root / "plain.rss", "--plain")
                floor, floor_cpu = floor_seconds(data, renderer, root / "floor.rss")
                runs = {"run": sys.executable}
                if args.baseline_python:
                    runs["baseline"] = args.baseline_python
                line = (f"  {renderer:9} plain floor {plain:5.2f} s, isolated floor {floor:5.2f} s "
                        f"(CPU {floor_cpu:4.1f} s)")
                for name, python in runs.items():
                    out = root / f"{name}-{renderer}-{round_}"
                    seconds, rss, cpu = timed_run(data, out, "--renderer", renderer,
                                                  python=python)
                    records = len((out / "samples.jsonl").read_text().splitlines())
                    line += (f"   {name} {seconds:6.2f} s = {seconds / plain:.2f} x plain, "
                             f"{seconds / floor:.2f} x isolated "
                             f"(CPU {cpu:4.1f} s, {rss:.0f} MiB, {records} records)")
                    shutil.rmtree(out)
                print(line, flush=True)

if __name__ == "__main__":
    main()
