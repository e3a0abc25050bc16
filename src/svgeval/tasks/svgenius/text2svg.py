"""SVGenius text-to-SVG: draw an icon from its caption (paper appendix E.1, Table 10).

Metrics per tier: ``pss`` (Path Structure Similarity to the ground truth, x 100) per sample, and
in the batched metric stage ``clip`` (CLIP score x 100, ViT-L/14 unclamped, the svgenius
preset), ``aes`` (LAION aesthetic predictor), ``hps`` (HPS v2.1 x 100) and ``rclip``
(formula (1): 100 x (1 - max(0, (CLIP(c, GT) - CLIP(c, GEN)) / CLIP(c, GT)))). Both readings
of :mod:`svgeval.tasks.svgenius.generation_task`. Beyond the paper: ``svgauge`` with its parts
``svgauge_si`` and ``svgauge_st`` (:mod:`svgeval.metrics.svgauge`, TF-IDF fitted on the
captions of the run), computed once a projection is given
(``--model-path svgauge_projection=FILE``), and the generation statistics of SVGauge Table 1.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar

from svgeval.metrics.clip import aesthetic, clip_score, rclip_from_scores
from svgeval.metrics.generation_stats import GENERATION_STATS_METRICS
from svgeval.metrics.hps import hps
from svgeval.metrics.svgauge import SvgaugeResult, load_projection_file, svgauge
from svgeval.render.cairo import RenderSpec
from svgeval.render.picture import FloatImage
from svgeval.tasks import register_task
from svgeval.tasks.base import BatchItem, MetricContext, Sample
from svgeval.tasks.common import Drawing
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
class SvgeniusText2Svg(SvgeniusGenerationTask):
    """Generate a path-only SVG icon from a caption."""

    name = "svgenius-text2svg"
    description = "SVGenius text-to-SVG: CLIP, aesthetic, HPS, rCLIP and PSS of generated icons"
    task_file = "text2svg"
    metrics: ClassVar[Mapping[str, str]] = READINGS.keys({
        "clip": "clip_score", "aes": "aesthetic", "hps": "hps", "rclip": "rclip", "pss": "pss",
        "fid": "fid", "clip_fid": "clip_fid", "svgauge": "svgauge", "svgauge_si": "svgauge_si",
        "svgauge_st": "svgauge_st",
    }) | GENERATION_STATS_METRICS
    # has_svg only asks for SVG code in the answer, which the hostile answers hold
    degenerate: ClassVar[Mapping[str, frozenset[str]]] = {"hostile": frozenset({"has_svg"})}
    batched_metrics = ("clip", "aes", "hps", "rclip", "svgauge")
    _captions: tuple[str, ...] = ()

    def load(self) -> list[Sample]:
        samples = super().load()
        self._captions = tuple(sample.target.caption for sample in samples)
        return samples

    def make_sample(self, sample_id: str, task_file: TaskFile[CaptionItem], item: CaptionItem) -> (
        Sample
    ):
        return Sample(
            id=sample_id,
            group=task_file.group,
            messages=prompts.user_message(prompts.TEXT_TO_SVG.format(prompt=item.caption)),
            reference=f"Answer: {item.answer}",
            target=CaptionTarget(caption=item.caption, answer=item.answer),
        )

    def pixel_metrics(self, output: FloatImage, reference: FloatImage) -> dict[str, float]:
        return {}

    def batch_score(self, items: Sequence[BatchItem], context: MetricContext) -> list[MetricValues]:
        scores, outputs, references, options = self.batch_context(items, context)
        captions = [item.sample.target.caption for item in items]
        clip_of_outputs = functools.cache(lambda: clip_score(outputs, captions, **options))
        self.batched(items, scores, "clip", clip_of_outputs)
        self.batched(items, scores, "rclip", lambda: rclip_from_scores(
            clip_score(references, captions, **options), clip_of_outputs()))
        self.batched(items, scores, "aes", lambda: aesthetic(outputs, **options))
        self.batched(items, scores, "hps", lambda: hps(outputs, captions, **options))
        gauge = functools.cache(lambda: self._svgauge(items, captions, context))
        self.batched(items, scores, "svgauge", lambda: gauge().score)
        self.batched(items, scores, "svgauge_si", lambda: gauge().s_i)
        self.batched(items, scores, "svgauge_st", lambda: gauge().s_t)
        return scores

    def _svgauge(self, items: Sequence[BatchItem], captions: list[str],
                 context: MetricContext) -> SvgaugeResult:
        """SVGauge of the batch, renders drawn at the projection's size; TF-IDF fitted on every
        caption of the run."""
        drawing = Drawing(RenderSpec.square(
            load_projection_file(model_settings=context.model_settings).render_size,
            background="white"))
        return svgauge(captions,
                       drawing.draw_all([item.sample.target.answer for item in items],
                                        context.renderer),
                       drawing.draw_all([item.output_svg for item in items], context.renderer),
                       corpus=self._captions or captions, **context.keywords())
