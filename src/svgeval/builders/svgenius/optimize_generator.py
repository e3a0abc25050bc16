"""New SVGenius code-optimization cases from any folder of SVGs (paper appendix G.2).

The ground truth comes from SVGO (the PyPI package ``svgo-py``, a byte-exact port of npm svgo
4.1.0) in the released style (:func:`svgo_config`), with a precision that follows the viewBox
scale and a render check against the original (:data:`MAX_TARGET_MSE`); SVGO's own compression
is recorded as ``opti_ratio``. The task that scores the cases is :mod:`.optimize`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import svgo
from lxml import etree

from svgeval.builders.render_checks import generator_renderer, render
from svgeval.builders.skips import SkipLog
from svgeval.builders.svgenius.sources import Outcome, cases_from_sources
from svgeval.metrics.editing import compression_ratio
from svgeval.metrics.pixel import mse
from svgeval.render.isolated import Renderer
from svgeval.svg.refusals import SvgRejected
from svgeval.svg.sanitize import check_svg
from svgeval.svg.viewbox import view_box

RELEASED_PRECISION = 1
"""Decimal places of the released ground truth, whose icons are :data:`RELEASED_SIZE` units."""
RELEASED_SIZE = 1024.0
EXTRA_DIGITS = 2
"""Decimal places tried beyond the scale's when SVGO's output fails the render check."""
MAX_TARGET_MSE = 1e-4
"""Largest MSE (224 px renders, values in [0, 1]) allowed between a target and its original.

1e-4 is about five of the 50,176 pixels turning from black to white, or a faint anti-aliasing
shift along the edges: nothing a viewer sees. The released ground truth has median 8e-6, but
32 of its 299 targets are above this limit (up to 7.6e-3: one decimal visibly moves shapes
drawn under scaling transforms). With this check, 28 of the 297 released originals SVGO
accepts need a second decimal, and their targets have mean MSE 1.2e-5, at most 7.7e-5."""


def svgo_config(precision: int) -> dict[str, Any]:
    """SVGO settings in the released ground truth's style: the default preset with
    ``precision`` decimal places, and no width/height (no released ``opti_svg`` keeps them).

    With the released precision of 1 this gives, on the released originals, renders as close
    to the originals as the released ``opti_svg`` (mean MSE 1.9e-4 / 7.7e-5 / 1.2e-4 vs
    1.9e-4 / 1.1e-4 / 1.2e-4 easy / medium / hard); the released files came from an older
    SVGO, so bytes differ (e.g. arc flags written ``0 01`` there).
    """
    return {
        "plugins": [
            {"name": "preset-default", "params": {"floatPrecision": precision}},
            "removeDimensions",
        ]
    }


def scale_precision(root: etree._Element) -> int:
    """Decimal places that round as finely, relative to the icon, as the release does.

    The release rounds its 1024-unit icons to one decimal; an icon ``s`` units across (the
    longer side of its viewBox, which the renderer fits to the output) gets ``1 +
    round(log10(1024 / s))`` places (at least 0): 3 for a 24-unit icon, 2 for 36 to 200 units,
    1 from 512 to 1024. Without a viewBox or size, the released 1.
    """
    box = view_box(root)
    if box is None:
        return RELEASED_PRECISION
    return max(0, RELEASED_PRECISION + round(math.log10(RELEASED_SIZE / box.size)))


def _optimize_case(name: str, svg: str, *, precision: int | None, pool: Renderer) -> Outcome:
    """The item for one SVG, or None and why there is none."""
    try:
        root = etree.fromstring(check_svg(svg))
    except SvgRejected as error:
        return None, f"refused by the safety checks ({error.reason})"
    original = render(svg, pool)
    if original is None:
        return None, "does not render"
    first = scale_precision(root) if precision is None else precision
    for digits in range(first, first + EXTRA_DIGITS + 1):
        try:
            optimized = svgo.optimize(svg, svgo_config(digits))["data"]
        except Exception as failure:  # noqa: BLE001 - svgo-py raises assorted errors on odd input
            return None, f"SVGO failed ({type(failure).__name__})"
        image = render(optimized, pool)
        error_mse = mse(original, image) if image is not None else math.inf
        if error_mse <= MAX_TARGET_MSE:
            item = {
                "svg_path": name,
                "origin_svg": svg,
                "opti_svg": optimized,
                "opti_ratio": compression_ratio(svg, optimized),
                "optimizer": f"svgo-py {svgo.VERSION}",
                "float_precision": digits,
                "render_mse": error_mse,
            }
            return item, ""
    return None, f"SVGO's output renders off by MSE > {MAX_TARGET_MSE:g} at up to {digits} decimals"


def build_optimize_cases(
    svgs: Mapping[str, str],
    *,
    precision: int | None = None,
    renderer: Renderer | None = None,
    skipped: SkipLog | None = None,
) -> list[dict[str, Any]]:
    """Code-optimization items in the released layout, one per SVG with a faithful target.

    ``svgs`` maps a name (stored as ``svg_path``) to SVG code. The target is SVGO's output at
    ``precision`` decimal places (default: :func:`scale_precision`), or up to
    :data:`EXTRA_DIGITS` more when its 224 px render is off the original's by more than
    :data:`MAX_TARGET_MSE`. Each item holds ``origin_svg``, ``opti_svg`` and its
    ``opti_ratio`` (CCR in percent), plus the optimizer version, the decimal places and the
    render MSE. SVGs left out are recorded in ``skipped`` with the reason. Deterministic: the
    same input gives the same bytes. ``renderer`` defaults to a pool with the generators'
    short time limit.
    """
    with generator_renderer(renderer) as pool:
        make_case = functools.partial(_optimize_case, precision=precision, pool=pool)
        return cases_from_sources(svgs, make_case, pool, skipped)
