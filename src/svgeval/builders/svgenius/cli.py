"""``svgeval svgenius ...``: build new SVGenius cases from any folder of SVGs.

Each command writes a task file in the released layout; evaluate it with
``svgeval run svgenius-<task> --set file=FILE``. Sources left out are counted on stderr with
their reason. The generators render with their own pool and short time limit
(:data:`~svgeval.builders.render_checks.GENERATOR_TIMEOUT_S`), never the 10 s default of
scoring: buggy SVGs can hang CairoSVG.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from svgeval.builders import BuildInputError
from svgeval.builders.skips import SkipLog
from svgeval.builders.svg_files import read_svg_folder, write_cases
from svgeval.builders.svgenius.bug_injector import build_bugfix_cases
from svgeval.builders.svgenius.bug_types import ERROR_TYPES
from svgeval.builders.svgenius.optimize_generator import build_optimize_cases
from svgeval.builders.svgenius.qa_generation import generate_qa_items
from svgeval.builders.svgenius.style_edit_generator import build_style_edit_cases
from svgeval.builders.svgenius.style_edit_rules import EDIT_KINDS
from svgeval.models import load_model

app = typer.Typer(no_args_is_help=True, help="SVGenius data tools.")

SvgDir = Annotated[Path, typer.Argument(help="Folder of .svg files.")]
OutFile = Annotated[Path, typer.Option("--out", help="Task file to write (JSON).")]
Seed = Annotated[int, typer.Option(help="Seed; the same seed gives the same cases.")]


class NoSvgs(BuildInputError):
    """The folder holds no usable SVG."""


def _svgs(folder: Path) -> dict[str, str]:
    svgs = read_svg_folder(folder)
    if not svgs:
        raise NoSvgs(f"no usable .svg files in {folder}")
    return svgs


def _write(cases: list[dict[str, Any]], skipped: SkipLog, out: Path, task: str) -> None:
    """Report what was left out and why, then write the cases."""
    for line in skipped.lines():
        typer.echo(line, err=True)
    write_cases(cases, out)
    typer.echo(f"wrote {len(cases)} cases to {out}; run: svgeval run {task} --set file={out}")


def _csv(value: str, allowed: tuple[str, ...], flag: str) -> list[str]:
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    unknown = sorted(set(chosen) - set(allowed))
    if unknown or not chosen:
        raise BuildInputError(f"{flag} takes a comma-separated subset of {', '.join(allowed)}")
    return chosen


@app.command("build-bugfix")
def build_bugfix(
    svg_dir: SvgDir,
    out: OutFile,
    types: Annotated[str, typer.Option(help="Error types, comma-separated.")] = ",".join(
        ERROR_TYPES
    ),
    count: Annotated[int, typer.Option(help="Errors injected per case.")] = 1,
    seed: Seed = 0,
) -> None:
    """Inject seeded errors (tag, path-command, attribute) whose render differs."""
    skipped = SkipLog()
    cases = build_bugfix_cases(
        _svgs(svg_dir),
        error_types=_csv(types, ERROR_TYPES, "--types"),
        count=count,
        seed=seed,
        skipped=skipped,
    )
    _write(cases, skipped, out, "svgenius-bugfix")


@app.command("build-style-edit")
def build_style_edit(
    svg_dir: SvgDir,
    out: OutFile,
    kinds: Annotated[str, typer.Option(help="Edit kinds, comma-separated.")] = ",".join(
        EDIT_KINDS
    ),
    seed: Seed = 0,
) -> None:
    """Seeded style edits (colour, stroke, transform, gradient) that change the render."""
    skipped = SkipLog()
    cases = build_style_edit_cases(
        _svgs(svg_dir), kinds=_csv(kinds, EDIT_KINDS, "--kinds"), seed=seed, skipped=skipped
    )
    _write(cases, skipped, out, "svgenius-style-edit")


@app.command("build-optimize")
def build_optimize(svg_dir: SvgDir, out: OutFile) -> None:
    """Ground truth from SVGO (svgo-py) in the released style, checked by rendering."""
    skipped = SkipLog()
    cases = build_optimize_cases(_svgs(svg_dir), skipped=skipped)
    _write(cases, skipped, out, "svgenius-optimize")


@app.command("make-qa")
def make_qa(
    svg_dir: SvgDir,
    out: OutFile,
    model: Annotated[str, typer.Option(help="A vision model spec, e.g. openai:gpt-4o.")],
    base_url: Annotated[str | None, typer.Option(help="Endpoint of openai-compatible.")] = None,
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = 4,
) -> None:
    """Generate multiple-choice questions with the paper's prompt and a vision model."""
    _svgs(svg_dir)
    backend = load_model(model, base_url=base_url, concurrency=concurrency)
    result = asyncio.run(generate_qa_items(svg_dir, backend, out, concurrency=concurrency))
    typer.echo(f"wrote {len(result.items)} items to {out}; skipped {len(result.skipped)}")
    for name, reason in result.skipped.items():
        typer.echo(f"  skipped {name}: {reason}")
