"""SVGEditBench identity scoring against the plain reference loop, side by side in one run.

Run by hand:  .venv/bin/python bench/bench_scoring_compare.py [--data ../shared/data/svgeditbench]

The plain loop: one process, CairoSVG to a 72 px PNG (white background), decoded with Pillow,
numpy MSE, for the 600 (input, answer) pairs. Then ``svgeval run svgeditbench --model identity``
as a user runs it (a fresh interpreter: start-up, imports and the worker pool included), with
CairoSVG, CairoSVG reading a warm render cache, and resvg. Prints wall times, their ratio to the
loop, the peak RSS of the run's main process, and how far its per-sample MSE is from the loop's.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import svgeditbench_arguments

from svgeval.tasks.base import TaskOptions
from svgeval.tasks.svgeditbench import SvgEditBench


def plain_loop(pairs: dict[str, tuple[str, str]]) -> tuple[float, dict[str, float]]:
    import cairosvg
    from PIL import Image

    def png(svg: str) -> np.ndarray:
        data = cairosvg.svg2png(bytestring=svg.encode(), output_width=72, output_height=72,
                                background_color="white")
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), np.float64) / 255

    started = time.perf_counter()
    values = {key: float(np.mean((png(a) - png(b)) ** 2)) for key, (a, b) in pairs.items()}
    return time.perf_counter() - started, values


def svgeval_run(data: Path, out: Path, *options: str) -> tuple[float, float, dict[str, float]]:
    """(wall seconds, peak RSS MiB of the main process, per-sample mse) of one CLI run."""
    command = [sys.executable, "-m", "svgeval.cli", "run", "svgeditbench", "--model", "identity",
               "--data", str(data), "--out", str(out), *options]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({status})")
    lines = (out / "samples.jsonl").read_text().splitlines()
    values = {r["id"]: r["metrics"]["mse"] for r in map(json.loads, lines)}
    return seconds, usage.ru_maxrss / 1024, values


def main() -> None:
    args = svgeditbench_arguments(__doc__)
    samples = SvgEditBench(TaskOptions(data=args.data)).load()
    pairs = {s.id: (s.input_svg or "", str(s.target["answer_svg"])) for s in samples}
    loop_s, reference = plain_loop(pairs)
    print(f"plain loop (CairoSVG PNG, numpy MSE, one process): {len(pairs)} samples, {loop_s:.2f} s")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        cache = ["--render-cache", str(root / "cache")]
        for name, options in (("cairosvg", ()), ("cairosvg, cold cache", cache),
                              ("cairosvg, warm cache", cache), ("resvg", ("--renderer", "resvg"))):
            seconds, rss, values = svgeval_run(args.data, root / name.replace(" ", "_"), *options)
            diff = max(abs(values[k] - reference[k]) for k in reference)
            print(f"svgeval run, {name:21}: {seconds:5.2f} s = {seconds / loop_s:.2f} x loop, "
                  f"peak RSS {rss:.0f} MiB, max |mse - loop mse| {diff:.2e}")


if __name__ == "__main__":
    main()
