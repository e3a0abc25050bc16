"""Pixel metrics on rendered images (float arrays in [0, 1], shape (H, W, C))."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="mse",
        summary="mean squared error over pixels and channels of two renders",
        value_range="[0, 1]",
        higher_is_better=False,
        source="SVGEditBench (Nishina & Matsui, 2024), Sec. 3.3; SVGenius (2025)",
        presets=("svgeditbench", "svgenius"),
    )
)


def mse(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """Mean squared error ``mean((a - b)^2)`` over all pixels and channels.

    With values in [0, 1] the result is in [0, 1]; lower is better. Averaging per channel and
    then over channels, as SVGEditBench describes, gives the same number.
    """
    if a.shape != b.shape:
        raise ValueError(f"images differ in shape: {a.shape} vs {b.shape}")
    return float(np.mean((np.asarray(a, np.float64) - np.asarray(b, np.float64)) ** 2))
