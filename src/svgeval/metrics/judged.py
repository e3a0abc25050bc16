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
    )
)

_VECTORGYM = "VectorGym (ServiceNow, 2025)"

describe_metric(
    MetricInfo(
        name="vlm_judge",
        summary="a VLM judge's 1-10 rubric score of a generated SVG's render (released "
        "metrics/prompts.json); 0 for an answer with no renderable SVG",
        value_range="[0, 10]",
        higher_is_better=True,
        source=f"{_VECTORGYM}, Sec. 3.3 and appendix A.2; released compute_vlm_judge.py",
    )
)

describe_metric(
    MetricInfo(
        name="caption_rubric",
        summary="an LLM judge's 0-5 rubric score of a caption against the reference, x 20 "
        "(the rubric prompt is svgeval's)",
        value_range="[0, 100]",
        higher_is_better=True,
        source=f"{_VECTORGYM}, Sec. 3.5 (captioning: LLM rubric score mapped 0-5 to 0-100)",
    )
)

describe_metric(
    MetricInfo(
        name="judged_share",
        summary="percentage of the answers sent to the judge that it gave a score",
        value_range="[0, 100]",
        higher_is_better=True,
        source="svgeval (the released VectorGym judge drops unparseable replies silently)",
    )
)
