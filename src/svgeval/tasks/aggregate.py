"""From per-sample records to the numbers of ``results.json``: means, their uncertainty, counts.

Every task aggregates the same way (:func:`mean_per_group`): per group, the mean of each metric
over the records that carry a value for it. Tasks encode their averaging protocol in the
per-sample values: a metric that a failed sample carries as None is averaged over the other
samples (the papers' usual protocol); a value a failed sample does carry counts it (e.g. the
``*_all`` readings that give failures their worst or "no edit" value).

Beside each mean, :class:`MetricStats` gives the sample count, the standard error
``s / sqrt(n)`` (``s`` the sample standard deviation) and a percentile bootstrap 95% interval
(2,000 resamples with a fixed seed, so the interval is the same on every run), so a reader can
tell whether two models differ.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from svgeval.tasks.outcome import Outcome

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class MetricStats:
    """The uncertainty of one mean: ``n`` values, standard error, bootstrap 95% interval.

    ``stderr`` and the interval are None for fewer than two values.
    """

    n: int
    stderr: float | None
    ci95: tuple[float, float] | None


class GroupCounts(BaseModel):
    """The answers of one group by outcome: ``counts.<group>`` of ``results.json``."""

    model_config = ConfigDict(extra="forbid")

    n: int = 0
    """Answers scored."""
    n_valid: int = 0
    """Answers whose output was used."""
    n_invalid: int = 0
    """Failures of the model."""
    n_reference: int = 0
    """Failures that are not the model's: a broken dataset reference (``reference``) or a
    scorer that raised (``scorer_error``)."""
    failures: dict[str, int] = Field(default_factory=dict)
    """Failure tag (``extract``, ``render:timeout``) -> answers."""
    judge_failures: dict[str, int] | None = None
    """For a task scored by a judge: judged metric -> answers the judge gave no verdict for
    (left out of the file otherwise)."""

    @model_serializer(mode="wrap")
    def _without_judge(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.judge_failures is None:
            data.pop("judge_failures", None)
        return data


@dataclass(frozen=True)
class Aggregate:
    """Flat ``"<group>/<metric>"`` numbers plus sample and failure counts per group.

    ``stats`` holds the uncertainty of each mean (summed counts have none); ``not_computed``
    maps a metric that could not run to the reason (its values are None).
    """

    metrics: dict[str, float | None]
    counts: dict[str, GroupCounts]
    stats: dict[str, MetricStats] = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)


def mean_stats(values: list[float]) -> MetricStats:
    """Standard error and percentile bootstrap 95% interval of the mean of ``values``."""
    return mean_stats_many({"": values})[""]


def mean_stats_many(series: Mapping[str, list[float]]) -> dict[str, MetricStats]:
    """:func:`mean_stats` of each series, the same numbers drawn once per length.

    Every bootstrap starts from the same seed, so series of one length ``n`` resample the same
    indices: they are drawn once and applied to all of them (a run's metrics mostly share a few
    lengths; drawing the indices was most of the time of its results).
    """
    stats = {key: MetricStats(n=len(values), stderr=None, ci95=None)
             for key, values in series.items() if len(values) < 2}
    by_length: dict[int, list[str]] = defaultdict(list)
    for key, values in series.items():
        if len(values) >= 2:
            by_length[len(values)].append(key)
    for n, keys in by_length.items():
        data = np.asarray([series[key] for key in keys], dtype=np.float64)
        stderrs = data.std(axis=1, ddof=1) / math.sqrt(n)
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        # a block of resamples at a time (the same draws as all at once): at most about 64k
        # indices (0.5 MB) in memory, whatever the number of samples (2 MB made the results
        # step the largest jump in a 6,000-sample run's memory)
        rows = max(1, min(BOOTSTRAP_RESAMPLES, 65_536 // n))
        blocks = []
        for start in range(0, BOOTSTRAP_RESAMPLES, rows):
            draws = rng.integers(0, n, size=(min(rows, BOOTSTRAP_RESAMPLES - start), n))
            # each series on its own: the same summation as for one series, to the last bit
            blocks.append([row[draws].mean(axis=1) for row in data])
        means = np.concatenate(blocks, axis=1)
        lows, highs = np.percentile(means, [2.5, 97.5], axis=1)
        for key, stderr, low, high in zip(keys, stderrs, lows, highs):
            stats[key] = MetricStats(n=n, stderr=float(stderr), ci95=(float(low), float(high)))
    return {key: stats[key] for key in series}


def mean_per_group(
    outcomes: Iterable[Outcome],
    summed: Collection[str] = (),
    judged: Collection[str] = (),
) -> Aggregate:
    """Per group, the mean of each metric over the outcomes that carry a value for it.

    Metrics named in ``summed`` are added up instead (counts). A metric no outcome could compute
    appears as None, and so does the paper's reading ``<metric>`` of a group with a
    ``<metric>_all`` reading when none of its outputs was usable. Counts per group: ``n``, ``n_valid``, ``n_invalid`` (failures of the
    model), ``n_reference`` (samples whose dataset reference is broken), failures by tag and,
    for the metrics in ``judged`` (scored by a judge model), ``judge_failures``: per metric, the
    samples the judge gave no verdict for.
    """
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    counts: dict[str, GroupCounts] = {}
    not_computed: dict[str, str] = {}
    for outcome in outcomes:
        not_computed.update(outcome.not_computed)
        group = outcome.group
        count = counts.setdefault(group, GroupCounts())
        count.n += 1
        if judged or outcome.judge_failures:
            if count.judge_failures is None:
                count.judge_failures = dict.fromkeys(judged, 0)
            for metric in outcome.judge_failures:
                count.judge_failures[metric] = count.judge_failures.get(metric, 0) + 1
        failure = outcome.failure
        if failure is None:
            count.n_valid += 1
        else:
            if failure.is_models:
                count.n_invalid += 1
            else:
                count.n_reference += 1
            count.failures[failure.tag] = count.failures.get(failure.tag, 0) + 1
        for metric, value in outcome.metrics.items():
            series = values[group][metric]
            if value is not None and not math.isnan(value):
                series.append(float(value))
    for by_metric in values.values():  # the paper's reading beside each ``<metric>_all``,
        for metric in [name for name in by_metric if name.endswith("_all")]:  # None when no
            by_metric.setdefault(metric.removesuffix("_all"), [])  # output was usable
    metrics: dict[str, float | None] = {}
    means: dict[str, list[float]] = {}
    for group in sorted(values):
        for metric, series in sorted(values[group].items()):
            key = f"{group}/{metric}"
            if not series:
                metrics[key] = None
            elif metric in summed:
                metrics[key] = sum(series)
            else:
                metrics[key] = sum(series) / len(series)
                means[key] = series
    return Aggregate(metrics=metrics, counts=counts, stats=mean_stats_many(means),
                     not_computed=not_computed)


def with_pooled_group(
    outcomes: Iterable[Outcome], pooled: str = "all", judged: Collection[str] = ()
) -> Aggregate:
    """:func:`mean_per_group` of ``outcomes`` and of the same outcomes pooled as one group
    ``pooled``: the sample-weighted mean over every group (a suite's overall score)."""
    kept = list(outcomes)
    per_group = mean_per_group(kept, judged=judged)
    overall = mean_per_group((outcome.model_copy(update={"group": pooled}) for outcome in kept),
                             judged=judged)
    return Aggregate(
        metrics={**per_group.metrics, **overall.metrics},
        counts={**per_group.counts, **overall.counts},
        stats={**per_group.stats, **overall.stats},
        not_computed={**per_group.not_computed, **overall.not_computed},
    )
