"""What the SVGenius generation tasks share: their data, reference renders, failure readings.

Text-to-SVG and image-to-SVG read one caption file per tier (``question``: the caption, a
one-element list in the release; ``answer``: the ground-truth SVG; ``image``: its PNG). The
answer is extracted with the released rule (:mod:`svgeval.svg.extract`), rendered at 224 px on
white and compared with the ground truth's render.

Two readings of every metric, as for the editing tasks:

* ``<metric>``: the released protocol. An answer with no SVG to extract is left out; an
  extracted SVG that does not render is drawn as a white canvas and counted (the released
  ``rasterize_svg`` falls back to a white image).
* ``<metric>_all``: every sample; an answer with no SVG is drawn as a white canvas too.

Every sample also carries the generation statistics of SVGauge's Table 1 (``has_svg``,
``valid_svg``, ``blank_render``; :mod:`svgeval.metrics.generation_stats`).

PSS runs inside the render isolation (:meth:`Renderer.call`): it renders every path itself.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from svgeval.metrics.fid import clip_fid, fid
from svgeval.metrics.generation_stats import generation_stats
from svgeval.metrics.pss import InvalidReference, pss
from svgeval.render.isolated import Renderer
from svgeval.render.picture import FloatImage, RenderFailure
from svgeval.svg.extract import Extraction
from svgeval.tasks.base import BatchItem, MetricContext, Sample, Target, distribution_metrics
from svgeval.tasks.common import ImageGenerationTask
from svgeval.tasks.lazy import LazySequence
from svgeval.tasks.outcome import Failure, FailureKind, MetricValues, Outcome
from svgeval.tasks.svgenius.code_task import SvgeniusCodeTask
from svgeval.tasks.svgenius.protocol import DRAWING, READINGS


class CaptionItem(BaseModel):
    """A released generation record (the fields svgeval reads)."""

    question: list[str] | str
    answer: str
    image: str = ""

    @property
    def caption(self) -> str:
        return self.question[0] if isinstance(self.question, list) else self.question


class CaptionTarget(Target):
    """What a generated SVG is compared with: the released SVG and its caption."""

    caption: str
    """The released caption (the text-to-SVG prompt; CLIP's text)."""
    answer: str
    """The released SVG."""

    @property
    def reference_svg(self) -> str:
        """The SVG an answer's picture is compared with (:class:`DrawnTarget`)."""
        return self.answer


def pss_percent(reference: str, generated: str) -> float | None:
    """PSS x 100 (the papers' scale), None when the reference fails PSS' validity rules; run
    through :meth:`Renderer.call`."""
    try:
        return pss(reference, generated, percent=True)
    except InvalidReference:
        return None


class SvgeniusGenerationTask(ImageGenerationTask[CaptionTarget], SvgeniusCodeTask):
    """Base of text-to-SVG and image-to-SVG.

    Set-level metrics per tier, as the released ``calculate_batch_fid``: ``fid`` (Inception v3)
    and ``clip_fid`` (CLIP ViT-B/32) between the output renders and the ground-truth renders,
    over the samples of the paper's reading, and ``fid_all``/``clip_fid_all`` over every
    sample (a failure drawn as a white canvas).
    """

    item_type = CaptionItem
    set_metrics = ("fid", "clip_fid")
    drawing = DRAWING

    @abstractmethod
    def pixel_metrics(self, output: FloatImage, reference: FloatImage) -> dict[str, float]:
        """The per-sample image metrics of a render against the reference render."""

    def score_picture(self, score: Outcome, sample: Sample, answer: Extraction,
                      picture: FloatImage | None, reference: FloatImage,
                      renderer: Renderer) -> None:
        in_paper = answer.svg is not None
        score.metrics.update(generation_stats(in_paper, picture))
        output = self.drawing.stand_in(picture)
        for name, value in self.pixel_metrics(output, reference).items():
            READINGS.put(score, name, value, in_paper)
        self._score_pss(score, self.reference_svg(sample), answer.svg, renderer)

    def _score_pss(
        self, score: Outcome, reference: str, generated: str | None, renderer: Renderer
    ) -> None:
        if generated is None:
            READINGS.put(score, "pss", 0.0, False)
            return
        outcome = renderer.call(pss_percent, reference, generated)
        if outcome is None:
            score.failure = Failure(
                kind=FailureKind.REFERENCE, reason="pss", detail="the ground truth fails PSS' rules"
            )
            READINGS.put(score, "pss", None, True)
            return
        # an SVG whose PSS hangs or crashes the worker is as invalid as one PSS refuses: 0
        READINGS.put(score, "pss", 0.0 if isinstance(outcome, RenderFailure) else outcome, True)

    def set_score(
        self, groups: Mapping[str, Sequence[BatchItem]], context: MetricContext
    ) -> MetricValues:
        score = MetricValues()
        for group, items in groups.items():
            drawn = self.drawn_group(items, context.renderer)
            readings = {
                "": [i for i, item in enumerate(items) if item.in_paper_reading],
                READINGS.suffix: list(range(len(items))),
            }
            for reading, picked in readings.items():
                distribution_metrics(score, f"{group}/{{}}{reading}",
                                     {"fid": fid, "clip_fid": clip_fid},
                                     LazySequence(picked, drawn.references.__getitem__),
                                     LazySequence(picked, drawn.outputs.__getitem__),
                                     **context.keywords())
        return score

    def batch_context(self, items: Sequence[BatchItem], context: MetricContext) -> tuple[
        list[MetricValues], Sequence[NDArray[np.uint8]], Sequence[NDArray[np.uint8]], dict[str, Any]
    ]:
        """Empty scores, output renders, reference renders and the metric keyword arguments."""
        drawn = self.drawn(items, context.renderer)
        return ([MetricValues() for _ in items], drawn.outputs, drawn.references,
                self.metric_options(context))

    def batched(self, items: Sequence[BatchItem], scores: list[MetricValues], name: str,
                compute: Callable[[], Sequence[float | None]]) -> None:
        """One model metric over a batch under both readings."""
        READINGS.put_batch(scores, [item.in_paper_reading for item in items], name, compute)
