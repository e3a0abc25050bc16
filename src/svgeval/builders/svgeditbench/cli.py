"""``svgeval svgeditbench build``: SVGEditBench cases from any folder of SVGs, with the paper's
rules (see :mod:`svgeval.builders.svgeditbench.builder`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, cast

import typer

from svgeval.builders import BuildInputError
from svgeval.builders.svgeditbench.builder import ColorStyle, build_benchmark, write_release

app = typer.Typer(no_args_is_help=True, help="SVGEditBench data tools.")


@app.command("build")
def svgeditbench_build(
    svg_dir: Annotated[Path, typer.Argument(help="Folder of .svg files.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write the release layout.")],
    seed: Annotated[int, typer.Option(help="Seed for colour draws.")] = 0,
    colors: Annotated[str, typer.Option(help="release (CSS names) or paper (hex).")] = "release",
) -> None:
    """Build SVGEditBench cases from any folder of SVGs with the paper's rules.

    Every case left out is counted on the console with its reason; the folder written always
    has the release's layout, so ``svgeval run svgeditbench --data OUT`` runs it.
    """
    if colors not in ("release", "paper"):
        raise BuildInputError("--colors must be release or paper")
    if out_dir.exists() and not out_dir.is_dir():
        raise BuildInputError(f"--out {out_dir} is a file, not a directory; choose a folder")
    files = sorted(svg_dir.glob("*.svg"))
    if not files:
        raise BuildInputError(f"no .svg files in {svg_dir}")
    build = build_benchmark(files, seed=seed, colors=cast("ColorStyle", colors))
    for line in build.skipped.lines():
        typer.echo(line, err=True)
    if not build.cases:
        raise BuildInputError(f"no case could be built from the {len(files)} files in {svg_dir}")
    count = write_release(build.cases, out_dir)
    typer.echo(f"wrote {count} cases to {out_dir}")
