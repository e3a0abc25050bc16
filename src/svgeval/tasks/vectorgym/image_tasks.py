"""VectorGym Sketch2SVG, SVG editing and Text2SVG: answers drawn and compared with the reference.

The answer (:func:`~svgeval.tasks.vectorgym.base.extract_first_svg`) goes through the released
repair chain (:mod:`svgeval.render.repair`: as given when svgpathtools reads it, else BeautifulSoup +
CairoSVG, else the empty placeholder), as ``validators/openrouter.py:338-373`` does. Renders
follow the released ``utils/svg.py:robust_svg_to_pil``: CairoSVG at 512 x 512 on white, at
**128 dpi** (``:106-107``; ``scale=2`` has no effect when both output sizes are given). An answer
that the chain keeps but CairoSVG refuses is drawn as the released error image, a red X on white
(``get_error_img``, ``:20-38``); one that the chain turns into the placeholder is white.
``--set failed=white`` is svgeval's reading before issue 27: no repair, every failure white.

Per sample: ``mse`` (the released ``calculate_mse`` and ``L2``: ``F.mse_loss`` of ``ToTensor``
images, which are RGB: CairoSVG writes RGB when a background is given, so the mean over the three
channels), ``ssim`` (scikit-image, uniform 11 px window) and ``judge`` (the VLM judge, 1-10,
:mod:`svgeval.tasks.vectorgym.prompts`). Batched: ``lpips`` (VGG; released ``compute_LPIPS.py:20,28``:
the 8-bit render resized to 384 with PIL, then ImageNet mean/std normalised), ``lpips_standard`` (the same at LPIPS' own
[-1, 1] convention), ``dino`` (DINOv2-base, mean-pooled, (cos + 1) / 2) and, for Text2SVG,
``clip`` (CLIP ViT-B/32, 100 x cos, torchmetrics' unclamped update as released: a caption
over 77 tokens has its token ids cut at 77, losing the end token; ``--set clip_truncation=eot``
keeps it).

Two readings of every image metric:

* ``<metric>``: the released protocol; an answer with no SVG after the repair chain is drawn as
  the empty placeholder (a white canvas), one CairoSVG refuses as the red X; both are counted.
* ``<metric>_worst``: a failed answer gets the metric's worst value (:data:`WORST`).

The judge sees renders of valid answers only; a failed answer scores ``judge`` 0 (ours; the
released code would have shown the judge its placeholder). Released judge images: Sketch2SVG
and editing, the reference render then the output render; Text2SVG, the output render alone.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from svgeval.messages import png_bytes
from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import mse, ssim
from svgeval.render.cairo import RenderSpec
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, Picture
from svgeval.render.repair import repair
from svgeval.svg.extract import Extraction, extract_svg
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample
from svgeval.tasks.common import CaptionedReference, Drawing, ImageGenerationTask, TwoReadings
from svgeval.tasks.outcome import MetricValues, Outcome
from svgeval.tasks.vectorgym import prompts
from svgeval.tasks.vectorgym.base import VectorGymOptions, VectorGymTask
from svgeval.tasks.vectorgym.data import VectorGymRow

RENDER = RenderSpec.square(512, background="white", dpi=128)
LPIPS_SIZE = 384
WORST: Mapping[str, float] = {
    "mse": 1.0, "ssim": 0.0, "lpips": 1.0, "lpips_standard": 1.0, "dino": 0.0,
    "clip": 0.0,
}
"""The ``_worst`` reading's value of a failed answer (ours): the bound of each metric's usual
range on the bad side (MSE of pixels in [0, 1]; LPIPS' practical maximum)."""
READINGS = TwoReadings(suffix="_worst", paper="stand_in", other="worst", worst=WORST)
"""``<metric>``: a failed answer drawn as the white placeholder (released); ``_worst``: ours."""
_JUDGE_FAILED = 0.0
_METRICS = {"mse": "mse", "ssim": "ssim", "lpips": "lpips",
            "lpips_standard": "lpips", "dino": "dino", "clip": "clip_score"}


def _readings(*names: str) -> dict[str, str]:
    return READINGS.keys({name: _METRICS[name] for name in names})


@functools.cache
def error_picture(height: int, width: int) -> Picture:
    """The released ``get_error_img``: white, with a red X (OpenCV lines, thickness
    ``max(1, h // 50)``) between the centre -/+ ``min(h, w) // 5`` on each axis."""
    import cv2

    image = np.full((height, width, 3), 255, np.uint8)
    thickness, offset = max(1, height // 50), min(height, width) // 5
    x, y = width // 2, height // 2
    cv2.line(image, (x - offset, y - offset), (x + offset, y + offset), (255, 0, 0), thickness)
    cv2.line(image, (x - offset, y + offset), (x + offset, y - offset), (255, 0, 0), thickness)
    return Picture(image)


def error_image(height: int, width: int) -> FloatImage:
    """:func:`error_picture` in [0, 1]."""
    return error_picture(height, width).floats


@dataclass(frozen=True)
class GenerationOptions(VectorGymOptions):
    """``--set`` options of the SVG-answering VectorGym tasks."""

    lpips: Literal["released", "standard"] = field(
        default="released", metadata={"help": "which LPIPS input convention the lpips key holds "
                                      "(both are always reported: lpips, lpips_standard)"})
    extract: Literal["first", "last"] = field(
        default="first", metadata={"help": "first: the first <svg> block, as both released "
                                   "inference paths; last: the last complete block"})
    failed: Literal["released", "white"] = field(
        default="released", metadata={"help": "released: the repair chain, a red X for an SVG "
                                      "CairoSVG refuses, white for none; white: no repair, "
                                      "every failure white"})


class VectorGymGenerationTask(ImageGenerationTask[CaptionedReference],
                              VectorGymTask[CaptionedReference]):
    """Base of Sketch2SVG, editing and Text2SVG."""

    Options = GenerationOptions
    drawing = Drawing(RENDER, failed="white")
    extraction_rule = "vectorgym"
    """The first ``<svg>`` block (:func:`~svgeval.tasks.vectorgym.base.extract_first_svg`)."""
    judge_metrics = ("judge",)
    judge_sees_images = True
    batched_metrics: ClassVar[tuple[str, ...]] = ("lpips", "lpips_standard", "dino")
    metrics: ClassVar[Mapping[str, str]] = {
        **_readings("mse", "ssim", "lpips", "lpips_standard", "dino"),
        "judge": "vlm_judge", "judged_share": "judged_share",
    }

    def sample(self, sample_id: str, row: VectorGymRow, messages: list[Any], reference: str,
               caption: str, input_svg: str | None = None) -> Sample[CaptionedReference]:
        """A sample whose answer is ``reference`` (what the oracle says)."""
        return Sample(id=sample_id, group=self.options.split, messages=messages,
                      reference=reference, input_svg=input_svg,
                      target=CaptionedReference(reference=reference, caption=caption))

    def judge_images(self, reference: bytes, output: bytes) -> list[bytes]:
        return [reference, output]

    def extract(self, response: str) -> Extraction:
        """The first (``--set extract=last``: the last) ``<svg>`` block of the response."""
        rule = "vectorgym" if self.options.extract == "first" else "vectorgym-last"
        return extract_svg(response, rule)

    def prepare(self, answer: Extraction, renderer: Renderer) -> Extraction:
        """The extracted SVG through the released repair chain (unless ``--set failed=white``)."""
        if self.options.failed == "released" and answer.svg is not None:
            return repair(answer.svg, answer.rule, renderer)
        return answer

    def stand_in(self, picture: FloatImage | None, refused: bool) -> FloatImage:
        """The picture an answer is compared as: its render; the red X for an SVG that CairoSVG
        refused (``refused``) in the released reading; else the white placeholder."""
        if picture is None and refused and self.options.failed == "released":
            return error_image(RENDER.height, RENDER.width)
        return self.drawing.stand_in(picture)

    def stand_in_pixels(self, refused: bool) -> NDArray[np.uint8]:
        """:meth:`stand_in` of an answer with no picture, in 8 bits."""
        if refused and self.options.failed == "released":
            return error_picture(RENDER.height, RENDER.width).pixels
        return self.drawing.canvas_pixels

    def score_picture(self, score: Outcome, sample: Sample[CaptionedReference], answer: Extraction,
                      picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        drawn = self.stand_in(picture, refused=answer.svg is not None)
        for name, value in (("mse", mse(drawn, reference)), ("ssim", ssim(drawn, reference))):
            READINGS.put(score, name, value, picture is not None)
        if picture is None:
            score.metrics["judge"] = _JUDGE_FAILED
        else:
            images = self.judge_images(png_bytes(reference), png_bytes(picture))
            score.ask_judge(self.judge_request(sample.target.caption, images))

    def batch_score(self, items: Sequence[BatchItem[CaptionedReference]],
                    context: MetricContext) -> list[MetricValues]:
        drawn = self.drawn(items, context.renderer)
        references = drawn.references
        # a failed item is in the paper's reading only when its SVG did not render (refused)
        outputs = [output if valid else self.stand_in_pixels(refused=item.in_paper_reading)
                   for item, output, valid in zip(items, drawn.outputs, drawn.valid)]
        options = self.metric_options(context)
        scores = [MetricValues() for _ in items]
        first, second = ("imagenet", "standard")
        if self.options.lpips == "standard":
            first, second = second, first
        for name, mode in (("lpips", first), ("lpips_standard", second)):
            READINGS.put_batch(scores, drawn.valid, name, functools.partial(
                lpips, outputs, references, normalization=mode, size=LPIPS_SIZE, resize="pil",
                **options))
        READINGS.put_batch(scores, drawn.valid, "dino",
                           lambda: dino(outputs, references, **options))
        self.more_batched(items, drawn.valid, outputs, scores, options)
        return scores

    def more_batched(self, items: Sequence[BatchItem[CaptionedReference]], valid: Sequence[bool],
                     outputs: Sequence[NDArray[np.uint8]], scores: list[MetricValues],
                     options: dict[str, Any]) -> None:
        """Task-specific batched metrics (none here)."""


@register_task
class VectorGymSketch(VectorGymGenerationTask):
    """Sketch image -> SVG; the reference is ``original_svg``."""

    name = "vectorgym-sketch"
    description = "VectorGym Sketch2SVG: a hand-drawn sketch to SVG (MSE, SSIM, LPIPS, DINO, judge)"
    kind = "sketch"

    def keep(self, row: VectorGymRow) -> bool:
        return row.has_svg and row.sketch_png is not None

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample[CaptionedReference]:
        messages = prompts.generation_message("sketch", prompts.SKETCH_PROMPT,
                                              self.options.prompt, row.sketch_png)
        return self.sample(sample_id, row, messages, str(row.original_svg), "")


@register_task
class VectorGymEdit(VectorGymGenerationTask):
    """``original_svg`` + ``editing_prompt`` -> SVG; the reference is ``editing_target_svg``."""

    name = "vectorgym-edit"
    description = "VectorGym editing: expert multi-step SVG edits (MSE, SSIM, LPIPS, DINO, judge)"
    kind = "edit"
    takes_input_svg = True

    def keep(self, row: VectorGymRow) -> bool:
        target = row.editing_target_svg
        return (row.has_svg and bool(row.editing_prompt) and isinstance(target, str)
                and "<svg" in target.lower())

    def row_id(self, row: VectorGymRow) -> str:
        index = row.editing_annotation_index
        return row.svg_id if index is None else f"{row.svg_id}/{index}"

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample[CaptionedReference]:
        prompt = prompts.EDIT_PROMPT.format(instruction=row.editing_prompt, svg=row.original_svg)
        messages = prompts.generation_message("edit", prompt, self.options.prompt)
        return self.sample(sample_id, row, messages, str(row.editing_target_svg),
                           str(row.editing_prompt), input_svg=row.original_svg)


@dataclass(frozen=True)
class TextOptions(GenerationOptions):
    """``--set`` options of Text2SVG."""

    clip_truncation: Literal["cut", "eot"] = field(default="cut", metadata={
        "help": "captions over 77 tokens: cut (ids sliced, torchmetrics, released) or eot "
                "(end token kept)"})


@register_task
class VectorGymText(VectorGymGenerationTask):
    """``text_caption`` -> SVG; the reference is ``original_svg``."""

    name = "vectorgym-text"
    Options = TextOptions
    description = "VectorGym Text2SVG: a caption to SVG (CLIP, MSE, SSIM, LPIPS, DINO, judge)"
    kind = "text"
    batched_metrics = (*VectorGymGenerationTask.batched_metrics, "clip")
    metrics: ClassVar[Mapping[str, str]] = {
        **VectorGymGenerationTask.metrics, **_readings("clip")}

    def keep(self, row: VectorGymRow) -> bool:
        return row.has_svg and bool(row.text_caption)

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample[CaptionedReference]:
        prompt = prompts.TEXT_PROMPT.format(caption=row.text_caption)
        messages = prompts.generation_message("text", prompt, self.options.prompt)
        return self.sample(sample_id, row, messages, str(row.original_svg), str(row.text_caption))

    def judge_images(self, reference: bytes, output: bytes) -> list[bytes]:
        return [output]

    def more_batched(self, items: Sequence[BatchItem[CaptionedReference]], valid: Sequence[bool],
                     outputs: Sequence[NDArray[np.uint8]], scores: list[MetricValues],
                     options: dict[str, Any]) -> None:
        captions = [item.sample.target.caption for item in items]
        truncation = self.options.clip_truncation
        READINGS.put_batch(scores, valid, "clip", lambda: clip_score(
            outputs, captions, truncation=truncation, **options))
