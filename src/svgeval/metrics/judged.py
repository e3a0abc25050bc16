"""Numbers that a judge model gives: rubric scores and pairwise win rates.

They have no formula beyond the mean of per-sample verdicts; they are registered so that every
number a judged task reports has a declared range, direction and source (see
:attr:`svgeval.tasks.base.Task.metrics` and docs/judges.md).
"""

from __future__ import annotations

from svgeval.metrics.registry import MetricInfo, describe_metric

_SVGENIUS = "SVGenius (Chen et al., 2025)"

describe_metric(
    MetricInfo(
        name="judge_score",
        summary="a judge model's rubric score of a sample (1 worst, 5 best; 0 for an invalid "
        "or unrenderable answer)",
        value_range="[0, 5]",
        higher_is_better=True,
        source=f"{_SVGENIUS}, style transfer (appendix E.3, Tables 10, 11 and 13)",
        presets=("svgenius",),
    )
)
describe_metric(
    MetricInfo(
        name="win_rate",
        summary="share of pairwise comparisons a judge model decides for this run against a "
        "reference run, each pair asked in both orders, ties counted as half, in percent",
        value_range="[0, 100]; 50 is a tie with the reference",
        higher_is_better=True,
        source=f"{_SVGENIUS}, style transfer global ranking (appendix E.3, Table 12)",
        presets=("svgenius",),
    )
)
