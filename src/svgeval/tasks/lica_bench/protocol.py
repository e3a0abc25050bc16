"""The released LICA-Bench protocol (``purvanshi/lica-bench`` c5c63dc, ``tasks/svg.py``): the
``lica`` metric preset, how pictures are drawn, and the base of the eight tasks.

* Renders (``_render_svg``, ``:84-97``): CairoSVG at 256 x 256 composited on white (svgeval's
  isolated renderer draws the same pixels; an answer that cannot be drawn is a recorded failure).
* ``mse`` (``:100-110``): mean squared error of the 8-bit renders / 255^2, i.e. on [0, 1];
  ``ssim`` (``:113-126``): scikit-image on uint8 RGB, ``data_range=255``, default 7 x 7 uniform
  window; ``lpips`` (``:129-147``): AlexNet, ``2x - 1`` inputs, the 256 px renders;
  ``clip_score`` (``:150-167``): CLIP ViT-B/32, ``logits_per_text / 100`` (the cosine: the
  checkpoint's logit scale is 100) clamped to [0, 1].
* A failed render (either side) scores ``mse`` 1.0, ``ssim`` 0.0, ``lpips`` 0.0 -- the *best*
  LPIPS -- and ``clip_score`` 0.0 (:data:`RELEASED_FAILURE`). ``--set failed_render=white``
  (ours) draws a failed answer as a white canvas and scores that picture like any other.
* Every task reports the plain mean over all its samples (``n = max(len(predictions), 1)``); a
  failed model call is the answer ``""`` (``runner.py:285-293``), as svgeval's runner scores it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from svgeval.metrics.pixel import mse, ssim
from svgeval.metrics.presets import variant
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.svg.extract import Extraction
from svgeval.tasks.base import Sample, TargetT, Task
from svgeval.tasks.common import Drawing, ReferenceRenders
from svgeval.tasks.lica_bench.answers import Fence, answer_code, code_extraction
from svgeval.tasks.outcome import Failure, FailureKind, Outcome

PRESET = variant(
    "lica",
    description="LICA-Bench tasks/svg.py (purvanshi/lica-bench c5c63dc): 256 px CairoSVG "
    "renders on white, uniform 7 px SSIM on uint8, LPIPS-Alex on 2x-1 inputs, CLIP ViT-B/32 "
    "cosine clamped to [0, 1]; difflib edit distance, byte compression ratio",
    metrics=("accuracy", "byte_ratio", "canonical_match", "clip_score", "code_bytes",
             "difflib_distance", "difflib_similarity", "lpips", "mse", "repair_accuracy", "ssim",
             "svg_valid", "weighted_complexity"),
    render_size=256,
    clip_model="openai/clip-vit-base-patch32",
    clip_scale=1.0,
    clip_clamp_zero=True,
    lpips_net="alex",
    lpips_input="standard",
    lpips_size=None,
    ssim_window=7,
    ssim_gaussian=False,
).name
RENDER_SPEC = RenderSpec.square(256, background="white")
VALIDITY_SPEC = RenderSpec.square(64, background="white")
"""``_svg_validity`` (``:170-202``) renders at 64 x 64."""
DRAWING = Drawing(RENDER_SPEC, failed="white")
RELEASED_FAILURE = {"mse": 1.0, "ssim": 0.0, "lpips": 0.0, "clip_score": 0.0}
"""What the release scores when either render fails (``:107``, ``:121``, ``:138``, ``:156``)."""
FailedRender = Literal["released", "white"]


@dataclass(frozen=True)
class FenceOptions:
    """``--set`` option of the tasks answered with SVG code (svg-3 .. svg-8)."""

    fence: Fence = field(default="first", metadata={
        "help": "first: the first fenced block is the answer (released strip_thinking); "
                "last: the last one (ours)"})


@dataclass(frozen=True)
class CodeOptions(FenceOptions):
    """``--set`` options of the tasks whose answers are drawn (svg-4 .. svg-8)."""
    failed_render: FailedRender = field(default="released", metadata={
        "help": "released: an answer that cannot be drawn scores mse 1, ssim 0, lpips 0 (best), "
                "clip 0; white: it is drawn as a white canvas and scored (ours)"})


class LicaTask(Task[TargetT]):
    """Base of the LICA-Bench SVG tasks."""

    suite: ClassVar[str] = "LICA-Bench"
    suite_source: ClassVar[str] = ("HF purvanshi/lica-dataset (benchmarks/svg/svg-N.json) + "
                                   "purvanshi/lica-bench@c5c63dc src/design_benchmarks/tasks/svg.py")
    preset: ClassVar[str] = PRESET
    task_id: ClassVar[str]
    """The release's id, e.g. ``svg-3`` (its file is ``svg-3.json``)."""
    Options: ClassVar[type[Any]] = CodeOptions


class LicaCodeTask(LicaTask[TargetT]):
    """Base of the tasks answered with SVG code: reads the answer, draws it and the reference
    (cached), and gives the pixel metrics under :attr:`CodeOptions.failed_render`."""

    @functools.cached_property
    def references(self) -> ReferenceRenders:
        return ReferenceRenders(RENDER_SPEC)

    def read_answer(self, response: str) -> tuple[str, Extraction]:
        """The text the release scores and its SVG (none without ``<svg``)."""
        code = answer_code(response, self.options.fence)
        return code, code_extraction(code, self.options.fence)

    def drawn(self, sample: Sample[TargetT], code: str, answer: Extraction, reference_svg: str,
              renderer: Renderer) -> tuple[Outcome, FloatImage | None, FloatImage | None]:
        """An outcome holding ``code`` and its failure (nothing to draw, a failed render, a
        reference that does not draw), the answer's picture and the reference's."""
        outcome = Outcome.of(sample, extracted=code or None, extraction_rule=answer.rule)
        reference = self.references.get(reference_svg, renderer)
        if isinstance(reference, RenderFailure):
            outcome.failure = Failure.of_render(reference, FailureKind.REFERENCE)
            return outcome, None, None
        if answer.svg is None:
            outcome.failure = Failure(kind=FailureKind.EXTRACT, detail=answer.error)
            return outcome, None, reference.floats
        rendered = renderer.render(answer.svg, RENDER_SPEC)
        if isinstance(rendered, RenderFailure):
            outcome.failure = Failure.of_render(rendered)
            return outcome, None, reference.floats
        return outcome, rendered.floats, reference.floats

    def pixel_metrics(self, picture: FloatImage | None, reference: FloatImage | None,
                      names: tuple[str, ...]) -> dict[str, float | None]:
        """``mse`` / ``ssim`` of the answer's picture against the reference's: None without a
        reference, the released values for an answer with no picture unless it is drawn white."""
        if reference is None:
            return dict.fromkeys(names)
        if picture is None and self.options.failed_render == "released":
            return {name: RELEASED_FAILURE[name] for name in names}
        drawn = DRAWING.stand_in(picture)
        values: dict[str, float | None] = {"mse": mse(drawn, reference)}
        if "ssim" in names:
            values["ssim"] = ssim(drawn, reference, preset=PRESET)
        return values
