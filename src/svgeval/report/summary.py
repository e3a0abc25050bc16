"""The end-of-run summary: one row per group, one column per metric, plus failure counts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table


def _format(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.4f}"
    return f"{value:.3e}"


def _arrow(higher_is_better: bool | None) -> str:
    if higher_is_better is None:
        return ""
    return " ↑" if higher_is_better else " ↓"


def summary_table(results: Mapping[str, Any], directions: Mapping[str, bool] | None = None) -> Table:
    """A rich table of ``results.json``; a metric header gets an arrow when its direction is known."""
    metrics: Mapping[str, float | None] = results.get("metrics", {})
    counts: Mapping[str, Mapping[str, Any]] = results.get("counts", {})
    groups = list(counts) + sorted({key.split("/", 1)[0] for key in metrics} - set(counts))
    names = sorted({key.split("/", 1)[1] for key in metrics if "/" in key})
    title = f"{results.get('task')} · {results.get('model')}"
    if not results.get("complete", True):
        title += " · INCOMPLETE"
    table = Table(title=title)
    table.add_column("group")
    table.add_column("n", justify="right")
    table.add_column("invalid", justify="right")
    for name in names:
        table.add_column(name + _arrow((directions or {}).get(name)), justify="right")
    for group in groups:
        count = counts.get(group, {})
        row = [group, str(count.get("n", "")), str(count.get("n_invalid", ""))]
        row += [_format(metrics.get(f"{group}/{name}")) for name in names]
        table.add_row(*row)
    return table
