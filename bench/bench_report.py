"""Report build time and page weight: the 600-sample SVGEditBench run of the identity model.

Run by hand:  .venv/bin/python bench/bench_report.py [--data ../shared/data/svgeditbench]
Runs SVGEditBench with the identity model into a scratch folder, then times `svgeval report`
three ways, each in a fresh interpreter as a user runs it: a first build (every render drawn), a
rebuild (every render reused), and a first build with one render worker. Prints what a browser loads to open the page (the HTML, style sheet,
script and sample index, then the renders of the first 50 cards) and the report's size on disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import svgeditbench_arguments

FIRST_PAGE = 50


def timed_build(run_dir: Path, out: Path, workers: int | None) -> float:
    """Wall-clock seconds of `svgeval report` in a fresh interpreter, as a user runs it."""
    command = [sys.executable, "-m", "svgeval.cli", "report", str(run_dir), "--out", str(out)]
    if workers is not None:
        command += ["--render-workers", str(workers)]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def kib(size: int) -> str:
    return f"{size / 1024:,.0f} KiB"


def first_page_renders(out: Path) -> int:
    """Bytes of the distinct PNGs the first page of cards shows."""
    import json

    text = (out / "data" / "samples.js").read_text(encoding="utf-8")
    samples = json.loads(text[text.index("{"): text.rstrip().rstrip(";").rindex("}") + 1])
    files = {image["src"] for sample in samples["samples"][:FIRST_PAGE]
             for image in sample["img"].values() if "src" in image}
    return sum((out / name).stat().st_size for name in files)


def main() -> None:
    args = svgeditbench_arguments(__doc__)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as scratch:
        run_dir = Path(scratch) / "identity"
        subprocess.run(
            [sys.executable, "-m", "svgeval.cli", "run", "svgeditbench", "--data", str(args.data),
             "--model", "identity", "--out", str(run_dir)],
            check=True, stdout=subprocess.DEVNULL,
        )
        out = Path(scratch) / "report"
        for label, workers in (("first build", None), ("rebuild", None), ("first build", 1)):
            if label == "first build":
                shutil.rmtree(out, ignore_errors=True)
            used = workers or cores
            print(f"{label}, {used} render worker(s): {timed_build(run_dir, out, workers):.2f} s")
        opening = [out / "index.html", out / "report.css", out / "report.js",
                   out / "data" / "samples.js"]
        loaded = sum(path.stat().st_size for path in opening)
        print(f"page opening: {kib(loaded)} (samples.js {kib(opening[-1].stat().st_size)}), "
              f"then {kib(first_page_renders(out))} of renders for the first {FIRST_PAGE} cards")
        total = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
        details = sum(path.stat().st_size for path in (out / "data").glob("details-*.js"))
        renders = list((out / "renders").glob("*.png"))
        print(f"on disk: {kib(total)} in all; {len(renders)} renders "
              f"{kib(sum(p.stat().st_size for p in renders))}; texts loaded on demand "
              f"{kib(details)}")


if __name__ == "__main__":
    main()
