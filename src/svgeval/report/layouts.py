"""The papers' table layouts, filled with the numbers of comparable runs.

A task declares the layout of its paper's table (:attr:`~svgeval.tasks.base.Task.paper_table`,
the shapes of :mod:`svgeval.tasks.tables`); :func:`paper_table` finds it through the task
registry and :func:`fill` writes it as a :class:`~svgeval.report.tables.Table`:

* :class:`~svgeval.tasks.tables.MetricRowsTable` (SVGEditBench's Table 1): one row per subtask
  and metric in the paper's order, one column per model, and the invalid outputs of each run
  listed under the table (the paper's means leave them out);
* :class:`~svgeval.tasks.tables.GroupColumnsTable` (SVGenius' per-tier tables): one row per
  model, and under each of the paper's metrics one column per tier.

Both read the plain keys (the paper's protocol); the other readings are in the flat layout.
Best values follow each metric's declared direction, never on an incomplete run or a
degenerate baseline (:func:`ranked_cells`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from svgeval.metrics.registry import MetricInfo
from svgeval.report.runs import LoadedRun
from svgeval.report.summary import BEST_AT_NOTE, arrow, format_value, has_best_at
from svgeval.report.tables import Cell, Column, Table, number_cells
from svgeval.tasks import get_task
from svgeval.tasks.tables import GroupColumnsTable, MetricRowsTable, PaperTable


def paper_table(task: str) -> PaperTable | None:
    """The layout the task ``task`` declares (None: none, or the task is not installed)."""
    try:
        return get_task(task).paper_table
    except KeyError:
        return None


def percent(value: float | None) -> str:
    """A ratio as a percentage, as Table 1 prints the compression ratio."""
    return "n/a" if value is None else f"{value * 100:.2f}%"


def model_notes(runs: Sequence[LoadedRun], labels: Sequence[str]) -> list[str]:
    """A line naming the model of each run whose label is not its model (none if all are)."""
    named = [f"{label} = {run.config.model}" for run, label in zip(runs, labels)
             if label != run.config.model]
    return ["models: " + "; ".join(named)] if named else []


def ranked_cells(runs: Sequence[LoadedRun], values: Sequence[float | None],
                 info: MetricInfo | None, text: Callable[[float | None], str]) -> list[Cell]:
    """The runs' values of one metric, the best marked among the complete runs of the most
    samples that are not degenerate baselines, and only where it beats every degenerate
    baseline's value: a run of part of the data (``--limit``, a shard) is never ranked against
    runs of more samples."""
    most = max(run.samples_asked for run in runs)
    return number_cells(values, info, text,
                        eligible=[run.answered_all and not run.degenerate
                                  and run.samples_asked == most for run in runs],
                        degenerate=[run.degenerate for run in runs])


def marked_labels(runs: Sequence[LoadedRun], labels: Sequence[str]) -> list[str]:
    """Each label, with ``(incomplete: 420/600 answered)`` after a run that lacks answers and
    ``(12 of 72 samples)`` after a run of part of its data."""
    return [label + "".join(f" ({note})" for note in (run.incomplete, run.results.subset) if note)
            for run, label in zip(runs, labels)]


def incomplete_notes(runs: Sequence[LoadedRun], labels: Sequence[str]) -> list[str]:
    """A line per run that lacks answers, and one naming the degenerate baselines."""
    notes = [
        f"{label} is incomplete: {run.n_answered} of {run.results.n_expected} samples answered"
        f" ({run.results.n_missing} without a record, {run.results.n - run.n_answered} whose "
        "request failed); its values are never marked best"
        for run, label in zip(runs, labels)
        if run.incomplete
    ]
    most = max(run.samples_asked for run in runs)
    notes += [f"{label} ran {run.results.subset or f'{run.samples_asked} samples'} (--limit or "
              f"--shard): its values are never marked best beside runs of {most} samples"
              for run, label in zip(runs, labels) if run.samples_asked < most]
    baselines = [label for run, label in zip(runs, labels) if run.degenerate]
    if baselines:
        notes.append(f"degenerate baselines (answers made without doing the task): "
                     f"{', '.join(baselines)}; no value they reach is marked best")
    return notes + [note for run in runs for note in run.notes]


def metric_rows(layout: MetricRowsTable, runs: Sequence[LoadedRun], labels: Sequence[str],
                title: str) -> Table:
    """Subtasks and metrics as rows, models as columns."""
    columns = [Column("task", "Task"), Column("metric", "Metric")] + [
        Column(label, label) for label in marked_labels(runs, labels)
    ]
    rows = []
    for row in layout.rows:
        key = f"{row.group}/{row.metric}"
        values = [run.results.metrics.get(key) for run in runs]
        info = runs[0].info(row.metric)
        cells = ranked_cells(runs, values, info, percent if row.percent else format_value)
        rows.append([Cell(row.label), Cell(row.metric_label + arrow(info)), *cells])
    notes = model_notes(runs, labels) + incomplete_notes(runs, labels)
    if layout.notes_invalid:
        invalid = [
            f"{label}: {sum(c.n_invalid for c in run.results.counts.values())}"
            for run, label in zip(runs, labels)
        ]
        notes.append("invalid outputs (left out of these means, as in the paper): "
                     + ", ".join(invalid))
    return Table(title=f"{title} ({layout.name} layout)", columns=columns, rows=rows, notes=notes)


def group_columns(layout: GroupColumnsTable, runs: Sequence[LoadedRun], labels: Sequence[str],
                  title: str) -> Table:
    """Models as rows, each metric's groups as columns."""
    found = {key.split("/", 1)[0] for run in runs for key in run.results.metrics}
    groups = ([group for group in layout.group_order if group in found]
              + sorted(found - set(layout.group_order)))
    columns = [Column("run", "Model")]
    per_column: list[list[Cell]] = []

    def text(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.{layout.decimals}f}"

    for metric, name in layout.metrics:
        info = runs[0].info(metric)
        for group in groups:
            key = f"{group}/{metric}"
            columns.append(Column(key, f"{name} {group}{arrow(info)}"))
            values = [run.results.metrics.get(key) for run in runs]
            per_column.append(ranked_cells(runs, values, info, text))
    rows = [
        [Cell(label)] + [column[index] for column in per_column]
        for index, label in enumerate(marked_labels(runs, labels))
    ]
    best_at = [BEST_AT_NOTE] if has_best_at(runs[0].config.task, dict(layout.metrics)) else []
    return Table(title=f"{title} ({layout.name} layout)", columns=columns, rows=rows,
                 notes=best_at + model_notes(runs, labels) + incomplete_notes(runs, labels))


def fill(layout: PaperTable, runs: Sequence[LoadedRun], labels: Sequence[str],
         title: str) -> Table:
    """The table of ``layout`` with the numbers of ``runs`` (one board), labelled ``labels``."""
    if isinstance(layout, MetricRowsTable):
        return metric_rows(layout, runs, labels, title)
    return group_columns(layout, runs, labels, title)
