"""Metrics: pure functions over arrays and strings, one family per module.

:data:`METRICS` describes every metric (range, direction, source, presets) for
``svgeval list metrics`` and for reports.
"""

from __future__ import annotations

from svgeval.metrics.registry import METRICS, MetricInfo, MetricUnavailable, describe_metric

__all__ = ["METRICS", "MetricInfo", "MetricUnavailable", "describe_metric"]
