"""``svgeval svgeditbench build``: SVGEditBench cases from any folder of SVGs, with the paper's
rules (see :mod:`svgeval.builders.svgeditbench.builder`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from svgeval.cli_errors import UserError, console, user_errors
from svgeval.cli_execute import stdout_console

if TYPE_CHECKING:
    from svgeval.builders.svgeditbench.builder import ColorStyle

svgeditbench_app = typer.Typer(no_args_is_help=True, help="SVGEditBench data tools.")
out = stdout_console()


@svgeditbench_app.command("build")
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
    from svgeval.builders.svgeditbench.builder import build_benchmark, write_release  # see cli.demo

    with user_errors():
        if colors not in ("release", "paper"):
            raise UserError("--colors must be release or paper")
        if out_dir.exists() and not out_dir.is_dir():
            raise UserError(f"--out {out_dir} is a file, not a directory; choose a folder")
        files = sorted(svg_dir.glob("*.svg"))
        if not files:
            raise UserError(f"no .svg files in {svg_dir}")
        build = build_benchmark(files, seed=seed, colors=cast("ColorStyle", colors))
        for line in build.skipped.lines():
            console.print(line, highlight=False, markup=False, soft_wrap=True)
        if not build.cases:
            raise UserError(f"no case could be built from the {len(files)} files in {svg_dir}")
        count = write_release(build.cases, out_dir)
        out.print(f"wrote {count} cases to {out_dir}", highlight=False, soft_wrap=True)
