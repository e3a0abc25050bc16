"""Run a prepared :class:`Runner` with progress output and print its summary.

On a terminal a progress bar shows done/total with the :class:`RunMonitor` line beside it; when
stdout is a file or a pipe, the line is printed every 30 s instead. Retries are printed as they
happen. At the end come the summary table (full width, also in a log), a line explaining its
readings, and warnings: metrics not computed, broken dataset references, samples still missing.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from svgeval.cli_errors import console
from svgeval.models.base import RetryEvent
from svgeval.report.summary import readings_note, summary_table
from svgeval.runner import Results, Runner
from svgeval.runner.progress import PeriodicReporter, RunMonitor
from svgeval.runner.records import SampleRecord
from svgeval.runner.runner import Resumed

PROGRESS_INTERVAL_S = 30.0


def stdout_console() -> Console:
    """A console for results: at its natural width when stdout is not a terminal, so that a
    table piped to a log is never cut at 80 columns."""
    return Console() if sys.stdout.isatty() else Console(width=10_000)


def execute(
    runner: Runner,
    resumed: Resumed,
    work: Callable[[Resumed], Coroutine[Any, Any, Results]],
) -> Results:
    """Run ``work`` (``runner.run`` or ``runner.rescore``) with progress output, then print the
    summary."""
    monitor = RunMonitor(len(resumed.units), len(resumed.done))

    def on_retry(event: RetryEvent) -> None:
        monitor.retry()
        console.print(
            f"retry: {event.sample_id} attempt {event.attempt} failed ({event.reason}); "
            f"next in {event.wait_s:.1f} s",
            highlight=False,
            markup=False,
        )

    runner.model.on_retry = on_retry
    if runner.judge is not None and runner.judge.model is not None:
        runner.judge.model.on_retry = on_retry
    if console.is_terminal:
        results = _with_bar(runner, resumed, work, monitor)
    else:

        def counted(record: SampleRecord) -> None:
            monitor.record(record)

        runner.progress = counted
        with PeriodicReporter(monitor, lambda line: console.print(line, markup=False),
                              PROGRESS_INTERVAL_S):
            results = asyncio.run(work(resumed))
    print_summary(runner, results)
    return results


def _with_bar(
    runner: Runner,
    resumed: Resumed,
    work: Callable[[Resumed], Coroutine[Any, Any, Results]],
    monitor: RunMonitor,
) -> Results:
    progress = Progress(
        TextColumn("samples"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[line]}"),
        console=console,
        transient=False,
    )
    with progress:
        task_id = progress.add_task(
            "samples", total=monitor.total, completed=monitor.done, line=""
        )

        def advance(record: SampleRecord) -> None:
            monitor.record(record)
            line = monitor.line().split(" · ", 2)[-1]
            progress.update(task_id, completed=monitor.done, line=line)

        runner.progress = advance
        return asyncio.run(work(resumed))


def print_summary(runner: Runner, results: Results) -> None:
    """The table, its readings, and what the user should know about the run."""
    out = stdout_console()
    out.print(summary_table(results, runner.task.higher_is_better))
    out.print(readings_note(results), highlight=False)
    by_reason: dict[str, list[str]] = {}
    for metric, reason in results.not_computed.items():
        by_reason.setdefault(reason, []).append(metric)
    for reason, metrics in by_reason.items():
        console.print(f"warning: not computed: {', '.join(metrics)}: {reason}", highlight=False)
    judge_failures = sum(
        sum(count.get("judge_failures", {}).values()) for count in results.counts.values()
    )
    if judge_failures:
        console.print(
            f"warning: {judge_failures} judged metrics have no verdict (counts.<group>."
            "judge_failures in results.json; the judge's replies are in judgments.jsonl)",
            highlight=False,
        )
    broken = sum(count.get("n_reference", 0) for count in results.counts.values())
    if broken:
        console.print(
            f"warning: {broken} samples have a reference in the dataset that cannot be rendered "
            "or parsed; they are recorded as 'reference' failures, not the model's",
            highlight=False,
        )
    missing = results.model_report.get("missing_ids", [])
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        console.print(f"warning: {len(missing)} samples had no response in the replay file: {shown}")
    if results.n_missing:
        console.print(
            f"{results.n_missing} of {results.n_expected} samples have no record yet; "
            "run again with --resume to complete them",
            highlight=False,
        )
    console.print(f"run directory: {runner.run_dir.root}", highlight=False)
