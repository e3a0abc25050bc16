"""How a suite draws SVG for its image metrics, and what stands in for an answer with no picture.

Every suite that compares pictures draws answers and references at one
:class:`~svgeval.render.cairo.RenderSpec` and must say what a *failed* answer (nothing extracted,
or a render that failed) is compared as. The released protocols disagree, so the choice is a
parameter, :attr:`Drawing.failed`, of one mechanism:

* ``white``: a white canvas (SVGenius' ``rasterize_svg``, StarVector's validator, VectorGym's
  placeholder, UniSVG's empty SVG): the failure is counted, as a picture of nothing;
* ``black``: a black canvas (SArena's ``pure_black.png``): counted, as the worst picture;
* ``none``: no picture, so the sample has no value for the metric (SVGEditBench V2, whose
  metrics loop over the PNGs that rendered).

The runner hands a failed answer to the batched metric stage with no SVG (None, see
:class:`~svgeval.tasks.base.BatchItem`); :meth:`Drawing.draw` gives the stand-in for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import numpy as np
from numpy.typing import NDArray

from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, Picture, Rendered
from svgeval.tasks.lazy import LazySequence

FailedPicture = Literal["white", "black", "none"]
SvgT = TypeVar("SvgT", str, str | None)
"""The SVGs :func:`kept_in_chunks` draws: answers (None: a failed one) or references."""


def draw_pictures(svgs: Sequence[str | None], spec_of: Callable[[str], RenderSpec | None],
                  renderer: Renderer) -> list[Picture | None]:
    """The picture of each of ``svgs`` at ``spec_of(svg)``, all drawn side by
    side (:meth:`~svgeval.render.isolated.Renderer.draw_each`); None for a failed answer (no
    SVG), an SVG ``spec_of`` gives no size, or a failed render."""
    specs = [None if svg is None else spec_of(svg) for svg in svgs]
    drawn = iter(renderer.draw_each([(svg, spec) for svg, spec in zip(svgs, specs)
                                     if svg is not None and spec is not None]))
    pictures: list[Picture | None] = []
    for spec in specs:
        picture = None if spec is None else next(drawn)
        pictures.append(picture if isinstance(picture, Picture) else None)
    return pictures


def kept_in_chunks(svgs: Sequence[SvgT], draw: Callable[[Sequence[SvgT]], Sequence[Rendered | None]],
                   chunk: int = 64) -> list[Picture | None]:
    """``draw`` of ``svgs``, ``chunk`` at a time, each picture kept compressed
    (:meth:`~svgeval.render.picture.Picture.packed`; None for one that has none or failed): a
    set-level metric's group (FID), which held as pixels takes 0.6 MiB a picture at 448 px."""
    return [picture.packed() if isinstance(picture, Picture) else None
            for start in range(0, len(svgs), chunk)
            for picture in draw(svgs[start : start + chunk])]


@dataclass(frozen=True)
class Drawing:
    """Answers and references drawn at ``spec``; a failed answer drawn as ``failed``."""

    spec: RenderSpec
    failed: FailedPicture = "white"

    @functools.cached_property
    def canvas_pixels(self) -> NDArray[np.uint8]:
        """The picture a failed answer is compared as, in 8 bits: a white or black canvas at
        ``spec`` (one array, shared); ValueError for ``none``, which compares no picture."""
        if self.failed == "none":
            raise ValueError("a drawing with failed='none' compares no picture for a failed answer")
        value = 255 if self.failed == "white" else 0
        return np.full((self.spec.height, self.spec.width, 3), value, np.uint8)

    @functools.cached_property
    def canvas(self) -> FloatImage:
        """:attr:`canvas_pixels` in [0, 1] (one array, shared)."""
        return Picture(self.canvas_pixels).floats

    def render(self, svg: str | None, renderer: Renderer) -> FloatImage | None:
        """The picture of ``svg``; None when it has none (a failed answer, a failed render)."""
        if svg is None:
            return None
        drawn = renderer.render(svg, self.spec)
        return drawn.floats if isinstance(drawn, Picture) else None

    def render_all(self, svgs: Sequence[str | None], renderer: Renderer) -> list[Picture | None]:
        """The pictures of ``svgs``, drawn side by side
        (:func:`draw_pictures`); None for one that has none."""
        return draw_pictures(svgs, lambda svg: self.spec, renderer)

    def stand_in(self, picture: FloatImage | None) -> FloatImage:
        """``picture``, or :attr:`canvas` in place of a missing one."""
        return picture if picture is not None else self.canvas

    def draw(self, svg: str | None, renderer: Renderer) -> FloatImage:
        """The picture of ``svg``, or :attr:`canvas` when it has none."""
        return self.stand_in(self.render(svg, renderer))

    def stand_in_pixels(self, picture: Rendered | None) -> NDArray[np.uint8]:
        """``picture``'s pixels, or :attr:`canvas_pixels` in place of a missing or failed one."""
        return picture.pixels if isinstance(picture, Picture) else self.canvas_pixels

    def draw_all(self, svgs: Sequence[str | None], renderer: Renderer) -> list[NDArray[np.uint8]]:
        """The 8-bit pixels of each of ``svgs`` (:meth:`render_all`), or
        :attr:`canvas_pixels` for one that has none: what the model metrics are given (they
        get the same values from :meth:`draw`'s floats, after converting them back)."""
        return [self.stand_in_pixels(picture) for picture in self.render_all(svgs, renderer)]

    def render_kept(self, svgs: Sequence[str | None], renderer: Renderer,
                    chunk: int = 64) -> list[Picture | None]:
        """:meth:`render_all` of ``svgs`` kept compressed (:func:`kept_in_chunks`)."""
        return kept_in_chunks(svgs, lambda part: self.render_all(part, renderer), chunk)

    def unpacked(self, kept: Sequence[Picture | None]) -> Sequence[NDArray[np.uint8]]:
        """The pixels of :meth:`render_kept`'s pictures, each unpacked when read,
        :attr:`canvas_pixels` for one that has none."""
        return LazySequence(kept, lambda picture: self.canvas_pixels if picture is None
                            else picture.pixels)

    def draw_kept(self, svgs: Sequence[str | None], renderer: Renderer,
                  chunk: int = 64) -> Sequence[NDArray[np.uint8]]:
        """:meth:`draw_all` of ``svgs`` kept compressed, each unpacked when read
        (:meth:`render_kept`)."""
        return self.unpacked(self.render_kept(svgs, renderer, chunk))
