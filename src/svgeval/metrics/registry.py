"""Descriptions of the metrics svgeval computes: formula source, range and direction."""

from __future__ import annotations

from dataclasses import dataclass

from svgeval.errors import UserError
from svgeval.registry import Registry


@dataclass(frozen=True)
class MetricInfo:
    """What a metric means; ``pass_fail`` marks a per-sample value of 100 (pass) or 0 (fail),
    of which a run of several epochs reports pass@k (:mod:`svgeval.runner.epochs`). Which
    benchmarks report a metric, their presets say (:func:`~svgeval.metrics.presets.presets_using`)."""

    name: str
    summary: str
    value_range: str
    higher_is_better: bool
    source: str
    pass_fail: bool = False
    best_at: float | None = None
    """The value of a perfect answer when values on both sides of it are worse (RLD: 0, the
    reference edit's size): reports rank by the distance ``|value - best_at|``, lower better."""
    count: bool = False
    """A number of samples (summed, not averaged): printed as an integer and never ranked."""


METRIC_MODULES = tuple(f"svgeval.metrics.{name}" for name in (
    "pixel", "editing", "pss", "chamfer", "clip", "dino", "lpips", "hps", "fid", "text", "svgauge",
    "tokens", "generation_stats", "rates", "judged", "video", "siglip", "viclip",
))
"""The modules that describe svgeval's metrics (each calls :func:`describe_metric`)."""

METRICS: Registry[MetricInfo] = Registry("metric", "svgeval.metrics", METRIC_MODULES)
"""Every metric by name; other packages add theirs through the ``svgeval.metrics`` entry points."""

describe_metric = METRICS.register
"""Register a :class:`MetricInfo` under its name and return it."""


class MetricUnavailable(UserError):
    """A metric cannot run here (weights or an optional package missing).

    The message says which weights or package, where svgeval looked, and how to provide them
    (a hub id or a local path). Runs record the metric as not computed (None), never as 0.
    """
