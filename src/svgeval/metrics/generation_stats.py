"""Generation statistics of a model's answers, as in SVGauge's Table 1 (Zini et al., 2025):
the share of answers holding SVG code, the share of those that are valid (parse and render),
and the share of valid ones whose render is entirely white.

Per sample each statistic is 100 or 0 (None where it does not apply: ``svg_valid`` without SVG
code, ``blank_render`` without a render), so a task's mean is the percentage of Table 1.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics.registry import MetricInfo, describe_metric

WHITE_LEVEL = 254.5 / 255
"""A pixel counts as white when every channel is at least this ([0, 1] scale: 255 in uint8)."""

for _info in (
    MetricInfo("svg_present", "100 when the answer holds SVG code, else 0 (% Generated)",
               "[0, 100]", True, "SVGauge Table 1, % Generated"),
    MetricInfo("svg_valid", "100 when the answer's SVG parses and renders, else 0; None "
               "without SVG (% Correct syntax)", "[0, 100]", True,
               "SVGauge Table 1, % Correct syntax"),
    MetricInfo("blank_render", "100 when the render on white is entirely white, else 0; None "
               "without a render (% Whites)", "[0, 100]", False, "SVGauge Table 1, % Whites"),
):
    describe_metric(_info)


def is_blank(image: NDArray[np.generic]) -> bool:
    """True when every pixel of a [0, 1] render on white is white."""
    return bool(np.all(np.asarray(image)[..., :3] >= WHITE_LEVEL))


def generation_stats(has_svg: bool, render: NDArray[np.generic] | None) -> dict[
    str, float | None
]:
    """``has_svg``, ``valid_svg`` and ``blank_render`` of one answer (see the module doc)."""
    valid = render is not None
    return {
        "has_svg": 100.0 if has_svg else 0.0,
        "valid_svg": (100.0 if valid else 0.0) if has_svg else None,
        "blank_render": (100.0 if is_blank(render) else 0.0) if render is not None else None,
    }


GENERATION_STATS_METRICS = {"has_svg": "svg_present", "valid_svg": "svg_valid",
                            "blank_render": "blank_render"}
"""The reported keys and their registered metrics, for a task's ``metrics`` mapping."""
