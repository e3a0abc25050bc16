"""Render checks shared by the data generators (SVGenius' and SVGEditBench's builders).

Generated cases must change what the SVG looks like: a bug-fixing case whose bug is invisible,
or a style edit that leaves the picture as it was, cannot be scored by its render. Renders use
the SVGenius settings (224 px, white background) in an isolated :class:`Renderer`; broken SVGs
can hang CairoSVG (an unknown path command does), so the generators' default time limit is
short.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure

RENDER_SPEC = RenderSpec.square(224, background="white")
"""The SVGenius settings, which every check draws at."""
GENERATOR_TIMEOUT_S = 3.0
CHANGE_TOLERANCE = 0.1
"""A pixel has changed when one of its channels moved by more than this (values in [0, 1])."""
MIN_CHANGED_FRACTION = 0.001
"""A render differs visibly when at least this share of its pixels changed (50 of 224 x 224)."""


@contextmanager
def generator_renderer(renderer: Renderer | None) -> Iterator[Renderer]:
    """``renderer`` itself, or a new pool with the generators' time limit, closed afterwards."""
    if renderer is not None:
        yield renderer
        return
    with Renderer(timeout_s=GENERATOR_TIMEOUT_S) as pool:
        yield pool


def render(svg: str, renderer: Renderer) -> FloatImage | None:
    """The 224 px render of ``svg``, or None when it cannot be rendered."""
    drawn = renderer.render(svg, RENDER_SPEC)
    return None if isinstance(drawn, RenderFailure) else drawn.floats


def visibly_different(a: FloatImage, b: FloatImage) -> bool:
    """True when at least :data:`MIN_CHANGED_FRACTION` of the pixels changed visibly."""
    changed = np.max(np.abs(a - b), axis=-1) > CHANGE_TOLERANCE
    return bool(changed.mean() >= MIN_CHANGED_FRACTION)
