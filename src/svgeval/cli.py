"""Command line: ``svgeval run``, ``score``, ``list``, ``demo`` and the data builders.

Every error a user can cause (bad path, bad flag, unreachable endpoint, malformed data) ends with a
one-line message saying what happened and what to do, and exit code 1 (2 for usage errors).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from svgeval import __version__
from svgeval.cli_errors import UserError, console, user_errors
from svgeval.cli_svgenius import svgenius_app
from svgeval.metrics import METRICS
from svgeval.models import MODEL_KINDS, ReplayModel, load_model, model_spec_forms
from svgeval.runner import RunDir, Runner, RunSettings
from svgeval.svg.demo_corpus import write_demo_corpus
from svgeval.tasks import all_tasks, get_task
from svgeval.tasks.base import TaskOptions
from svgeval.tasks.svgeditbench import build_cases, write_release
from svgeval.tasks.svgeditbench.builder import ColorStyle, build_benchmark

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Evaluate models on SVG benchmarks.")
svgeditbench_app = typer.Typer(no_args_is_help=True, help="SVGEditBench data tools.")
app.add_typer(svgeditbench_app, name="svgeditbench")
app.add_typer(svgenius_app, name="svgenius")
out = Console()


def _parse_sets(pairs: list[str], flag: str = "--set", form: str = "KEY=VALUE") -> dict[str, str]:
    extra = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"{flag} expects {form}, got {pair!r}")
        extra[key.strip()] = value.strip()
    return extra


def _progress_bar(total: int, done: int) -> Progress:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("invalid {task.fields[invalid]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    progress.add_task("samples", total=total, completed=done, invalid=0)
    return progress


def execute(runner: Runner, resume: bool) -> dict[str, Any]:
    """Run with a progress bar and print the summary table; returns results.json's content."""
    from svgeval.report import summary_table

    resumed = runner.prepare(resume)
    total, done = len(resumed.samples), len(resumed.done)
    invalid = sum(1 for r in resumed.done.values() if not r.get("valid"))
    with _progress_bar(total, done) as progress:
        (task_id,) = progress.task_ids

        def advance(record: dict[str, Any]) -> None:
            nonlocal invalid
            invalid += 0 if record.get("valid") else 1
            progress.update(task_id, advance=1, invalid=invalid)

        runner.progress = advance
        summary = asyncio.run(runner.run(resumed))
    out.print(summary_table(summary.results, runner.task.metric_directions))
    for metric, reason in summary.results.get("not_computed", {}).items():
        console.print(f"warning: {metric} was not computed: {reason}", highlight=False)
    missing = summary.results.get("model_report", {}).get("missing_ids", [])
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        console.print(f"warning: {len(missing)} samples had no response in the replay file: {shown}")
    console.print(f"run directory: {runner.run_dir.root}")
    return summary.results


@app.command()
def run(
    task: Annotated[str, typer.Argument(help="Task name; see `svgeval list tasks`.")],
    model: Annotated[str, typer.Option(help="Model spec; see `svgeval list models`.")] = "identity",
    out_dir: Annotated[Path, typer.Option("--out", help="Run directory.")] = Path("runs/latest"),
    data: Annotated[Path | None, typer.Option(help="Local copy of the official release.")] = None,
    tier: Annotated[str, typer.Option(help="Difficulty tier (tasks with tiers).")] = "all",
    resume: Annotated[bool, typer.Option(help="Continue the run in --out.")] = False,
    limit: Annotated[int | None, typer.Option(help="First N samples of each group.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for data generation and sampling.")] = 0,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    omit_temperature: Annotated[
        bool,
        typer.Option(
            "--omit-temperature", help="Send no temperature (reasoning models accept only theirs)."
        ),
    ] = False,
    max_tokens: Annotated[int | None, typer.Option(help="Cap on generated tokens.")] = None,
    concurrency: Annotated[int, typer.Option(help="Model requests in flight.")] = 8,
    timeout: Annotated[float, typer.Option(help="Seconds per model request.")] = 120.0,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of openai-compatible.")] = None,
    api_key_env: Annotated[str | None, typer.Option(help="Env variable with the API key.")] = None,
    render_workers: Annotated[int | None, typer.Option(help="Render processes.")] = None,
    render_timeout: Annotated[float, typer.Option(help="Seconds per render.")] = 10.0,
    set_: Annotated[list[str] | None, typer.Option("--set", help="Task option KEY=VALUE.")] = None,
    model_path: Annotated[
        list[str] | None,
        typer.Option(help="Local weights for a metric, METRIC=PATH (e.g. dino=/models/dinov2)."),
    ] = None,
) -> None:
    """Run TASK with a model and write the run directory."""
    with user_errors():
        if limit is not None and limit < 1:
            raise UserError("--limit must be at least 1")
        for metric, path in _parse_sets(model_path or [], "--model-path", "METRIC=PATH").items():
            os.environ[f"SVGEVAL_{metric.upper()}_MODEL"] = path
        task_cls = get_task(task)
        options = TaskOptions(data=data, seed=seed, tier=tier, extra=_parse_sets(set_ or []))
        backend = load_model(
            model,
            base_url=base_url,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout_s=timeout,
        )
        settings = RunSettings(
            temperature=None if omit_temperature else temperature,
            max_tokens=max_tokens,
            seed=seed,
            concurrency=concurrency,
            limit=limit,
            render_workers=render_workers,
            render_timeout_s=render_timeout,
        )
        results = execute(Runner(task_cls(options), backend, RunDir(out_dir), settings), resume)
    if not results.get("complete"):
        raise typer.Exit(1)


@app.command()
def score(
    run_directory: Annotated[Path, typer.Argument(help="A run directory with responses.jsonl.")],
) -> None:
    """Re-score the cached responses of a run without calling the model again."""
    with user_errors():
        run_dir = RunDir(run_directory)
        config = run_dir.read_config()
        if config is None:
            raise UserError(f"{run_directory} has no config.json; is it a run directory?")
        options = dict(config["task_options"])
        options["data"] = Path(options["data"]) if options["data"] else None
        task = get_task(config["task"])(TaskOptions(**options))
        settings = RunSettings(**config["settings"])
        backend = ReplayModel(run_dir.responses, spec=config["model"])
        run_dir.samples.unlink(missing_ok=True)
        execute(Runner(task, backend, run_dir, settings), resume=True)


@app.command("list")
def list_(
    what: Annotated[str, typer.Argument(help="tasks, models or metrics")],
) -> None:
    """List tasks, model backends or metrics."""
    with user_errors():
        if what == "tasks":
            for name, cls in all_tasks().items():
                out.print(f"[bold]{name}[/bold]  {cls.description}")
        elif what == "models":
            for form, summary in zip(model_spec_forms(), MODEL_KINDS.values()):
                out.print(f"[bold]{escape(form)}[/bold]  {summary}")
        elif what == "metrics":
            for info in sorted(METRICS.values(), key=lambda i: i.name):
                arrow = "higher is better" if info.higher_is_better else "lower is better"
                presets = ", ".join(info.presets) or "-"
                out.print(
                    f"[bold]{info.name}[/bold]  {info.summary}; {info.value_range}, {arrow}; "
                    f"presets: {presets}; source: {info.source}",
                    highlight=False,
                )
        else:
            raise UserError(f"cannot list {what!r}; choose tasks, models or metrics")


@app.command()
def demo(
    out_dir: Annotated[Path, typer.Option("--out", help="Run directory.")] = Path("runs/demo"),
    model: Annotated[str, typer.Option(help="identity (No Edit) or oracle.")] = "identity",
    seed: Annotated[int, typer.Option(help="Seed for the SVGEditBench colour draws.")] = 0,
) -> None:
    """SVGEditBench on the built-in icons: no server, no download."""
    with user_errors():
        data = out_dir / "data"
        names = write_demo_corpus(out_dir / "icons")
        cases = build_cases(sorted((out_dir / "icons").glob("*.svg")), seed=seed, names=names)
        write_release(cases, data)
        console.print(f"built {len(cases)} SVGEditBench cases from {len(names)} icons in {data}")
        task = get_task("svgeditbench")(TaskOptions(data=data, seed=seed))
        backend = load_model(model)
        run_dir = RunDir(out_dir / f"run-{model}")
        execute(Runner(task, backend, run_dir, RunSettings(seed=seed)), resume=True)


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
    with user_errors():
        if colors not in ("release", "paper"):
            raise UserError("--colors must be release or paper")
        files = sorted(svg_dir.glob("*.svg"))
        if not files:
            raise UserError(f"no .svg files in {svg_dir}")
        build = build_benchmark(files, seed=seed, colors=cast(ColorStyle, colors))
        for line in build.skipped.lines():
            console.print(line, highlight=False, markup=False, soft_wrap=True)
        if not build.cases:
            raise UserError(f"no case could be built from the {len(files)} files in {svg_dir}")
        count = write_release(build.cases, out_dir)
        out.print(f"wrote {count} cases to {out_dir}", highlight=False, soft_wrap=True)


@app.callback(invoke_without_command=True)
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    """svgeval: benchmarks and metrics for models that read, edit and write SVG."""
    if version:
        out.print(__version__)
        raise typer.Exit(0)


if __name__ == "__main__":
    sys.exit(app())
