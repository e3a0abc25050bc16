"""Chamfer distance between the shapes of two SVGs (SVGEditBench V2).

The released ``src/evaluation/chamfer.py`` (github.com/mti-lab/SVGEditBenchV2) compares vector
geometry, not renders: each SVG becomes one point set per shape (100 points on its outline,
see :mod:`svgeval.metrics._svgpoints`), and the distance is a Chamfer distance of Chamfer
distances.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from svgeval.metrics._svgpoints import point_sets
from svgeval.metrics.registry import MetricInfo, describe_metric

describe_metric(
    MetricInfo(
        name="chamfer",
        summary="two-level Chamfer distance: shapes matched by the Chamfer distance (squared, "
        "user units) of 100 points sampled on each outline",
        value_range="[0, inf)",
        higher_is_better=False,
        source="SVGEditBench V2 released src/evaluation/chamfer.py",
    )
)

POINTS_PER_SHAPE = 100
"""``calculate_chamfer`` samples 100 points per shape."""


def point_chamfer(a: NDArray[np.floating], b: NDArray[np.floating]) -> NDArray[np.float64]:
    """Chamfer distance of the point set ``a`` (n, 2) to each set of ``b`` (k, m, 2):
    ``mean_p min_q |p - q|^2 + mean_q min_p |p - q|^2`` (squared Euclidean, as released)."""
    from scipy.spatial.distance import cdist

    k, m, _ = b.shape
    squared = cdist(a, b.reshape(k * m, 2), "sqeuclidean").reshape(len(a), k, m)
    return np.asarray(squared.min(axis=2).mean(axis=0) + squared.min(axis=0).mean(axis=1))


def chamfer(shapes_a: Sequence[NDArray[np.floating]],
            shapes_b: Sequence[NDArray[np.floating]]) -> float:
    """``mean_{S in A} min_{T in B} d(S, T) + mean_{T in B} min_{S in A} d(S, T)`` where ``d``
    is :func:`point_chamfer` and every shape holds the same number of points.

    ``calculate_chamfer`` / ``chamfer_distance`` of the released code. 0 when both SVGs draw
    the same outlines; lower is better. Raises ValueError when either side has no shape.
    """
    if not shapes_a or not shapes_b:
        raise ValueError("a Chamfer distance needs at least one shape on each side")
    stacked = np.stack([np.asarray(s, np.float64) for s in shapes_b])
    table = np.stack([point_chamfer(np.asarray(s, np.float64), stacked) for s in shapes_a])
    return float(table.min(axis=1).mean() + table.min(axis=0).mean())


def svg_chamfer(output_svg: str, reference_svg: str, released: bool = True) -> float:
    """:func:`chamfer` of the shapes of two SVGs (the released ``chamfer_distance(pred, ref,
    100)``); ``released`` picks how shapes are read (see :mod:`svgeval.metrics._svgpoints`).
    Raises ValueError when either SVG gives no point set. Run it on untrusted SVG through
    :meth:`svgeval.render.isolated.Renderer.call`."""
    return chamfer(point_sets(output_svg, POINTS_PER_SHAPE, released),
                   point_sets(reference_svg, POINTS_PER_SHAPE, released))
