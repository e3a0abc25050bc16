"""Run a prepared :class:`Runner` with progress output and print its summary.

Before the work, one line says what a resumed run reuses (``126 recorded, 30 cached answers to
score, 444 to ask``) and, for the ``identity`` and ``oracle`` baselines, which samples they
have no answer for (no input SVG, no reference answer). On a terminal a progress bar shows
done/total with the :class:`RunMonitor` line beside it; when stdout is a file or a pipe, the
line is printed every 30 s instead (tokens per second only for answers asked now, so never for
``svgeval score`` or ``merge``). Retries are printed as they happen (:class:`SaidEvents`, the events the backends are made with). At the end come the summary
table (full width, also in a log), a line explaining its readings, and warnings: metrics not
computed, broken dataset references, samples still missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Literal

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from svgeval.cli.errors import console, say, stdout_console
from svgeval.models.base import ModelEvents, RetryEvent
from svgeval.report.summary import judge_failures_note, readings_note, summary_table
from svgeval.runner import Results, Runner
from svgeval.runner.metric_stage import needs_batched_metrics
from svgeval.runner.progress import PeriodicReporter, RunMonitor
from svgeval.runner.records import SampleRecord
from svgeval.runner.resume import Resumed
from svgeval.tasks.base import Task

PROGRESS_INTERVAL_S = 30.0

Mode = Literal["run", "score", "merge"]
"""What ``work`` does: ask the model (``run``), score cached answers (``score``), or only
complete the results of merged records (``merge``)."""


def reuse_line(resumed: Resumed, mode: Mode, task: Task[Any]) -> str | None:
    """What the work reuses: ``resume: 126 of 600 samples recorded (kept), 30 cached answers to
    score, 444 to ask`` (None for a fresh run or a merge), and how many recorded samples of
    ``task`` still lack their model metrics."""
    pending = [unit for unit in resumed.units if unit.key not in resumed.done]
    cached = sum(1 for unit in pending if unit.key in resumed.responses)
    if mode == "score":
        return (f"score: {cached} cached answers to score, {len(pending) - cached} samples "
                "without one stay missing; no model is asked")
    if mode == "merge" or not (resumed.done or cached):
        return None
    line = (f"resume: {len(resumed.done)} of {len(resumed.units)} samples recorded (kept), "
            f"{cached} cached answers to score, {len(pending) - cached} to ask")
    lacking = sum(1 for record in resumed.done.values() if needs_batched_metrics(task, record))
    if lacking:
        line += (f"; {lacking} recorded samples lack their model metrics (the last run stopped "
                 "in its metric stage: if it was killed for memory, pass a smaller "
                 "--metric-batch-size)")
    return line


def baseline_line(runner: Runner, resumed: Resumed) -> str | None:
    """For a model without an answer for some samples (``identity`` without an input SVG,
    ``oracle`` without a reference answer: :attr:`Model.answers_from`), how many of the
    samples to ask it has none for (noted when the dataset was hashed: no sample read again)."""
    if not runner.unanswerable:
        return None
    pending = {unit.sample_id for unit in resumed.units if unit.key not in resumed.done}
    lacking = [runner.unanswerable[i] for i in pending if i in runner.unanswerable]
    if not lacking:
        return None
    which = ("this baseline has no answer for this task" if len(lacking) == len(pending)
             else f"this baseline has no answer for {len(lacking)} of {len(pending)} samples")
    return (f"note: {runner.spec} on {runner.task.name}: {which} ({lacking[0]}); they are "
            "scored as an empty answer and counted as failed: extract")


class SaidEvents:
    """The retries and notices of a run's backends, said as they happen: made before the
    backends (:meth:`of` gives each its :class:`ModelEvents`), the retries also counted on the
    progress line of the work :func:`execute` runs."""

    def __init__(self) -> None:
        self.monitor: RunMonitor | None = None
        """The progress line of the work under way (None before it starts)."""

    def of(self, who: str) -> ModelEvents:
        """The events of the backend ``who`` (model, judge)."""
        return ModelEvents(retry=self._retry, notice=lambda message: say(f"note: {who}: {message}"))

    def _retry(self, event: RetryEvent) -> None:
        if self.monitor is not None:
            self.monitor.retry()
        say(f"retry: {event.sample_id} attempt {event.attempt} failed ({event.reason}); "
            f"next in {event.wait_s:.1f} s")


def execute(
    runner: Runner,
    resumed: Resumed,
    work: Callable[[Resumed], Coroutine[Any, Any, Results]],
    mode: Mode = "run",
    shown_root: Path | None = None,
    said: SaidEvents | None = None,
) -> Results:
    """Run ``work`` (``runner.run``, ``runner.rescore`` or ``runner.finish``, as ``mode`` says)
    with progress output, then print the summary naming ``shown_root`` (default: the run's
    directory) as the run directory; ``said``, the events the backends were made with, counts
    their retries on the progress line."""
    for line in (reuse_line(resumed, mode, runner.task), baseline_line(runner, resumed) if mode == "run"
                 else None):
        if line:
            say(line)
    monitor = RunMonitor(len(resumed.units), len(resumed.done))
    cached = set(resumed.responses) if mode == "run" else None

    def count(record: SampleRecord) -> None:
        monitor.record(record, asked=cached is not None and record.key not in cached)

    if said is not None:
        said.monitor = monitor
    if console.is_terminal:
        results = _with_bar(runner, resumed, work, monitor, count)
    else:
        runner.progress = count
        runner.phases = SaidPhases(monitor)
        with PeriodicReporter(monitor, say, PROGRESS_INTERVAL_S):
            results = asyncio.run(work(resumed))
    print_summary(runner, results, shown_root)
    return results


def _with_bar(
    runner: Runner,
    resumed: Resumed,
    work: Callable[[Resumed], Coroutine[Any, Any, Results]],
    monitor: RunMonitor,
    count: Callable[[SampleRecord], None],
) -> Results:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[line]}", markup=False),
        console=console,
        transient=False,
    )
    with progress:
        task_id = progress.add_task(
            "samples", total=monitor.total, completed=monitor.done, line=""
        )

        def advance(record: SampleRecord) -> None:
            count(record)
            line = monitor.line().split(" · ", 2)[-1]
            progress.update(task_id, completed=monitor.done, line=line)

        runner.progress = advance
        runner.phases = PhaseBars(progress)
        return asyncio.run(work(resumed))


class SaidPhases:
    """For a log: each phase after the samples said when it starts, then counted by
    ``monitor``, whose line the periodic reporter writes."""

    def __init__(self, monitor: RunMonitor) -> None:
        self.monitor = monitor

    def start(self, name: str, total: int, unit: str) -> None:
        say(f"{name}: {total} {unit}")
        self.monitor.start(name, total, unit)

    def advance(self, done: int) -> None:
        self.monitor.advance(done)


class PhaseBars:
    """For a terminal: each phase after the samples as a bar of its own under theirs."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.current: TaskID | None = None

    def start(self, name: str, total: int, unit: str) -> None:
        self.current = self.progress.add_task(name, total=total, line=unit)

    def advance(self, done: int) -> None:
        if self.current is not None:
            self.progress.update(self.current, advance=done)


def print_summary(runner: Runner, results: Results, root: Path | None = None) -> None:
    """The table, its readings, and what the user should know about the run in ``root``
    (default: the runner's directory)."""
    out = stdout_console()
    out.print(summary_table(results))
    say(readings_note(results), out)
    by_reason: dict[str, list[str]] = {}
    for metric, reason in results.not_computed.items():
        by_reason.setdefault(reason, []).append(metric)
    for reason, metrics in by_reason.items():
        say(f"warning: not computed: {', '.join(metrics)}: {reason}")
    judge_failed = judge_failures_note(results.judge_failure_kinds or {})
    if judge_failed:
        say(f"warning: {judge_failed}: the judge's failures, not the model's (counts.<group>."
            "judge_failures in results.json; the judge's replies are in judgments.jsonl)")
    broken = sum(count.n_reference for count in results.counts.values())
    if broken:
        say(f"warning: {broken} samples have a reference in the dataset that cannot be rendered "
            "or parsed; they are recorded as 'reference' failures, not the model's")
    missing = results.model_report.get("missing_ids", [])
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        say(f"warning: {len(missing)} samples had no response in the replay file: {shown}")
    unmatched = results.model_report.get("unmatched_rows", 0)
    if unmatched:
        say(f"warning: {unmatched} of {results.model_report['rows']} rows of the VLMEvalKit "
            f"file answer no sample of this run (another task's rows, or ids the data lacks), "
            f"e.g. {results.model_report['unmatched_example']}")
    unanswered = results.n - (results.n_answered if results.n_answered is not None else results.n)
    if unanswered:
        say(f"error: {unanswered} of {results.n_expected} samples got no answer from the model "
            "(model_error in samples.jsonl; their numbers are failure values, not the model's): "
            "the run is incomplete; fix the cause and run again with --resume to ask again")
    if results.n_missing:
        say(f"{results.n_missing} of {results.n_expected} samples have no record yet; "
            "run again with --resume to complete them")
    say(f"run directory: {root or runner.run_dir.root}")
