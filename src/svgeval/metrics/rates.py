"""Per-sample outcomes that tasks average into rates, and the counts they report.

These have no formula of their own beyond the mean of a per-sample 0/100 value (or a sum of
0/1 values for counts); they are registered so that every number a task reports has a declared
range, direction and source (see :attr:`svgeval.tasks.base.Task.metrics`).
"""

from __future__ import annotations

from svgeval.metrics.registry import MetricInfo, describe_metric

_SVGENIUS = "SVGenius (Chen et al., 2025)"

describe_metric(
    MetricInfo(
        name="accuracy",
        summary="share of multiple-choice answers that pick the correct option, in percent",
        value_range="[0, 100]",
        higher_is_better=True,
        source=f"{_SVGENIUS}, understanding (appendix F)",
        pass_fail=True,
    )
)
describe_metric(
    MetricInfo(
        name="exact_match",
        summary="share of answers equal to the ground truth once all whitespace is removed, %",
        value_range="[0, 100]",
        higher_is_better=True,
        source=f"{_SVGENIUS}, bug fixing (appendix G.1) and its released scorer",
        pass_fail=True,
    )
)
describe_metric(
    MetricInfo(
        name="render_match",
        summary="share of answers whose render equals the ground truth's pixel for pixel, %",
        value_range="[0, 100]",
        higher_is_better=True,
        source="svgeval (a render-level reading of SVGenius bug fixing)",
        pass_fail=True,
    )
)
describe_metric(
    MetricInfo(
        name="mse_improved",
        summary="share of answers with MSE(gen, gt) <= MSE(ori, gt) (acc) or < (acc_strict), %",
        value_range="[0, 100]",
        higher_is_better=True,
        source=f"{_SVGENIUS}, style editing (mse_better_samples_percentage of its scorer)",
        pass_fail=True,
    )
)
describe_metric(
    MetricInfo(
        name="sample_count",
        summary="number of samples with a given condition (e.g. unparsed answers)",
        value_range="integer >= 0",
        higher_is_better=False,
        source="svgeval",
        count=True,
    )
)
describe_metric(
    MetricInfo(
        name="rule_score",
        summary="a per-answer rule score in [0, 1] (share of the expected items the answer "
        "names: colours, shapes, sizes, transforms; 1/0 for a category match)",
        value_range="[0, 1]",
        higher_is_better=True,
        source="UniSVG in VLMEvalKit (vlmeval/dataset/utils/uni_svg.py:_evaluate_row)",
    )
)
describe_metric(
    MetricInfo(
        name="weighted_score",
        summary="a benchmark's released weighted sum of per-type metric means",
        value_range="[0, 1] (BERTScore's rescaling can push it slightly below 0)",
        higher_is_better=True,
        source="UniSVG in VLMEvalKit (uni_svg.py: calc_gen_score and final_score)",
    )
)
