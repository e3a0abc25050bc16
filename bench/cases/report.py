"""Report build time and page weight: ``svgeval report`` of the SVGEditBench identity run.

    python -m bench report [--data ../shared/data/svgeditbench]

Runs SVGEditBench with the identity model into a scratch folder, then times ``svgeval report``
three ways, each in a fresh interpreter as a user runs it: a first build (every render drawn), a
rebuild (every render reused), and a first build with one render worker (not at the smoke
scale). The floor beside them:
the safe render of the run's distinct SVGs at the report's 160 px, as a fresh process, one
process per core (:func:`bench.floors.fresh_floor`). The notes give what a browser loads to
open the page (the HTML, style sheet, script and sample index, then the renders of the first 50
cards) and the report's size on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bench.floors import fresh_floor
from bench.measure import Figures, Scale, identity_pairs, seconds_of, svgeditbench

FIRST_PAGE = 50


def build(run_dir: Path, out: Path, workers: int | None) -> None:
    """``svgeval report`` in a fresh interpreter, as a user runs it."""
    command = [sys.executable, "-m", "svgeval.cli", "report", str(run_dir), "--out", str(out)]
    if workers is not None:
        command += ["--render-workers", str(workers)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kib(size: int) -> str:
    return f"{size / 1024:,.0f} KiB"


def first_page_renders(out: Path) -> int:
    """Bytes of the distinct PNGs the first page of cards shows."""
    text = (out / "data" / "samples.js").read_text(encoding="utf-8")
    samples = json.loads(text[text.index("{"): text.rstrip().rstrip(";").rindex("}") + 1])
    files = {image["src"] for sample in samples["samples"][:FIRST_PAGE]
             for image in sample["img"].values() if "src" in image}
    return sum((out / name).stat().st_size for name in files)


def run(scale: Scale) -> Figures:
    from svgeval.report.renders import REPORT_SPEC

    data = svgeditbench(scale)
    cores = os.cpu_count() or 1
    run_dir = scale.workdir / "identity"
    subprocess.run([sys.executable, "-m", "svgeval.cli", "run", "svgeditbench", "--data",
                    str(data), "--model", "identity", "--out", str(run_dir)],
                   check=True, capture_output=True)
    distinct = sorted({svg for pair in identity_pairs(data).values() for svg in pair})
    floor = fresh_floor("cairosvg", distinct, REPORT_SPEC.width, scale.workdir)
    where = f"safe render of {len(distinct)} SVGs at {REPORT_SPEC.width} px, fresh process"
    figures = Figures()
    out = scale.workdir / "report"
    builds = (("first build", None), ("rebuild", None), ("first build", 1))
    for label, workers in builds[:2] if scale.smoke else builds:
        if label == "first build":
            shutil.rmtree(out, ignore_errors=True)
        seconds = seconds_of(lambda workers=workers: build(run_dir, out, workers))  # type: ignore[misc]
        figures.add(f"{label}, {workers or cores} render worker(s)", seconds, "s", floor, where)
    opening = [out / "index.html", out / "report.css", out / "report.js",
               out / "data" / "samples.js"]
    loaded = sum(path.stat().st_size for path in opening)
    figures.note(f"page opening: {kib(loaded)} (samples.js {kib(opening[-1].stat().st_size)}), "
                 f"then {kib(first_page_renders(out))} of renders for the first {FIRST_PAGE} "
                 f"cards")
    total = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    details = sum(path.stat().st_size for path in (out / "data").glob("details-*.js"))
    renders = list((out / "renders").glob("*.png"))
    figures.note(f"on disk: {kib(total)} in all; {len(renders)} renders "
                 f"{kib(sum(p.stat().st_size for p in renders))}; texts loaded on demand "
                 f"{kib(details)}")
    return figures
