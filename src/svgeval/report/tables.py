"""A table of numbers with its best values marked, written as Markdown, CSV, HTML or LaTeX.

Leaderboards and comparisons build a :class:`Table` once; each writer renders it. Values keep
their exact float so CSV round-trips the numbers of ``results.json`` bit for bit (``repr``);
the other formats show the formatted text and mark the best value of each comparison in bold.

The best value follows the registered metric (:func:`rank_key`): its direction, or the distance
to the value it is best at (RLD: 0); counts are not ranked. It is marked only on a value that
may win (:func:`mark_best`): not on an incomplete run's, not on a degenerate baseline's, and not
when a degenerate baseline in the same comparison does as well.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from svgeval.metrics.registry import MetricInfo
from svgeval.report.page import esc


@dataclass(frozen=True)
class Column:
    """A column: ``key`` names it in CSV (a ``results.json`` key), ``label`` for people."""

    key: str
    label: str


@dataclass(frozen=True)
class Cell:
    """A cell: ``text`` for people, ``value`` (numbers only) for CSV, ``best`` in bold."""

    text: str
    value: float | None = None
    numeric: bool = False
    best: bool = False


@dataclass(frozen=True)
class Table:
    """A titled table with notes printed under it."""

    title: str
    columns: list[Column]
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)


def rank_key(info: MetricInfo | None) -> Callable[[float], float] | None:
    """A key that is lower for better values of the metric ``info`` (None: no declared
    direction)."""
    if info is None:
        return None
    if info.best_at is not None:
        target = info.best_at
        return lambda value: abs(value - target)
    return (lambda value: -value) if info.higher_is_better else (lambda value: value)


def mark_best(
    values: Sequence[float | None],
    info: MetricInfo | None,
    eligible: Sequence[bool] | None = None,
    degenerate: Sequence[bool] | None = None,
) -> list[bool]:
    """Which of ``values`` are marked best: the best of the ``eligible`` ones (ties all marked),
    unless a ``degenerate`` one is as good; nothing for a metric without a direction, a count
    (it grows with the samples, it does not rank them) or fewer than two values."""
    key = rank_key(info)
    none = [False] * len(values)
    if key is None or info is None or info.count or sum(v is not None for v in values) < 2:
        return none
    eligible = eligible if eligible is not None else [True] * len(values)
    degenerate = degenerate if degenerate is not None else none
    contenders = [key(value) for value, ok in zip(values, eligible) if ok and value is not None]
    if not contenders:
        return none
    best = min(contenders)
    floors = [key(value) for value, low in zip(values, degenerate) if low and value is not None]
    if floors and best >= min(floors):
        return [False] * len(values)
    return [ok and value is not None and key(value) == best for value, ok in zip(values, eligible)]


def number_cells(
    values: Sequence[float | None],
    info: MetricInfo | None,
    text: Callable[[float | None], str],
    eligible: Sequence[bool] | None = None,
    degenerate: Sequence[bool] | None = None,
) -> list[Cell]:
    """Cells of values compared with each other, the best marked (see :func:`mark_best`)."""
    marks = mark_best(values, info, eligible, degenerate)
    return [
        Cell(text=text(value), value=value, numeric=True, best=mark)
        for value, mark in zip(values, marks)
    ]


def to_csv(table: Table) -> str:
    """Column keys, then exact values (``repr`` of the float, empty for none)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([column.key for column in table.columns])
    for row in table.rows:
        writer.writerow(
            [
                (repr(cell.value) if cell.value is not None else "") if cell.numeric else cell.text
                for cell in row
            ]
        )
    return buffer.getvalue()


def _md_text(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(table: Table) -> str:
    """A Markdown table under a bold title, best values in bold, notes in italics."""
    lines = [f"**{_md_text(table.title)}**", ""]
    lines.append("| " + " | ".join(_md_text(c.label) for c in table.columns) + " |")
    numeric = [any(row[i].numeric for row in table.rows) for i in range(len(table.columns))]
    lines.append("|" + "|".join("---:" if right else "---" for right in numeric) + "|")
    for row in table.rows:
        cells = [f"**{_md_text(c.text)}**" if c.best else _md_text(c.text) for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"_{_md_text(note)}_" for note in table.notes]
    return "\n".join(lines).rstrip() + "\n"


def to_html(table: Table) -> str:
    """An HTML fragment: a heading, the table (best cells with class ``best``), notes."""
    head = "".join(f"<th>{esc(c.label)}</th>" for c in table.columns)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="best"><b>{esc(c.text)}</b></td>' if c.best else f"<td>{esc(c.text)}</td>"
            for c in row
        )
        + "</tr>"
        for row in table.rows
    )
    notes = "".join(f'<p class="hint">{esc(note)}</p>' for note in table.notes)
    return (
        f"<h2>{esc(table.title)}</h2>\n<table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>\n{notes}\n"
    )


_LATEX = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "↑": r"$\uparrow$", "↓": r"$\downarrow$", "→": r"$\rightarrow$", "·": r"$\cdot$",
    "†": r"$\dagger$",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX.get(char, char) for char in text)


def to_latex(table: Table) -> str:
    """A booktabs ``table`` environment, best values in ``\\textbf``, notes as comments."""
    spec = "l" + "r" * (len(table.columns) - 1)
    lines = [
        r"\begin{table}[t]", r"\centering",
        rf"\caption{{{latex_escape(table.title)}}}",
        rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
        " & ".join(latex_escape(c.label) for c in table.columns) + r" \\", r"\midrule",
    ]
    for row in table.rows:
        cells = [
            rf"\textbf{{{latex_escape(c.text)}}}" if c.best else latex_escape(c.text) for c in row
        ]
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    lines += [f"% {note}" for note in table.notes]
    return "\n".join(lines) + "\n"


WRITERS: dict[str, Callable[[Table], str]] = {
    "md": to_markdown,
    "csv": to_csv,
    "html": to_html,
    "latex": to_latex,
}
"""Each output format's writer."""
