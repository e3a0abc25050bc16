"""Peak memory of an SVGEditBench identity run against the number of samples (issue 30).

    python -m bench memory [--data ../shared/data/svgeditbench] [--set copies=167]
        [--set renderer=skia]

Two runs of ``svgeval run svgeditbench --model identity`` as a user runs them (fresh
interpreters, one after the other): a small one, 17 cases of each subtask (102 samples) of one
copy of the release, the floor, and a large one over ``copies`` copies (167: 100,200 samples;
each SVG tagged with its copy, so no render is shared between copies). The figures are the peak
RSS of each run's main process (the render workers' memory does not depend on the number of
samples) and the difference per sample of the large run, with the wall times. The target: at
most 2 KiB a sample above the small run.
"""

from __future__ import annotations

import shutil

from bench.measure import (
    Figures,
    Scale,
    Timed,
    compile_svgeval,
    copy_release,
    load,
    svgeditbench,
    svgeval_run,
)


def run(scale: Scale) -> Figures:
    copies = scale.pick("copies", 167, 2)
    renderer = scale.pick("renderer", "skia", "skia")
    figures = Figures()
    figures.note(f"svgeval at {compile_svgeval()}")
    source = svgeditbench(scale)
    runs: dict[str, tuple[int, Timed]] = {}
    for name, count, limit in (("small", 1, ("--limit", "17")), ("large", copies, ())):
        data = scale.workdir / f"release-{name}"
        copy_release(source, data, count)
        figures.note(f"{name} run: load average {load()} at its start")
        out = scale.workdir / f"run-{name}"
        timed = svgeval_run(data, out, "--renderer", renderer, *limit)
        runs[name] = (len((out / "samples.jsonl").read_text().splitlines()), timed)
        shutil.rmtree(data)
        shutil.rmtree(out)
    (small_n, small), (large_n, large) = runs["small"], runs["large"]
    floor = f"the small run's ({small_n} samples)"
    figures.add(f"peak RSS, {large_n} samples", large.rss_mib, "MiB", small.rss_mib, floor)
    figures.add(f"wall time, {large_n} samples", large.seconds, "s", small.seconds, floor)
    per_sample = (large.rss_mib - small.rss_mib) * 1024 / (large_n - small_n)
    figures.add("peak RSS above the small run, a sample", per_sample, "KiB", 2.0,
                "the target, 2 KiB", most=1.0)
    return figures
