"""``svgeval leaderboard``: runs side by side, one table per set of comparable runs.

Two numbers belong in one table only when they were computed the same way: the same task, the
same task version (prompts and scoring) and the same data (the dataset hash of ``config.json``).
:func:`split_boards` puts runs into :class:`Board` s by that identity and says, for each extra
board, why its runs were kept apart. Each board becomes a table in the paper's layout where the
task declares one (:mod:`svgeval.report.layouts`) or the flat layout: one row per run, one column per
``results.json`` key, which CSV writes with the exact values of ``results.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from svgeval.report.layouts import (
    fill,
    incomplete_notes,
    marked_labels,
    paper_table,
    ranked_cells,
)
from svgeval.report.runs import LoadedRun, ReportError, run_labels
from svgeval.report.summary import BEST_AT_NOTE, arrow, format_metric, has_best_at
from svgeval.report.tables import WRITERS, Cell, Column, Table

FORMATS = tuple(WRITERS)
LAYOUTS = ("auto", "paper", "flat")


@dataclass(frozen=True)
class Board:
    """Runs whose numbers may share a table."""

    task: str
    task_version: str
    dataset_hash: str
    runs: list[LoadedRun]

    @property
    def title(self) -> str:
        """What the table compares."""
        return f"{self.task} v{self.task_version} · data {self.dataset_hash[:12]}"

    @property
    def slug(self) -> str:
        """A folder name for this board's files."""
        return f"{self.task}-v{self.task_version}-{self.dataset_hash[:8]}"


def _why_apart(board: Board, first: Board, labels: str) -> str:
    if board.task != first.task:
        return f"{labels}: a separate table for task {board.task}"
    if board.task_version != first.task_version:
        return (
            f"{labels}: a separate table: task version {board.task_version}, not "
            f"{first.task_version} (prompts or scoring changed; numbers are not comparable)"
        )
    return (
        f"{labels}: a separate table: different data (dataset hash {board.dataset_hash[:12]}, "
        f"not {first.dataset_hash[:12]}: another release, tier or --set file)"
    )


def split_boards(runs: Sequence[LoadedRun]) -> tuple[list[Board], list[str]]:
    """The runs grouped by task, task version and dataset hash (first-seen order), and one
    line per extra board saying why it is separate."""
    grouped: dict[tuple[str, str, str], list[LoadedRun]] = {}
    for run in runs:
        key = (run.config.task, run.config.task_version, run.config.dataset_hash)
        grouped.setdefault(key, []).append(run)
    boards = [Board(*key, runs=members) for key, members in grouped.items()]
    reasons = []
    for index, board in enumerate(boards[1:], start=1):
        first = next((b for b in boards[:index] if b.task == board.task), boards[0])
        names = ", ".join(str(run.root) for run in board.runs)
        reasons.append(_why_apart(board, first, names))
    return boards, reasons


def ordered_keys(runs: Sequence[LoadedRun]) -> list[str]:
    """Every ``results.json`` metric key of ``runs``: by group, then by metric name."""
    groups: dict[str, None] = {}
    for run in runs:
        groups.update(dict.fromkeys(run.groups()))
    keys = {key for run in runs for key in run.results.metrics}
    return sorted(keys, key=lambda key: (list(groups).index(key.rsplit("/", 1)[0]), key))


def flat_table(runs: Sequence[LoadedRun], labels: Sequence[str], title: str) -> Table:
    """One row per run (model, counts), one column per ``results.json`` key."""
    keys = ordered_keys(runs)
    columns = [Column("run", "run"), Column("model", "model"), Column("n", "n"),
               Column("n_expected", "of"), Column("n_answered", "answered"),
               Column("n_valid", "valid"), Column("complete", "complete")]
    columns += [Column(key, key + arrow(runs[0].info(key))) for key in keys]
    per_key = []
    for key in keys:
        info = runs[0].info(key)
        per_key.append(ranked_cells(runs, [run.results.metrics.get(key) for run in runs], info,
                                    partial(format_metric, info=info)))
    rows = [
        [Cell(label), Cell(run.config.model), Cell(str(run.results.n)),
         Cell(str(run.results.n_expected)), Cell(str(run.n_answered)),
         Cell(str(run.results.n_valid)), Cell(str(run.results.complete).lower())]
        + [column[index] for column in per_key]
        for index, (run, label) in enumerate(zip(runs, labels))
    ]
    best_at = [BEST_AT_NOTE] if has_best_at(runs[0].config.task, keys) else []
    return Table(title=title, columns=columns, rows=rows,
                 notes=best_at + incomplete_notes(runs, labels))


def board_table(board: Board, format_: str, layout: str) -> Table:
    """The table of one board in the chosen layout (``auto``: the paper's, except for CSV)."""
    labels = run_labels(board.runs)
    paper = paper_table(board.task)
    if layout == "paper" and paper is None:
        raise ReportError(f"no paper layout for task {board.task}; use --layout flat")
    if layout == "paper" or (layout == "auto" and format_ != "csv" and paper is not None):
        assert paper is not None
        return fill(paper, board.runs, labels, board.title)
    if format_ != "csv":  # CSV keeps the bare name: its columns say what the run lacks
        labels = marked_labels(board.runs, labels)
    return flat_table(board.runs, labels, board.title)


HTML_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>svgeval leaderboard</title>
<style>body{{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px}}
table{{border-collapse:collapse}}th,td{{border:1px solid #d1d9e0;padding:4px 8px;text-align:right}}
th{{background:#f6f8fa}}td:first-child,th:first-child{{text-align:left}}
td.best{{color:#1a7f37}}.hint{{color:#59636e;font-size:12px}}</style></head>
<body>
{body}</body></html>
"""


def leaderboard_text(boards: Sequence[Board], format_: str, layout: str) -> str:
    """Every board's table in ``format_`` (HTML: one standalone page), blank-line separated."""
    writer = WRITERS[format_]
    parts = [writer(board_table(board, format_, layout)) for board in boards]
    if format_ == "html":
        return HTML_PAGE.format(body="\n".join(parts))
    return "\n".join(parts)
