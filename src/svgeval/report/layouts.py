"""The papers' table layouts, filled with the numbers of comparable runs.

* ``svgeditbench``: Table 1 of Nishina & Matsui (CVPRW 2024): one row per subtask and metric in
  the paper's order (MSE for every task, and the compression ratio in percent), one column per
  model. These are the paper's protocol readings (``<subtask>/mse``, ``compression/ratio``:
  valid outputs only); the invalid outputs of each run are listed under the table.
* ``svgenius-*``: the SVGenius per-tier tables: one row per model, and under each of the
  paper's metrics one column per tier (easy, medium, hard). Plain keys only (the paper's
  protocol); the ``*_all`` readings are in the flat layout.

A layout takes the runs of one board (same task, version and data) and their labels, and
returns a :class:`~svgeval.report.tables.Table`; best values follow each metric's declared
direction, never on an incomplete run or a degenerate baseline (:func:`ranked_cells`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from svgeval.metrics.registry import MetricInfo
from svgeval.report.runs import LoadedRun
from svgeval.report.summary import BEST_AT_NOTE, arrow, format_value, has_best_at
from svgeval.report.tables import Cell, Column, Table, number_cells

Layout = Callable[[Sequence[LoadedRun], Sequence[str], str], Table]
"""(runs, their labels, title) -> table."""

SVGEDITBENCH_TABLE_1 = (
    ("change_color", "Change Color", "mse", "MSE"),
    ("set_contour", "Set Contour", "mse", "MSE"),
    ("compression", "Compression", "mse", "MSE"),
    ("compression", "Compression", "ratio", "Compression ratio"),
    ("upside_down", "Upside-Down", "mse", "MSE"),
    ("transparency", "Transparency", "mse", "MSE"),
    ("crop_to_half", "Crop to Half", "mse", "MSE"),
)
"""(group, task label, metric, metric label) of each row of SVGEditBench's Table 1."""

SVGENIUS_METRICS = {
    "svgenius-understanding": (("perceptual_acc", "PQA"), ("semantic_acc", "SQA")),
    "svgenius-bugfix": (("acc", "Acc"), ("render_acc", "Render acc")),
    "svgenius-optimize": (("ccr", "CCR"), ("mse", "MSE")),
    "svgenius-style-edit": (("rmse", "RMSE"), ("rld", "RLD"), ("acc", "Acc")),
}
"""The metrics of each SVGenius task's per-tier table, with the paper's names."""

TIER_ORDER = ("easy", "medium", "hard")


def percent(value: float | None) -> str:
    """A ratio as a percentage, as Table 1 prints the compression ratio."""
    return "n/a" if value is None else f"{value * 100:.2f}%"


def two_decimals(value: float | None) -> str:
    """A 0-100 score as the SVGenius tables print it."""
    return "n/a" if value is None else f"{value:.2f}"


def model_notes(runs: Sequence[LoadedRun], labels: Sequence[str]) -> list[str]:
    """A line naming the model of each run whose label is not its model (none if all are)."""
    named = [f"{label} = {run.config.model}" for run, label in zip(runs, labels)
             if label != run.config.model]
    return ["models: " + "; ".join(named)] if named else []


def ranked_cells(runs: Sequence[LoadedRun], values: Sequence[float | None],
                 info: MetricInfo | None, text: Callable[[float | None], str]) -> list[Cell]:
    """The runs' values of one metric, the best marked among the complete runs that are not
    degenerate baselines, and only where it beats every degenerate baseline's value."""
    return number_cells(values, info, text,
                        eligible=[run.answered_all and not run.degenerate for run in runs],
                        degenerate=[run.degenerate for run in runs])


def marked_labels(runs: Sequence[LoadedRun], labels: Sequence[str]) -> list[str]:
    """Each label, with ``(incomplete: 420/600 answered)`` after a run that lacks answers."""
    return [label + (f" ({run.incomplete})" if run.incomplete else "")
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
    baselines = [label for run, label in zip(runs, labels) if run.degenerate]
    if baselines:
        notes.append(f"degenerate baselines (answers made without doing the task): "
                     f"{', '.join(baselines)}; no value they reach is marked best")
    return notes + [note for run in runs for note in run.notes]


def svgeditbench_table_1(runs: Sequence[LoadedRun], labels: Sequence[str], title: str) -> Table:
    """SVGEditBench Table 1: subtasks and metrics as rows, models as columns."""
    columns = [Column("task", "Task"), Column("metric", "Metric")] + [
        Column(label, label) for label in marked_labels(runs, labels)
    ]
    rows = []
    for group, task_label, metric, metric_label in SVGEDITBENCH_TABLE_1:
        key = f"{group}/{metric}"
        values = [run.results.metrics.get(key) for run in runs]
        info = runs[0].info(metric)
        cells = ranked_cells(runs, values, info, percent if metric == "ratio" else format_value)
        rows.append([Cell(task_label), Cell(metric_label + arrow(info)), *cells])
    notes = model_notes(runs, labels) + incomplete_notes(runs, labels)
    invalid = [
        f"{label}: {sum(int(c.get('n_invalid', 0)) for c in run.results.counts.values())}"
        for run, label in zip(runs, labels)
    ]
    notes.append("invalid outputs (left out of these means, as in the paper): " + ", ".join(invalid))
    return Table(title=f"{title} (Table 1 layout)", columns=columns, rows=rows, notes=notes)


def svgenius_tiers(runs: Sequence[LoadedRun], labels: Sequence[str], title: str) -> Table:
    """An SVGenius per-tier table: models as rows, each metric's tiers as columns."""
    metrics = SVGENIUS_METRICS[runs[0].config.task]
    found = {key.split("/", 1)[0] for run in runs for key in run.results.metrics}
    tiers = [tier for tier in TIER_ORDER if tier in found] + sorted(found - set(TIER_ORDER))
    columns = [Column("run", "Model")]
    per_column: list[list[Cell]] = []
    for metric, name in metrics:
        info = runs[0].info(metric)
        for tier in tiers:
            key = f"{tier}/{metric}"
            columns.append(Column(key, f"{name} {tier}{arrow(info)}"))
            values = [run.results.metrics.get(key) for run in runs]
            per_column.append(ranked_cells(runs, values, info, two_decimals))
    rows = [
        [Cell(label)] + [column[index] for column in per_column]
        for index, label in enumerate(marked_labels(runs, labels))
    ]
    best_at = [BEST_AT_NOTE] if has_best_at(runs[0].config.task, dict(metrics)) else []
    return Table(title=f"{title} (per-tier layout)", columns=columns, rows=rows,
                 notes=best_at + model_notes(runs, labels) + incomplete_notes(runs, labels))


PAPER_LAYOUTS: dict[str, Layout] = {
    "svgeditbench": svgeditbench_table_1,
    **{task: svgenius_tiers for task in SVGENIUS_METRICS},
}
"""Each task with a paper layout."""
