"""How well a metric agrees with people: the study behind ``svgeval correlate``.

Input: a ratings file, JSONL or CSV, one generated SVG per row with ``prompt``, ``reference``
(the reference SVG), ``generated`` (the generated SVG), ``generator`` (the model's name) and
``rating`` (the human score); any other column may hold a metric's values. For each metric:

* instance level: Spearman rho, Kendall tau (tau-b) and Pearson r between the metric and the
  ratings over the rows where the metric has a value (scipy.stats), each with a percentile
  bootstrap 95% interval (rows resampled with replacement, fixed seed);
* system level: the same coefficients between the per-generator means of metric and rating
  (SVGauge, Zini et al. 2025, Tables 5 and 6);
* for SVGauge, the alpha/beta sweep of Table 4: ``alpha x S_I + beta x S_T`` with alpha from 1
  to 0 in steps of 0.1 and beta = 1 - alpha, at instance level.

A metric with lower-is-better values (LPIPS) correlates negatively; nothing is flipped.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from svgeval.errors import UserError

REQUIRED = ("prompt", "reference", "generated", "generator", "rating")
COEFFICIENTS = ("spearman", "kendall", "pearson")
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 0
Values = Sequence[float | None]


class RatingsError(UserError, ValueError):
    """The ratings file cannot be used (one line saying why). A ValueError as well, the error it
    was before, which callers may catch."""


def read_ratings(path: Path, needed: Sequence[str] = REQUIRED) -> list[dict[str, Any]]:
    """The rows of a JSONL or CSV ratings file (by suffix), each checked for ``needed`` columns
    and a numeric ``rating``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RatingsError(f"cannot read {path}: {error}") from None
    if path.suffix.lower() == ".csv":
        rows: list[dict[str, Any]] = list(csv.DictReader(io.StringIO(text, newline="")))
    else:
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise RatingsError(f"{path} line {number}: {error}") from None
    for number, row in enumerate(rows, 1):
        missing = [column for column in needed if column not in row]
        if missing:
            raise RatingsError(f"{path} row {number} lacks {', '.join(missing)}")
        row["rating"] = _number(row["rating"], f"{path} row {number} rating")
    if not rows:
        raise RatingsError(f"{path} has no rows")
    return rows


def _number(value: Any, where: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise RatingsError(f"{where}: {value!r} is not a number") from None


def column(rows: Sequence[Mapping[str, Any]], name: str) -> list[float | None]:
    """A metric column as floats (None where empty)."""
    out: list[float | None] = []
    for number, row in enumerate(rows, 1):
        value = row.get(name)
        out.append(None if value in (None, "") else _number(value, f"row {number} {name}"))
    return out


def coefficients(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> dict[
    str, float
]:
    """Spearman rho, Kendall tau-b and Pearson r of ``x`` and ``y`` (scipy.stats); NaN when
    either side is constant or has fewer than two values."""
    from scipy import stats

    a, b = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return dict.fromkeys(COEFFICIENTS, float("nan"))
    return {
        "spearman": float(stats.spearmanr(a, b).statistic),
        "kendall": float(stats.kendalltau(a, b).statistic),
        "pearson": float(stats.pearsonr(a, b).statistic),
    }


@dataclass(frozen=True)
class Correlation:
    """One metric's coefficients with the ratings, and their bootstrap 95% intervals."""

    n: int
    values: dict[str, float]
    ci95: dict[str, tuple[float, float] | None]


def _paired(metric: Values, ratings: Sequence[float]) -> tuple[list[float], list[float]]:
    pairs = [(m, r) for m, r in zip(metric, ratings, strict=True) if m is not None]
    return [m for m, _ in pairs], [r for _, r in pairs]


def instance_correlation(metric: Values, ratings: Sequence[float],
                         resamples: int = BOOTSTRAP_RESAMPLES,
                         seed: int = BOOTSTRAP_SEED) -> Correlation:
    """Coefficients over the rows where ``metric`` has a value, with percentile bootstrap 95%
    intervals over ``resamples`` resamples of those rows (``resamples`` 0: no interval)."""
    x, y = _paired(metric, ratings)
    values = coefficients(x, y)
    ci: dict[str, tuple[float, float] | None] = dict.fromkeys(COEFFICIENTS)
    if resamples > 0 and len(x) >= 3:
        rng = np.random.default_rng(seed)
        a, b = np.asarray(x), np.asarray(y)
        draws: dict[str, list[float]] = defaultdict(list)
        for _ in range(resamples):
            index = rng.integers(0, len(a), len(a))
            for name, value in coefficients(a[index], b[index]).items():
                if not np.isnan(value):
                    draws[name].append(value)
        for name, found in draws.items():
            low, high = np.percentile(found, [2.5, 97.5])
            ci[name] = (float(low), float(high))
    return Correlation(len(x), values, ci)


def system_means(metric: Values, ratings: Sequence[float], generators: Sequence[str]) -> dict[
    str, tuple[float, float]
]:
    """Per generator: (mean metric, mean rating) over its rows where the metric has a value."""
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for value, rating, generator in zip(metric, ratings, generators, strict=True):
        if value is not None:
            groups[generator].append((value, rating))
    return {g: (float(np.mean([v for v, _ in p])), float(np.mean([r for _, r in p])))
            for g, p in sorted(groups.items())}


def system_correlation(metric: Values, ratings: Sequence[float],
                       generators: Sequence[str]) -> Correlation:
    """Coefficients between per-generator means of the metric and of the ratings (no
    interval: a handful of generators)."""
    means = system_means(metric, ratings, generators).values()
    x, y = [m for m, _ in means], [r for _, r in means]
    return Correlation(len(x), coefficients(x, y), dict.fromkeys(COEFFICIENTS))


def weight_sweep(s_i: Values, s_t: Values, ratings: Sequence[float],
                 step: float = 0.1) -> list[tuple[float, float, Correlation]]:
    """(alpha, beta, instance correlation of ``alpha x S_I + beta x S_T``) for alpha from 1 to 0
    in ``step`` steps, beta = 1 - alpha (SVGauge Table 4); no intervals."""
    from svgeval.metrics.svgauge import combine

    count = round(1 / step)
    out = []
    for index in range(count + 1):
        alpha = round(1 - index * step, 10)
        beta = round(1 - alpha, 10)
        scores = combine(s_i, s_t, alpha, beta)
        out.append((alpha, beta, instance_correlation(scores, ratings, resamples=0)))
    return out


@dataclass(frozen=True)
class Study:
    """Everything ``svgeval correlate`` reports."""

    n: int
    instance: dict[str, Correlation]
    system: dict[str, Correlation]
    sweep: list[tuple[float, float, Correlation]]

    def to_json(self) -> dict[str, Any]:
        def corr(c: Correlation) -> dict[str, Any]:
            return {"n": c.n, **c.values, "ci95": c.ci95}

        return {
            "n": self.n,
            "instance": {m: corr(c) for m, c in self.instance.items()},
            "system": {m: corr(c) for m, c in self.system.items()},
            "sweep": [{"alpha": a, "beta": b, **corr(c)} for a, b, c in self.sweep],
        }


def study(rows: Sequence[Mapping[str, Any]], metrics: Sequence[str],
          resamples: int = BOOTSTRAP_RESAMPLES) -> Study:
    """Instance and system correlations of each metric column of ``rows``, and the SVGauge
    sweep when the rows carry ``svgauge_si`` and ``svgauge_st``."""
    ratings = [float(row["rating"]) for row in rows]
    generators = [str(row["generator"]) for row in rows]
    values = {name: column(rows, name) for name in metrics}
    sweep = []
    if all(name in rows[0] for name in ("svgauge_si", "svgauge_st")):
        sweep = weight_sweep(column(rows, "svgauge_si"), column(rows, "svgauge_st"), ratings)
    return Study(
        n=len(rows),
        instance={m: instance_correlation(v, ratings, resamples) for m, v in values.items()},
        system={m: system_correlation(v, ratings, generators) for m, v in values.items()},
        sweep=sweep,
    )
