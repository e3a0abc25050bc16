"""The metric SGP-Bench adds: invariance consistency (``evaluate_consistency.py``)."""

from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="invariance_consistency",
        summary="mean over questions of the share of a question's six variants (original, five "
                "translations or rotations) giving the most common answer",
        value_range="[1/6, 1]",
        higher_is_better=True,
        source="SGP-Bench (Qiu et al., ICLR 2025), evaluate_consistency.py",
    )
)
