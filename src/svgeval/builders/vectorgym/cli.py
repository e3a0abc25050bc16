"""``svgeval vectorgym ...``: a VectorGym-layout dataset from any folder of SVGs, and the overall
VectorGym score of four run directories (see :mod:`svgeval.tasks.vectorgym.overall`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from svgeval.builders import BuildInputError
from svgeval.builders.skips import SkipLog
from svgeval.builders.svg_files import read_svg_folder
from svgeval.builders.vectorgym.sketch import build_dataset
from svgeval.render.isolated import Renderer
from svgeval.runner import RunDir
from svgeval.tasks.vectorgym.overall import TASK_COMPONENTS, Inversion, Reading, overall

app = typer.Typer(no_args_is_help=True, help="VectorGym data tools and overall score.")


@app.command("build")
def build(
    svg_dir: Annotated[Path, typer.Argument(help="Folder of .svg files.")],
    out: Annotated[Path, typer.Option("--out", help="Dataset folder to write.")],
    seed: Annotated[int, typer.Option(help="Seed of the sketch strokes.")] = 0,
    captions: Annotated[Path | None, typer.Option(
        help="JSON object: file stem -> caption (fills text_caption).")] = None,
) -> None:
    """Sketch every SVG (seeded, hand-drawn look) into a VectorGym-layout parquet dataset."""
    svgs = {Path(name).stem: svg for name, svg in read_svg_folder(svg_dir).items()}
    if not svgs:
        raise BuildInputError(f"no usable .svg files in {svg_dir}")
    texts = json.loads(captions.read_text(encoding="utf-8")) if captions else None
    skipped = SkipLog()
    with Renderer(timeout_s=5.0) as renderer:
        path = build_dataset(svgs, out, renderer, seed=seed, captions=texts, skipped=skipped)
    for line in skipped.lines():
        typer.echo(line, err=True)
    typer.echo(f"wrote {path}; run: svgeval run vectorgym-sketch --data {out}")


@app.command("overall")
def overall_score(
    runs: Annotated[list[Path], typer.Argument(help="One run directory of each VectorGym task.")],
    inversion: Annotated[str, typer.Option(
        help="linear: 100 (1 - x) for MSE and LPIPS; clipped: 100 max(0, 1 - x).")] = "linear",
    reading: Annotated[str, typer.Option(
        help="released: failures drawn as a white placeholder; worst: the _worst keys.")
    ] = "released",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The overall VectorGym score: the mean of the four task scores (paper Sec. 3.5)."""
    if inversion not in ("linear", "clipped") or reading not in ("released", "worst"):
        raise BuildInputError("--inversion takes linear|clipped and --reading released|worst")
    per_task: dict[str, dict[str, float | None]] = {}
    for run in runs:
        results = RunDir(run).read_results()
        if results is None:
            raise BuildInputError(f"{run}: no results.json; name a finished run directory")
        if results.task not in TASK_COMPONENTS:
            raise BuildInputError(f"{run} is a run of {results.task}, not of a VectorGym task")
        if results.task in per_task:
            raise BuildInputError(f"two runs of {results.task}; give one run of each task")
        groups = {key.split("/", 1)[0] for key in results.metrics}
        if len(groups) != 1:
            raise BuildInputError(f"{run}: expected one split, found {', '.join(sorted(groups))}")
        per_task[results.task] = {k.split("/", 1)[1]: v for k, v in results.metrics.items()}
    inv: Inversion = "linear" if inversion == "linear" else "clipped"
    read: Reading = "released" if reading == "released" else "worst"
    score, tasks = overall(per_task, inv, read)
    if as_json:
        typer.echo(json.dumps({"vectorgym_score": score, "inversion": inversion,
                               "reading": reading, "tasks": {
                                   t.task: {"score": t.score, **t.components} for t in tasks}}))
        return
    for task in tasks:
        parts = ", ".join(f"{key} {value:.2f}" for key, value in task.components.items())
        typer.echo(f"{task.task}: {task.score:.2f} ({parts})")
    typer.echo(f"VectorGym score: {score:.2f} (inversion {inversion}, reading {reading})")
