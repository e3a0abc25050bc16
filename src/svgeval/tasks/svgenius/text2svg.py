"""SVGenius text-to-SVG: draw an icon from its caption (paper appendix E.1, Table 10).

Metrics per tier: ``pss`` (Path Structure Similarity to the ground truth, x 100) per sample, and
in the batched metric stage ``clip`` (CLIP score x 100, ViT-L/14 unclamped, the svgenius
preset), ``aes`` (LAION aesthetic predictor), ``hps`` (HPS v2.1 x 100) and ``rclip``
(formula (1): 100 x (1 - max(0, (CLIP(c, GT) - CLIP(c, GEN)) / CLIP(c, GT)))). Both readings
of :mod:`svgeval.tasks.svgenius.generation_task`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from svgeval.metrics.clip import aesthetic, clip_score, rclip_from_scores
from svgeval.metrics.hps import hps
from svgeval.svg.render import FloatImage
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Score
from svgeval.tasks.svgenius import prompts
from svgeval.tasks.svgenius.data import TaskFile
from svgeval.tasks.svgenius.generation_task import (
    CaptionItem,
    SvgeniusGenerationTask,
    batched,
)

_READINGS = ("", "_all")


@register_task
class SvgeniusText2Svg(SvgeniusGenerationTask):
    """Generate a path-only SVG icon from a caption."""

    name = "svgenius-text2svg"
    description = "SVGenius text-to-SVG: CLIP, aesthetic, HPS, rCLIP and PSS of generated icons"
    task_file = "text2svg"
    metrics: ClassVar[Mapping[str, str]] = {
        f"{name}{reading}": metric
        for name, metric in (
            ("clip", "clip_score"), ("aes", "aesthetic"), ("hps", "hps"), ("rclip", "rclip"),
            ("pss", "pss"), ("fid", "fid"), ("clip_fid", "clip_fid"),
        )
        for reading in _READINGS
    }
    batched_metrics = ("clip", "aes", "hps", "rclip")

    def make_sample(self, sample_id: str, task_file: TaskFile[CaptionItem], item: CaptionItem) -> (
        Sample
    ):
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=prompts.user_message(prompts.TEXT_TO_SVG.format(prompt=item.caption)),
            reference=f"Answer: {item.answer}",
            target={"caption": item.caption, "answer": item.answer},
        )

    def pixel_metrics(self, output: FloatImage, reference: FloatImage) -> dict[str, float]:
        return {}

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[Score]:
        scores, outputs, references, options = self.batch_context(items, context)
        captions = [item.sample.target["caption"] for item in items]
        clip_of_outputs = functools.cache(lambda: clip_score(outputs, captions, **options))
        batched(items, scores, "clip", clip_of_outputs)
        batched(items, scores, "rclip", lambda: rclip_from_scores(
            clip_score(references, captions, **options), clip_of_outputs()))
        batched(items, scores, "aes", lambda: aesthetic(outputs, **options))
        batched(items, scores, "hps", lambda: hps(outputs, captions, **options))
        return scores
