"""``circle_error``: how far the number of circles an SVG draws is from the number asked for."""

from __future__ import annotations

import re

from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(MetricInfo(
    name="circle_error", summary="|circles drawn - circles asked for|", value_range="[0, inf)",
    higher_is_better=False, source="the toy suite of svgeval's docs/adding_a_suite.md"))

_CIRCLE = re.compile(r"<circle\b")


def circle_error(svg: str, asked: int) -> float:
    """``|n - asked|``, ``n`` the ``<circle`` elements of ``svg``; 0 is a perfect answer."""
    return float(abs(len(_CIRCLE.findall(svg)) - asked))
