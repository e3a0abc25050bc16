"""How a suite draws SVG for its image metrics, and what stands in for an answer with no picture.

Every suite that compares pictures draws answers and references at one
:class:`~svgeval.svg.render.RenderSpec` and must say what a *failed* answer (nothing extracted,
or a render that failed) is compared as. The released protocols disagree, so the choice is a
parameter, :attr:`Drawing.failed`, of one mechanism:

* ``white``: a white canvas (SVGenius' ``rasterize_svg``, StarVector's validator, VectorGym's
  placeholder, UniSVG's empty SVG): the failure is counted, as a picture of nothing;
* ``black``: a black canvas (SArena's ``pure_black.png``): counted, as the worst picture;
* ``none``: no picture, so the sample has no value for the metric (SVGEditBench V2, whose
  metrics loop over the PNGs that rendered).

The runner hands a failed answer to the batched metric stage as
:data:`~svgeval.tasks.base.BLANK_SVG`, which every renderer draws as white; :meth:`Drawing.draw`
gives the stand-in for it without rendering.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import numpy as np

from svgeval.svg.isolation import Renderer
from svgeval.svg.render import FloatImage, RenderSpec
from svgeval.tasks.base import BLANK_SVG

FailedPicture = Literal["white", "black", "none"]


@dataclass(frozen=True)
class Drawing:
    """Answers and references drawn at ``spec``; a failed answer drawn as ``failed``."""

    spec: RenderSpec
    failed: FailedPicture = "white"

    @functools.cached_property
    def canvas(self) -> FloatImage:
        """The picture a failed answer is compared as: a white or black canvas at ``spec``
        (one array, shared); ValueError for ``none``, which compares no picture."""
        if self.failed == "none":
            raise ValueError("a drawing with failed='none' compares no picture for a failed answer")
        return np.full((self.spec.height, self.spec.width, 3), 1.0 if self.failed == "white" else 0.0)

    def render(self, svg: str, renderer: Renderer) -> FloatImage | None:
        """The picture of ``svg``; None when it has none (a failed answer, a failed render)."""
        if svg == BLANK_SVG:
            return None
        return renderer.render(svg, self.spec).image

    def stand_in(self, picture: FloatImage | None) -> FloatImage:
        """``picture``, or :attr:`canvas` in place of a missing one."""
        return picture if picture is not None else self.canvas

    def draw(self, svg: str, renderer: Renderer) -> FloatImage:
        """The picture of ``svg``, or :attr:`canvas` when it has none."""
        return self.stand_in(self.render(svg, renderer))
