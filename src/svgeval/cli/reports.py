"""Command line for reports built from run directories: ``report``, ``leaderboard``, ``compare``.

None of them calls a model. Each error a user can cause (not a run directory, runs that cannot
be compared, an unknown format) is one line and exit code 1 (:mod:`svgeval.cli.errors`).
"""

from __future__ import annotations

import sys
import time
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from svgeval.cli.errors import UserError, say, stdout_console, user_errors
from svgeval.report.compare import compare_runs
from svgeval.report.compare_page import build_comparison, comparison_table
from svgeval.report.leaderboard import FORMATS, LAYOUTS, leaderboard_text, split_boards
from svgeval.report.plots import group_plots
from svgeval.report.run_report import build_report
from svgeval.report.runs import load_run, run_labels
from svgeval.report.sources import load_sources

RunArgument = Annotated[Path, typer.Argument(help="A run directory (the --out of a run).")]
DataOption = Annotated[
    Path | None, typer.Option(help="Where the run's data is now, if it moved since the run.")
]
OpenOption = Annotated[bool, typer.Option("--open", help="Open the page in a browser.")]
Workers = Annotated[int | None, typer.Option(help="Render processes (default: one per CPU).")]


def _check_workers(workers: int | None) -> None:
    if workers is not None and workers < 1:
        raise UserError(f"--render-workers must be at least 1, got {workers}")


def _open(page: Path) -> None:
    webbrowser.open(page.resolve().as_uri())


def report(
    run_directory: RunArgument,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Folder of the page (default RUN/report).")
    ] = None,
    data: DataOption = None,
    open_: OpenOption = False,
    render_workers: Workers = None,
) -> None:
    """Write a static HTML report of one run: summary, plots and a gallery of every sample."""
    with user_errors():
        _check_workers(render_workers)
        started = time.perf_counter()
        run = load_run(run_directory)
        sources = load_sources(run.config, data)
        sources.check_answers(run_directory, run.samples)
        for note in run.notes:
            say(f"warning: {note}")
        if not sources.available:
            say(f"note: {sources.note}")
        target = out_dir or run_directory / "report"
        build = build_report(run, target, sources, workers=render_workers)
        counts = build.renders
        say(f"wrote {build.index} ({build.n_samples} samples; {counts.drawn} renders drawn, "
            f"{counts.reused} reused, {counts.failed_in_run} failed in the run and not drawn "
            f"again) in {time.perf_counter() - started:.1f} s")
    if open_:
        _open(build.index)


def leaderboard(
    runs: Annotated[list[Path], typer.Argument(help="Run directories, e.g. runs/*/.")],
    task: Annotated[str | None, typer.Option(help="Only the runs of this task.")] = None,
    format_: Annotated[
        str, typer.Option("--format", help=f"One of {', '.join(FORMATS)}.")
    ] = "md",
    layout: Annotated[
        str,
        typer.Option(help="paper: the paper's table where there is one (default for md, html "
                     "and latex); flat: one column per results.json key (default for csv)."),
    ] = "auto",
    plots: Annotated[
        Path | None,
        typer.Option(help="Also write metric-by-group plots (PNG and SVG) into this folder."),
    ] = None,
) -> None:
    """Runs side by side: one row per run, one column per metric, the best value marked.

    Runs on different data or task versions go to separate tables, and the reason is printed.
    """
    with user_errors():
        if format_ not in FORMATS:
            raise UserError(f"--format {format_}: choose one of {', '.join(FORMATS)}")
        if layout not in LAYOUTS:
            raise UserError(f"--layout {layout}: choose one of {', '.join(LAYOUTS)}")
        loaded = [load_run(path) for path in runs]
        if task is not None:
            loaded = [run for run in loaded if run.config.task == task]
            if not loaded:
                raise UserError(f"none of the {len(runs)} runs is a {task} run")
        for note in (note for run in loaded for note in run.notes):
            say(f"warning: {note}")
        boards, reasons = split_boards(loaded)
        for reason in reasons:
            say(f"note: {reason}")
        sys.stdout.write(leaderboard_text(boards, format_, layout))
        if plots is not None:
            for board in boards:
                folder = plots if len(boards) == 1 else plots / board.slug
                directions = {
                    name: board.runs[0].higher_is_better(name)
                    for name in dict.fromkeys(
                        key.rsplit("/", 1)[-1] for run in board.runs for key in run.results.metrics
                    )
                }
                pairs = list(zip(run_labels(board.runs), (run.results for run in board.runs)))
                written = group_plots(pairs, directions, folder)
                say(f"wrote {len(written)} plots to {folder}")


def compare(
    run_a: Annotated[Path, typer.Argument(help="The baseline run (A).")],
    run_b: Annotated[Path, typer.Argument(help="The run compared with it (B).")],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Folder of the HTML view (default: B/compare-<A name>)."),
    ] = None,
    data: DataOption = None,
    top: Annotated[int, typer.Option(help="Samples shown per metric, largest difference first.")]
    = 12,
    open_: OpenOption = False,
    render_workers: Workers = None,
) -> None:
    """Paired per-sample comparison of two runs of the same task and data.

    Per metric: the mean difference with a bootstrap 95% interval and the share of samples that
    improve; and the samples that differ most, side by side in an HTML view.
    """
    with user_errors():
        _check_workers(render_workers)
        if top < 1:
            raise UserError(f"--top must be at least 1, got {top}")
        a, b = load_run(run_a), load_run(run_b)
        comparison = compare_runs(a, b, top=top)
        sources = load_sources(a.config, data)
        for run in (a, b):
            sources.check_answers(run.root, run.samples)
        stdout_console().print(comparison_table(comparison))
        for note in comparison.notes:
            say(f"note: {note}")
        target = out_dir or run_b / f"compare-{a.name}"
        page = build_comparison(comparison, target, sources, workers=render_workers)
        say(f"wrote {page}")
    if open_:
        _open(page)
