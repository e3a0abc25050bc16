"""SVGenius image-to-SVG: draw an icon from its picture and caption (paper appendix E.2).

The model receives the released PNG of the ground truth as a base64 data URL after the prompt.
Metrics per tier, from 224 px renders on white:

* ``mse``: the released ``compute_mse.py``, which compares the renders as read back from
  CairoSVG's PNG, i.e. RGBA with an opaque alpha channel: the mean over four channels, 3/4 of
  the RGB mean squared error. The paper mentions a "boundary-aware weighting"; the released
  code has none, and we follow the code. ``mse_rgb`` is the plain RGB mean squared error.
* ``ssim`` (scikit-image, the svgenius preset) and ``pss`` per sample; ``lpips`` (VGG, the
  released ImageNet normalisation) and ``dino`` (DINOv2-base) in the batched metric stage.

Both readings of :mod:`svgeval.tasks.svgenius.generation_task`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from svgeval.metrics.dino import dino
from svgeval.metrics.generation_stats import GENERATION_STATS_METRICS
from svgeval.metrics.lpips import lpips
from svgeval.metrics.pixel import mse, opaque_rgba_mse, ssim
from svgeval.render.picture import FloatImage
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample
from svgeval.tasks.data_files import MalformedData
from svgeval.tasks.outcome import MetricValues
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.data import TaskFile
from svgeval.tasks.svgenius.generation_task import (
    CaptionItem,
    CaptionTarget,
    SvgeniusGenerationTask,
)
from svgeval.tasks.svgenius.protocol import READINGS


@register_task
class SvgeniusImg2Svg(SvgeniusGenerationTask):
    """Generate a path-only SVG icon from a picture and its caption."""

    name = "svgenius-img2svg"
    description = "SVGenius image-to-SVG: LPIPS, SSIM, DINO, MSE and PSS against the ground truth"
    task_file = "img2svg"
    metrics: ClassVar[Mapping[str, str]] = READINGS.keys({
        "mse": "mse", "mse_rgb": "mse", "ssim": "ssim", "lpips": "lpips", "dino": "dino",
        "pss": "pss", "fid": "fid", "clip_fid": "clip_fid",
    }) | GENERATION_STATS_METRICS
    # has_svg only asks for SVG code in the answer, which the hostile answers hold
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {"hostile": frozenset({"has_svg"})}
    batched_metrics = ("lpips", "dino")

    def make_sample(self, sample_id: str, task_file: TaskFile[CaptionItem], item: CaptionItem) -> (
        Sample
    ):
        png = _image_path(task_file, item)
        if not png.is_file():
            raise MalformedData(f"{task_file.path}: {sample_id}: image {png} does not exist")
        prompt = prompts.IMAGE_TO_SVG.format(prompt=item.caption)
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=prompts.user_message(prompt, [png.read_bytes()]),
            reference=f"Answer: {item.answer}",
            target=CaptionTarget(caption=item.caption, answer=item.answer),
        )

    def pixel_metrics(self, output: FloatImage, reference: FloatImage) -> dict[str, float]:
        return {
            "mse": opaque_rgba_mse(output, reference),
            "mse_rgb": mse(output, reference),
            "ssim": ssim(output, reference),
        }

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[MetricValues]:
        scores, outputs, references, options = self.batch_context(items, context)
        self.batched(items, scores, "lpips", lambda: lpips(outputs, references, **options))
        self.batched(items, scores, "dino", lambda: dino(outputs, references, **options))
        return scores


def _image_path(task_file: TaskFile[CaptionItem], item: CaptionItem) -> Path:
    """Released records name ``../../../data/<tier>/process/<icon>.png``; custom ones a path
    relative to their file."""
    if task_file.icons is not None:
        return task_file.icons / Path(item.image).name
    return task_file.path.parent / item.image
