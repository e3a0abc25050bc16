"""VectorGym Sketch2SVG, SVG editing and Text2SVG: answers drawn and compared with the reference.

Renders follow the released ``utils/svg.py:robust_svg_to_pil``: CairoSVG at 512 x 512 on white.
Per sample: ``mse`` (the released ``calculate_mse``: ``F.mse_loss`` of ``ToTensor`` images,
which are RGBA with an opaque alpha, i.e. the mean over four channels: 3/4 of the RGB MSE),
``mse_rgb`` (plain RGB), ``ssim`` (scikit-image, uniform 11 px window) and ``judge`` (the VLM
judge, 1-10, :mod:`svgeval.tasks.vectorgym.prompts`). Batched: ``lpips`` (VGG; released
``compute_LPIPS.py``: resized to 384 and ImageNet mean/std normalised), ``lpips_standard`` (the
same at LPIPS' own [-1, 1] convention), ``dino`` (DINOv2-base, mean-pooled, (cos + 1) / 2) and,
for Text2SVG, ``clip`` (CLIP ViT-B/32, 100 x cos, torchmetrics' unclamped update as released).

Two readings of every image metric:

* ``<metric>``: the released protocol; an answer with no SVG or one that does not render is
  drawn as the empty placeholder (a white canvas) and counted.
* ``<metric>_worst``: a failed answer gets the metric's worst value (:data:`WORST`).

The judge sees renders of valid answers only; a failed answer scores ``judge`` 0 (ours; the
released code would have shown the judge its placeholder). Released judge images: Sketch2SVG
and editing, the reference render then the output render; Text2SVG, the output render alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from svgeval.metrics.clip import clip_score
from svgeval.metrics.dino import dino
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import mse, ssim
from svgeval.svg.isolation import Renderer
from svgeval.svg.render import FloatImage, RenderSpec
from svgeval.tasks import register_task
from svgeval.tasks.base import (
    BLANK_SVG,
    BatchItem,
    Failure,
    FailureKind,
    MetricContext,
    Sample,
    Score,
    TaskOptions,
    batch_values,
    render_extracted,
)
from svgeval.tasks.messages import png_bytes
from svgeval.tasks.svgenius.img2svg import released_mse
from svgeval.tasks.svgenius.scoring import ReferenceRenders
from svgeval.tasks.vectorgym import prompts
from svgeval.tasks.vectorgym.base import VectorGymOptions, VectorGymTask, extract_last_svg
from svgeval.tasks.vectorgym.data import VectorGymRow

RENDER = RenderSpec.square(512, background="white")
WHITE: FloatImage = np.ones((512, 512, 3))
LPIPS_SIZE = 384
WORST: Mapping[str, float] = {
    "mse": 1.0, "mse_rgb": 1.0, "ssim": 0.0, "lpips": 1.0, "lpips_standard": 1.0, "dino": 0.0,
    "clip": 0.0,
}
"""The ``_worst`` reading's value of a failed answer (ours): the bound of each metric's usual
range on the bad side (MSE of pixels in [0, 1]; LPIPS' practical maximum)."""
_JUDGE_FAILED = 0.0


def store(score: Score, name: str, value: float | None, valid: bool,
          worst: Mapping[str, float] = WORST) -> None:
    """Both readings: ``name`` as computed, ``name_worst`` with the failure value
    ``worst[name]``."""
    score.metrics[name] = value
    score.metrics[f"{name}_worst"] = value if valid or value is None else worst[name]


def batched_readings(
    valid: Sequence[bool], scores: list[Score], name: str,
    compute: Callable[[], Sequence[float | None]], worst: Mapping[str, float] = WORST,
) -> None:
    """One model metric over a batch under both readings (see :func:`store`); when it cannot
    run here, record why for every item."""
    values = batch_values(scores, (name, f"{name}_worst"), compute)
    for ok, score, value in zip(valid, scores, values):
        store(score, name, value, ok, worst)


def _readings(*names: str) -> dict[str, str]:
    return {f"{name}{suffix}": metric for name, metric in (
        ("mse", "mse"), ("mse_rgb", "mse"), ("ssim", "ssim"), ("lpips", "lpips"),
        ("lpips_standard", "lpips"), ("dino", "dino"), ("clip", "clip_score"),
    ) if name in names for suffix in ("", "_worst")}


@dataclass(frozen=True)
class GenerationOptions(VectorGymOptions):
    """``--set`` options of the SVG-answering VectorGym tasks."""

    lpips: Literal["released", "standard"] = field(
        default="released", metadata={"help": "which LPIPS input convention the lpips key holds "
                                      "(both are always reported: lpips, lpips_standard)"})


class VectorGymGenerationTask(VectorGymTask):
    """Base of Sketch2SVG, editing and Text2SVG."""

    Options = GenerationOptions
    judge_metrics = ("judge",)
    judge_sees_images = True
    batched_metrics: ClassVar[tuple[str, ...]] = ("lpips", "lpips_standard", "dino")
    metrics: ClassVar[Mapping[str, str]] = {
        **_readings("mse", "mse_rgb", "ssim", "lpips", "lpips_standard", "dino"),
        "judge": "vlm_judge", "judged_share": "judged_share",
    }

    def __init__(self, options: TaskOptions) -> None:
        super().__init__(options)
        self._references = ReferenceRenders(spec=RENDER)

    def sample(self, sample_id: str, row: VectorGymRow, messages: list[Any], reference: str,
               caption: str, input_svg: str | None = None) -> Sample:
        """A sample whose answer is ``reference`` (what the oracle says)."""
        return Sample(id=sample_id, group=self.settings.split, messages=messages,
                      reference=reference, input_svg=input_svg,
                      target={"reference": reference, "caption": caption})

    def judge_images(self, reference: bytes, output: bytes) -> list[bytes]:
        return [reference, output]

    def draw(self, svg: str, renderer: Renderer) -> FloatImage | None:
        return renderer.render(svg, RENDER).image

    def score(self, sample: Sample, response: str, renderer: Renderer) -> Score:
        reference = self._references.get(sample.target["reference"], renderer)
        if reference.image is None:
            return Score(failure=Failure.of_render(reference, FailureKind.REFERENCE))
        score, output = render_extracted(extract_last_svg(response), renderer, RENDER)
        drawn = output if output is not None else WHITE
        for name, value in (("mse", released_mse(drawn, reference.image)),
                            ("mse_rgb", mse(drawn, reference.image)),
                            ("ssim", ssim(drawn, reference.image))):
            store(score, name, value, output is not None)
        if output is None:
            score.metrics["judge"] = _JUDGE_FAILED
        else:
            images = self.judge_images(png_bytes(reference.image), png_bytes(output))
            score.judge_requests.append(self.judge_request(sample.target["caption"], images))
        return score

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[Score]:
        drawn = [self.draw(item.output_svg, context.renderer) for item in items]
        valid = [item.output_svg != BLANK_SVG and image is not None
                 for item, image in zip(items, drawn)]
        outputs = [image if image is not None else WHITE for image in drawn]
        references = [
            image if (image := self._references.get(item.sample.target["reference"],
                                                    context.renderer).image) is not None
            else WHITE
            for item in items
        ]
        options: dict[str, Any] = {"batch_size": context.batch_size, "device": context.device,
                                   "preset": "vectorgym"}
        scores = [Score() for _ in items]
        first, second = ("imagenet", "standard")
        if self.settings.lpips == "standard":
            first, second = second, first
        for name, mode in (("lpips", first), ("lpips_standard", second)):
            batched_readings(valid, scores, name, functools.partial(
                lpips, outputs, references, normalization=mode, size=LPIPS_SIZE, **options))
        batched_readings(valid, scores, "dino", lambda: dino(outputs, references, **options))
        self.more_batched(items, valid, outputs, scores, options)
        return scores

    def more_batched(self, items: Sequence[BatchItem], valid: Sequence[bool],
                     outputs: Sequence[FloatImage], scores: list[Score],
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

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample:
        messages = prompts.generation_message("sketch", prompts.SKETCH_PROMPT,
                                              self.settings.prompt, row.sketch_png)
        return self.sample(sample_id, row, messages, str(row.original_svg), "")


@register_task
class VectorGymEdit(VectorGymGenerationTask):
    """``original_svg`` + ``editing_prompt`` -> SVG; the reference is ``editing_target_svg``."""

    name = "vectorgym-edit"
    description = "VectorGym editing: expert multi-step SVG edits (MSE, SSIM, LPIPS, DINO, judge)"
    kind = "edit"

    def keep(self, row: VectorGymRow) -> bool:
        target = row.editing_target_svg
        return (row.has_svg and bool(row.editing_prompt) and isinstance(target, str)
                and "<svg" in target.lower())

    def row_id(self, row: VectorGymRow) -> str:
        index = row.editing_annotation_index
        return row.svg_id if index is None else f"{row.svg_id}/{index}"

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample:
        prompt = prompts.EDIT_PROMPT.format(instruction=row.editing_prompt, svg=row.original_svg)
        messages = prompts.generation_message("edit", prompt, self.settings.prompt)
        return self.sample(sample_id, row, messages, str(row.editing_target_svg),
                           str(row.editing_prompt), input_svg=row.original_svg)


@register_task
class VectorGymText(VectorGymGenerationTask):
    """``text_caption`` -> SVG; the reference is ``original_svg``."""

    name = "vectorgym-text"
    description = "VectorGym Text2SVG: a caption to SVG (CLIP, MSE, SSIM, LPIPS, DINO, judge)"
    kind = "text"
    batched_metrics = (*VectorGymGenerationTask.batched_metrics, "clip")
    metrics: ClassVar[Mapping[str, str]] = {
        **VectorGymGenerationTask.metrics, **_readings("clip")}

    def keep(self, row: VectorGymRow) -> bool:
        return row.has_svg and bool(row.text_caption)

    def make_sample(self, sample_id: str, row: VectorGymRow) -> Sample:
        prompt = prompts.TEXT_PROMPT.format(caption=row.text_caption)
        messages = prompts.generation_message("text", prompt, self.settings.prompt)
        return self.sample(sample_id, row, messages, str(row.original_svg), str(row.text_caption))

    def judge_images(self, reference: bytes, output: bytes) -> list[bytes]:
        return [output]

    def more_batched(self, items: Sequence[BatchItem], valid: Sequence[bool],
                     outputs: Sequence[FloatImage], scores: list[Score],
                     options: dict[str, Any]) -> None:
        captions = [item.sample.target["caption"] for item in items]
        batched_readings(valid, scores, "clip", lambda: clip_score(outputs, captions, **options))
