"""The end-of-run summary: one row per group, one column per metric, failure counts, a line
that explains the readings and one that counts the judge's failures; and how every report reads
a ``results.json`` key: the registered metric behind it (direction, the value it is best at,
whether it is a count) and how many samples a run answered.

A summary wider than :data:`WIDE` characters (the text-to-SVG tasks report some twenty readings
per tier) is printed transposed: one row per metric, one column per group.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.table import Table
from rich.text import Text

from svgeval.metrics.registry import METRICS, MetricInfo
from svgeval.runner.records import Results
from svgeval.tasks import get_task
from svgeval.tasks.outcome import JudgeFailureKind

WIDE = 120
"""Characters beyond which the summary is printed with one row per metric."""
BEST_AT_NOTE = "→0: best at 0, worse the farther from it on either side"
"""What the arrow of a metric best at a value (RLD) means."""
JUDGE_FAILURE_KINDS: dict[JudgeFailureKind, str] = {
    "error": "whose request to the judge failed for good: --resume asks again",
    "unparsed": "whose reply from the judge held no verdict",
}
"""What each kind of judge failure (:class:`~svgeval.tasks.outcome.JudgeFailure`) means, after
a count of judged metrics."""


def metric_info(task: str, key: str) -> MetricInfo | None:
    """The registered metric behind ``key`` of ``task``, a metric (``acc``) or a results key
    (``easy/acc``); None when the task or the metric is unknown."""
    try:
        name = get_task(task).metrics.get(key.rsplit("/", 1)[-1])
        return METRICS.get(name) if name is not None else None
    except KeyError:
        return None


def arrow(info: MetricInfo | None) -> str:
    """`` ↑``, `` ↓``, `` →0`` (best at 0, worse on either side) or nothing (unknown, a count)."""
    if info is None or info.count:
        return ""
    if info.best_at is not None:
        return f" →{info.best_at:g}"
    return " ↑" if info.higher_is_better else " ↓"


def format_value(value: float | None) -> str:
    """A mean for people: four decimals, scientific notation for very small or large values."""
    if value is None:
        return "n/a"
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:.4f}"
    return f"{value:.3e}"


def format_metric(value: float | None, info: MetricInfo | None) -> str:
    """A value for people: a count as an integer, any other value by :func:`format_value`."""
    if value is not None and info is not None and info.count and float(value).is_integer():
        return str(int(value))
    return format_value(value)


def n_answered(results: Results) -> int:
    """Work units whose request got an answer: ``results.n_answered``; for a file written
    before it was counted, records less those of a request that failed for good
    (``model_error``: the record holds no answer)."""
    if results.n_answered is not None:
        return results.n_answered
    errors = sum(count.failures.get("model_error", 0) for count in results.counts.values())
    return results.n - errors


def answered_note(results: Results) -> str | None:
    """``420/600 answered`` for a run that lacks answers; None for a run that has them all."""
    answered = n_answered(results)
    if answered >= results.n_expected:
        return None
    return f"{answered}/{results.n_expected} answered"


def judge_failures_note(by_kind: Mapping[JudgeFailureKind, int]) -> str | None:
    """``20 judged metrics have no verdict (20 whose request to the judge failed for good:
    --resume asks again)`` for judge failures counted by kind; None when there are none."""
    total = sum(by_kind.values())
    if not total:
        return None
    kinds = [f"{by_kind[kind]} {meaning}" for kind, meaning in JUDGE_FAILURE_KINDS.items()
             if by_kind.get(kind)]
    return f"{total} judged metrics have no verdict ({'; '.join(kinds)})"


def _cells(results: Results) -> tuple[list[str], list[str], list[list[str]]]:
    """Groups, metric headers and one row of texts per group (counts, then metrics)."""
    metrics, counts = results.metrics, results.counts
    groups = list(counts) + sorted({key.split("/", 1)[0] for key in metrics} - set(counts))
    names = sorted({key.split("/", 1)[1] for key in metrics if "/" in key})
    infos = {name: metric_info(results.task, name) for name in names}
    broken = any(count.n_reference for count in counts.values())
    headers = ["n", "invalid"] + (["bad ref"] if broken else [])
    headers += [name + arrow(infos[name]) for name in names]
    rows = []
    for group in groups:
        count = counts.get(group)  # None for a group of set-level or summary numbers only
        row = ["", ""] if count is None else [str(count.n), str(count.n_invalid)]
        if broken:
            row.append(str(count.n_reference if count is not None else 0))
        rows.append(row + [format_metric(metrics.get(f"{group}/{name}"), infos[name])
                           for name in names])
    return groups, headers, rows


def _width(columns: list[list[str]]) -> int:
    """Characters of a rich table of these columns (each its header and cells)."""
    return 1 + sum(max(len(text) for text in column) + 3 for column in columns)


def summary_table(results: Results) -> Table:
    """A rich table of ``results.json``; a metric header gets its direction when it has one.
    Cells are plain text (a group or model name is never read as markup)."""
    groups, headers, rows = _cells(results)
    title = f"{results.task} · {results.model}"
    if results.subset:
        title += f" · {results.subset}"
    answered = answered_note(results)
    if not results.complete or answered:
        title += f" · INCOMPLETE ({answered or f'{results.n_missing} missing'})"
    table = Table(title=Text(title))
    columns = [["group", *groups]] + [[header, *(row[i] for row in rows)]
                                      for i, header in enumerate(headers)]
    if _width(columns) <= WIDE:
        table.add_column("group")
        for header in headers:
            table.add_column(Text(header), justify="right")
        for group, row in zip(groups, rows):
            table.add_row(Text(group), *row)
        return table
    table.add_column("metric")  # transposed: one row per metric, one column per group
    for group in groups:
        table.add_column(Text(group), justify="right")
    for index, header in enumerate(headers):
        table.add_row(Text(header), *(row[index] for row in rows),
                      end_section=header == ("bad ref" if "bad ref" in headers else "invalid"))
    return table


def has_best_at(task: str, keys: Iterable[str]) -> bool:
    """True when one of the results ``keys`` of ``task`` is a metric best at a value (RLD)."""
    return any((info := metric_info(task, key)) is not None and info.best_at is not None
               for key in keys)


def readings_note(results: Results) -> str:
    """One line under the table that says what its columns mean."""
    parts = ["↑/↓: higher/lower is better", "invalid: samples whose output could not be used"]
    if has_best_at(results.task, results.metrics):
        parts.append(BEST_AT_NOTE)
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
