"""``svgeval sarena``: SArena's track composite from a text-to-SVG and an image-to-SVG run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer

from svgeval.builders import BuildInputError
from svgeval.runner import RunDir
from svgeval.tasks.sarena.composite import composite_from_results

app = typer.Typer(no_args_is_help=True, help="SArena composite score.")
_TASK = re.compile(r"sarena-(icon|illustration|chemistry)-(text2svg|img2svg)")


@app.command("composite")
def composite_score(
    runs: Annotated[list[Path], typer.Argument(
        help="A sarena-<track>-text2svg and a sarena-<track>-img2svg run directory.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """0.3 CLIP-I2I + 0.3 x 100 DINO + 0.2 x 100 SSIM + 0.2 x 100 (1 - LPIPS), as written,
    and as VLMEvalKit computes it (LPIPS and SSIM swapped, its issue #1695)."""
    found: dict[str, tuple[str, dict[str, float | None]]] = {}
    for run in runs:
        results = RunDir(run).read_results()
        if results is None:
            raise BuildInputError(f"{run}: no results.json; name a finished run directory")
        match = _TASK.fullmatch(results.task)
        if match is None:
            raise BuildInputError(
                f"{run} is a run of {results.task}, not of a SArena generation task")
        found[match.group(2)] = (match.group(1), dict(results.metrics))
    if set(found) != {"text2svg", "img2svg"} or len(runs) != 2:
        raise BuildInputError("give one text-to-SVG and one image-to-SVG run of the same track")
    track, text2svg = found["text2svg"]
    if found["img2svg"][0] != track:
        raise BuildInputError(f"the runs are of two tracks: {track} and {found['img2svg'][0]}")
    img2svg = found["img2svg"][1]
    written = composite_from_results(text2svg, img2svg, track)
    swapped = composite_from_results(text2svg, img2svg, track, "vlmevalkit")
    if written is None or swapped is None:
        raise BuildInputError("a run lacks CLIP-I2I, DINO, SSIM or LPIPS (not computed?); see its "
                        "results.json")
    if as_json:
        typer.echo(json.dumps({"track": track, "composite": written, "vlmevalkit": swapped}))
        return
    typer.echo(f"SArena {track} composite: {written:.2f} "
               f"(VLMEvalKit's swapped LPIPS/SSIM keys give {swapped:.2f})")
