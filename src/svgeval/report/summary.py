"""The end-of-run summary: one row per group, one column per metric, failure counts, and a line
that explains the readings."""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table

from svgeval.runner.records import Results

Direction = Callable[[str], "bool | None"]
"""Metric key -> True when higher is better (None: unknown)."""


def format_value(value: float | None) -> str:
    """A mean for people: four decimals, scientific notation for very small or large values."""
    if value is None:
        return "n/a"
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.4f}"
    return f"{value:.3e}"


def _arrow(higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return ""
    return " ↑" if higher_is_better else " ↓"


def summary_table(results: Results, direction: Direction | None = None) -> Table:
    """A rich table of ``results.json``; a metric header gets an arrow when its direction is
    known."""
    metrics = results.metrics
    counts = results.counts
    groups = list(counts) + sorted({key.split("/", 1)[0] for key in metrics} - set(counts))
    names = sorted({key.split("/", 1)[1] for key in metrics if "/" in key})
    title = f"{results.task} · {results.model}"
    if not results.complete:
        title += f" · INCOMPLETE ({results.n_missing} missing)"
    table = Table(title=title)
    table.add_column("group")
    table.add_column("n", justify="right")
    table.add_column("invalid", justify="right")
    if any(count.get("n_reference") for count in counts.values()):
        table.add_column("bad ref", justify="right")
    for name in names:
        table.add_column(name + _arrow(direction(name) if direction else None), justify="right")
    for group in groups:
        count = counts.get(group, {})
        row = [group, str(count.get("n", "")), str(count.get("n_invalid", ""))]
        if len(table.columns) > 3 + len(names):
            row.append(str(count.get("n_reference", 0)))
        row += [format_value(metrics.get(f"{group}/{name}")) for name in names]
        table.add_row(*row)
    return table


def readings_note(results: Results) -> str:
    """One line under the table that says what its columns mean."""
    parts = ["↑/↓: higher/lower is better", "invalid: samples whose output could not be used"]
    if any(key.endswith("_all") for key in results.metrics):
        parts.append(
            "<metric>: the paper's protocol (usable outputs only); "
            "<metric>_all: every sample, failures scored as the task documents"
        )
    if results.model in ("identity", "oracle"):
        parts.append(
            "identity answers with the input unchanged (No Edit), oracle with the reference"
        )
    return "; ".join(parts) + "."
