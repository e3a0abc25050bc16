"""Tables: best values by direction, exact CSV values, and escaping in every format."""

from __future__ import annotations

import csv
import io
import random

from svgeval.metrics.registry import METRICS
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

MSE, ACCURACY, RLD, COUNT = (METRICS.get(name) for name in
                             ("mse", "accuracy", "rld", "sample_count"))


def test_best_follows_the_direction_and_marks_ties() -> None:
    assert mark_best([0.2, None, 0.1, 0.1], MSE) == [False, False, True, True]
    assert mark_best([0.2, None, 0.1], ACCURACY) == [True, False, False]
    assert mark_best([0.2, 0.1], None) == [False, False]
    assert mark_best([0.2, None], ACCURACY) == [False, False]


def test_rld_is_best_at_zero_and_counts_are_not_ranked() -> None:
    # the identity baseline's RLD on SVGenius style editing (-25.39) against the oracle's 0
    assert mark_best([-25.39, 0.0, 12.0], RLD) == [False, True, False]
    assert mark_best([-3.0, 4.0], RLD) == [True, False]
    assert mark_best([186.0, 20.0], COUNT) == [False, False]


def test_only_eligible_values_win_and_only_above_every_degenerate_one() -> None:
    # an incomplete run (not eligible) with the lowest MSE is not marked; the best complete one is
    assert mark_best([0.0, 0.2, 0.1], MSE, eligible=[False, True, True]) == [False, False, True]
    # a degenerate baseline's value is never marked, and a tie with it is no win
    assert mark_best([0.1, 0.1, 0.3], MSE, eligible=[False, True, True],
                     degenerate=[True, False, False]) == [False, False, False]
    assert mark_best([0.1, 0.05, 0.3], MSE, eligible=[False, True, True],
                     degenerate=[True, False, False]) == [False, True, False]


def test_csv_round_trips_every_float_exactly() -> None:
    generator = random.Random(7)
    values = [generator.random() * 10 ** generator.randint(-12, 6) for _ in range(200)]
    values += [0.1 + 0.2, 1e-300, 5e-324, None]
    table = Table("t", [Column("run", "run")] + [Column(f"k{i}", "") for i in range(len(values))],
                  [[Cell("a"), *number_cells(values, MSE, str)]])
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
