"""SVGEditBench identity scoring against the plain reference loop, side by side in one run.

Run by hand:  .venv/bin/python bench/bench_scoring_compare.py [--data ../shared/data/svgeditbench]
              [--copies 10]   (6,000 samples: peak memory against the number of samples)

The plain loop (``plain_loop.py``): one process, CairoSVG to a 72 px PNG (white background),
decoded with Pillow, numpy MSE, for the (input, answer) pairs; timed in this process after its
imports (the yardstick), and as a fresh process with its start-up, for reference. The floor of
each renderer (``render_floor.py``): a fresh process that only starts the isolated pool and
renders the distinct SVGs of the run; the lean pipeline (``lean_pipeline.py``): a fresh process
that does a run's essential work (hash the release, score in the workers, write the records)
and nothing else. Then ``svgeval run svgeditbench --model identity`` as a user runs it
(``python -m svgeval``, a fresh interpreter: start-up, imports and the worker pool included)
with each renderer, and with a render cache that an oracle run filled with the references (so
identity, a second model on the same data, renders only its own outputs). Prints
wall times, their ratio to the loop, the peak RSS of the run's main process (the render
workers' memory does not depend on the number of samples), and how far its per-sample MSE is
from the loop's.

svgeval's modules are compiled to bytecode first (``compileall``), as ``pip install`` does: an
editable install under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile them from source in
every timed process (about 0.1 s of its start-up here).

``--copies N`` scores N copies of the release (each SVG tagged with a comment naming its copy,
so no render is shared between copies): the same work N times, to show how memory grows.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import compile_svgeval, svgeditbench_arguments
from plain_loop import plain_loop

from svgeval.tasks.base import CommonOptions
from svgeval.tasks.svgeditbench import SvgEditBench


def copy_release(source: Path, target: Path, copies: int) -> None:
    """``copies`` copies of every case, ``<id>_<k>``, each SVG opened by a ``<!--k-->`` comment."""
    for query in source.glob("*/query/*.txt"):
        answer = query.parent.parent / "answer" / f"{query.stem}.svg"
        for k in range(copies):
            for path, text in ((query, re.sub(r"```svg\n", f"```svg\n<!--{k}-->", query.read_text())),
                               (answer, f"<!--{k}-->" + answer.read_text())):
                out = target / path.parent.relative_to(source) / f"{path.stem}_{k}{path.suffix}"
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(text)


PEAK_RSS = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - started
cpu = usage.ru_utime + usage.ru_stime
open(sys.argv[1], "w").write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {seconds} {cpu}")
"""
"""Runs a command and writes its exit code, peak RSS (KiB), wall time and CPU time (user and
system: the process's own; the render workers, children of the forkserver, are not counted).
Linux carries the
high-water mark of the memory a process was started from across ``exec``, so a run started
straight from this bench (whose own peak is that of its in-process loop) would report the
bench's peak: the run is started from this small process instead."""


def timed_process(command: list[str], report: Path) -> tuple[float, float, float]:
    """(wall s, peak RSS MiB, CPU s of the process itself) of ``command`` run from
    :data:`PEAK_RSS`."""
    subprocess.run([sys.executable, "-c", PEAK_RSS, str(report), *command], check=True)
    status, peak_kib, seconds, cpu = report.read_text().split()
    if int(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({status})")
    return float(seconds), int(peak_kib) / 1024, float(cpu)


def svgeval_run(data: Path, out: Path, *options: str, model: str = "identity") -> tuple[
        float, float, dict[str, float]]:
    """(wall s, peak RSS MiB of the run's process, per-sample mse)."""
    seconds, rss, _ = timed_run(data, out, *options, model=model)
    lines = (out / "samples.jsonl").read_text().splitlines()
    values = {r["id"]: r["metrics"]["mse"] for r in map(json.loads, lines)}
    return seconds, rss, values


def timed_run(data: Path, out: Path, *options: str, model: str = "identity",
              python: str = sys.executable) -> tuple[float, float, float]:
    """(wall s, peak RSS MiB, CPU s of the main process) of ``svgeval run svgeditbench`` on
    ``data`` into ``out``, run by
    the interpreter ``python`` (with the svgeval it imports)."""
    command = [python, "-m", "svgeval", "run", "svgeditbench", "--model", model,
               "--data", str(data), "--out", str(out), *options]
    return timed_process(command, out.with_name(out.name + ".rss"))


BELOW_A_RUN = (("render_floor.py", "floor (renders alone)"),
               ("lean_pipeline.py", "lean pipeline"))
"""Fresh processes that do part of a run's work (see each script), to show how near a run's
time is to what its work must cost on this machine."""


def main() -> None:
    import argparse

    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--copies", type=int, default=1)
        parser.add_argument("--renderers", default="cairosvg,skia,resvg")

    args = svgeditbench_arguments(__doc__, more)
    compile_svgeval()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        data = args.data
        if args.copies > 1:
            data = root / "release"
            copy_release(args.data, data, args.copies)
        samples = SvgEditBench(CommonOptions(data=data)).load()
        pairs = {s.id: (s.input_svg or "", s.target.answer_svg) for s in samples}
        loop_s, reference = plain_loop(pairs)
        started = time.perf_counter()
        subprocess.run([sys.executable, str(Path(__file__).with_name("plain_loop.py")), str(data)],
                       check=True, stdout=subprocess.DEVNULL)
        process_s = time.perf_counter() - started
        print(f"plain loop (CairoSVG PNG, numpy MSE, one process): {len(pairs)} samples, "
              f"{loop_s:.2f} s in this process, {process_s:.2f} s as a fresh process")
        runs: list[tuple[str, tuple[str, ...]]] = []
        for name in args.renderers.split(","):
            cache = ("--renderer", name, "--render-cache", str(root / f"cache-{name}"))
            runs += [(name, ("--renderer", name)), (f"{name}, references cached", cache)]
        for name in args.renderers.split(","):
            for script, what in BELOW_A_RUN:
                started = time.perf_counter()
                subprocess.run([sys.executable, str(Path(__file__).with_name(script)),
                                str(data), name], check=True, stdout=subprocess.DEVNULL)
                seconds = time.perf_counter() - started
                print(f"{what + ', ' + name:41}: {seconds:5.2f} s = {seconds / loop_s:.2f} x loop")
        for name, options in runs:
            out = root / re.sub(r"\W+", "_", name)
            if "--render-cache" in options:  # a first model (the oracle) renders the references
                svgeval_run(data, root / "oracle", *options, model="oracle")
                shutil.rmtree(root / "oracle")
            seconds, rss, values = svgeval_run(data, out, *options)
            diff = max(abs(values[k] - reference[k]) for k in reference)
            print(f"{'svgeval run, ' + name:41}: {seconds:5.2f} s = {seconds / loop_s:.2f} x loop "
                  f"({seconds / process_s:.2f} x the loop process), "
                  f"peak RSS {rss:.0f} MiB, "
                  f"max |mse - loop mse| {diff:.2e}")
            shutil.rmtree(out)


if __name__ == "__main__":
    main()
