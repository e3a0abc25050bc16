"""The numbers of ``results.json`` for a run of one or several epochs, and pass@k.

A one-epoch run reports the task's aggregate (:meth:`Task.aggregate` plus its set-level
metrics) as it always did. A run of ``K > 1`` epochs computes that aggregate for each epoch
alone (``epochs.metrics``); ``metrics`` is then the mean over the epochs of each number, and
``stats`` its spread over the epochs (``n`` epochs, standard error over epochs, bootstrap
interval, :func:`svgeval.tasks.aggregate.mean_stats_many`), ``epochs.std`` the standard deviation
over epochs and ``counts`` the counts of every record of every epoch.

pass@k follows Chen et al. 2021 ("Evaluating Large Language Models Trained on Code", eq. 1)
and its released ``human_eval/evaluation.py`` (``estimate_pass_at_k``): for a prompt answered
``n`` times of which ``c`` are correct, the unbiased estimate is ``1 - C(n-c, k) / C(n, k)``,
averaged over prompts, and reported for a ``k`` only when every prompt has ``n >= k`` (the
released code's guard; its estimator returns 1 whenever ``n - c < k``, which for ``n < k``
would count a prompt never answered correctly as solved). svgeval computes the binomials
exactly with integers. It is reported for each task metric registered as pass/fail
(:attr:`MetricInfo.pass_fail`: a per-sample value of 100 for a pass, 0 for a fail; a sample
whose value is None counts as a fail), in percent, for ``k`` in 1, 10, 100 (the released
defaults) and ``K``.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from svgeval.metrics.registry import METRICS
from svgeval.runner.records import EpochResults, MetricSummary, SampleRecord, UsageTotals
from svgeval.tasks.aggregate import GroupCounts, mean_stats_many
from svgeval.tasks.base import Task
from svgeval.tasks.outcome import JudgeFailureKind, MetricValues

PASS_AT = (1, 10, 100)
"""The ``k`` of pass@k reported besides the number of epochs (human-eval's defaults)."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one prompt with ``c`` correct answers out of ``n``: ``1 - C(n-c, k)
    / C(n, k)`` (Chen et al. 2021, eq. 1); needs ``n >= k``."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_fail_metrics(task: Task[Any]) -> list[str]:
    """The task's metric keys whose registered metric is a per-sample pass (100) or fail (0)."""
    return [key for key, name in task.metrics.items() if METRICS.get(name).pass_fail]


def pass_at_k_table(task: Task[Any], records: Sequence[SampleRecord], epochs: int) -> dict[str, float]:
    """``"<group>/<metric>:pass@<k>"`` -> mean pass@k over the group's prompts, in percent."""
    keys = pass_fail_metrics(task)
    tallies: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(dict)
    for record in records:
        for metric in keys:
            if metric in record.metrics:
                tally = tallies[(record.group, metric)].setdefault(record.id, [0, 0])
                value = record.metrics[metric]
                tally[0] += 1
                tally[1] += int(value is not None and value > 0)
    table: dict[str, float] = {}
    for (group, metric), prompts in sorted(tallies.items()):
        fewest = min(n for n, _ in prompts.values())
        for k in sorted({*PASS_AT, epochs}):
            if k <= fewest:
                values = [pass_at_k(n, c, k) for n, c in prompts.values()]
                table[f"{group}/{metric}:pass@{k}"] = 100.0 * sum(values) / len(values)
    return table


@dataclass(frozen=True)
class Summary:
    """What ``results.json`` reports of a run's records (see the module's docstring)."""

    metrics: dict[str, float | None]
    stats: dict[str, MetricSummary]
    counts: dict[str, GroupCounts]
    not_computed: dict[str, str]
    epochs: EpochResults | None


def summarize(
    task: Task[Any],
    records: Sequence[SampleRecord],
    set_level: Mapping[int, MetricValues],
    epochs: int,
) -> Summary:
    """The task's aggregate of ``records`` with the set-level metrics of each epoch
    (``set_level``: epoch -> :meth:`Task.set_score`; epoch 0: those read across every epoch)
    for a run of ``epochs`` epochs."""
    pooled = task.aggregate(records)
    not_computed = dict(pooled.not_computed)
    for level in set_level.values():
        not_computed.update(level.not_computed)
    if epochs == 1:
        stats = {
            key: MetricSummary(n=stat.n, stderr=stat.stderr, ci95=stat.ci95)
            for key, stat in pooled.stats.items()
        }
        metrics = {**pooled.metrics, **set_level.get(1, MetricValues()).metrics,
                   **set_level.get(0, MetricValues()).metrics}
        return Summary(metrics, stats, pooled.counts, not_computed, None)
    by_epoch: dict[int, list[SampleRecord]] = defaultdict(list)
    for record in records:
        by_epoch[record.epoch].append(record)
    per_epoch = {
        epoch: {
            **task.aggregate(by_epoch[epoch]).metrics,
            **set_level.get(epoch, MetricValues()).metrics,
        }
        for epoch in sorted(by_epoch)
    }
    series: dict[str, list[float]] = {}
    for numbers in per_epoch.values():
        for key, value in numbers.items():
            series.setdefault(key, []).extend([] if value is None else [value])
    spread = mean_stats_many({key: values for key, values in series.items() if values})
    return Summary(
        metrics={**{key: sum(v) / len(v) if v else None for key, v in series.items()},
                 **set_level.get(0, MetricValues()).metrics},
        stats={key: MetricSummary(n=s.n, stderr=s.stderr, ci95=s.ci95) for key, s in spread.items()},
        counts=pooled.counts,
        not_computed=not_computed,
        epochs=EpochResults(
            k=epochs,
            metrics={str(epoch): numbers for epoch, numbers in per_epoch.items()},
            std={key: statistics.stdev(v) if len(v) > 1 else None for key, v in series.items()},
            pass_at_k=pass_at_k_table(task, records, epochs),
        ),
    )


@dataclass(frozen=True)
class Tally:
    """What ``results.json`` counts of a run's records besides the task's aggregate."""

    n_valid: int
    """Records whose output was used."""
    n_answered: int
    """Records whose model answered (not ``model_error``)."""
    usage: UsageTotals
    judge_failures: dict[JudgeFailureKind, int]
    """Judged metrics without a verdict, by kind (zeros included)."""


def tally(records: Sequence[SampleRecord], wall_s: float, generated_tokens: int) -> Tally:
    """Valid and answered records, token and time totals of ``records`` (read once: a run's
    finished records are parsed again at each read), the wall time of this invocation and the
    records' judge failures by kind."""
    n_valid = n_answered = n_reported = prompt_tokens = completion_tokens = attempts = 0
    generation_s = 0.0
    judge_failures: dict[JudgeFailureKind, int] = dict.fromkeys(get_args(JudgeFailureKind), 0)
    for record in records:
        n_valid += record.valid
        n_answered += not record.model_failed
        if record.usage is not None:
            n_reported += 1
            prompt_tokens += record.usage.prompt_tokens
            completion_tokens += record.usage.completion_tokens
        generation_s += record.timing.total_s
        attempts += record.timing.attempts
        for failure in record.judge_failures.values():
            judge_failures[failure.kind] += 1
    return Tally(n_valid, n_answered, UsageTotals(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        n_reported=n_reported,
        generation_s=generation_s,
        wall_s=wall_s,
        completion_tokens_per_s=generated_tokens / wall_s if generated_tokens and wall_s else None,
        attempts=attempts,
    ), judge_failures)
