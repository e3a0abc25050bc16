"""Tables: best values by direction, exact CSV values, and escaping in every format."""

from __future__ import annotations

import csv
import io
import random

from svgeval.report.page import script_json
from svgeval.report.tables import (
    Cell,
    Column,
    Table,
    mark_best,
    number_cells,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
)


def test_best_follows_the_direction_and_marks_ties() -> None:
    assert mark_best([0.2, None, 0.1, 0.1], higher_is_better=False) == [False, False, True, True]
    assert mark_best([0.2, None, 0.1], higher_is_better=True) == [True, False, False]
    assert mark_best([0.2, 0.1], higher_is_better=None) == [False, False]
    assert mark_best([0.2, None], higher_is_better=True) == [False, False]


def test_csv_round_trips_every_float_exactly() -> None:
    generator = random.Random(7)
    values = [generator.random() * 10 ** generator.randint(-12, 6) for _ in range(200)]
    values += [0.1 + 0.2, 1e-300, 5e-324, None]
    table = Table("t", [Column("run", "run")] + [Column(f"k{i}", "") for i in range(len(values))],
                  [[Cell("a"), *number_cells(values, False, str)]])
    row = next(csv.DictReader(io.StringIO(to_csv(table))))
    assert [float(row[f"k{i}"]) if row[f"k{i}"] else None for i in range(len(values))] == values


def test_text_is_escaped_in_every_format() -> None:
    hostile = "<img src=x onerror=alert(1)> | 50% & $x_1$"
    table = Table(hostile, [Column("a", hostile)], [[Cell(hostile)]], notes=[hostile])
    assert "<img" not in to_html(table)
    assert "\\| 50%" in to_markdown(table)
    latex = to_latex(table)
    assert r"50\% \& \$x\_1\$" in latex


def test_script_json_never_contains_markup() -> None:
    text = script_json({"k": "</script><svg onload=alert(1)>&amp;\u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
