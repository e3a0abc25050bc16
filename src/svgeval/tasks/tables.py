"""The layout of a paper's results table, declared by the task whose numbers fill it.

A task sets :attr:`~svgeval.tasks.base.Task.paper_table` to one of two shapes, and ``svgeval
leaderboard`` (:mod:`svgeval.report.layouts`) fills it with the ``results.json`` numbers of
comparable runs; tasks without one get the flat layout.

* :class:`MetricRowsTable`: one row per (group, metric) in the paper's order, one column per
  run (SVGEditBench's Table 1);
* :class:`GroupColumnsTable`: one row per run, and under each metric one column per group
  (SVGenius' per-tier tables).

Both read the plain metric keys, the paper's own reading.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableRow:
    """One row of a :class:`MetricRowsTable`: the ``<group>/<metric>`` number, with the
    paper's labels; ``percent`` prints a ratio as a percentage."""

    group: str
    label: str
    metric: str
    metric_label: str
    percent: bool = False


@dataclass(frozen=True)
class MetricRowsTable:
    """Rows of (group, metric) in the paper's order, a column per run; ``name`` is the paper's
    (``Table 1``). ``notes_invalid`` adds a note counting each run's invalid outputs, which
    the paper's means leave out."""

    name: str
    rows: tuple[TableRow, ...]
    notes_invalid: bool = False


@dataclass(frozen=True)
class GroupColumnsTable:
    """A row per run; under each of ``metrics`` (key, the paper's name) a column per group,
    ``group_order`` first and any other group after them, values to ``decimals`` places."""

    metrics: tuple[tuple[str, str], ...]
    group_order: tuple[str, ...] = ()
    decimals: int = 2
    name: str = "per-tier"


PaperTable = MetricRowsTable | GroupColumnsTable
"""The layouts a task may declare."""
