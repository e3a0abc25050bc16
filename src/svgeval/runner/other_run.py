"""Answers of another run, for the tasks that compare their answers with them.

A task that judges its answers against those of another run of itself (SVGenius style
transfer's ``--set reference_run=DIR``) says so through
:class:`~svgeval.tasks.base.ComparesWithRun`; :func:`load_samples` reads that run and hands
the task its answers before the task loads its samples, so tasks never read run directories.
Every place that loads a task's samples (a run, ``svgeval export``, the report's references,
the audit) goes through :func:`load_samples`, so all of them see the same samples and the same
dataset hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from svgeval.runner.run_dir import RunDir, latest_by_id
from svgeval.tasks.base import ComparesWithRun, RecordedAnswer, Sample, Task
from svgeval.tasks.options import InvalidOption


def recorded_answers(run: Path, task: str) -> dict[str, RecordedAnswer]:
    """The answers of ``run``, a run of ``task``, by sample id (its first epoch); an answer
    that failed has no SVG. :class:`InvalidOption` (a ValueError) when ``run`` is not a run
    directory of ``task``."""
    run_dir = RunDir(run)
    config = run_dir.read_config()
    if config is None:
        raise InvalidOption(f"the run to compare with, {run}, has no config.json; name a run "
                         f"directory of {task}")
    if config.task != task:
        raise InvalidOption(f"the run to compare with, {run}, is a run of {config.task}, not of "
                         f"{task}")
    return {
        record.id: RecordedAnswer(
            record.prompt, record.extracted if record.failure is None else None
        )
        for record in latest_by_id(r for r in run_dir.read_samples() if r.epoch == 1).values()
    }


def load_samples(task: Task) -> Sequence[Sample]:
    """``task.load()``, after handing a task that compares with another run that run's
    answers."""
    if isinstance(task, ComparesWithRun):
        run = task.compared_run()
        if run is not None:
            task.receive_answers(recorded_answers(run, task.name))
    return task.load()
