"""``svgeval compare A B``: paired, per-sample differences between two runs.

Two runs of the same task, task version and data answer the same samples, so their difference
can be measured sample by sample: for each group and metric, over the samples where both runs
have a value, the mean of ``B - A`` with a percentile bootstrap 95% interval (2,000 resamples,
fixed seed, as ``results.json``; :func:`svgeval.tasks.aggregate.mean_stats`), and the share of
samples on which B is better, or worse, by the metric's declared direction (closer to the
value it is best at, for RLD). Pairing removes the
variation between samples that two separate intervals would carry, so a small but consistent
improvement shows. Runs of different tasks or data are refused with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from svgeval.metrics.registry import MetricInfo
from svgeval.report.runs import LoadedRun, ReportError, run_labels
from svgeval.report.tables import rank_key
from svgeval.runner.records import SampleRecord
from svgeval.tasks.aggregate import mean_stats

ALL = "all"
"""The group name of a metric paired over every group."""


@dataclass(frozen=True)
class PairedMetric:
    """The paired difference of one metric in one group (or :data:`ALL`)."""

    group: str
    metric: str
    n: int
    """Samples where both runs have a value."""
    mean_a: float
    mean_b: float
    mean_diff: float
    """Mean of ``B - A``."""
    ci95: tuple[float, float] | None
    """Bootstrap 95% interval of ``mean_diff`` (None for fewer than two pairs)."""
    higher_is_better: bool | None
    best_at: float | None
    """The value the metric is best at (RLD: 0); then better means closer to it."""
    better: float
    """Share of pairs where B is better (direction unknown: where B is higher)."""
    worse: float
    """Share of pairs where B is worse (direction unknown: where B is lower)."""

    @property
    def key(self) -> str:
        """``<group>/<metric>``, as in ``results.json``."""
        return f"{self.group}/{self.metric}"


@dataclass(frozen=True)
class PairedSample:
    """One sample's values of one metric in both runs."""

    id: str
    group: str
    metric: str
    a: float
    b: float

    @property
    def diff(self) -> float:
        """``B - A``."""
        return self.b - self.a


@dataclass(frozen=True)
class Comparison:
    """Everything ``svgeval compare`` reports."""

    a: LoadedRun
    b: LoadedRun
    labels: tuple[str, str]
    metrics: list[PairedMetric]
    largest: dict[str, list[PairedSample]]
    """Per metric name, the samples whose values differ most (largest ``|B - A|`` first)."""
    outcomes: dict[str, int]
    """How the samples' outcomes moved: valid in both, failed in both, fixed, broken."""
    notes: list[str] = field(default_factory=list)


def check_comparable(a: LoadedRun, b: LoadedRun) -> None:
    """Refuse two runs whose samples are not the same questions scored the same way."""
    differences = [
        f"{name} {mine} vs {theirs}"
        for name, mine, theirs in (
            ("task", a.config.task, b.config.task),
            ("task version", a.config.task_version, b.config.task_version),
            ("dataset hash", a.config.dataset_hash[:12], b.config.dataset_hash[:12]),
        )
        if mine != theirs
    ]
    if differences:
        raise ReportError(
            f"cannot pair {a.root} with {b.root}: different {'; '.join(differences)}; "
            "a paired comparison needs two runs of the same task and data"
        )


def _value(record: SampleRecord, metric: str) -> float | None:
    value = record.metrics.get(metric)
    return None if value is None or math.isnan(value) else value


def _paired(group: str, metric: str, pairs: list[PairedSample], info: MetricInfo | None) -> (
    PairedMetric
):
    diffs = [pair.diff for pair in pairs]
    n = len(pairs)
    key = rank_key(info) or (lambda value: -value)  # no direction: higher counts as better
    better = sum(key(pair.b) < key(pair.a) for pair in pairs) / n
    worse = sum(key(pair.b) > key(pair.a) for pair in pairs) / n
    return PairedMetric(
        group=group, metric=metric, n=n,
        mean_a=sum(p.a for p in pairs) / n, mean_b=sum(p.b for p in pairs) / n,
        mean_diff=sum(diffs) / n, ci95=mean_stats(diffs).ci95,
        higher_is_better=info.higher_is_better if info is not None else None,
        best_at=info.best_at if info is not None else None, better=better, worse=worse,
    )


def _outcomes(pairs: Iterable[tuple[SampleRecord, SampleRecord]]) -> dict[str, int]:
    counts = {"valid in both": 0, "failed in both": 0, "fixed in B": 0, "broken in B": 0}
    for first, second in pairs:
        name = {(True, True): "valid in both", (False, False): "failed in both",
                (False, True): "fixed in B", (True, False): "broken in B"}
        counts[name[(first.valid, second.valid)]] += 1
    return counts


def compare_runs(a: LoadedRun, b: LoadedRun, top: int = 12) -> Comparison:
    """Pair the samples of ``a`` and ``b`` and measure ``B - A`` per group and metric."""
    check_comparable(a, b)
    in_b = {record.id: record for record in b.samples}
    pairs = [(record, in_b[record.id]) for record in a.samples if record.id in in_b]
    names = list(dict.fromkeys(m for run in (a, b) for m in run.metric_names()))
    groups = list(dict.fromkeys(first.group for first, _ in pairs))
    metrics: list[PairedMetric] = []
    largest: dict[str, list[PairedSample]] = {}
    for metric in names:
        info = a.info(metric)
        samples = [
            PairedSample(first.id, first.group, metric, va, vb)
            for first, second in pairs
            for va, vb in [(_value(first, metric), _value(second, metric))]
            if va is not None and vb is not None
        ]
        by_group = {g: [s for s in samples if s.group == g] for g in groups}
        metrics += [_paired(g, metric, found, info) for g, found in by_group.items() if found]
        if sum(1 for found in by_group.values() if found) > 1:
            metrics.append(_paired(ALL, metric, samples, info))
        differing = [s for s in samples if s.diff != 0]
        largest[metric] = sorted(differing, key=lambda s: (-abs(s.diff), s.id))[:top]
    notes = [f"{len(pairs)} samples paired by id"]
    only_a, only_b = len(a.samples) - len(pairs), len(in_b) - len(pairs)
    if only_a or only_b:
        notes.append(f"left out: {only_a} samples only in A, {only_b} only in B")
    notes += [f"{side} is {run.incomplete}" for side, run in (("A", a), ("B", b))
              if run.incomplete]
    notes += [*a.notes, *b.notes]
    if a.config.task_options != b.config.task_options:
        notes.append(
            f"task options differ: A {a.config.task_options}, B {b.config.task_options}"
        )
    label_a, label_b = run_labels([a, b])
    return Comparison(a=a, b=b, labels=(label_a, label_b), metrics=metrics, largest=largest,
                      outcomes=_outcomes(pairs), notes=notes)
