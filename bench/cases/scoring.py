"""SVGEditBench identity scoring at 6,000 samples against the safe-render floor (issue 30).

    python -m bench scoring [--data ../shared/data/svgeditbench]
        [--set copies=10] [--set renderers=cairosvg,skia] [--set rounds=1]

Each round, for each renderer, one after the other: the floor (:func:`bench.floors.fresh_floor`:
a fresh process that draws the run's distinct SVGs, every input and every answer once, at 72 px
through the sanitiser and the renderer, one process per core, and nothing else) and
``svgeval run svgeditbench --model identity`` as a user runs it (``python -m svgeval``, a fresh
interpreter, cold: no render cache). The target: the run within 1.5x of the floor. Also given:
the run's peak RSS and the CPU time of its main process (the render workers excluded: what the
run adds to the floor's work, in CPU, which the load sways less than the wall time), and the load
average when the round started (the machine may be shared: the ratio, measured side by side, is
what counts; under heavy load a process with more threads also takes a larger share of the
cores). Each run must write a record for every sample. ``copies=N`` scores N copies of the
release, each SVG tagged with its copy, so no render is shared between copies (10: 6,000
samples).
"""

from __future__ import annotations

import shutil

from bench.floors import fresh_floor
from bench.measure import Figures, Scale, identity_release, load, svgeval_run

SIZE = 72
"""SVGEditBench's render size."""


def run(scale: Scale) -> Figures:
    copies = scale.pick("copies", 10, 1)
    renderers = scale.pick("renderers", "cairosvg,skia", "cairosvg,skia").split(",")
    rounds = scale.pick("rounds", 1, 1)
    figures = Figures()
    data, pairs, distinct = identity_release(scale, copies, figures)
    for round_ in range(1, rounds + 1):
        figures.note(f"round {round_}: load average {load()} at its start")
        for renderer in renderers:
            floor = fresh_floor(renderer, distinct, SIZE, scale.workdir)
            out = scale.workdir / f"run-{renderer}-{round_}"
            timed = svgeval_run(data, out, "--renderer", renderer)
            records = len((out / "samples.jsonl").read_text().splitlines())
            if records != len(pairs):
                raise RuntimeError(f"{records} records for {len(pairs)} samples")
            shutil.rmtree(out)
            name = f"round {round_}, {renderer}"
            figures.add(f"{name}: svgeval run", timed.seconds, "s", floor,
                        "safe render, fresh process", most=1.5)
            figures.add(f"{name}: run's main process CPU", timed.cpu_s, "s")
            figures.add(f"{name}: run's peak RSS", timed.rss_mib, "MiB")
    return figures
