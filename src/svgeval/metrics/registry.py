"""Descriptions of the metrics svgeval computes: formula source, range and direction."""

from __future__ import annotations

from dataclasses import dataclass, field

from svgeval.registry import Registry


@dataclass(frozen=True)
class MetricInfo:
    """What a metric means; ``presets`` names the benchmark settings it supports;
    ``pass_fail`` marks a per-sample value of 100 (pass) or 0 (fail), of which a run of several
    epochs reports pass@k (:mod:`svgeval.runner.epochs`)."""

    name: str
    summary: str
    value_range: str
    higher_is_better: bool
    source: str
    presets: tuple[str, ...] = field(default_factory=tuple)
    pass_fail: bool = False


METRICS: Registry[MetricInfo] = Registry("metric", "svgeval.metrics", ("svgeval.metrics",))
"""Every metric by name; other packages add theirs through the ``svgeval.metrics`` entry points."""

describe_metric = METRICS.register
"""Register a :class:`MetricInfo` under its name and return it."""


class MetricUnavailable(RuntimeError):
    """A metric cannot run here (weights or an optional package missing).

    The message says which weights or package, where svgeval looked, and how to provide them
    (a hub id or a local path). Runs record the metric as not computed (None), never as 0.
    """
