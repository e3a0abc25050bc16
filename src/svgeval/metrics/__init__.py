"""Metrics: pure functions over arrays and strings, one family per module.

Importing this package registers every metric in :data:`METRICS` (range, direction, source,
presets) for ``svgeval list metrics`` and for reports. No module imports torch or
transformers at import time: model-based metrics load them (and their weights) on first call
and raise :class:`MetricUnavailable` when they cannot.
"""

from __future__ import annotations

from svgeval.metrics import (  # noqa: F401  (register these metrics)
    generation_stats,
    judged,
    rates,
    svgauge,
)
from svgeval.metrics.chamfer import chamfer, svg_chamfer
from svgeval.metrics.clip import aesthetic, clip_score, rclip, rclip_from_scores
from svgeval.metrics.dino import dino, dino_cls
from svgeval.metrics.editing import compression_ratio, relative_change_distance, relative_mse_score
from svgeval.metrics.fid import clip_fid, fid
from svgeval.metrics.hps import hps
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import iou, mse, ssim
from svgeval.metrics.presets import PRESETS, MetricPreset, get_preset, preset_names
from svgeval.metrics.pss import (
    InvalidReference,
    PssResult,
    pss,
    pss_batch,
    pss_details,
    pss_isolated,
)
from svgeval.metrics.registry import METRICS, MetricInfo, MetricUnavailable, describe_metric
from svgeval.metrics.text import bge_m3, levenshtein, rouge_l, sbert

__all__ = [
    "METRICS",
    "PRESETS",
    "InvalidReference",
    "MetricInfo",
    "MetricPreset",
    "MetricUnavailable",
    "PssResult",
    "aesthetic",
    "bge_m3",
    "chamfer",
    "clip_fid",
    "clip_score",
    "compression_ratio",
    "describe_metric",
    "dino",
    "dino_cls",
    "fid",
    "get_preset",
    "hps",
    "iou",
    "levenshtein",
    "lpips",
    "mse",
    "preset_names",
    "pss",
    "pss_batch",
    "pss_details",
    "pss_isolated",
    "rclip",
    "rclip_from_scores",
    "relative_change_distance",
    "relative_mse_score",
    "rouge_l",
    "sbert",
    "ssim",
    "svg_chamfer",
]
