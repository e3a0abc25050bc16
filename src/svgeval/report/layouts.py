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
direction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from svgeval.report.page import arrow
from svgeval.report.runs import LoadedRun
from svgeval.report.summary import format_value
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


def incomplete_notes(runs: Sequence[LoadedRun], labels: Sequence[str]) -> list[str]:
    """A line per run that lacks samples."""
    return [
        f"{label} is incomplete: {run.results.n} of {run.results.n_expected} samples"
        for run, label in zip(runs, labels)
        if not run.results.complete
    ]


def svgeditbench_table_1(runs: Sequence[LoadedRun], labels: Sequence[str], title: str) -> Table:
    """SVGEditBench Table 1: subtasks and metrics as rows, models as columns."""
    columns = [Column("task", "Task"), Column("metric", "Metric")] + [
        Column(label, label) for label in labels
    ]
    rows = []
    for group, task_label, metric, metric_label in SVGEDITBENCH_TABLE_1:
        key = f"{group}/{metric}"
        values = [run.results.metrics.get(key) for run in runs]
        text = percent if metric == "ratio" else format_value
        higher = runs[0].higher_is_better(metric)
        cells = number_cells(values, higher, text)
        rows.append([Cell(task_label), Cell(metric_label + arrow(higher)), *cells])
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
        higher = runs[0].higher_is_better(metric)
        for tier in tiers:
            key = f"{tier}/{metric}"
            columns.append(Column(key, f"{name} {tier}"))
            values = [run.results.metrics.get(key) for run in runs]
            per_column.append(number_cells(values, higher, two_decimals))
    rows = [
        [Cell(label)] + [column[index] for column in per_column]
        for index, label in enumerate(labels)
    ]
    return Table(title=f"{title} (per-tier layout)", columns=columns, rows=rows,
                 notes=model_notes(runs, labels) + incomplete_notes(runs, labels))


PAPER_LAYOUTS: dict[str, Layout] = {
    "svgeditbench": svgeditbench_table_1,
    **{task: svgenius_tiers for task in SVGENIUS_METRICS},
}
"""Each task with a paper layout."""
